"""`python -m hymem_cli` runs the CLI."""

from hymem_cli.app import main

main()
