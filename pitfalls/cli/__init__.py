"""The `pitfalls` command line: a Typer app over the registry and the runner.

Heavy modules (torch, textual) are never imported here; each command imports what it needs.
"""

from __future__ import annotations

import os
import sys
from typing import Optional

import typer

from pitfalls import __version__
from pitfalls.cli import browse, doctor, execute
from pitfalls.cli.common import STATE, prestart_runner

EXIT_CODES_HELP = """
Exit codes: 0 success (for run: the pitfall reproduced and the fix held); 1 a claim did not
hold on this device and torch (or nothing matched a search); 2 usage error (unknown recipe,
bad option); 3 the requested device or torch is not available; 4 the snippet failed (it
raised, crashed, was killed or timed out); 130 interrupted.
"""

app = typer.Typer(
    name="pitfalls",
    help=(
        "Learn PyTorch pitfalls by watching them happen: read why `.data` corrupts gradients, "
        "then run the snippet that shows it and the fix, on your own device and torch.\n\n"
        "Start with `pitfalls list`, `pitfalls show detach` or `pitfalls run focal-loss`.\n\n"
        + EXIT_CODES_HELP
    ),
    no_args_is_help=False,
    add_completion=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"pitfalls {__version__}\n")
        raise typer.Exit(0)


@app.callback(invoke_without_command=True)
def _root(
    ctx: typer.Context,
    lang: Optional[str] = typer.Option(
        None,
        "--lang",
        "-l",
        help="Language for everything the tool prints: en or zh "
        "[default: PITFALLS_LANG, LANGUAGE, LC_ALL, LC_MESSAGES, LANG].",
        show_default=False,
    ),
    version: bool = typer.Option(
        False, "--version", "-V", callback=_version, is_eager=True, help="Print the version."
    ),
) -> None:
    STATE.lang = lang
    STATE._registry = None
    if ctx.invoked_subcommand is None:
        from pitfalls.cli.tui_entry import should_open_tui

        if should_open_tui():
            from pitfalls.cli.tui_entry import open_tui

            open_tui(lang)
            raise typer.Exit(0)
        typer.echo(ctx.get_help())
        raise typer.Exit(0)


READ = "Read"
RUN = "Run"
AUTHOR = "Author"
CHECK = "Check your code"

app.command("list", rich_help_panel=READ)(browse.list_recipes)
app.command("show", rich_help_panel=READ)(browse.show)
app.command("search", rich_help_panel=READ)(browse.search)
app.command("run", rich_help_panel=RUN, epilog=EXIT_CODES_HELP)(execute.run)
app.command("verify", rich_help_panel=RUN, epilog=EXIT_CODES_HELP)(execute.verify)
app.command("doctor", rich_help_panel=RUN)(doctor.doctor)


def _register_optional_commands() -> None:
    """Commands whose modules may grow: kept apart so each stays small."""
    from pitfalls.cli import authoring, trace_cmd, tui_entry

    app.command("lint", rich_help_panel=AUTHOR)(authoring.lint)
    app.command("new", rich_help_panel=AUTHOR)(authoring.new)
    app.command("tui", rich_help_panel=READ)(tui_entry.tui)
    from pitfalls.cli.check import CHECK_EXIT_CODES, check

    app.command("check", rich_help_panel=CHECK, epilog=CHECK_EXIT_CODES)(check)
    app.command(
        "trace",
        rich_help_panel=RUN,
        epilog=trace_cmd.TRACE_HELP_EPILOG,
        context_settings={"allow_interspersed_args": False},
    )(trace_cmd.trace)


_register_optional_commands()


def _ascii_safe_streams() -> None:
    """Escape what the output encoding cannot show (say, Chinese under PYTHONIOENCODING=ascii)
    instead of crashing with UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None) or "ascii"
        try:
            "中✓".encode(encoding)
        except (UnicodeEncodeError, LookupError):
            try:
                stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
            except (AttributeError, ValueError):
                pass


def main() -> None:
    """Console entry point: runs the app, turning a closed pipe and Ctrl-C into quiet exits."""
    _ascii_safe_streams()
    try:
        prestart_runner(sys.argv[1:])
        app(prog_name="pitfalls")
    except KeyboardInterrupt:
        interrupted()
    except BrokenPipeError:
        _quiet_broken_pipe()
    finally:
        if STATE.prestarted is not None:  # the command never needed it
            STATE.prestarted.close()


def interrupted() -> None:
    """Say "Interrupted." in the user's language and exit 130."""
    from pitfalls.i18n import choose_language, t

    sys.stderr.write(f"\npitfalls: {t('err.interrupted', choose_language(STATE.lang))}\n")
    sys.exit(130)


def _quiet_broken_pipe(code: int = 0) -> None:
    # Python would print "Exception ignored ... BrokenPipeError" at shutdown when it flushes
    # stdout again; pointing stdout at /dev/null first keeps `pitfalls list | head` quiet.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    sys.exit(code)
