"""Environment checks for `pitfalls doctor`: what in this machine's setup will bite a PyTorch
user, found before it does, each with advice and the recipe that explains it.

Every check is small and independent and reads the machine only through a `System` (the file
system root, environment variables, resource limits, the command runner, the working
directory), so tests can hand it a fake one. Checks that need torch read a `Probe`: what a
child process of the target interpreter saw when it imported torch and NumPy (never this
process: a broken CUDA install must not hang or crash doctor). Nothing here imports torch,
Rich or Typer.
"""

from __future__ import annotations

from pitfalls.doctor.checks_host import HOST_CHECKS
from pitfalls.doctor.checks_torch import TORCH_CHECKS
from pitfalls.doctor.model import STATUSES, Check, Probe, System
from pitfalls.doctor.probe import run_probe

__all__ = [
    "ENVIRONMENT_RECIPES",
    "GROUPS",
    "STATUSES",
    "Check",
    "Probe",
    "System",
    "run_checks",
    "run_probe",
]

# The recipes a check names: an error that one of them explains is an environment problem,
# and `pitfalls trace` suggests `pitfalls doctor` for it (a test keeps this list in step).
ENVIRONMENT_RECIPES = frozenset(
    {
        "cuda-not-available",
        "cuda-arch-not-supported",
        "invalid-device-ordinal",
        "dataloader-worker-killed",
        "dataloader-too-many-open-files",
        "numpy-abi-mismatch",
        "openmp-duplicate-runtime",
        "mps-not-available",
        "mps-unsupported-op",
        "mps-out-of-memory",
        "module-shadowing",
        "cuda-memory-fragmentation",
    }
)

# How the report groups the checks (ids not listed fall under "torch").
GROUPS = {
    "numpy-abi": "libraries",
    "openmp": "libraries",
    "module-shadowing": "libraries",
    "shm": "system",
    "open-files": "system",
}


def run_checks(system: System, probe: Probe) -> list[Check]:
    """Every applicable check, in report order. A check that fails is "could not check"."""
    results: list[Check] = []
    for check in (*TORCH_CHECKS, *HOST_CHECKS):
        try:
            found = check(system, probe)
        except Exception as err:  # one broken probe must not take the report down
            name = getattr(check, "check_id", check.__name__)
            found = [
                Check(name, "unknown", f"could not check: {type(err).__name__}: {err}", "", "")
            ]
        results.extend(found)
    return results
