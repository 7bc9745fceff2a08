"""What the command line does before anything else: tune garbage collection, and start a
child that parses a cold catalogue and renders `show`'s page meanwhile. Imported first by
`pitfalls.__main__`, `pitfalls.cli` and `pitfalls.tui`; it imports nothing heavy, so that the
child is forked before Typer is even imported.
"""

from __future__ import annotations

import gc
import os
import sys
from typing import NoReturn

# Starting the CLI allocates a few hundred thousand objects that live until it exits (Typer,
# pydantic's schemas, Rich, Pygments' lexers) and makes little cyclic garbage. With CPython's
# default thresholds the collector walks all of them again and again: some tenth of what a
# first `pitfalls show` costs on the development machine. Collecting the young generation
# every 100,000 allocations instead of every 700 keeps memory bounded and that time saved.
# The TUI (whose start-up is the same story) goes back to the defaults once it has painted
# (`restore_gc`): it runs for hours.
DEFAULT_THRESHOLDS = gc.get_threshold()
CLI_THRESHOLDS = (100_000, 50, 100)
gc.set_threshold(*CLI_THRESHOLDS)


def restore_gc() -> None:
    """Back to the interpreter's thresholds, for a long-running face."""
    gc.set_threshold(*DEFAULT_THRESHOLDS)


READING_COMMANDS = ("list", "show", "search")
# Longer than a cold catalogue and a page take anywhere; past it, the command does the work.
PREFETCH_WAIT = 10.0
CATALOGUE, PAGE = b"c", b"p"  # what the child reports done, in this order


class _Child:
    """The prefetching child: its pid, the pipe it reports on, and what it reported."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid = pid
        self.fd = fd
        self.reported = b""
        self.ended = False


_child: _Child | None = None
_started = False  # whether this process already decided (once per command)


def prefetch(argv: list[str]) -> None:
    """For `list`, `show` and `search`, do in a forked child what the command will need
    while this process starts up (imports Typer, parses its arguments):

    - with a cold cache (right after install, or after the catalogue moved), parse every
      recipe.toml, which fills the metadata cache (and, for `search`, the search indexes);
    - for `show ID` on a terminal, render the page into the page cache.

    The command then reads what the child wrote as any later run would: the same data under
    the same keys, so the same output (tests/test_cache_output.py), and when the child did not
    get there (another key, an error), the command does the work itself. Only on Linux, with
    a CPU idle at that moment, and while this process has a single thread (forking is then
    cheap and safe); nothing of the child reaches the terminal.
    """
    global _child, _started
    if _started:
        return
    _started = True
    words = [w for w in argv if not w.startswith("-")]
    if not words or words[0] not in READING_COMMANDS or {"-h", "--help"} & set(argv):
        return
    # lazy: standard library only this path needs, kept off start-up
    import threading

    chosen = os.environ.get("PITFALLS_PREFETCH", "")  # 0: never; 1: even on a busy machine
    if chosen == "0" or not sys.platform.startswith("linux") or threading.active_count() != 1:
        return
    if chosen != "1" and not _idle_cpu():
        return
    # lazy: the catalogue is loaded only by a command that needs recipes
    from pitfalls.catalogue.cache import cache_dir, cache_file
    from pitfalls.catalogue.registry import Source, builtin_dir, path_sources

    if cache_dir() is None:
        return
    kinds = ("recipes", "search") if words[0] == "search" else ("recipes",)
    sources = [Source(builtin_dir(), "built-in"), *path_sources()]
    files = [cache_file(source.folder, kind) for source in sources for kind in kinds]
    cold = not all(file is not None and file.is_file() for file in files)
    page = _show_arguments(argv) if words[0] == "show" and _styled_terminal() else None
    if not cold and page is None:
        return  # a warm catalogue: reading it is faster than a fork
    read_fd, write_fd = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        return
    if pid == 0:
        os.close(read_fd)
        _child_body(write_fd, kinds, page)
    os.close(write_fd)
    _child = _Child(pid, read_fd)


def _idle_cpu() -> bool:
    """Whether a child would get CPU time of its own right now: at least two CPUs, and no more
    runnable tasks (this one included, from /proc/loadavg) than CPUs. Beyond that the child
    would mostly take turns with this process, and the command does the work itself."""
    try:
        cpus = len(os.sched_getaffinity(0))
        with open("/proc/loadavg", encoding="ascii") as handle:
            runnable = int(handle.read().split()[3].split("/")[0])
    except (AttributeError, OSError, ValueError, IndexError):
        return False
    return cpus >= 2 and runnable <= cpus


def _styled_terminal() -> bool:
    """Whether `show` renders its page here (as `pitfalls.cli.common.plain_output` decides)."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return os.isatty(1)
    except OSError:
        return False


