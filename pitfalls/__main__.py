"""`python -m pitfalls`, and the `pitfalls` command: run the CLI."""

import sys


def main() -> None:
    """Start parsing a cold catalogue before Typer is imported, then run the CLI."""
    from pitfalls import _startup

    _startup.prefetch(sys.argv[1:])
    from pitfalls.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
