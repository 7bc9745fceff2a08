"""Process-group supervision: each snippet runs in a session and process group of its own, and
ending a task ends its whole group, whatever the snippet started. One running task's state
(`Running`) and the kills; the environment and start method children get."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any

from pitfalls.runner.tasks import Task


@dataclass
class Running:
    task: Task
    started: float
    out_fd: int
    result_fd: int
    output: bytearray = field(default_factory=bytearray)
    truncated: bool = False
    result: bytearray = field(default_factory=bytearray)
    out_open: bool = True
    result_open: bool = True
    exit: dict[str, Any] | None = None
    process: subprocess.Popen[bytes] | None = None
    deadline: float | None = None
    run_started: bool = False  # spawn mode: the child said its run has started (torch imported)
    start_failed: str = ""  # spawn mode: why it was ended before its run started
    timed_out: bool = False
    cancelled: bool = False
    pid: int | None = None
    exited_at: float | None = None
    server: str = "main"  # which fork server forked it: "main" or "preloaded"

    def done(self) -> bool:
        return self.exit is not None and not self.out_open and not self.result_open


def default_start_method() -> str:
    """`fork` (a torch-preloaded fork server) on Linux, `spawn` elsewhere."""
    chosen = os.environ.get("PITFALLS_START_METHOD", "").strip().lower()
    if chosen in ("fork", "spawn"):
        return chosen
    return "fork" if sys.platform.startswith("linux") else "spawn"


def child_environment() -> dict[str, str]:
    """The environment for snippet processes."""
    env = dict(os.environ)
    # Asking NVML instead of initialising the CUDA driver keeps the fork server fork-safe.
    env.setdefault("PYTORCH_NVML_BASED_CUDA_CHECK", "1")
    env.setdefault("PYTHONUNBUFFERED", "1")
    env.setdefault("PYTHONIOENCODING", "utf-8")
    return env


def kill_group(running: Running) -> None:
    pid = running.pid or (running.process.pid if running.process else None)
    if pid is None:
        return
    try:
        if os.name == "nt":  # pragma: no cover
            if running.process is not None:
                running.process.kill()
        else:
            os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass


def kill_server(server: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(server.pid, signal.SIGKILL)
    except OSError:
        pass


def close_quietly(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass
