"""One module per command; each parses, calls the core, and renders through _output."""
