"""Speed benchmark for pitfalls, run apart from the test suite: `python tests/perf/bench.py`.

Every figure is a ratio against a baseline measured in the same run, commands interleaved,
because these machines are shared and noisy and an absolute time means little:

- verify over the seed recipes, and run focal-loss, against `python -c "import torch"`;
- run focal-loss on a terminal, where it draws its chart, against the same with --no-plot;
- `pitfalls show detach` on a terminal against the Typer + Rich floor script;
- `pitfalls list` with 1,000 extra recipes on PITFALLS_PATH against the built-ins alone;
- the TUI's first paint against `python -c "import textual.app"`;
- `pitfalls check` over a fixed set of folders of the installed torch's own source against a
  one-liner that only parses and walks the same files with `ast`.
"""

from __future__ import annotations

import argparse
import os
import pty
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FLOOR = REPO.parent / "shared" / "bench" / "typer_rich_floor.py"
GOALS = {
    "verify / import torch": 3.0,
    "run focal-loss / import torch": 1.3,
    "run focal-loss on a terminal / --no-plot": 1.1,
    "show detach / typer+rich floor": 1.2,
    "list 1000 extra / list built-ins": 2.0,
    "check torch nn/modules+optim / ast walk": 2.5,
}
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


def timed(command: list[str], env: dict[str, str] | None = None, tty: bool = False) -> float:
    """Wall time of one command; output goes to a pipe, or to a pseudo-terminal with tty."""
    full_env = {**os.environ, **(env or {})}
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
    else:
        subprocess.run(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=full_env, check=False
        )
    return time.perf_counter() - started


def make_catalogue(folder: Path, count: int) -> None:
    """`count` copies of a built-in recipe with fresh ids: a large PITFALLS_PATH."""
    template = REPO / "recipes" / "narrow"
    for index in range(count):
        target = folder / f"bulk-{index:04d}"
        shutil.copytree(template, target)
        toml = target / "recipe.toml"
        text = toml.read_text(encoding="utf-8").replace('id = "narrow"', f'id = "bulk-{index:04d}"')
        toml.write_text(text, encoding="utf-8")


def main() -> None:
    """Measure each pair side by side `--repeat` times and print median ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--skip-tui", action="store_true")
    parser.add_argument("--only", help="Measure only the pairs whose name contains this.")
    args = parser.parse_args()
    python = sys.executable
    pitfalls = [python, "-m", "pitfalls"]
    seeds = [p.name for p in (REPO / "recipes").iterdir() if (p / "recipe.toml").is_file()]
    samples: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        bulk = Path(tmp) / "bulk"
        bulk.mkdir()
        make_catalogue(bulk, 1000)
        pairs: dict[str, tuple[tuple[list[str], dict, bool], tuple[list[str], dict, bool]]] = {
            "verify / import torch": (
                ([*pitfalls, "verify", *seeds, "--device", "cpu"], {}, False),
                ([python, "-c", "import torch"], {}, False),
            ),
            # On a terminal `run` draws its chart: the cost of plotext, against no chart.
            "run focal-loss on a terminal / --no-plot": (
                ([*pitfalls, "run", "focal-loss", "--device", "cpu"], {"COLUMNS": "100"}, True),
                (
                    [*pitfalls, "run", "focal-loss", "--device", "cpu", "--no-plot"],
                    {"COLUMNS": "100"},
                    True,
                ),
            ),
            "run focal-loss / import torch": (
                ([*pitfalls, "run", "focal-loss", "--device", "cpu"], {}, False),
                ([python, "-c", "import torch"], {}, False),
            ),
            "list 1000 extra / list built-ins": (
                ([*pitfalls, "list"], {"PITFALLS_PATH": str(bulk)}, False),
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
            pairs["show detach / typer+rich floor"] = (
                ([*pitfalls, "show", "detach"], {"COLUMNS": "100"}, True),
                ([python, str(FLOOR), "show", "detach"], {"COLUMNS": "100"}, True),
            )
            # The first show after an install or an edit renders without the page cache.
            pairs["show detach, cache off / floor"] = (
                ([*pitfalls, "show", "detach"], {"COLUMNS": "100", "PITFALLS_CACHE": "0"}, True),
                ([python, str(FLOOR), "show", "detach"], {"COLUMNS": "100"}, True),
            )
        else:
            print(f"(no floor script at {FLOOR}: show is not measured)")
        tui = "tui first paint / import textual.app"
        if args.only:
            pairs = {name: pair for name, pair in pairs.items() if args.only in name}
            args.skip_tui = args.skip_tui or args.only not in tui
        for _ in range(args.repeat):
            for name, (measured, baseline) in pairs.items():
                samples.setdefault(name + " [cmd]", []).append(timed(*measured))
                samples.setdefault(name + " [base]", []).append(timed(*baseline))
            if not args.skip_tui:
                # Start to first frame, stamped by the app itself (see bench_tui.py).
                sys.path.insert(0, str(Path(__file__).parent))
                from bench_tui import FLOOR as TEXTUAL_FLOOR
                from bench_tui import TUI, sample

                samples.setdefault(tui + " [cmd]", []).append(sample(TUI))
                samples.setdefault(tui + " [base]", []).append(sample(TEXTUAL_FLOOR))
        if not args.skip_tui:
            pairs[tui] = pairs.get(tui, ((), ()))  # type: ignore[assignment]
    print(f"{'pair':42} {'median cmd':>11} {'median base':>12} {'ratio':>7} {'goal':>6}")
    for name in pairs:
        command = statistics.median(samples[name + " [cmd]"])
        base = statistics.median(samples[name + " [base]"])
        ratio = command / base
        goal = GOALS.get(name)
        verdict = "" if goal is None else ("ok" if ratio <= goal else "OVER")
        goal_text = f"≤{goal:g}" if goal else "-"
        print(f"{name:42} {command:10.3f}s {base:11.3f}s {ratio:7.2f} {goal_text:>6} {verdict}")


if __name__ == "__main__":
    main()
