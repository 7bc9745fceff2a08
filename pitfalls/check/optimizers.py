"""What a file does with optimizers, as several rule families ask it: whether a value holds an
optimizer, whether a call steps one, and which of the file's functions zero gradients, step
an optimizer or run backward. Part of the checker's semantic API, so that rule modules import
no other rule module."""

from __future__ import annotations

import ast
import re

from pitfalls.check.checker import Checker
from pitfalls.check.kinds import OPTIMIZER

OPTIMIZER_NAME = re.compile(r"optim|^opt(_|$)|_opt$", re.IGNORECASE)


def receiver_name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def is_optimizer(checker: Checker, node: ast.AST) -> bool:
    """Whether `node` holds an optimizer: known from the file, or named like one."""
    kind = checker.model.kind_of(node)
    return kind == OPTIMIZER or kind is None and bool(OPTIMIZER_NAME.search(receiver_name(node)))


def zeroes_grad_by_hand(node: ast.AST) -> bool:
    """`p.grad = None`, `p.grad.zero_()`, `p.grad.data.zero_()`, `p.grad.detach_()`."""
    if isinstance(node, ast.Attribute) and node.attr == "grad":
        return isinstance(node.ctx, ast.Store)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr in ("zero_", "detach_", "fill_"):
            receiver = node.func.value
            if isinstance(receiver, ast.Attribute) and receiver.attr == "data":
                receiver = receiver.value
            return isinstance(receiver, ast.Attribute) and receiver.attr == "grad"
    return False


def scaler_step(checker: Checker, node: ast.Call) -> bool:
    """`scaler.step(optimizer)` steps the optimizer."""
    return bool(node.args) and is_optimizer(checker, node.args[0])


def helper_summaries(checker: Checker) -> dict[str, set[str]]:
    """For each function of this file, whether it zeroes gradients or steps an optimizer."""

    def compute() -> dict[str, set[str]]:
        summaries: dict[str, set[str]] = {}
        for node in ast.walk(checker.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                flags: set[str] = set()
                for inner in ast.walk(node):
                    if zeroes_grad_by_hand(inner):
                        flags.add("zero_grad")
                    if isinstance(inner, ast.Attribute):
                        if inner.attr == "zero_grad":
                            flags.add("zero_grad")
                        elif inner.attr == "step" and OPTIMIZER_NAME.search(
                            receiver_name(inner.value)
                        ):
                            flags.add("optimizer")
                        elif inner.attr in ("backward", "manual_backward"):
                            flags.add("backward")
                if flags:
                    summaries.setdefault(node.name, set()).update(flags)
        return summaries

    return checker.cached(checker.tree, "helpers", compute)
