"""PFL106: a `state_dict()` put aside as a snapshot while the weights it references train on."""

from __future__ import annotations

import ast
import re
from typing import Any

from pitfalls.check.checker import Checker, check, documents, walk_local
from pitfalls.check.kinds import LOADER, SCHEDULER
from pitfalls.check.optimizers import helper_summaries
from pitfalls.check.scopes import short_dotted

_SHALLOW_COPIES = frozenset({"dict", "collections.OrderedDict", "copy.copy"})
_DEEP_COPIES = frozenset({"copy.deepcopy"})
# Objects whose `state_dict()` holds numbers, not the live tensors: `scheduler`, `scaler`.
_FRESH_STATE_NAME = re.compile(r"sched|scaler", re.IGNORECASE)


@check("PFL106", ast.Assign)
@documents("PFL106")
def state_dict_alias(checker: Checker, node: ast.Assign) -> None:
    """## What it does
    Finds a `state_dict()` kept as a snapshot while training goes on: `best = model.state_dict()`
    inside a training loop when `best` is used after the loop; the same on a `self.` attribute
    under an `if` in a method (an early-stopping `__call__` keeping the best epoch); and a local
    taken before a loop that trains and then restored (`load_state_dict`), saved or returned.
    Copies of the dict that keep the same tensors count too: `model.state_dict().copy()`,
    `dict(...)`, `copy.copy(...)`, `{k: v for k, v in model.state_dict().items()}`, and a
    checkpoint dict literal holding one. A loop that rebuilds the model (a search over
    settings) keeps a finished model's weights and is not reported.

    ## Why is this bad?
    `state_dict()` returns references to the live parameters, not a copy: as training goes on
    the "best" weights keep changing, and what is restored at the end is the last epoch.
    Copying the dict copies the references, not the tensors.

    ## Example
    `if acc > best_acc: best_state = model.state_dict()`

    Use instead: `best_state = copy.deepcopy(model.state_dict())`, or
    `{k: v.detach().clone() for k, v in model.state_dict().items()}`.
    """
    if len(node.targets) != 1:
        return
    call = _aliased_state_dict(checker, node.value)
    if call is None:
        return
    target = node.targets[0]
    if checker.loops:
        flagged = _kept_after_loop(checker, node, call, target)
    elif isinstance(target, ast.Attribute):
        flagged = _kept_by_method(checker, target)
    elif isinstance(target, ast.Name):
        flagged = _restored_after_training(checker, node, target.id)
    else:
        flagged = False
    if flagged:
        what = checker.segment(target)
        checker.report(
            "PFL106",
            node,
            f"`{what}` holds references to the live weights, which keep training: store "
            f"`copy.deepcopy({checker.segment(call)})`",
        )


def _kept_after_loop(checker: Checker, node: ast.Assign, call: ast.Call, target: ast.AST) -> bool:
    """In a loop: the dict is kept on `self`, or a local is used after the loop, and the loop
    does not rebind the model (`for cfg in grid: model = Net(cfg)` keeps finished weights)."""
    loop = _kept_across(checker)
    if _leaves_after(checker, node, loop):
        return False
    receiver = short_dotted(call.func.value)  # type: ignore[attr-defined]
    if receiver is not None and receiver in _stored_in(checker, loop):
        return False
    if isinstance(target, ast.Attribute):
        return checker.model.class_of_self(target.value) is not None
    if isinstance(target, ast.Name):
        end = loop.end_lineno or loop.lineno  # type: ignore[attr-defined]
        scope = checker.function or checker.tree
        return any(
            isinstance(n, ast.Name) and n.id == target.id and n.lineno > end
            for n in walk_local(scope)
        )
    return False


def _leaves_after(checker: Checker, node: ast.Assign, loop: ast.AST) -> bool:
    """Whether the block of the assignment at hand goes on to `return`, or to `break` out of
    `loop`: the weights it took train no further (`if converged: final = ...; break`)."""
    parent = checker.parent
    for name in ("body", "orelse", "finalbody"):
        block = getattr(parent, name, None)
        if isinstance(block, list) and node in block:
            after = block[block.index(node) + 1 :]
            if any(isinstance(stmt, ast.Return) for stmt in after):
                return True
            return loop is checker.loops[-1] and any(isinstance(s, ast.Break) for s in after)
    return False


