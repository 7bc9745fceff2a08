"""A runner that runs nothing, for tests and screenshots.

Its results go through the real `from_outcome`, so the verdict logic is the real one, but the
environment is fixed: no torch version, timing or GPU name depends on the machine.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from pitfalls.tui.backend import DeviceReport, OutputHandler, ResultHandler

if TYPE_CHECKING:
    from pitfalls.catalogue.model import Recipe
    from pitfalls.doctor import Check, Probe, System
    from pitfalls.runner import RunResult, VerifyReport

FAKE_ENVIRONMENT = {"torch": "2.0.0", "python": "3.11.0", "device_name": "test-cpu"}
FAKE_REPORT = DeviceReport(frozenset({"cpu"}), {}, "2.0.0")


class FakeRunner:
    """Returns canned documents per recipe id; a missing one reads as a crash.

    `documents` maps a recipe id to the result document a child would have written
    (`problem`, `fix`, `error`...); `output` is the text streamed before the result.
    With `block=True`, `run` waits until `cancel` or `release` is called.
    """

    def __init__(
        self,
        documents: dict[str, dict[str, Any]] | None = None,
        output: str = "--- problem('cpu') ---\n--- fix('cpu') ---\n",
        report: DeviceReport = FAKE_REPORT,
        block: bool = False,
    ) -> None:
        """Create the fake.

        Args:
            documents: Recipe id to result document.
            output: What every run prints.
            report: What the probe finds.
            block: Make runs wait for `cancel` or `release`.
        """
        self.documents = documents or {}
        self.output = output
        self.report = report
        self.block = block
        self.runs: list[tuple[str, str]] = []
        self.closed = False
        self._cancelled = threading.Event()
        self._released = threading.Event()

    def probe(self) -> DeviceReport:
        """The fixed report."""
        return self.report

    def _result(self, recipe: Recipe, device: str, cancelled: bool = False) -> RunResult:
        # lazy: the runner only for what runs snippets
        from pitfalls.runner.process import Outcome, Task
        from pitfalls.runner.result import from_outcome

        task = Task(0, recipe.id, str(recipe.snippet_path), device, 120.0)
        document = dict(self.documents.get(recipe.id, {}))
        if document:
            document.setdefault("device", "cpu" if device == "auto" else device)
            document.setdefault("environment", dict(FAKE_ENVIRONMENT))
        outcome = Outcome(task, result=document or None, output=self.output, returncode=0)
        outcome.cancelled = cancelled
        return from_outcome(recipe, outcome)

    def run(self, recipe: Recipe, device: str, on_output: OutputHandler) -> RunResult:
        """Stream the fixed output and return the canned result."""
        self.runs.append((recipe.id, device))
        self._cancelled.clear()
        on_output(self.output)
        if self.block:
            self._released.clear()
            while not (self._cancelled.is_set() or self._released.wait(0.01)):
                pass
            if self._cancelled.is_set():
                self._cancelled.clear()
                return self._result(recipe, device, cancelled=True)
        return self._result(recipe, device)

    def verify(self, recipes: list[Recipe], device: str, on_result: ResultHandler) -> VerifyReport:
        """Report every recipe's canned result in order."""
        # lazy: the runner only for what runs snippets
        from pitfalls.runner import VerifyReport

        report = VerifyReport("cpu" if device == "auto" else device, dict(FAKE_ENVIRONMENT))
        for recipe in recipes:
            result = self._result(recipe, device)
            report.results.append(result)
            on_result(result)
        return report

    def release(self) -> None:
        """Let a blocked run finish normally."""
        self._released.set()

    def cancel(self) -> None:
        """End a blocked run as cancelled."""
        self._cancelled.set()

    def close(self) -> None:
        """Remember that the app closed the runner."""
        self.closed = True
        self._cancelled.set()


class FakeDoctor:
    """Stands in for the environment checks: canned `checks`, or the real `run_checks` over a
    given `System` and `Probe` (no child, no torch). With `block=True`, a call waits until
    `release` is called, so the loading state can be seen."""

    def __init__(
        self,
        checks: list[Check] | None = None,
        system: System | None = None,
        probe: Probe | None = None,
        block: bool = False,
    ) -> None:
        """Create the fake.

        Args:
            checks: What every call returns; None runs the real checks on `system` and `probe`.
            system: The machine the real checks read (None: this one).
            probe: What the probe child would have reported (None: torch not installed).
            block: Make calls wait for `release`.
        """
        self.checks = checks
        self.system = system
        self.probe = probe
        self.block = block
        self.calls = 0
        self._released = threading.Event()

    def __call__(self) -> list[Check]:
        """The checks, once released when blocking."""
        self.calls += 1
        if self.block:
            self._released.wait(30)
        if self.checks is not None:
            return list(self.checks)
        # lazy: the doctor's checks only when the environment is examined
        from pitfalls.doctor import Probe, System, run_checks

        return run_checks(self.system or System(), self.probe or Probe("no_torch"))

    def release(self) -> None:
        """Let a blocked call return."""
        self._released.set()
