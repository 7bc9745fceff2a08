"""The runner: executes recipe snippets in child processes and returns structured results.

This is the only part of pitfalls that touches torch, and it does so only in child processes
(`child/`, run as a script). The orchestration of many recipes (jobs, skips, timeouts) lives
here, not in a face, because both the CLI and the TUI verify the catalogue.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from pitfalls.catalogue.model import Recipe
from pitfalls.runner.process import (
    EventHandler,
    Outcome,
    ProcessPool,
    RunnerUnavailable,
    Task,
    default_start_method,
)
from pitfalls.runner.result import (
    EXIT_CLAIM_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_SNIPPET_FAILED,
    EXIT_UNAVAILABLE,
    EXIT_USAGE,
    RunResult,
    from_outcome,
    strict_json,
)

__all__ = [
    "DEFAULT_TIMEOUT",
    "DEVICE_PATTERN",
    "EXIT_CLAIM_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_SNIPPET_FAILED",
    "EXIT_UNAVAILABLE",
    "EXIT_USAGE",
    "ProcessPool",
    "RunResult",
    "RunnerUnavailable",
    "VerifyReport",
    "default_jobs",
    "default_start_method",
    "probe_device",
    "run_recipe",
    "strict_json",
    "valid_device",
    "verify",
]

# Generous: the first CUDA call of a process can take tens of seconds on a cold driver.
DEFAULT_TIMEOUT = 120.0
DEVICE_PATTERN = re.compile(r"^(auto|cpu|mps|cuda(:\d+)?)$")
DEVICE_NAMES = "auto, cpu, cuda, cuda:N, mps"


def valid_device(device: str) -> bool:
    """Whether `device` is a device name pitfalls understands (not whether it is present)."""
    return bool(DEVICE_PATTERN.fullmatch(device))


def default_jobs() -> int:
    """The CPUs this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS and Windows have no affinity call
        return max(1, os.cpu_count() or 1)


def python_for(python: str | None) -> str | None:
    """The interpreter for snippets: --python, else PITFALLS_PYTHON, else this one (None)."""
    return python or os.environ.get("PITFALLS_PYTHON") or None


class DeviceUnavailable(RuntimeError):
    """The requested device is not present; carries what is."""

    def __init__(self, requested: str, reason: str, available: list[str]) -> None:
        super().__init__(reason)
        self.requested = requested
        self.reason = reason
        self.available = available


def run_recipe(
    recipe: Recipe,
    device: str = "auto",
    timeout: float = DEFAULT_TIMEOUT,
    python: str | None = None,
    on_event: EventHandler | None = None,
    pool: ProcessPool | None = None,
) -> RunResult:
    """Run one recipe's problem and fix in a child process and judge the claim.

    Raises RunnerUnavailable when the interpreter or torch is missing.
    """
    own_pool = pool is None
    pool = pool or ProcessPool(python=python_for(python), on_event=on_event)
    try:
        task = Task(0, recipe.id, str(recipe.snippet_path), device, timeout)
        task.requires = recipe.requires
        outcome = pool.run([task])[0]
    finally:
        if own_pool:
            pool.close()
    return _checked(recipe, outcome)


# Snippet text that means "this will import torch._dynamo" (about 2 s): the first
# optimizer.step() does, and so do checkpointing, DDP, torch.compile and
# use_deterministic_algorithms (through torch._inductor.config); or a good part of what it
# imports: sympy (0.5 s), through torch.fx.experimental.symbolic_shapes, comes with an
# explicit gradient to backward() and with torch.testing.assert_close (through DTensor).
_DYNAMO_HINTS = (
    "optim.",
    "checkpoint(",
    "DistributedDataParallel",
    "torch.compile",
    "GradScaler",
    "use_deterministic_algorithms(",
    "assert_close(",
    ".backward(torch.",
    ".backward(gradient",
    "grad_outputs",
    "torch.export",
    "torch._dynamo",
    "torch._inductor",
    "fully_shard",
    "FullyShardedDataParallel",
)


def needs_dynamo(recipe: Recipe) -> bool:
    """Whether the recipe's snippet will import torch._dynamo (by the hints above)."""
    try:
        text = recipe.snippet()
    except OSError:
        return False
    return any(hint in text for hint in _DYNAMO_HINTS)


def shared_imports(recipes: list[Recipe]) -> list[str]:
    """Modules worth importing once, in a preloaded fork server, for this set of recipes:
    those that at least two of their snippets would otherwise each import on their own."""
    return ["torch._dynamo"] if sum(map(needs_dynamo, recipes)) >= 2 else []


def _checked(recipe: Recipe, outcome: Outcome) -> RunResult:
    result = from_outcome(recipe, outcome)
    error = result.error or {}
    if error.get("kind") == "torch_missing":
        raise RunnerUnavailable("torch_missing", error.get("message", "torch is missing"))
    return result


def probe_device(pool: ProcessPool, device: str, timeout: float) -> tuple[str, dict[str, Any]]:
    """Resolve `device` in a child (the forking process must never initialise CUDA).

    Returns (resolved device, environment); raises DeviceUnavailable or RunnerUnavailable.
    """
    task = Task(-1, "<probe>", "", device, timeout, probe=True)
    outcome = pool.run([task])[0]
    if outcome.timed_out:
        raise RunnerUnavailable(
            "python_missing", f"the device probe did not finish within {timeout:g} s"
        )
    document = outcome.result or {}
    error = document.get("error") or {}
    if error.get("kind") == "torch_missing":
        raise RunnerUnavailable("torch_missing", error["message"])
    if error.get("kind") == "device_unavailable":
        raise DeviceUnavailable(device, error["message"], document.get("available_devices", []))
    if not document.get("device"):
        detail = outcome.output.strip().splitlines()[-1:] or ["no result"]
        raise RunnerUnavailable("python_missing", f"the device probe failed: {detail[0]}")
    return document["device"], {
        **document.get("environment", {}),
        "devices": document.get("available_devices", []),
    }


