"""PFL101-PFL103: tensors and autograd (`.data` writes and reads, discarded results).

Unregistered module state (PFL104/PFL105) is in `registration`, state-dict snapshots
(PFL106) in `snapshot`."""

from __future__ import annotations

import ast

from pitfalls.check.checker import Checker, check, walk_local
from pitfalls.check.kinds import is_tensor


@check(("PFL101", "PFL102"), ast.Attribute)
def data_attribute(checker: Checker, node: ast.Attribute) -> None:
    """## What it does
    Finds `.data` on tensors, parameters and module outputs: writes (PFL101: `p.data = ...`,
    `w.data.mul_(...)`, `x.data[i] = ...`) and reads (PFL102: `out.data`). A value passed to
    a loss is a tensor, and so is `outputs = model(x)` read for predictions
    (`torch.max(outputs.data, 1)`, `outputs.data.max(1)`) even where `model` is unknown.

    ## Why is this bad?
    `.data` is a view that autograd does not track. A write through it changes a tensor that
    the graph has saved for backward, and the gradients come out silently wrong; a read
    detaches without saying so. `.data` on datasets and other objects is not reported.

    ## Example
    `w.data.add_(-lr * w.grad.data)`

    Use instead: `with torch.no_grad(): w.add_(-lr * w.grad)`, and `x.detach()` or `x.item()`
    for reads.
    """
    if node.attr != "data":
        return
    if not is_tensor(checker.model.kind_of(node.value)) and not _prediction_read(checker, node):
        return
    receiver = checker.segment(node.value)
    how = _write_kind(checker, node)
    if how is not None:
        checker.report(
            "PFL101",
            node,
            f"write through `{receiver}.data` ({how}) bypasses autograd and can corrupt "
            f"gradients silently: do it under `torch.no_grad()` on `{receiver}` itself",
        )
    else:
        checker.report(
            "PFL102",
            node,
            f"`{receiver}.data` bypasses autograd: use `{receiver}.detach()` (or `.item()` for "
            "a number)",
        )


# Reductions that take only a tensor: `torch.max(out.data, 1)` shows that `out.data` is one.
_PREDICTIONS = frozenset("max min argmax argmin topk sort".split())


def _prediction_read(checker: Checker, node: ast.Attribute) -> bool:
    """`torch.max(outputs.data, 1)` or `outputs.data.max(1)` where `outputs = model(x)` and
    `model` is a parameter or a local of unknown kind: `.data` taken from the result of
    calling a model on an input, to read its predictions, is a tensor's."""
    parents = checker.parents
    parent = parents[-1] if parents else None
    if isinstance(parent, ast.Call) and parent.args and parent.args[0] is node:
        name = checker.callee(parent) or ""
        if not (name.startswith("torch.") and name[6:] in _PREDICTIONS):
            return False
    elif isinstance(parent, ast.Attribute) and parent.attr in _PREDICTIONS and len(parents) > 1:
        grand = parents[-2]
        if not (isinstance(grand, ast.Call) and grand.func is parent):
            return False
    else:
        return False
    receiver = node.value
    if not isinstance(receiver, ast.Name):
        return False
    scope = checker.model.scope
    line = scope.opaque.get(receiver.id)
    if line is None or scope.names.get(receiver.id, "") is not None:
        return False
    value = _bindings(checker).get((receiver.id, line))
    if not isinstance(value, ast.Call) or not value.args:
        return False
    func = value.func
    if isinstance(func, ast.Attribute):
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        return checker.model.class_of_self(root) is not None  # `self.model(x)`
    if not isinstance(func, ast.Name) or func.id in _defined_names(checker):
        return False
    found, kind = scope.lookup(func.id)
    return found and kind is None and func.id not in checker.model.classes


def _bindings(checker: Checker) -> dict[tuple[str, int], ast.AST]:
    """`(name, line) -> value` for the plain `name = value` assignments of this function."""
    function = checker.function or checker.tree

    def compute() -> dict[tuple[str, int], ast.AST]:
        found: dict[tuple[str, int], ast.AST] = {}
        for node in walk_local(function):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name):
                    found[(target.id, target.lineno)] = node.value
        return found

    return checker.cached(function, "bindings", compute)  # type: ignore[no-any-return]


def _defined_names(checker: Checker) -> frozenset[str]:
    """Functions defined anywhere in the file: calling one is not calling a model."""

    def compute() -> frozenset[str]:
        return frozenset(
            node.name
            for node in ast.walk(checker.tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        )

    return checker.cached(checker.tree, "defined-names", compute)  # type: ignore[no-any-return]


def _write_kind(checker: Checker, node: ast.Attribute) -> str | None:
    """How `node` (an `x.data`) is written to, or None for a read."""
    if isinstance(node.ctx, ast.Store):
        return "assignment"
    parents = checker.parents
    parent = parents[-1] if parents else None
    if isinstance(parent, ast.Subscript) and isinstance(parent.ctx, ast.Store):
        return "item assignment"
    if isinstance(parent, ast.AugAssign) and parent.target is node:
        return "augmented assignment"
    if isinstance(parent, ast.Attribute) and parent.attr.endswith("_") and len(parents) > 1:
        grand = parents[-2]
        if isinstance(grand, ast.Call) and grand.func is parent and not parent.attr.startswith("_"):
            return f"in-place `{parent.attr}`"
    if isinstance(parent, ast.Call) and parent.args and parent.args[0] is node:
        name = checker.model.resolve(parent.func) or ""
        if name.startswith("torch.nn.init.") or name.endswith("_"):
            return f"`{name.rsplit('.', 1)[-1]}`"
    return None


OUT_OF_PLACE = frozenset(
    "clamp clip float double half bfloat16 long int bool byte char short cuda cpu to detach "
    "contiguous view reshape t transpose permute squeeze unsqueeze add sub mul div pow abs neg "
    "exp log sqrt sigmoid tanh relu softmax log_softmax flatten expand repeat masked_fill "
    "index_fill scatter round floor ceil sign clone type_as view_as expand_as normal "
    "fill_diagonal pin_memory requires_grad".split()
)


@check("PFL103", ast.Expr)
def discarded_result(checker: Checker, node: ast.Expr) -> None:
    """## What it does
    Finds a statement that calls an out-of-place tensor method and drops its result:
    `x.clamp(0, 1)`, `x.float()`, `x.cuda()`, `x.to(device)` on a name known to hold a tensor.

    ## Why is this bad?
    These methods return a new tensor and leave `x` unchanged, so the line does nothing.
    A module's `.to()`/`.cuda()` do work in place and are not reported.

    ## Example
    `x.to(device)`

    Use instead: `x = x.to(device)` (or the in-place `x.clamp_(0, 1)` where one exists).
    """
    call = node.value
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
        return
    method = call.func.attr
    receiver = call.func.value
    if method not in OUT_OF_PLACE or not isinstance(receiver, (ast.Name, ast.Attribute)):
        return
    kind = checker.model.kind_of(receiver)
    if not is_tensor(kind):
        return
    text = checker.segment(receiver)
    hint = (
        f"`{text}.{method}_(...)`" if method in _HAS_INPLACE else f"`{text} = {text}.{method}(...)`"
    )
    checker.report(
        "PFL103",
        call,
        f"`{text}.{method}(...)` returns a new tensor and leaves `{text}` unchanged: use {hint}",
    )


_HAS_INPLACE = frozenset(
    "clamp clip add sub mul div pow abs neg exp log sqrt sigmoid tanh relu masked_fill "
    "index_fill scatter round floor ceil sign t transpose squeeze unsqueeze".split()
)
