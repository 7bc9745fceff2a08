"""What every command shares: the language, plain or rich output, errors and the registry."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NoReturn

import typer

from pitfalls.i18n import SUPPORTED, choose_language, t

if TYPE_CHECKING:
    from rich.console import Console

    from pitfalls.catalogue.model import Recipe
    from pitfalls.catalogue.registry import Registry
    from pitfalls.runner import ProcessPool


@dataclass
class State:
    """Per-invocation settings, filled by the top-level callback."""

    lang: str | None = None
    _registry: Registry | None = field(default=None, repr=False)
    # A fork server started before argument parsing, for `run` and `verify` (see prestart).
    prestarted: ProcessPool | None = field(default=None, repr=False)


STATE = State()

# Every command takes --lang too, so that `pitfalls show X --lang zh` reads naturally.
LANG_OPTION = typer.Option(None, "--lang", "-l", help="Language: en or zh.", show_default=False)


def language(explicit: str | None = None) -> str:
    """The language for this command: --lang on the command, then on the tool, then env."""
    chosen = explicit or STATE.lang
    if chosen and chosen not in SUPPORTED:
        fail(t("err.bad_lang", "en", name=chosen), 2)
    return choose_language(chosen)


def plain_output() -> bool:
    """Plain, tab-separated output: when piped, with NO_COLOR, or on a dumb terminal."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return True
    return not sys.stdout.isatty()


def console(stderr: bool = False) -> Console:
    """A rich console; colour and width follow the terminal."""
    # lazy: rendering (and Rich) only when printing for a terminal
    from pitfalls.render import results

    return results.console(stderr)


def echo(text: str = "") -> None:
    """Print one line to stdout."""
    sys.stdout.write(text + "\n")


def warn(text: str) -> None:
    """Print one line to stderr."""
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def read_stdin() -> str:
    """All of stdin as text; bytes the encoding cannot decode become U+FFFD (a strict
    PYTHONIOENCODING must not turn a pasted log into a traceback). Exits 2 when stdin is
    closed."""
    stream = sys.stdin
    if stream is None:
        fail("stdin is closed: pipe the text in, or name a file", 2)
    buffer = getattr(stream, "buffer", None)
    if buffer is None:  # a replaced sys.stdin (tests, embedding) that only has text
        return stream.read()
    return buffer.read().decode(stream.encoding or "utf-8", errors="replace")


def fail(message: str, code: int) -> NoReturn:
    """Print a one-line error to stderr and exit with `code`."""
    warn(f"pitfalls: {message}")
    raise typer.Exit(code)


def interrupted(lang: str) -> NoReturn:
    """Ctrl-C: say so in one line and exit 130 (the caller has ended its processes)."""
    warn(f"\npitfalls: {t('err.interrupted', lang)}")
    raise typer.Exit(130)


def registry(report: bool = True) -> Registry:
    """The loaded catalogue; load problems go to stderr once."""
    # lazy: the catalogue is loaded only by a command that needs recipes
    from pitfalls.catalogue.registry import Registry

    if STATE._registry is None:
        # lazy: start-up state, only where a command began
        from pitfalls._startup import wait_for_catalogue

        wait_for_catalogue()  # a child may be filling the metadata cache: read it, not parse
        STATE._registry = Registry.load()
        if report:
            lang = language()
            for problem in STATE._registry.problems:
                key = "err.load_problem" if problem.severity == "error" else "err.load_warning"
                warn(t(key, lang, path=problem.path, reason=problem.reason))
    return STATE._registry


def resolve(word: str, lang: str) -> Recipe:
    """The recipe named by `word`, or exit 2 with candidates or suggestions."""
    # lazy: the catalogue is loaded only by a command that needs recipes
    from pitfalls.catalogue.registry import ResolveError

    try:
        return registry().resolve(word)
    except ResolveError as err:
        if err.kind == "ambiguous":
            fail(t("err.ambiguous", lang, word=word, names=", ".join(err.candidates)), 2)
        message = t("err.unknown", lang, word=word)
        if err.candidates:
            message += " " + t("err.did_you_mean", lang, names=", ".join(err.candidates))
        else:
            message += " " + t("err.see_list", lang)
        fail(message, 2)


def installed_torch_version() -> str | None:
    """The installed torch's version from package metadata, without importing torch."""
    # lazy: standard library only this path needs, kept off start-up
    from importlib import metadata

    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return None


RUNNING_COMMANDS = ("run", "verify")


def prestart_runner(argv: list[str]) -> None:
    """For `run` and `verify`, launch the torch-importing fork server right away.

    Importing torch takes longer than anything else a run does; starting it before Typer and
    Rich are even imported lets the two overlap. The pool is picked up by the command, and
    closed by `main()` if the command never used it (a usage error, --help).
    """
    words = [w for w in argv if not w.startswith("-")]
    if not words or words[0] not in RUNNING_COMMANDS or {"-h", "--help"} & set(argv):
        return
    python = os.environ.get("PITFALLS_PYTHON") or None
    for index, word in enumerate(argv):
        if word == "--python" and index + 1 < len(argv):
            python = argv[index + 1]
        elif word.startswith("--python="):
            python = word.split("=", 1)[1]
    # lazy: the runner only for what runs snippets
    from pitfalls.runner.process import ProcessPool

    pool = ProcessPool(python=python)
    pool.launch()
    STATE.prestarted = pool


def take_prestarted(python: str | None) -> ProcessPool | None:
    """The pre-started pool, if it was started for this interpreter."""
    pool, STATE.prestarted = STATE.prestarted, None
    if pool is not None and pool.python != (python or sys.executable):
        pool.close()
        return None
    return pool
