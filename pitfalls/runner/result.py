"""The structured result of running one recipe, shared by `run`, `verify`, the TUI and --json."""

from __future__ import annotations

import math
import signal as signal_module
from dataclasses import dataclass, field
from typing import Any

from pitfalls.catalogue.checked import revision
from pitfalls.catalogue.model import Recipe
from pitfalls.catalogue.series import plots_data
from pitfalls.catalogue.statements import context_keys
from pitfalls.catalogue.verdict import (
    Check,
    error_proofs,
    evaluate,
    invariants_hold,
    version_in_range,
)
from pitfalls.runner.process import Outcome

SCHEMA_VERSION = 1

# Exit codes, documented in --help and the README.
EXIT_OK = 0
EXIT_CLAIM_FAILED = 1
EXIT_USAGE = 2
EXIT_UNAVAILABLE = 3
EXIT_SNIPPET_FAILED = 4
EXIT_INTERRUPTED = 130

UNAVAILABLE_KINDS = (
    "device_unavailable",
    "torch_missing",
    "python_missing",
    "requirement_missing",
)


@dataclass
class RunResult:
    """Everything known about one run of one recipe."""

    recipe: Recipe
    requested_device: str
    device: str | None = None
    environment: dict[str, Any] = field(default_factory=dict)
    available_devices: list[str] = field(default_factory=list)
    problem: dict[str, Any] | None = None
    fix: dict[str, Any] | None = None
    checks: list[Check] = field(default_factory=list)
    warnings: dict[str, list[str]] = field(default_factory=dict)  # recorded per side
    errors: list[dict[str, Any]] = field(default_factory=list)  # proof of each `errors` entry
    reproduced: bool = False
    fixed: bool = False
    error: dict[str, Any] | None = None
    skipped: str = ""
    output: str = ""
    output_truncated: bool = False
    duration: float = 0.0
    # The discrimination findings (pitfalls.runner.discriminate), set by `verify`; None after `run`.
    findings: list[Any] | None = None

    @property
    def invariants_held(self) -> bool:
        """Whether every invariant (`side = "both"`) that applied held on both sides. A failed
        invariant means torch no longer behaves as the recipe says on either side: the run
        does not hold (claim_failed), though `reproduced` and `fixed` are read from the
        claims alone."""
        return invariants_hold(self.checks)

    @property
    def status(self) -> str:
        """One of: held, claim_failed, error, unavailable, skipped."""
        if self.skipped:
            return "skipped"
        if self.error:
            return "unavailable" if self.error["kind"] in UNAVAILABLE_KINDS else "error"
        held = self.reproduced and self.fixed and self.invariants_held
        return "held" if held else "claim_failed"

    @property
    def exit_code(self) -> int:
        """The process exit code this result alone calls for."""
        return {
            "held": EXIT_OK,
            "skipped": EXIT_OK,
            "claim_failed": EXIT_CLAIM_FAILED,
            "unavailable": EXIT_UNAVAILABLE,
            "error": EXIT_SNIPPET_FAILED,
        }[self.status]

    @property
    def torch_version(self) -> str | None:
        """The torch version the snippet ran on, when it got that far."""
        return self.environment.get("torch")

    @property
    def torch_in_range(self) -> bool | None:
        """Whether that torch lies in the recipe's declared range (None if unknown)."""
        return version_in_range(self.torch_version, self.recipe.torch)

    @property
    def versions(self) -> dict[str, str | None]:
        """The versions the recipe's gates are checked against."""
        env = self.environment
        return {"torch": env.get("torch"), "numpy": env.get("numpy"), "python": env.get("python")}

    @property
    def gates_in_range(self) -> bool:
        """Whether NumPy and Python satisfy the recipe's own `numpy`/`python` gates."""
        versions = self.versions
        return all(
            version_in_range(versions[name], spec) is not False
            for name, spec in (("numpy", self.recipe.numpy), ("python", self.recipe.python))
            if spec
        )

    def context(self) -> dict[str, list[str]]:
        """Per side, the observations no expectation or chart reads: shown, not checked."""
        try:
            return context_keys(self)
        except (OSError, ValueError):  # recipe.toml unreadable since the run
            return {"problem": [], "fix": []}

    def plots_data(self) -> list[dict[str, Any]]:
        """Each `[[plot]]` with the shape of its series as observed."""
        try:
            return plots_data(self.recipe, self.problem, self.fix)
        except ValueError:  # recipe.toml was edited into something unreadable since loading
            return []

    def to_dict(self) -> dict[str, Any]:
        """The result as strict-JSON-able data (see `strict_json`)."""
        data: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "id": self.recipe.id,
            "status": self.status,
            "device": self.device or self.requested_device,
            "requested_device": self.requested_device,
            "environment": self.environment,
            "revision": _revision(self.recipe),
            "torch_range": self.recipe.torch,
            "torch_in_range": self.torch_in_range,
            "gates_in_range": self.gates_in_range,
            "problem": self.problem,
            "warnings": self.warnings,
            "errors": self.errors,
            "fix": self.fix,
            "expectations": [c.to_dict() for c in self.checks],
            "context": self.context(),
            "plots": self.plots_data(),
            "reproduced": self.reproduced,
            "fixed": self.fixed,
            "invariants_held": self.invariants_held,
            "duration_s": round(self.duration, 3),
            "output": self.output,
            "output_truncated": self.output_truncated,
        }
        if self.error:
            data["error"] = {k: v for k, v in self.error.items() if k != "traceback"}
            if self.error.get("traceback"):
                data["error"]["traceback"] = self.error["traceback"]
        if self.skipped:
            data["skipped"] = self.skipped
        if self.findings is not None:
            data["findings"] = [f.to_dict() for f in self.findings]
        return strict_json(data)


