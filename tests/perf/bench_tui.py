"""Time from start to the TUI's first screen, against `python -c "import textual.app"`.

Run it by hand, not under pytest: `python tests/perf/bench_tui.py [--runs N]`.

Each sample is a fresh interpreter. The parent notes the wall clock just before starting it;
the child notes the wall clock once its work is done: for the floor, after `import
textual.app`; for the TUI, once `pitfalls tui`, started through the real entry point on a
pseudo-terminal (real registry, real runner, Textual's real terminal driver), has displayed
its first frame (Textual's Ready event). The ratio of the medians is what pitfalls adds on
top of Textual.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time

FLOOR = "import textual.app, time; print(time.time())"

# What a user types, `pitfalls tui`, through the real entry point on a pseudo-terminal of
# 100x32 (Textual's real driver, not headless); the app stamps the time once its first frame is
# out (Textual's Ready) and quits. Closing the runner then may wait for the probe child, which
# is after the moment measured here.
TUI = """
import os, sys, time
import pitfalls.tui.app as tui_app

def on_ready(self):
    with open(os.environ["PITFALLS_BENCH_STAMP"], "w") as out:
        out.write(f"{time.time()}\\n")
    self.exit()

tui_app.PitfallsApp.on_ready = on_ready
sys.argv = ["pitfalls", "tui", "--lang", "en"]
from pitfalls.__main__ import main
main()
"""


def sample(code: str) -> float:
    """Seconds from starting `python -c code` to the time stamp it leaves: on stdout (the
    floor), or in the file PITFALLS_BENCH_STAMP names (the TUI, whose stdout is a terminal)."""
    if code != TUI:
        started = time.time()
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
        )
        return float(done.stdout.strip().splitlines()[-1]) - started
    with tempfile.TemporaryDirectory() as tmp:
        stamp = os.path.join(tmp, "stamp")
        env = {**os.environ, "PITFALLS_BENCH_STAMP": stamp, "TERM": "xterm-256color"}
        env.pop("NO_COLOR", None)
        leader, follower = pty.openpty()
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 32, 100, 0, 0))
        started = time.time()
        process = subprocess.Popen(
            [sys.executable, "-c", code], stdin=follower, stdout=follower, stderr=follower, env=env
        )
        os.close(follower)
        while True:  # drain what the app draws until it exits
            try:
                if not os.read(leader, 65536):
                    break
            except OSError:
                break
        process.wait(timeout=120)
        os.close(leader)
        with open(stamp) as handle:
            return float(handle.read()) - started


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