def _kept_by_method(checker: Checker, target: ast.Attribute) -> bool:
    """`self.best = model.state_dict()` under an `if` in a method, outside loops: an
    early-stopping hook keeping the best epoch, called again after more training. Not when
    the file reads the attribute only to `torch.save` it at once."""
    if checker.model.class_of_self(target.value) is None:
        return False
    if getattr(checker.function, "name", "") == "state_dict":
        return False  # a wrapper's own `state_dict()` hands out live references on purpose
    if not any(isinstance(parent, ast.If) for parent in checker.parents):
        return False
    reads, saved = _attribute_reads(checker).get(target.attr, (0, 0))
    return reads == 0 or saved < reads


def _attribute_reads(checker: Checker) -> dict[str, tuple[int, int]]:
    """For each attribute name read in the file: how often, and how often as an argument of
    `torch.save`."""

    def compute() -> dict[str, tuple[int, int]]:
        reads: dict[str, list[int]] = {}
        saved_nodes: set[int] = set()
        for node in ast.walk(checker.tree):
            if isinstance(node, ast.Call) and _is_torch_save(checker, node):
                for arg in node.args:
                    saved_nodes.update(id(inner) for inner in ast.walk(arg))
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                reads.setdefault(node.attr, []).append(id(node))
        return {
            attr: (len(ids), sum(1 for i in ids if i in saved_nodes)) for attr, ids in reads.items()
        }

    return checker.cached(checker.tree, "attribute-reads", compute)  # type: ignore[no-any-return]


def _is_torch_save(checker: Checker, node: ast.Call) -> bool:
    func = node.func
    return (
        isinstance(func, (ast.Name, ast.Attribute)) and checker.model.resolve(func) == "torch.save"
    )


def _restored_after_training(checker: Checker, node: ast.Assign, name: str) -> bool:
    """`init = model.state_dict()` outside loops, then a later loop that trains (calls
    `backward()` or `step()`, directly or through a function of this file), and `init` is
    restored, saved or returned inside or after that loop, never rebound."""
    scope = checker.function or checker.tree
    index = _name_index(checker, scope)
    if any(line != node.lineno for line in index["stores"].get(name, ())):
        return False
    uses = index["restores"].get(name, ())
    after = node.end_lineno or node.lineno
    return any(
        loop.lineno > after
        and any(use >= loop.lineno for use in uses)
        and _trains(checker, loop, helper_summaries(checker))
        for loop in index["loops"]
    )


def _name_index(checker: Checker, scope: ast.AST) -> dict[str, Any]:
    """Per function (or module): the lines where each name is bound, the lines where it is
    restored (`load_state_dict(name)`), saved (`torch.save(name, ...)`) or returned, and the
    loops."""

    def compute() -> dict[str, Any]:
        stores: dict[str, list[int]] = {}
        restores: dict[str, list[int]] = {}
        loops: list[ast.AST] = []
        for node in walk_local(scope):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                stores.setdefault(node.id, []).append(node.lineno)
            elif isinstance(node, ast.Call):
                func = node.func
                restoring = isinstance(func, ast.Attribute) and func.attr == "load_state_dict"
                if restoring or _is_torch_save(checker, node):
                    for arg in node.args[:1]:
                        if isinstance(arg, ast.Name):
                            restores.setdefault(arg.id, []).append(node.lineno)
            elif isinstance(node, ast.Return) and isinstance(node.value, ast.Name):
                restores.setdefault(node.value.id, []).append(node.lineno)
            elif isinstance(node, (ast.For, ast.While)):
                loops.append(node)
        return {"stores": stores, "restores": restores, "loops": loops}

    return checker.cached(scope, "snapshot-index", compute)  # type: ignore[no-any-return]


