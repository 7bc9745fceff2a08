"""Time from start to the TUI's first screen, against `python -c "import textual.app"`.

Run it by hand, not under pytest: `python tests/perf/bench_tui.py [--runs N]`.

Each sample is a fresh interpreter. The parent notes the wall clock just before starting it;
the child prints the wall clock once its work is done: for the floor, after `import
textual.app`; for the TUI, once the real app (real registry, real runner) has displayed its
first frame headless (Textual's Ready event). The ratio of the medians is what pitfalls adds
on top of Textual.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

FLOOR = "import textual.app, time; print(time.time())"

# The real app, headless; exits as soon as the first frame is out. Closing the runner then
# may wait for the probe child, which is after the moment measured here.
TUI = """
import sys, time
from pitfalls.tui.app import PitfallsApp

class FirstPaint(PitfallsApp):
    def on_ready(self):  # Textual sends Ready once the first frame has been displayed
        sys.__stdout__.write(f"{time.time()}\\n")  # print() is captured by Textual
        sys.__stdout__.flush()
        self.exit()

FirstPaint(lang="en").run(headless=True, size=(100, 32))
"""


def sample(code: str) -> float:
    """Seconds from starting `python -c code` to the time stamp it prints."""
    started = time.time()
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    stamp = float(done.stdout.strip().splitlines()[-1])
    return stamp - started


def main() -> None:
    """Measure both, print the medians and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    sample(FLOOR)  # warm the file cache for both
    sample(TUI)
    floor = [sample(FLOOR) for _ in range(args.runs)]
    tui = [sample(TUI) for _ in range(args.runs)]
    floor_median, tui_median = statistics.median(floor), statistics.median(tui)
    print(f"import textual.app : median {floor_median * 1000:7.1f} ms  (n={args.runs})")
    print(f"pitfalls tui paint : median {tui_median * 1000:7.1f} ms  (n={args.runs})")
    print(f"ratio              : {tui_median / floor_median:.2f}x")


if __name__ == "__main__":
    main()
