"""hymem: a local, inspectable long-term memory bank written by a memory-writer LLM."""

__version__ = "0.1.0"