def _trains(checker: Checker, loop: ast.AST, helpers: dict[str, set[str]]) -> bool:
    """Whether `loop` calls `backward()`/`step()`, or a function of this file that does."""

    def compute() -> bool:
        for node in walk_local(loop):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in ("backward", "manual_backward", "step"):
                return True
            if helpers.get(called, set()) & {"backward", "optimizer"}:
                return True
        return False

    return checker.cached(loop, "trains-or-helps", compute)  # type: ignore[no-any-return]


def _stored_in(checker: Checker, loop: ast.AST) -> frozenset[str]:
    """Names and `self.` attributes that `loop` binds (loop targets included)."""

    def compute() -> frozenset[str]:
        found = set()
        for node in walk_local(loop):
            if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Store):
                key = short_dotted(node)
                if key is not None:
                    found.add(key)
        return frozenset(found)

    return checker.cached(loop, "stored-in", compute)  # type: ignore[no-any-return]


def _kept_across(checker: Checker) -> ast.AST:
    """The loop whose later iterations go on training after the assignment at hand: the
    innermost loop when the assignment is conditional (`if acc > best: best = ...`, so it
    keeps an earlier iteration's weights), else the outermost (a dict taken on every pass
    is fresh when its own loop ends)."""
    inner = checker.loops[-1]
    parents = checker.parents
    for index in range(len(parents) - 1, -1, -1):
        if parents[index] is inner:
            break
        if isinstance(parents[index], ast.If):
            return inner
    return checker.loops[0]


def _state_dict_call(checker: Checker, node: ast.AST) -> ast.Call | None:
    """`x.state_dict()` itself, where `x` may hold live tensors: not an LR scheduler, a
    GradScaler or a loader, whose `state_dict()` is a fresh dict of numbers, nor a fresh
    `copy.deepcopy(model)`."""
    if not (isinstance(node, ast.Call) and not node.args):
        return None
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "state_dict"):
        return None
    receiver = func.value
    if isinstance(receiver, ast.Call) and isinstance(receiver.func, (ast.Name, ast.Attribute)):
        if checker.model.resolve(receiver.func) in _DEEP_COPIES:
            return None
    kind = checker.model.kind_of(receiver)
    if kind in (SCHEDULER, LOADER):
        return None
    last = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", "")
    if kind is None and _FRESH_STATE_NAME.search(last):
        return None
    return node


def _aliased_state_dict(checker: Checker, value: ast.AST) -> ast.Call | None:
    """The `state_dict()` call whose tensors `value` shares: the dict itself, a shallow copy
    (`.copy()`, `dict(...)`, `OrderedDict(...)`, `copy.copy(...)`), a comprehension that keeps
    the values, or a dict literal holding one of these (a checkpoint kept in memory)."""
    if isinstance(value, ast.Dict):
        for item in value.values:
            found = _aliased_state_dict(checker, item) if item is not None else None
            if found is not None:
                return found
        return None
    if not isinstance(value, (ast.Call, ast.DictComp)):
        return None
    found = _state_dict_call(checker, value)
    if found is not None:
        return found
    if isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr == "copy" and not value.args:
            return _state_dict_call(checker, func.value)
        if len(value.args) == 1 and not value.keywords:
            name = (
                checker.model.resolve(func) if isinstance(func, ast.Name | ast.Attribute) else None
            )
            if name in _SHALLOW_COPIES:
                return _state_dict_call(checker, value.args[0])
        return None
    # {k: v for k, v in model.state_dict().items()}: the values are the live tensors.
    if len(value.generators) != 1 or not isinstance(value.value, ast.Name):
        return None
    generator = value.generators[0]
    target, source = generator.target, generator.iter
    if not (isinstance(target, ast.Tuple) and len(target.elts) == 2):
        return None
    second = target.elts[1]
    if not (isinstance(second, ast.Name) and second.id == value.value.id):
        return None
    if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute):
        if source.func.attr == "items" and not source.args:
            return _state_dict_call(checker, source.func.value)
    return None
