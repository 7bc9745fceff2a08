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

APP_SETTINGS = {
    "name": "pitfalls",
    "help": (
        "Learn PyTorch pitfalls by watching them happen: read why `.data` corrupts gradients, "
        "then run the snippet that shows it and the fix, on your own device and torch.\n\n"
        "Start with `pitfalls list`, `pitfalls show detach` or `pitfalls run focal-loss`.\n\n"
        + EXIT_CODES_HELP
    ),
    "no_args_is_help": False,
    "add_completion": True,
    "rich_markup_mode": None,
    "context_settings": {"help_option_names": ["-h", "--help"]},
}
app = typer.Typer(**APP_SETTINGS)


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


def _commands() -> list[tuple[str, object, dict]]:
    """Every command: (name, function, keyword arguments of `Typer.command`)."""
    from pitfalls.cli import authoring, trace_cmd, tui_entry
    from pitfalls.cli.check import CHECK_EXIT_CODES, check

    return [
        ("list", browse.list_recipes, {"rich_help_panel": READ}),
        ("show", browse.show, {"rich_help_panel": READ}),
        ("search", browse.search, {"rich_help_panel": READ}),
        ("run", execute.run, {"rich_help_panel": RUN, "epilog": EXIT_CODES_HELP}),
        ("verify", execute.verify, {"rich_help_panel": RUN, "epilog": EXIT_CODES_HELP}),
        ("doctor", doctor.doctor, {"rich_help_panel": RUN}),
        (
            "trace",
            trace_cmd.trace,
            {
                "rich_help_panel": RUN,
                "epilog": trace_cmd.TRACE_HELP_EPILOG,
                "context_settings": {"allow_interspersed_args": False},
            },
        ),
        ("check", check, {"rich_help_panel": CHECK, "epilog": CHECK_EXIT_CODES}),
        ("lint", authoring.lint, {"rich_help_panel": AUTHOR}),
        ("new", authoring.new, {"rich_help_panel": AUTHOR}),
        ("tui", tui_entry.tui, {"rich_help_panel": READ}),
    ]


COMMANDS = _commands()
for _name, _function, _options in COMMANDS:
    app.command(_name, **_options)(_function)


def _app_for(argv: list[str]) -> typer.Typer:
    """The app to run: with only the command being invoked, when there is one.

    Typer builds every registered command's parameters (each through pydantic) before it
    dispatches; a one-command app pays for that command alone. `pitfalls --help`, a bare
    `pitfalls` and unknown words get the whole app, so help and errors list everything.
    """
    words = iter(argv)
    for word in words:
        if word in ("--lang", "-l"):
            next(words, None)
            continue
        if word.startswith("-"):
            if word in ("--help", "-h"):
                return app
            continue
        for name, function, options in COMMANDS:
            if name == word:
                single = typer.Typer(**APP_SETTINGS)
                single.callback(invoke_without_command=True)(_root)
                single.command(name, **options)(function)
                return single
        return app
    return app


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
        _app_for(sys.argv[1:])(prog_name="pitfalls")
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