def _revision(recipe: Recipe) -> str | None:
    """The hash of the snippet and expectations that ran (see pitfalls.catalogue.checked), so that a
    `verify --json` made elsewhere can be recorded against the right revision."""
    try:
        return revision(recipe)
    except (OSError, ValueError):
        return None


def strict_json(value: Any) -> Any:
    """Replace non-finite floats by "nan", "inf" and "-inf", so json.dumps stays strict."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {str(k): strict_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict_json(v) for v in value]
    return value


def signal_name(number: int) -> str:
    """`SIGKILL` for 9, and so on."""
    try:
        return signal_module.Signals(number).name
    except ValueError:
        return f"signal {number}"


def from_outcome(recipe: Recipe, outcome: Outcome) -> RunResult:
    """Turn a process outcome into a RunResult, computing the verdict from the expectations."""
    task = outcome.task
    result = RunResult(recipe, task.device, duration=outcome.duration)
    result.output = outcome.output
    result.output_truncated = outcome.output_truncated
    document = outcome.result or {}
    result.environment = document.get("environment") or {}
    result.available_devices = document.get("available_devices") or []
    result.device = document.get("device")
    result.problem = document.get("problem")
    result.fix = document.get("fix")
    result.error = document.get("error")
    recorded = document.get("warnings")
    if isinstance(recorded, dict):
        result.warnings = {
            side: [w for w in recorded.get(side) or [] if isinstance(w, str)]
            for side in ("problem", "fix")
            if isinstance(recorded.get(side), list)
        }
    if outcome.timed_out:
        message = f"timed out after {task.timeout:g} s; the snippet and its children were ended"
        result.error = {"kind": "timeout", "message": message, "stage": _stage(result)}
    elif outcome.cancelled:
        result.error = {"kind": "cancelled", "message": "cancelled", "stage": _stage(result)}
    elif outcome.signal:
        name = signal_name(outcome.signal)
        result.error = {"kind": "signal", "message": f"killed by signal {name}", "signal": name}
        result.error["stage"] = _stage(result)
    elif outcome.lost and outcome.result is None:
        result.error = {"kind": "crash", "message": outcome.lost}
    elif outcome.result_problem:
        result.error = {"kind": "bad_observations", "message": outcome.result_problem}
    elif outcome.result is None:
        code = outcome.returncode
        tail = _last_line(outcome.output)
        message = f"the snippet process exited with code {code} before reporting a result"
        result.error = {"kind": "crash", "message": message + (f": {tail}" if tail else "")}
    if result.error is None or result.error.get("stage") in ("fix",):
        device_type = (result.device or task.device).split(":", 1)[0]
        result.checks, result.reproduced, result.fixed = evaluate(
            recipe,
            result.problem,
            result.fix,
            result.torch_version,
            device_type,
            versions=result.versions,
            warnings=result.warnings,
        )
        result.errors = error_proofs(recipe, result.checks, device_type, result.versions)
    if result.error is not None:
        result.fixed = False
    return result


def _stage(result: RunResult) -> str:
    if result.problem is None:
        return "problem"
    return "fix" if result.fix is None else "after"


def _last_line(text: str) -> str:
    # The runner's own `--- problem('cpu') ---` markers say nothing about why a snippet died.
    lines = [
        line
        for line in text.strip().splitlines()
        if line.strip() and not (line.startswith("--- ") and line.rstrip().endswith(" ---"))
    ]
    return lines[-1][:200] if lines else ""
