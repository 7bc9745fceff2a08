"""PFL209: a GradScaler on a loss that does not need one or cannot use one: computed under
bfloat16 autocast, or by a model whose weights were cast to float16."""

from __future__ import annotations

import ast

from pitfalls.check.checker import Checker, check, documents, walk_local
from pitfalls.check.kinds import is_module
from pitfalls.check.rules.checkpoints import local_values, mentions, value_before

SCALERS = frozenset(
    {"torch.amp.GradScaler", "torch.cuda.amp.GradScaler", "torch.amp.grad_scaler.GradScaler"}
)
AUTOCASTS = frozenset(
    {"torch.autocast", "torch.amp.autocast", "torch.cuda.amp.autocast", "torch.cpu.amp.autocast"}
)
FLOAT16 = frozenset({"torch.float16", "torch.half"})


def _dtype(checker: Checker, call: ast.Call) -> str | None:
    for keyword in call.keywords:
        if keyword.arg == "dtype" and isinstance(keyword.value, (ast.Name, ast.Attribute)):
            return checker.model.resolve(keyword.value)
    return None


def _bf16_blocks(checker: Checker) -> list[tuple[int, int]]:
    """Line spans of `with autocast(..., dtype=torch.bfloat16):` blocks in this function."""
    function = checker.function or checker.tree

    def compute() -> list[tuple[int, int]]:
        spans = []
        for node in walk_local(function):
            if not isinstance(node, (ast.With, ast.AsyncWith)):
                continue
            for item in node.items:
                call = item.context_expr
                if (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, (ast.Name, ast.Attribute))
                    and checker.model.resolve(call.func) in AUTOCASTS
                    and _dtype(checker, call) == "torch.bfloat16"
                ):
                    spans.append((node.lineno, node.end_lineno or node.lineno))
        return spans

    return checker.cached(function, "bf16-blocks", compute)  # type: ignore[no-any-return]


def _half_models(checker: Checker) -> dict[str, int]:
    """Modules cast to float16 in this function: `model.half()`, `model.to(torch.float16)`,
    `model.to(dtype=torch.float16)`: name -> line."""
    function = checker.function or checker.tree

    def compute() -> dict[str, int]:
        found = {}
        for node in walk_local(function):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
            ):
                continue
            method = node.func.attr
            to_half = method == "half" and not node.args
            if method == "to":
                values = [*node.args, *(k.value for k in node.keywords if k.arg == "dtype")]
                to_half = any(
                    isinstance(v, (ast.Name, ast.Attribute)) and checker.model.resolve(v) in FLOAT16
                    for v in values
                )
            name = node.func.value.id
            if to_half and is_module(checker.model.kind_of(node.func.value)):
                found.setdefault(name, node.lineno)
        return found

    return checker.cached(function, "half-models", compute)  # type: ignore[no-any-return]


@check("PFL209", ast.Call)
@documents("PFL209")
def scaler_misused(checker: Checker, node: ast.Call) -> None:
    """## What it does
    Finds `scaler.scale(loss)`, `scaler` made by `GradScaler(...)` in the same function, where
    `loss` was computed inside `with autocast(..., dtype=torch.bfloat16):`, or where the
    function cast a module's weights to float16 (`model.half()`, `model.to(torch.float16)`)
    before the call. A scaler made with `enabled=` is not reported (it may be off).

    ## Why is this bad?
    GradScaler is for float16 autocast over float32 weights. With bfloat16 it does nothing
    useful (bfloat16 has float32's exponent range, gradients do not underflow), and on CUDA
    its unscale step has no bfloat16 kernel. With `.half()` weights the gradients are float16
    themselves, and `scaler.step` refuses them: "Attempting to unscale FP16 gradients."

    ## Example
    `with torch.autocast("cuda", dtype=torch.bfloat16):\\n    loss = ...` then
    `scaler.scale(loss).backward()`

    Use instead: with bfloat16, `loss.backward()` and `optimizer.step()` without a scaler;
    with float16, keep the weights float32 and let autocast cast the operations.
    """
    func = node.func
    if not (
        isinstance(func, ast.Attribute)
        and func.attr == "scale"
        and isinstance(func.value, ast.Name)
        and len(node.args) == 1
        and mentions(checker, "GradScaler")
    ):
        return
    scaler = value_before(checker, func.value.id, node.lineno)
    if not (
        isinstance(scaler, ast.Call)
        and isinstance(scaler.func, (ast.Name, ast.Attribute))
        and checker.model.resolve(scaler.func) in SCALERS
        and not any(k.arg == "enabled" for k in scaler.keywords)
    ):
        return
    loss = node.args[0]
    if isinstance(loss, ast.Name):
        bound = [line for line, _ in local_values(checker).get(loss.id, ()) if line < node.lineno]
        if bound and any(start <= bound[-1] <= end for start, end in _bf16_blocks(checker)):
            checker.report(
                "PFL209",
                node,
                f"`{loss.id}` was computed under bfloat16 autocast, which needs no GradScaler "
                f"(and CUDA cannot unscale bfloat16): call `{loss.id}.backward()` directly",
            )
            return
    halves = {n: line for n, line in _half_models(checker).items() if line < node.lineno}
    if halves:
        name = next(iter(halves))
        checker.report(
            "PFL209",
            node,
            f"`{name}` has float16 weights, so its gradients are float16 and the scaler "
            f"refuses to unscale them: keep the weights float32 and use autocast",
        )
