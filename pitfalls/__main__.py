"""`python -m pitfalls`, and the `pitfalls` command: run the CLI."""

import sys


def main() -> None:
    """Open the TUI when that is all the command line asks for; otherwise start parsing a
    cold catalogue before Typer is imported, then run the CLI."""
    # lazy: the TUI and Textual only when the TUI opens
    from pitfalls import _startup
    from pitfalls.tui import launch as tui_launch

    try:
        if tui_launch.open_directly(sys.argv[1:]):
            return
    except KeyboardInterrupt:  # as the CLI says it (pitfalls.cli.interrupted)
        # lazy: the string tables only when a message is printed
        from pitfalls.i18n import choose_language, t

        sys.stderr.write(f"\npitfalls: {t('err.interrupted', choose_language(None))}\n")
        sys.exit(130)
    _startup.prefetch(sys.argv[1:])
    # lazy: Typer only after the prefetching child is forked
    from pitfalls.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
