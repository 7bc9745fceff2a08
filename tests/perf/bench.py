"""Speed benchmark for pitfalls, run apart from the test suite: `python tests/perf/bench.py`.

Every figure is a ratio against a baseline measured in the same run, commands interleaved,
because these machines are shared and noisy and an absolute time means little:

- verify over the whole catalogue, and run focal-loss (piped, and on a terminal where it draws
  its chart), against `python -c "import torch"`; verify's own overhead is reported too:
  (verify - import torch) - (sum of the recipes' run times / usable CPUs), under 1 s;
- run focal-loss on a terminal, where it draws its chart, against the same with --no-plot;
- `pitfalls show detach` on a terminal against the Typer + Rich floor script: with the page
  cache warm, with it empty (the first view of a recipe), and right after install (no cache
  at all);
- `pitfalls list`, piped, with a cold metadata cache against a warm one, and with 1,000 extra
  recipes on PITFALLS_PATH against the built-ins alone;
- `pitfalls search` with a pasted 30-line traceback against `pitfalls list`, both piped;
- the TUI's first paint (`pitfalls tui` on a pseudo-terminal) against `python -c "import
  textual.app"`, and, without a goal, a bare Textual app with the same first screen against the
  same baseline: Textual's own part of that cost;
- `pitfalls check` over a fixed set of folders of the installed torch's own source against a
  one-liner that only parses and walks the same files with `ast`.

The package's bytecode is compiled first, as `pip install` does (a machine or a shell with
PYTHONDONTWRITEBYTECODE=1 would otherwise recompile every pitfalls module on every run, which no
installed user pays). Every command shares one fresh cache folder (XDG_CACHE_HOME), warmed by
one untimed round;
`show` with the page cache off empties its pages before each timed run, and the cold pairs use
a second folder, emptied before each of theirs. The load average is printed with the table:
on a loaded machine the ratios, not the seconds, are what to read.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[2]
FLOOR = REPO.parent / "shared" / "bench" / "typer_rich_floor.py"
GOALS = {
    "verify / import torch": 4.0,
    "run focal-loss / import torch": 1.2,
    "run focal-loss on a terminal / import torch": 1.2,
    "run focal-loss on a terminal / --no-plot": 1.1,
    "show detach / typer+rich floor": 1.2,
    "show detach, page cache off / floor": 1.15,
    "show detach, after install / floor": 1.3,
    "list, cold metadata cache / warm": 1.5,
    "list 1000 extra / list built-ins": 2.0,
    "search traceback / list": 1.3,
    "tui first paint / import textual.app": 2.0,
    "check torch nn/modules+optim / ast walk": 2.5,
}
# Reported without a goal: what Textual alone costs for the TUI's first screen.
BARE_PAIR = "bare Textual app, same screen / import textual"
# verify's own cost: (verify - import torch) - (sum of recipe run times / CPUs), in seconds.
VERIFY_OVERHEAD_GOAL = 1.0
# A traceback as users paste it: frames, their code lines, a chained cause, the final error.
TRACEBACK = """Epoch 3:  41%|####      | 1204/2933 [02:13<03:11,  9.02it/s, loss=0.412]
Traceback (most recent call last):
  File "/home/user/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1251, in _try_get_data
    data = self._data_queue.get(timeout=timeout)
  File "/usr/lib/python3.11/multiprocessing/queues.py", line 113, in get
    if not self._poll(timeout):
  File "/usr/lib/python3.11/multiprocessing/connection.py", line 257, in poll
    return self._poll(timeout)
  File "/usr/lib/python3.11/multiprocessing/connection.py", line 440, in _poll
    r = wait([self], timeout)
  File "/usr/lib/python3.11/multiprocessing/connection.py", line 948, in wait
    ready = selector.select(timeout)
  File "/usr/lib/python3.11/selectors.py", line 415, in select
    fd_event_list = self._selector.poll(timeout)
  File "/home/user/venv/lib/python3.11/site-packages/torch/utils/data/_utils/signal_handling.py", line 73, in handler
    _error_if_any_worker_fails()
RuntimeError: DataLoader worker (pid 48213) is killed by signal: Killed.

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/home/user/project/train.py", line 212, in <module>
    main(args)
  File "/home/user/project/train.py", line 187, in main
    for step, (images, labels) in enumerate(pbar):
  File "/home/user/venv/lib/python3.11/site-packages/tqdm/std.py", line 1181, in __iter__
    for obj in iterable:
  File "/home/user/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 701, in __next__
    data = self._next_data()
  File "/home/user/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1448, in _next_data
    idx, data = self._get_data()