def _verified(recipe: Recipe, outcome: Outcome) -> RunResult:
    """A verify result: a recipe whose extra modules are missing is skipped, with the reason,
    rather than failed (a lone `run` of it exits 3 instead)."""
    # lazy: the runner only for what runs snippets
    from pitfalls.runner.discriminate import findings

    result = from_outcome(recipe, outcome)
    if result.error and result.error.get("kind") == "requirement_missing":
        result.skipped = result.error["message"]
        result.error = None
        result.checks = []
    result.findings = findings(result)
    return result


@dataclass
class VerifyReport:
    """The results of a verify run, in catalogue order, and the exit code they call for."""

    device: str
    environment: dict[str, Any]
    results: list[RunResult] = field(default_factory=list)
    interrupted: bool = False

    @property
    def exit_code(self) -> int:
        """4 if any recipe failed to run, else 1 if any claim did not hold or any recipe has a
        discrimination finding (a claim that does not tell problem from fix), else 0."""
        statuses = {r.status for r in self.results}
        if statuses & {"error", "unavailable"}:
            return EXIT_SNIPPET_FAILED
        if "claim_failed" in statuses or self.with_findings():
            return EXIT_CLAIM_FAILED
        return EXIT_OK

    def with_findings(self) -> list[RunResult]:
        """The results that carry discrimination findings."""
        return [r for r in self.results if r.findings]

    def counts(self) -> dict[str, int]:
        """How many results have each status."""
        counts: dict[str, int] = {}
        for result in self.results:
            counts[result.status] = counts.get(result.status, 0) + 1
        return counts


def verify(
    recipes: Iterable[Recipe],
    device: str = "auto",
    jobs: int | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    python: str | None = None,
    on_result: Callable[[RunResult], None] | None = None,
    on_event: EventHandler | None = None,
    pool: ProcessPool | None = None,
) -> VerifyReport:
    """Run every recipe on one device, each in its own process, `jobs` at a time.

    The device is resolved once, in a probe child: a missing device raises DeviceUnavailable
    before anything runs, so a broken driver never turns into an all-skipped green run.
    """
    recipes = list(recipes)
    by_task: dict[int, Recipe] = {}

    def handle(kind: str, task: Task, data: Any) -> None:
        if on_event is not None:
            on_event(kind, task, data)
        if kind == "finished" and task.task_id in by_task and on_result is not None:
            on_result(_verified(by_task[task.task_id], data))

    own_pool = pool is None
    pool = pool or ProcessPool(python=python_for(python))
    previous_handler = pool.on_event
    pool.on_event = handle
    try:
        # Forked from the main server at once, the preloaded server imports what several
        # snippets share while the probe and the other snippets run.
        preload = shared_imports(recipes)
        pool.preload(preload)
        # The probe imports torch in spawn mode: --timeout is per recipe, not for that.
        resolved, environment = probe_device(pool, device, max(timeout, DEFAULT_TIMEOUT))
        report = VerifyReport(resolved, environment)
        device_type = resolved.split(":", 1)[0]
        gpus = [d for d in environment.get("devices", []) if d.startswith("cuda:")]
        if jobs is None:
            jobs = max(1, len(gpus)) if device_type == "cuda" else default_jobs()
        runnable = [r for r in recipes if r.supports_device(resolved)]
        threads = max(1, default_jobs() // jobs) if jobs > 1 else None
        tasks = []
        for index, recipe in enumerate(runnable):
            task_device = resolved
            if device_type == "cuda" and ":" not in device and len(gpus) > 1:
                task_device = f"cuda:{index % len(gpus)}"  # spread recipes over the GPUs
            task = Task(index, recipe.id, str(recipe.snippet_path), task_device, timeout, threads)
            task.requires = recipe.requires
            task.preloaded = bool(preload) and needs_dynamo(recipe)
            by_task[index] = recipe
            tasks.append(task)
        # Recipes that declare themselves slow start first, so that none of them is left
        # running alone at the end while the other CPUs idle; results keep catalogue order.
        tasks.sort(key=lambda task: not by_task[task.task_id].slow)
        outcomes = {o.task.task_id: o for o in pool.run(tasks, jobs=jobs)}
        results_by_id = {
            by_task[task_id].id: _verified(by_task[task_id], outcome)
            for task_id, outcome in outcomes.items()
        }
        for recipe in recipes:
            if recipe.id in results_by_id:
                report.results.append(results_by_id[recipe.id])
            else:
                skipped = RunResult(recipe, resolved, device=resolved)
                skipped.skipped = f"declares devices {', '.join(recipe.devices)}"
                skipped.findings = []  # nothing ran, nothing to compare
                report.results.append(skipped)
                if on_result is not None:
                    on_result(skipped)
        report.interrupted = any(r.error and r.error["kind"] == "cancelled" for r in report.results)
        return report
    finally:
        pool.on_event = previous_handler
        if own_pool:
            pool.close()
