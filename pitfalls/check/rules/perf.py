"""PFL401-PFL402: performance rules, off by default (like ruff's preview rules): each is
right about the cost and wrong often enough about the intent to be opt-in."""

from __future__ import annotations

import ast

from pitfalls.check.checker import Checker, check

_LOADERS = ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader")


@check("PFL401", ast.Call)
def synchronous_dataloader(checker: Checker, node: ast.Call) -> None:
    """## What it does
    Finds a `DataLoader` built without `num_workers`, or with `num_workers=0`.

    ## Why is this bad?
    With no workers every batch is loaded and collated in the training process, between
    steps: the accelerator waits while `__getitem__` decodes and augments. Off by default:
    for data already in memory as tensors, no workers is the faster choice.

    ## Example
    `DataLoader(dataset, batch_size=64, shuffle=True)`

    Use instead: `DataLoader(dataset, batch_size=64, shuffle=True, num_workers=4,
    pin_memory=True, persistent_workers=True)`, the number chosen by measuring.
    """
    if checker.callee(node) not in _LOADERS:
        return
    keywords = {k.arg: k.value for k in node.keywords}
    if None in keywords:
        return  # **kwargs may carry num_workers
    if len(node.args) >= 8:
        return  # num_workers given by position
    workers = keywords.get("num_workers")
    if workers is None or (isinstance(workers, ast.Constant) and workers.value == 0):
        checker.report(
            "PFL401",
            node,
            "`DataLoader` without workers loads every batch in the training process: set "
            "`num_workers` (and `pin_memory=True` for a GPU) and measure",
        )


@check("PFL402", ast.Call)
def gradients_zeroed_in_place(checker: Checker, node: ast.Call) -> None:
    """## What it does
    Finds `zero_grad(set_to_none=False)` and `p.grad.zero_()`.

    ## Why is this bad?
    Writing zeros into every gradient costs a memory pass per parameter, and the next
    backward adds into them instead of assigning. Since torch 2.0, `zero_grad()` sets the
    gradients to `None`, which is cheaper and is the default for a reason. Off by default:
    code that reads `.grad` between steps may rely on zeros.

    ## Example
    `optimizer.zero_grad(set_to_none=False)`

    Use instead: `optimizer.zero_grad()`
    """
    func = node.func
    if not isinstance(func, ast.Attribute):
        return
    if func.attr == "zero_grad":
        for keyword in node.keywords:
            value = keyword.value
            if (
                keyword.arg == "set_to_none"
                and isinstance(value, ast.Constant)
                and value.value is False
            ):
                checker.report(
                    "PFL402",
                    node,
                    "`zero_grad(set_to_none=False)` writes zeros into every gradient: "
                    "`zero_grad()` sets them to None (the default since torch 2.0)",
                )
    elif (
        func.attr == "zero_"
        and not node.args
        and isinstance(func.value, ast.Attribute)
        and func.value.attr == "grad"
    ):
        checker.report(
            "PFL402",
            node,
            f"`{checker.segment(node)}` zeroes a gradient in place: "
            "`optimizer.zero_grad()` (set_to_none) is cheaper",
        )
