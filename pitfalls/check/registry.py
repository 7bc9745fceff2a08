"""The rule registry: importing it imports every rule family, and each family registers its
checks and their documentation in the checker's tables (`CHECKS`, `DOCS`) as it is imported.

A plugin registry without a cycle: the rules import the checker's API (pitfalls.check.checker,
with the semantic model in kinds and scopes), this module imports the rules, and only what
runs or documents them (the driver, output) imports this module. A new family is one module
in `rules/` and one line here.
"""

from __future__ import annotations

from pitfalls.check.checker import CHECKS, DOC_START, DOCS
from pitfalls.check.rules import (
    api_changes,
    attention,
    checkpoints,
    compiling,
    data,
    deprecated,
    distributed,
    grads,
    idioms,
    loop,
    modes,
    numeric,
    perf,
    precision,
    registration,
    scripts,
    snapshot,
    steps,
    tensor,
)

FAMILIES = (
    api_changes,
    deprecated,
    tensor,
    registration,
    snapshot,
    numeric,
    loop,
    steps,
    grads,
    data,
    perf,
    checkpoints,
    idioms,
    attention,
    precision,
    modes,
    scripts,
    distributed,
    compiling,
)

__all__ = ["CHECKS", "DOCS", "DOC_START", "FAMILIES"]
