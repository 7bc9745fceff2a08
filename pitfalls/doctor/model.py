"""The data of a doctor report: one `Check` per finding, and the two inputs checks read."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

# ok: looked and found nothing wrong; warning: likely to cost performance or bite later;
# problem: will fail (doctor exits 1); unknown: could not check (a probe failed or timed out).
STATUSES = ("ok", "warning", "problem", "unknown")


@dataclass(frozen=True)
class Check:
    """One line of the report: what was found, what to do, and the recipe that explains it."""

    id: str
    status: str
    found: str
    advice: str
    recipe: str

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass(frozen=True)
class CommandResult:
    returncode: int
    stdout: str


def _run_command(argv: list[str], timeout: float) -> CommandResult | None:
    """Run a system command; None when it is missing, fails to start or times out."""
    if shutil.which(argv[0]) is None:
        return None
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return CommandResult(done.returncode, done.stdout)


def _nofile_limit() -> tuple[int, int]:
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def _statvfs_total(path: str) -> int | None:
    try:
        st = os.statvfs(path)
    except OSError:
        return None
    return st.f_frsize * st.f_blocks


@dataclass
class System:
    """The machine as the checks see it; every field can be replaced in a test."""

    root: Path = Path("/")
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    platform: str = sys.platform
    machine: str = field(default_factory=lambda: os.uname().machine if hasattr(os, "uname") else "")
    cwd: Path = field(default_factory=Path.cwd)
    cpu_count: int = field(default_factory=lambda: os.cpu_count() or 1)
    run: Callable[[list[str], float], CommandResult | None] = _run_command
    nofile: Callable[[], tuple[int, int]] = _nofile_limit
    fs_size: Callable[[str], int | None] = _statvfs_total

    def path(self, absolute: str) -> Path:
        """`absolute` (a path such as /proc/driver/nvidia) under this system's root."""
        return self.root / absolute.lstrip("/")

    def read(self, absolute: str) -> str | None:
        try:
            return self.path(absolute).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None


@dataclass(frozen=True)
class Probe:
    """What the target interpreter reported after importing torch and NumPy in a child.

    `status` is "ok", "no_torch" (torch is not installed there), "failed" (the child crashed
    or printed no report) or "timeout"; `data` holds the report (see probe.PROBE_SOURCE).
    """

    status: str
    data: dict[str, Any] = field(default_factory=dict)
    detail: str = ""

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)
