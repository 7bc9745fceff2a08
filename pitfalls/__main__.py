"""`python -m pitfalls` runs the CLI."""

from pitfalls.cli import main

if __name__ == "__main__":
    main()
