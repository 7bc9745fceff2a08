"""What the process pool is asked to run and what it reports: one snippet on one device (`Task`),
what happened to its process (`Outcome`), and why no snippet can run at all
(`RunnerUnavailable`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass
class Task:
    """One snippet to run on one device."""

    task_id: int
    recipe_id: str
    snippet: str
    device: str
    timeout: float
    threads: int | None = None
    probe: bool = False
    requires: tuple[str, ...] = ()
    # Run in the preloaded server when there is one (see ProcessPool.preload).
    preloaded: bool = False

    def request(self) -> dict[str, Any]:
        """The JSON request understood by `_child.execute`."""
        return {
            "op": "run",
            "task": self.task_id,
            "snippet": self.snippet,
            "device": self.device,
            "threads": self.threads,
            "timeout": self.timeout,
            "probe": self.probe,
            "requires": list(self.requires),
        }


@dataclass
class Outcome:
    """What happened to a task's process: its result document, output and exit."""

    task: Task
    result: dict[str, Any] | None = None
    output: str = ""
    output_truncated: bool = False
    returncode: int | None = None
    signal: int | None = None
    timed_out: bool = False
    cancelled: bool = False
    result_problem: str = ""
    lost: str = ""  # why the fork server vanished mid-task, if it did
    duration: float = 0.0


class RunnerUnavailable(RuntimeError):
    """The snippet interpreter cannot start or cannot import torch."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind  # "python_missing" or "torch_missing"


EventHandler = Callable[[str, Task, Any], None]