def _show_arguments(argv: list[str]) -> tuple[str, str | None] | None:
    """(ID, --lang value or None) of a plain `show ID [--lang L]`; None for any other form
    (--raw, --code, --json and options this does not know print no rendered page)."""
    lang = None
    words = list(argv)
    while words and words[0].startswith("-"):  # options of the tool, before `show`
        if words[0] in ("--lang", "-l") and len(words) > 1:
            lang, words = words[1], words[2:]
        elif words[0].startswith("--lang="):
            lang, words = words[0].split("=", 1)[1], words[1:]
        else:
            return None
    if not words or words[0] != "show":
        return None
    positional, rest = [], words[1:]
    while rest:
        word = rest.pop(0)
        if word in ("--lang", "-l") and rest:
            lang = rest.pop(0)  # the command's own --lang wins over the tool's
        elif word.startswith("--lang="):
            lang = word.split("=", 1)[1]
        elif word.startswith("-"):
            return None
        else:
            positional.append(word)
    return (positional[0], lang) if len(positional) == 1 else None


def _child_body(fd: int, kinds: tuple[str, ...], page: tuple[str, str | None] | None) -> NoReturn:
    """The prefetching child: load the catalogue (which saves the caches), then render the
    page; report each step on `fd`. It keeps the terminal as stdout (Rich reads its size from
    it) but writes nothing there; stderr goes nowhere."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        # lazy: the catalogue is loaded only by a command that needs recipes
        from pitfalls.catalogue.registry import Registry

        registry = Registry.load()
        if "search" in kinds:
            # lazy: search's index and tables only when searching
            from pitfalls.search.index import attach_indexes

            attach_indexes(list(registry))
        os.write(fd, CATALOGUE)
        if page is not None:
            # lazy: rendering (and Rich) only when printing for a terminal
            from pitfalls.render.page import prepare_page

            prepare_page(registry, *page)
            os.write(fd, PAGE)
    except BaseException:  # noqa: BLE001 - the command does the work itself if this failed
        pass
    finally:
        os._exit(0)


def _wait_for(step: bytes, timeout: float) -> bool:
    """Wait until the child reports `step` done or ends; False when there is no child."""
    # lazy: standard library only this path needs, kept off start-up
    import select
    import time

    child = _child
    if child is None:
        return False
    deadline = time.monotonic() + timeout
    while step not in child.reported and not child.ended:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            end_prefetch()
            break
        try:
            ready, _, _ = select.select([child.fd], [], [], remaining)
            data = os.read(child.fd, 16) if ready else b"?"
        except OSError:
            data = b""
        if not data:
            _reap(child)
        elif data != b"?":
            child.reported += data
    return True


def wait_for_catalogue(timeout: float = PREFETCH_WAIT) -> None:
    """Before loading the catalogue: let the child finish filling the metadata cache."""
    _wait_for(CATALOGUE, timeout)


def wait_for_page(timeout: float = PREFETCH_WAIT) -> bool:
    """Before rendering a page: let the child finish rendering it; whether there was one."""
    return _wait_for(PAGE, timeout)


def _reap(child: _Child) -> None:
    if child.ended:
        return
    child.ended = True
    try:
        os.close(child.fd)
    except OSError:
        pass
    try:
        os.waitpid(child.pid, 0)
    except OSError:
        pass


def end_prefetch() -> None:
    """End the child if it is still at work (the command failed early, or is done)."""
    global _child
    child, _child = _child, None
    if child is not None and not child.ended:
        try:
            os.kill(child.pid, 9)
        except OSError:
            pass
        _reap(child)
