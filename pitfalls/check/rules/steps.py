"""PFL302-PFL304: the order of optimizer and scheduler steps, `zero_grad`, and functional
dropout that ignores `model.eval()`."""

from __future__ import annotations

import ast
import re

from pitfalls.check.checker import Checker, check, documents, walk_local
from pitfalls.check.kinds import SCHEDULER
from pitfalls.check.optimizers import (
    helper_summaries,
    is_optimizer,
    receiver_name,
    scaler_step,
    zeroes_grad_by_hand,
)
from pitfalls.check.scopes import Scope

DROPOUTS = frozenset(
    f"torch.nn.functional.{name}"
    for name in (
        "dropout",
        "dropout1d",
        "dropout2d",
        "dropout3d",
        "alpha_dropout",
        "feature_alpha_dropout",
    )
)
SCHEDULER_NAME = re.compile(r"sched", re.IGNORECASE)


def _is_scheduler(checker: Checker, node: ast.AST) -> bool:
    kind = checker.model.kind_of(node)
    return kind == SCHEDULER or kind is None and bool(SCHEDULER_NAME.search(receiver_name(node)))


def _lr_step_arguments(node: ast.Call) -> bool:
    """Whether a `.step(...)` call fits an LR scheduler's `step(metrics=None)` (or its old
    `epoch=`): a diffusion sampler's `noise_scheduler.step(pred, t, sample)` does not."""
    return len(node.args) <= 1 and all(k.arg in ("metrics", "epoch") for k in node.keywords)


def _step_calls(checker: Checker, loop: ast.AST) -> list[tuple[tuple[int, int], str, ast.AST]]:
    """`.step()`, `.backward()`, zero-grad evidence and helper calls in `loop`, in order."""
    found: list[tuple[tuple[int, int], str, ast.AST]] = []
    helper_calls: list[ast.Call] = []
    for node in walk_local(loop):
        if zeroes_grad_by_hand(node):
            found.append(((node.lineno, node.col_offset), "grad", node))  # type: ignore[attr-defined]
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        where = (node.lineno, node.col_offset)
        if isinstance(func, ast.Attribute):
            if func.attr == "step":
                if _is_scheduler(checker, func.value):
                    if _lr_step_arguments(node):
                        found.append((where, "scheduler", node))
                elif is_optimizer(checker, func.value) or scaler_step(checker, node):
                    found.append((where, "optimizer", node))
            elif func.attr in ("backward", "manual_backward"):
                found.append((where, "backward", node))
            elif func.attr == "zero_grad":
                found.append((where, "zero_grad", node))
            elif isinstance(func.value, ast.Name) and func.value.id == "self":
                helper_calls.append(node)
        elif isinstance(func, ast.Name):
            helper_calls.append(node)
    kinds = {kind for _, kind, _ in found}
    if helper_calls and kinds & {"scheduler", "backward", "optimizer"}:
        helpers = helper_summaries(checker)
        for call in helper_calls:
            for flag in sorted(helpers.get(receiver_name(call.func), ())):
                found.append(((call.lineno, call.col_offset), flag, call))
    found.sort(key=lambda item: item[0])
    return found


@check(("PFL302", "PFL303"), ast.For, ast.While)
@documents("PFL302")
def step_order(checker: Checker, node: ast.AST) -> None:
    """## What it does
    Finds a loop whose body calls `scheduler.step()` before `optimizer.step()` (PFL302), and a
    loop that calls `backward()` and `optimizer.step()` but never zeroes the gradients
    (PFL303). Calls into functions of the same file count.

    ## Why is this bad?
    Since torch 1.1 the scheduler must step after the optimizer: stepping it first skips the
    first value of the schedule (torch warns once). Without `zero_grad()` every `backward()`
    adds to the previous gradients, so each step uses the sum of all gradients so far.

    ## Example
    `for epoch in range(n):\n    scheduler.step()\n    train(...)  # calls optimizer.step()`

    Use instead: call `scheduler.step()` after the epoch's optimizer steps, and
    `optimizer.zero_grad()` before each `backward()`.
    """
    if ".step(" not in checker.source_lines(node):
        return  # both rules need a step call; skip the walk for most loops
    events = _step_calls(checker, node)
    if not events:
        return
    kinds = [kind for _, kind, _ in events]
    if "scheduler" in kinds and "optimizer" in kinds:
        first_scheduler = kinds.index("scheduler")
        if first_scheduler < kinds.index("optimizer"):
            call = events[first_scheduler][2]
            reported = checker.cached(checker.tree, "scheduler-reported", set)
            if id(call) not in reported:
                reported.add(id(call))
                checker.report(
                    "PFL302",
                    call,
                    f"`{checker.segment(call)}` runs before `optimizer.step()` in this loop: the "
                    "schedule's first value is skipped; step the scheduler after the optimizer",
                )
    if "backward" in kinds and "optimizer" in kinds and "zero_grad" not in kinds:
        if "grad" in kinds:
            return  # `p.grad = None`, `p.grad.zero_()`: zeroed by hand
        step = events[kinds.index("optimizer")][2]
        reported = checker.cached(checker.tree, "zero-grad-reported", set)
        if id(step) in reported:
            return
        reported.add(id(step))
        checker.report(
            "PFL303",
            step,
            "this loop calls `backward()` and `step()` but never `zero_grad()`: gradients add "
            "up across iterations; call `optimizer.zero_grad()` before `backward()`",
        )


@documents("PFL303")
def _zero_grad_doc() -> None:
    """## What it does
    Finds a loop that calls `backward()` and `optimizer.step()` but never `zero_grad()` (nor
    sets `.grad` by hand), also through functions of the same file it calls.

    ## Why is this bad?
    `backward()` adds into `.grad`. Without zeroing, each step applies the sum of every
    gradient since the start, and training diverges or crawls.

    ## Example
    `for x, y in loader:\n    loss_fn(model(x), y).backward()\n    optimizer.step()`

    Use instead: call `optimizer.zero_grad()` at the start of each iteration.
    """


@check("PFL304", ast.Call)
@documents("PFL304")
def functional_dropout(checker: Checker, node: ast.Call) -> None:
    """## What it does
    Finds `F.dropout(x, ...)` without `training=self.training` in a `forward` method, in any
    other method of an `nn.Module` subclass (a helper that `forward` calls), or in a function
    nested in one.

    ## Why is this bad?
    The functional form defaults to `training=True` and knows nothing of `model.eval()`:
    dropout stays on at evaluation time, and predictions are noisy and worse.

    ## Example
    `x = F.dropout(x, p=0.5)`

    Use instead: `x = F.dropout(x, p=0.5, training=self.training)`, or an `nn.Dropout` layer.
    """
    function = checker.function
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return
    if len(node.args) >= 3 or any(k.arg in ("training", None) for k in node.keywords):
        return
    name = checker.callee(node)  # memoised: the other call rules resolve it too
    if name in DROPOUTS and (function.name == "forward" or _in_module_method(checker)):
        short = name.rsplit(".", 1)[-1]  # type: ignore[union-attr]
        checker.report(
            "PFL304",
            node,
            f"`F.{short}` without `training=self.training` stays on after `model.eval()`",
        )


def _in_module_method(checker: Checker) -> bool:
    """Whether the code at hand is in a method of an nn.Module subclass (or in a function
    nested in one), where `self.training` says the mode."""
    scope: Scope | None = checker.model.scope
    while scope is not None:
        if scope.self_name is not None:
            return scope.cls is not None and scope.cls.is_module
        function = scope.function
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if function.name == "forward":
                return True
        scope = scope.parent
    return False
