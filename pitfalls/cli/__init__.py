"""The `pitfalls` command line: a Typer app over the registry and the runner.

Heavy modules (torch, textual) are never imported here; each command imports what it needs.
"""

from __future__ import annotations

from pitfalls import _startup  # first: garbage collection tuned for the startup

# isort: split
import os
import sys
from collections.abc import Callable
from typing import Any, Optional

import typer

from pitfalls._version import __version__
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
# The app with its callback; the commands are registered on first use of `app` (see below).
_app = typer.Typer(**APP_SETTINGS)


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"pitfalls {__version__}\n")
        raise typer.Exit(0)


@_app.callback(invoke_without_command=True)
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
        # lazy: each command's module is imported only when that command runs
        from pitfalls.cli.tui_entry import should_open_tui

        if should_open_tui():
            # lazy: each command's module is imported only when that command runs
            from pitfalls.cli.tui_entry import open_tui

            open_tui(lang)
            raise typer.Exit(0)
        typer.echo(ctx.get_help())
        raise typer.Exit(0)


READ = "Read"
RUN = "Run"
AUTHOR = "Author"
CHECK = "Check your code"


COMMAND_NAMES = (
    "list",
    "show",
    "search",
    "run",
    "verify",
    "doctor",
    "trace",
    "check",
    "lint",
    "new",
    "tui",
)


def _command(name: str) -> tuple[Callable[..., Any], dict[str, Any]]:
    """One command's function and keyword arguments of `Typer.command`, importing only the
    module that defines it."""
    if name in ("list", "show", "search"):
        # lazy: each command's module is imported only when that command runs
        from pitfalls.cli import browse

        functions = {"list": browse.list_recipes, "show": browse.show, "search": browse.search}
        return functions[name], {"rich_help_panel": READ}
    if name in ("run", "verify"):
        # lazy: each command's module is imported only when that command runs
        from pitfalls.cli import execute

        return getattr(execute, name), {"rich_help_panel": RUN, "epilog": EXIT_CODES_HELP}
    if name == "doctor":
        # lazy: each command's module is imported only when that command runs
        from pitfalls.cli import doctor

        return doctor.doctor, {"rich_help_panel": RUN}
    if name == "trace":
        # lazy: each command's module is imported only when that command runs
        from pitfalls.cli import trace_cmd

        return trace_cmd.trace, {
            "rich_help_panel": RUN,
            "epilog": trace_cmd.TRACE_HELP_EPILOG,
            "context_settings": {"allow_interspersed_args": False},
        }
    if name == "check":
        # lazy: each command's module is imported only when that command runs
        from pitfalls.cli.check import CHECK_EXIT_CODES, check

        return check, {"rich_help_panel": CHECK, "epilog": CHECK_EXIT_CODES}
    if name in ("lint", "new"):
        # lazy: each command's module is imported only when that command runs
        from pitfalls.cli import authoring

        return getattr(authoring, name), {"rich_help_panel": AUTHOR}
    if name == "tui":
        # lazy: each command's module is imported only when that command runs
        from pitfalls.cli import tui_entry

        return tui_entry.tui, {"rich_help_panel": READ}
    raise KeyError(name)


_registered = False


def _full_app() -> typer.Typer:
    """The app with every command registered (help, errors, tests)."""
    global _registered
    if not _registered:
        _registered = True
        for name in COMMAND_NAMES:
            function, options = _command(name)
            _app.command(name, **options)(function)
    return _app


def __getattr__(name: str) -> Any:
    # `from pitfalls.cli import app`: the whole app, its command modules imported on demand.
    if name == "app":
        return _full_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _app_for(argv: list[str]) -> typer.Typer:
    """The app to run: with only the command being invoked, when there is one.

    Typer builds every registered command's parameters (each through pydantic) before it
    dispatches, and each command's module costs its imports; a one-command app pays for that
    command alone. `pitfalls --help`, a bare `pitfalls` and unknown words get the whole app,
    so help and errors list everything.
    """
    words = iter(argv)
    for word in words:
        if word in ("--lang", "-l"):
            next(words, None)
            continue
        if word.startswith("-"):
            if word in ("--help", "-h"):
                return _full_app()
            continue
        if word in COMMAND_NAMES:
            function, options = _command(word)
            single = typer.Typer(**APP_SETTINGS)
            single.callback(invoke_without_command=True)(_root)
            single.command(word, **options)(function)
            return single
        return _full_app()
    return _full_app()


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
        _startup.prefetch(sys.argv[1:])  # done already when started by __main__
        _app_for(sys.argv[1:])(prog_name="pitfalls")
    except KeyboardInterrupt:
        interrupted()
    except BrokenPipeError:
        _quiet_broken_pipe()
    finally:
        if STATE.prestarted is not None:  # the command never needed it
            STATE.prestarted.close()
        _startup.end_prefetch()


def interrupted() -> None:
    """Say "Interrupted." in the user's language and exit 130."""
    # lazy: the string tables only when a message is printed
    from pitfalls.i18n import choose_language, t

    sys.stderr.write(f"\npitfalls: {t('err.interrupted', choose_language(STATE.lang))}\n")
    sys.exit(130)


def _quiet_broken_pipe(code: int = 0) -> None:
    # Python would print "Exception ignored ... BrokenPipeError" at shutdown when it flushes
    # stdout again; pointing stdout at /dev/null first keeps `pitfalls list | head` quiet.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    sys.exit(code)