RuntimeError: DataLoader worker (pid(s) 48213) exited unexpectedly
"""  # noqa: E501
# `pitfalls check`'s benchmark tree: real PyTorch code, fixed so that runs compare (~35k lines).
CHECK_FOLDERS = ("nn/modules", "optim")
AST_WALK = (
    "import ast, sys, pathlib\n"
    "for d in sys.argv[1:]:\n"
    "    for p in sorted(pathlib.Path(d).rglob('*.py')):\n"
    "        for _ in ast.walk(ast.parse(p.read_bytes())):\n"
    "            pass\n"
)


def torch_source_folders() -> list[str]:
    """The benchmark folders inside the installed torch, found without importing it."""
    from importlib.util import find_spec

    spec = find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return []
    root = Path(next(iter(spec.submodule_search_locations)))
    return [str(root / folder) for folder in CHECK_FOLDERS if (root / folder).is_dir()]


def timed(
    command: list[str],
    env: dict[str, str] | None = None,
    tty: bool = False,
    before: Callable[[], None] | None = None,
    stdout: Path | None = None,
) -> float:
    """Wall time of one command; output goes to a pipe, or to a pseudo-terminal with tty.

    `before` runs first, untimed (emptying a cache); `stdout` keeps the piped output.
    """
    full_env = {**os.environ, **(env or {})}
    if before is not None:
        before()
    started = time.perf_counter()
    if tty:
        # A pty makes the CLI render as it does for a person (rich Markdown, colours).
        leader, follower = pty.openpty()
        process = subprocess.Popen(
            command, stdout=follower, stderr=follower, stdin=follower, env=full_env
        )
        os.close(follower)
        while True:
            try:
                if not os.read(leader, 65536):
                    break
            except OSError:
                break
        process.wait()
        os.close(leader)
    elif stdout is not None:
        with open(stdout, "wb") as out:
            subprocess.run(
                command, stdout=out, stderr=subprocess.DEVNULL, env=full_env, check=False
            )
    else:
        subprocess.run(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=full_env, check=False
        )
    return time.perf_counter() - started


def emptied(folder: Path) -> Callable[[], None]:
    """A `before` hook that removes `folder` (a part of the cache, or all of it)."""
    return lambda: shutil.rmtree(folder, ignore_errors=True)


def recipe_seconds(report: Path) -> float:
    """The sum of the recipes' own run times in a `verify --json` report."""
    try:
        return sum(r.get("duration_s") or 0.0 for r in json.loads(report.read_text("utf-8")))
    except (OSError, ValueError, AttributeError):
        return float("nan")


def usable_cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def make_catalogue(folder: Path, count: int) -> None:
    """`count` copies of a built-in recipe with fresh ids: a large PITFALLS_PATH."""
    template = REPO / "recipes" / "narrow"
    for index in range(count):
        target = folder / f"bulk-{index:04d}"
        shutil.copytree(template, target)
        toml = target / "recipe.toml"
        text = toml.read_text(encoding="utf-8").replace('id = "narrow"', f'id = "bulk-{index:04d}"')
        toml.write_text(text, encoding="utf-8")


Command = tuple  # (argv, env, tty[, before[, stdout]]): the arguments of `timed`


