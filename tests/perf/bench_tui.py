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


# No pitfalls code: a bare Textual app with the same first screen (header; a filter box, a
# select and a 78-option list with a count; a device bar with a select; five tabs; a footer),
# started and stamped the same way. What it costs over `import textual.app` is Textual's part.
BARE = """
import os, time
from textual.app import App
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Header, Input, Label, OptionList, Select, Static
from textual.widgets import TabbedContent, TabPane

class Bare(App):
    CSS = "#sidebar { width: 40; } OptionList { height: 1fr; }"

    def compose(self):
        yield Header(icon="")
        with Horizontal():
            with Vertical(id="sidebar"):
                yield Input(placeholder="filter", compact=True)
                yield Select([(f"tag-{i}", i) for i in range(40)], prompt="tag")
                titles = [f"recipe-{i:02d}  A title of about this length" for i in range(78)]
                yield OptionList(*titles)
                yield Static("78 recipes")
            with Vertical():
                with Horizontal(id="devices"):
                    yield Label("device:")
                    yield Select([("auto", "auto"), ("cpu", "cpu")], value="auto")
                    yield Label("torch 2.x")
                with TabbedContent():
                    for name in ("prose", "snippet", "info", "run", "verify"):
                        with TabPane(name):
                            yield Static("")
        yield Footer()

    def on_mount(self):
        self.query_one(OptionList).focus()

    def on_ready(self):
        with open(os.environ["PITFALLS_BENCH_STAMP"], "w") as out:
            out.write(f"{time.time()}\\n")
        self.exit()

Bare().run()
"""


def sample(code: str) -> float:
    """Seconds from starting `python -c code` to the time stamp it leaves: on stdout (the
    floor), or in the file PITFALLS_BENCH_STAMP names (the TUI, whose stdout is a terminal)."""
    if code not in (TUI, BARE):
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
    floor, tui, bare = [], [], []
    for _ in range(args.runs):  # interleaved, as in bench.py
        floor.append(sample(FLOOR))
        tui.append(sample(TUI))
        bare.append(sample(BARE))
    floor_median = statistics.median(floor)
    tui_median, bare_median = statistics.median(tui), statistics.median(bare)
    print(f"import textual.app   : median {floor_median * 1000:7.1f} ms  (n={args.runs})")
    for name, median in (
        ("pitfalls tui paint", tui_median),
        ("bare app, same screen", bare_median),
    ):
        print(f"{name:21}: median {median * 1000:7.1f} ms  ratio {median / floor_median:.2f}")


if __name__ == "__main__":
    main()
