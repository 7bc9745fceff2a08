"""What the TUI asks of the runner, and the real implementation over `pitfalls.runner`.

The app talks to a `RecipeRunner` only, so tests and snapshots can hand it a fake
(`pitfalls.tui.fakes`) and no torch version, timing or GPU name reaches a screenshot.
Every method here blocks: the app calls them from thread workers, never from the UI thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from pitfalls.catalogue.model import DEVICE_TYPES

if TYPE_CHECKING:
    from pitfalls.catalogue.model import Recipe
    from pitfalls.runner import ProcessPool, RunResult, VerifyReport

DEVICE_CHOICES = ("auto", *DEVICE_TYPES)
PROBE_TIMEOUT = 60.0


@dataclass(frozen=True)
class DeviceReport:
    """Which device types the snippet interpreter can use, as a probe child found them."""

    available: frozenset[str] = frozenset({"cpu"})
    names: dict[str, str] = field(default_factory=dict)  # device type -> a readable name
    torch: str | None = None
    problem: str = ""  # why nothing can run (torch missing), or ""

    def is_available(self, device: str) -> bool:
        """Whether `device` (auto, cpu, cuda, cuda:N, mps) can be used."""
        if self.problem:
            return False
        return device == "auto" or device.split(":", 1)[0] in self.available

    @classmethod
    def from_devices(cls, devices: Iterable[str], torch: str | None) -> DeviceReport:
        """Build a report from the probe's list, such as `["cpu", "cuda:0 (NVIDIA H200)"]`."""
        available: set[str] = set()
        names: dict[str, str] = {}
        for entry in devices:
            device, _, rest = entry.partition(" ")
            kind = device.split(":", 1)[0]
            available.add(kind)
            if rest and kind not in names:
                names[kind] = rest.strip("()")
        return cls(frozenset(available), names, torch)


OutputHandler = Callable[[str], None]
ResultHandler = Callable[["RunResult"], None]


class RecipeRunner(Protocol):
    """The blocking operations the app runs in thread workers."""

    def probe(self) -> DeviceReport:
        """Find the usable devices (starts a child process; never imports torch here)."""
        ...

    def run(self, recipe: Recipe, device: str, on_output: OutputHandler) -> RunResult:
        """Run one recipe, streaming its output; raises RunnerUnavailable without torch."""
        ...

    def verify(self, recipes: list[Recipe], device: str, on_result: ResultHandler) -> VerifyReport:
        """Run every recipe, reporting each result as it lands."""
        ...

    def cancel(self) -> None:
        """End the current run or verify, if any; thread-safe."""
        ...

    def close(self) -> None:
        """End every child process; the runner is unusable afterwards."""
        ...


class ProcessRunner:
    """The real runner: one warm process pool for single runs, a fresh one per verify.

    The single-run pool is kept between runs because its fork server has already paid for
    `import torch`; the probe at start-up warms it. A verify gets its own pool because
    cancelling a verify cancels every task of its pool for good.
    """

    def __init__(self, python: str | None = None, timeout: float | None = None) -> None:
        """Create the runner; nothing starts until the first probe or run.

        Args:
            python: The snippet interpreter; None lets `pitfalls.runner` choose.
            timeout: Seconds per snippet; None uses the runner's default.
        """
        # `pitfalls.runner` is imported by the worker that first needs it, not here: the app
        # creates this runner before its first frame, and the import costs about 10 ms.
        self.python = python
        self._timeout = timeout
        self._pool: ProcessPool | None = None
        self._verify_pool: ProcessPool | None = None
        # One pool runs one batch at a time: the probe and a run must not overlap on it.
        self._run_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._running = False
        self._closed = False

    @property
    def timeout(self) -> float:
        """Seconds a snippet may run."""
        # lazy: the runner only for what runs snippets
        from pitfalls.runner import DEFAULT_TIMEOUT

        return self._timeout or DEFAULT_TIMEOUT

    def _shared_pool(self) -> ProcessPool:
        # lazy: the runner only for what runs snippets
        from pitfalls.runner import ProcessPool, python_for

        if self._pool is None:
            self._pool = ProcessPool(python=python_for(self.python))
        return self._pool

    def _drop_pool(self) -> None:
        # A pool whose server failed stays broken; the next run starts a new one.
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    def probe(self) -> DeviceReport:
        """Resolve `auto` in a child and read the devices it lists."""
        # lazy: the runner only for what runs snippets
        from pitfalls.runner import RunnerUnavailable, probe_device

        with self._run_lock:
            if self._closed:
                return DeviceReport(problem="closed")
            try:
                _, environment = probe_device(self._shared_pool(), "auto", PROBE_TIMEOUT)
            except RunnerUnavailable as err:
                self._drop_pool()
                return DeviceReport(frozenset(), problem=str(err))
            except Exception as err:  # the probe must never take the app down
                self._drop_pool()
                return DeviceReport(frozenset(), problem=f"{type(err).__name__}: {err}")
        return DeviceReport.from_devices(environment.get("devices", []), environment.get("torch"))

    def run(self, recipe: Recipe, device: str, on_output: OutputHandler) -> RunResult:
        """Run `recipe` on `device` in the shared pool, streaming its output."""
        # lazy: the runner only for what runs snippets
        from pitfalls.runner import run_recipe

        def forward(kind: str, task: object, data: object) -> None:
            if kind == "output" and isinstance(data, str):
                on_output(data)

        with self._run_lock:
            if self._closed:
                raise RuntimeError("the runner is closed")
            pool = self._shared_pool()
            pool.on_event = forward
            with self._state_lock:
                self._running = True
            try:
                return run_recipe(recipe, device, self.timeout, pool=pool)
            except Exception:
                self._drop_pool()
                raise
            finally:
                with self._state_lock:
                    self._running = False
                pool.on_event = lambda kind, task, data: None

    def verify(self, recipes: list[Recipe], device: str, on_result: ResultHandler) -> VerifyReport:
        """Verify `recipes` on `device` in a pool of their own."""
        # lazy: the runner only for what runs snippets
        from pitfalls.runner import ProcessPool, python_for
        from pitfalls.runner import verify as verify_all

        pool = ProcessPool(python=python_for(self.python))
        with self._state_lock:
            if self._closed:
                pool.close()
                raise RuntimeError("the runner is closed")
            self._verify_pool = pool
        try:
            return verify_all(recipes, device, timeout=self.timeout, on_result=on_result, pool=pool)
        finally:
            with self._state_lock:
                self._verify_pool = None
            pool.close()

    def cancel(self) -> None:
        """Cancel the single run (task 0 of the shared pool) and any verify."""
        with self._state_lock:
            # A cancel request for a task that is not running would stay queued and end the
            # next run at once, so only ask while a run is really in flight.
            if self._running and self._pool is not None:
                self._pool.cancel(0)
            if self._verify_pool is not None:
                self._verify_pool.cancel(None)

    def close(self) -> None:
        """End both pools and their child processes; safe to call twice."""
        with self._state_lock:
            self._closed = True
            pools = [self._pool, self._verify_pool]
        for pool in pools:
            if pool is not None:
                pool.close()