def compile_package(python: str) -> None:
    """Write the package's bytecode as `pip install` does, for an editable install too."""
    where = subprocess.run(
        [
            python,
            "-c",
            "import pitfalls, pitfalls.tui as t; print(*pitfalls.__path__, *t.__path__, sep='\\n')",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    subprocess.run(
        [python, "-m", "compileall", "-q", *where], check=True, stdout=subprocess.DEVNULL
    )


def main() -> None:
    """Measure each pair side by side `--repeat` times and print median ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--skip-tui", action="store_true")
    parser.add_argument("--only", help="Measure only the pairs whose name contains this.")
    args = parser.parse_args()
    python = sys.executable
    pitfalls = [python, "-m", "pitfalls"]
    compile_package(python)
    samples: dict[str, list[float]] = {}
    overheads: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        # One cache folder for every command, so that the user's own cache plays no part.
        cache_home = Path(tmp) / "cache"
        os.environ["XDG_CACHE_HOME"] = str(cache_home)
        cache = cache_home / "pitfalls"
        # The cold pairs get a cache folder of their own, emptied before each of their runs.
        cold_home = Path(tmp) / "cold-cache"
        cold = {"XDG_CACHE_HOME": str(cold_home)}
        report = Path(tmp) / "verify.json"
        bulk = Path(tmp) / "bulk"
        bulk.mkdir()
        make_catalogue(bulk, 1000)
        term = {"COLUMNS": "100"}
        pairs: dict[str, tuple[Command, Command]] = {
            "verify / import torch": (
                ([*pitfalls, "verify", "--device", "cpu", "--json"], {}, False, None, report),
                ([python, "-c", "import torch"], {}, False),
            ),
            # On a terminal `run` draws its chart: the cost of plotext, against no chart.
            "run focal-loss on a terminal / --no-plot": (
                ([*pitfalls, "run", "focal-loss", "--device", "cpu"], term, True),
                ([*pitfalls, "run", "focal-loss", "--device", "cpu", "--no-plot"], term, True),
            ),
            "run focal-loss / import torch": (
                ([*pitfalls, "run", "focal-loss", "--device", "cpu"], {}, False),
                ([python, "-c", "import torch"], {}, False),
            ),
            "run focal-loss on a terminal / import torch": (
                ([*pitfalls, "run", "focal-loss", "--device", "cpu"], term, True),
                ([python, "-c", "import torch"], {}, False),
            ),
            # Cold: the metadata cache (and the search index cache) emptied before each run.
            "list, cold metadata cache / warm": (
                ([*pitfalls, "list"], cold, False, emptied(cold_home)),
                ([*pitfalls, "list"], {}, False),
            ),
            "list 1000 extra / list built-ins": (
                ([*pitfalls, "list"], {"PITFALLS_PATH": str(bulk)}, False),
                ([*pitfalls, "list"], {}, False),
            ),
            "search traceback / list": (
                ([*pitfalls, "search", TRACEBACK], {}, False),
                ([*pitfalls, "list"], {}, False),
            ),
        }
        folders = torch_source_folders()
        if folders:
            # The torch install usually sits in a .gitignore'd virtual environment.
            check = [*pitfalls, "check", *folders, "--no-respect-gitignore", "--exit-zero", "-q"]
            pairs["check torch nn/modules+optim / ast walk"] = (
                (check, {}, False),
                ([python, "-c", AST_WALK, *folders], {}, False),
            )
        if FLOOR.is_file():
            floor = ([python, str(FLOOR), "show", "detach"], term, True)
            show = [*pitfalls, "show", "detach"]
            pairs["show detach / typer+rich floor"] = ((show, term, True), floor)
            # The first view of a recipe: its page is not cached yet (the metadata cache is).
            pairs["show detach, page cache off / floor"] = (
                (show, term, True, emptied(cache / "pages")),
                floor,
            )
            # Right after install: no cache at all.
            pairs["show detach, after install / floor"] = (
                (show, {**term, **cold}, True, emptied(cold_home)),
                floor,
            )
        else:
            print(f"(no floor script at {FLOOR}: show is not measured)")
        tui = "tui first paint / import textual.app"
        if args.only:
            pairs = {name: pair for name, pair in pairs.items() if args.only in name}
            args.skip_tui = args.skip_tui or args.only not in tui
        if not args.skip_tui:
            # Start to first frame, stamped by the app itself (see bench_tui.py).
            sys.path.insert(0, str(Path(__file__).parent))
            from bench_tui import BARE, TUI, sample
            from bench_tui import FLOOR as TEXTUAL_FLOOR
        loads = [load_average()]
        # One untimed round warms the disk cache and the pitfalls cache for every command.
        for measured, baseline in pairs.values():
            if measured[0][3:4] != ["verify"]:  # verify is slow and has no cache to warm
                timed(*measured)
                timed(*baseline)
        if not args.skip_tui:
            sample(TUI)
            sample(TEXTUAL_FLOOR)
        for _ in range(args.repeat):
            for name, (measured, baseline) in pairs.items():
                samples.setdefault(name + " [cmd]", []).append(timed(*measured))
                samples.setdefault(name + " [base]", []).append(timed(*baseline))
                if name == "verify / import torch":
                    spent = samples[name + " [cmd]"][-1] - samples[name + " [base]"][-1]
                    overheads.append(spent - recipe_seconds(report) / usable_cpus())
            if not args.skip_tui:
                samples.setdefault(tui + " [cmd]", []).append(sample(TUI))
                samples.setdefault(tui + " [base]", []).append(sample(TEXTUAL_FLOOR))
                # Textual's own part: a bare app with the same first screen, no pitfalls code.
                samples.setdefault(BARE_PAIR + " [cmd]", []).append(sample(BARE))
                samples.setdefault(BARE_PAIR + " [base]", samples[tui + " [base]"])
        if not args.skip_tui:
            pairs[tui] = pairs.get(tui, ((), ()))  # type: ignore[assignment]
            pairs[BARE_PAIR] = ((), ())  # type: ignore[assignment]
        loads.append(load_average())
    print(f"load average (1, 5, 15 min): before {loads[0]}; after {loads[1]}")
    print(f"{'pair':44} {'median cmd':>11} {'median base':>12} {'ratio':>7} {'goal':>6}")
    for name in pairs:
        command = statistics.median(samples[name + " [cmd]"])
        base = statistics.median(samples[name + " [base]"])
        ratio = command / base
        goal = GOALS.get(name)
        verdict = "" if goal is None else ("ok" if ratio <= goal else "OVER")
        goal_text = f"≤{goal:g}" if goal else "-"
        print(f"{name:44} {command:10.3f}s {base:11.3f}s {ratio:7.2f} {goal_text:>6} {verdict}")
    if overheads:
        overhead = statistics.median(overheads)
        verdict = "ok" if overhead < VERIFY_OVERHEAD_GOAL else "OVER"
        print(
            f"verify overhead: (verify - import torch) - (recipe time / {usable_cpus()} CPUs) = "
            f"{overhead:.2f}s median (goal < {VERIFY_OVERHEAD_GOAL:g}s) {verdict}"
        )


if __name__ == "__main__":
    main()
