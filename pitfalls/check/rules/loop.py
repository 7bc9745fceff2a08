"""PFL301: loss totals that keep every iteration's autograd graph alive.

Step order, `zero_grad` and functional dropout (PFL302-PFL304) are in `steps`."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from pitfalls.check.checker import Checker, check, documents, walk_local
from pitfalls.check.kinds import ACCUMULATOR, BATCH, LOSS
from pitfalls.check.scopes import operand_names, short_dotted


@check("PFL301", ast.AugAssign, ast.Assign, ast.Call)
@documents("PFL301")
def loss_total_with_graph(checker: Checker, node: ast.AST) -> None:
    """## What it does
    Finds a loss tensor added to a running total (`total += loss`, `total = total + loss`),
    appended to a list (`losses.append(loss)`) or given to a meter of the same file that sums
    it (`losses.update(loss, n)` on an AverageMeter) inside a loop, or on `self` in a
    LightningModule's `training_step` (called once per batch), when the total lives across
    iterations and is never backpropagated. `loss.cpu()` or `loss.mean()` is still the loss.

    ## Why is this bad?
    Each loss drags its whole autograd graph along; summed across iterations, all those graphs
    stay alive and memory grows until the process dies. A loss summed inside one iteration
    and then backpropagated (several heads, several terms) is fine and is not reported, nor
    is a loss that a function builds in a loop and returns for its caller to backpropagate
    (a loop without `backward()` over heads or samples, not over batches of data), nor a
    total kept under `torch.no_grad()` or `torch.inference_mode()`, where no graph is
    recorded.

    A value is a loss when a loss function or module computes it, when it is a model
    output's `.loss`, or when the code calls `.backward()` on it (also later in the same
    iteration: `total += loss` before `loss.backward()`).

    ## Example
    `running_loss += loss`

    Use instead: `running_loss += loss.item()`
    """
    if not checker.loops and not _lightning_training_step(checker):
        return
    total: ast.AST | None = None
    added: ast.AST | None = None
    if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
        total, added = node.target, node.value
    elif isinstance(node, ast.Assign) and len(node.targets) == 1:
        value = node.value
        target = node.targets[0]
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
            if _same(value.left, target):
                total, added = target, value.right
            elif _same(value.right, target):
                total, added = target, value.left
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr == "append" and len(node.args) == 1:
            total, added = node.func.value, node.args[0]
        elif node.args and _accumulates(checker, node.func):
            total, added = node.func.value, node.args[0]  # `meter.update(loss, n)`
    if added is None or (key := _total_key(checker, total)) is None:
        return
    if not checker.loops:  # `self.losses.append(loss)` in a LightningModule's training_step
        if "." in key and checker.model.kind_of(added) == LOSS and not grad_disabled(checker):
            if not _reset_in(checker.function, key) and key not in _backpropagated(checker):
                _report_total(checker, node, key, added, "training step")
        return
    loop = checker.loops[-1]
    if checker.model.kind_of(added) != LOSS and not _backpropagated_later(checker, loop, added):
        return
    if grad_disabled(checker):
        return
    if _reset_in(loop, key) or key in _backpropagated(checker):
        return
    if _built_for_caller(checker, loop, key):
        return
    if isinstance(total, ast.Name) and not checker.model.scope.lookup(key)[0]:
        return
    _report_total(checker, node, key, added, "iteration")


def _report_total(checker: Checker, node: ast.AST, key: str, added: ast.AST, each: str) -> None:
    what = checker.segment(added)
    fix = f"{what}.item()" if isinstance(added, ast.Name) else f"({what}).item()"
    checker.report(
        "PFL301",
        node,
        f"`{key}` collects `{what}` with its autograd graph on every {each}, so memory "
        f"grows: add `{fix}` (or `.detach()`)",
    )


def _lightning_training_step(checker: Checker) -> bool:
    """Whether the code at hand is the `training_step` of a LightningModule, which Lightning
    calls once per batch: a total on `self` there lives across iterations."""
    function = checker.function
    if not isinstance(function, ast.FunctionDef) or function.name != "training_step":
        return False
    cls = checker.model.scope.cls
    return cls is not None and any(
        base.split(".", 1)[0] in ("lightning", "pytorch_lightning")
        and base.endswith("LightningModule")
        for base in cls.bases
    )


def _accumulates(checker: Checker, func: ast.Attribute) -> bool:
    """`meter.update` where `meter` is an instance of a class of this file whose `update`
    sums its argument onto `self` (an AverageMeter)."""
    if not isinstance(func.value, ast.Name):
        return False
    kind = checker.model.kind_of(func.value) or ""
    if not kind.startswith(ACCUMULATOR + "."):
        return False
    info = checker.model.classes.get(kind[len(ACCUMULATOR) + 1 :])
    return info is not None and func.attr in info.accumulates


def _backpropagated_later(checker: Checker, loop: ast.AST, added: ast.AST) -> bool:
    """Whether `added` (`loss`, `loss * n`) holds a value of unknown kind that the same loop
    iteration backpropagates further down (`total += loss`, then `loss.backward()`), with no
    rebinding in between other than from itself (`loss = loss / accumulation_steps`)."""
    scope = checker.model.scope
    line = added.lineno  # type: ignore[attr-defined]
    end = loop.end_lineno or line  # type: ignore[attr-defined]
    for name in operand_names(added):
        if scope.names.get(name, "") is not None or not scope.unknown(name):
            continue
        later = [
            at for at in scope.evidence(checker.source_lines).losses.get(name, ()) if line < at
        ]
        for at in later:
            if at > end:
                break
            rebound = _rebinding_lines(checker, loop).get(name, ())
            if not any(line < store < at for store in rebound):
                return True
    return False


def _rebinding_lines(checker: Checker, loop: ast.AST) -> dict[str, list[int]]:
    """Lines where `loop` rebinds each name to something other than a function of itself."""

    def compute() -> dict[str, list[int]]:
        found: dict[str, list[int]] = {}
        for node in walk_local(loop):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                found.setdefault(node.id, []).append(node.lineno)
        for node in walk_local(loop):
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                value = node.value
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name) and (
                        isinstance(node, ast.AugAssign) or _mentions(value, target.id)
                    ):
                        found[target.id].remove(target.lineno)
        return found

    return checker.cached(loop, "rebinding-lines", compute)  # type: ignore[no-any-return]


def _built_for_caller(checker: Checker, loop: ast.AST, key: str) -> bool:
    """Whether `key` is a loss that this function sums over heads or samples and returns,
    for its caller to backpropagate: the loop backpropagates nothing, does not run over
    batches of data (a DataLoader, or a model put in eval mode), and the total is returned."""
    function = checker.function
    if function is None or key not in _returned(checker, function):
        return False
    if _trains(checker, loop) or ".eval()" in checker.source_lines(function):
        return False
    iterable = getattr(loop, "iter", None)
    return iterable is None or checker.model.element_kind(iterable) != BATCH


def _returned(checker: Checker, function: ast.AST) -> frozenset[str]:
    """Names and `self.` attributes that a `return` of `function` mentions."""

    def compute() -> frozenset[str]:
        found = set()
        for node in walk_local(function):
            if isinstance(node, ast.Return) and node.value is not None:
                for inner in ast.walk(node.value):
                    key = short_dotted(inner)
                    if key is not None:
                        found.add(key)
        return frozenset(found)

    return checker.cached(function, "returned", compute)


def _trains(checker: Checker, loop: ast.AST) -> bool:
    """Whether `loop` calls `backward()` or `step()` (directly, not in nested functions)."""

    def compute() -> bool:
        for node in walk_local(loop):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr in ("backward", "manual_backward", "step"):
                    return True
        return False

    return checker.cached(loop, "trains", compute)


def _total_key(checker: Checker, total: ast.AST | None) -> str | None:
    """`total` or `self.total`: a running total that outlives one iteration."""
    if isinstance(total, ast.Name):
        return total.id
    if isinstance(total, ast.Attribute) and isinstance(total.value, ast.Name):
        if checker.model.class_of_self(total.value) is not None:
            return f"{total.value.id}.{total.attr}"
    return None


NO_GRAD = frozenset({"torch.no_grad", "torch.inference_mode", "torch.set_grad_enabled"})


def grad_disabled(checker: Checker) -> bool:
    """Whether the node at hand runs under `torch.no_grad()`, `torch.inference_mode()` or
    `torch.set_grad_enabled(...)` (anything but `True`): a `with` around it, or a decorator
    of its function."""
    contexts: list[ast.AST] = []
    for parent in checker.parents:
        if isinstance(parent, (ast.With, ast.AsyncWith)):
            contexts += [item.context_expr for item in parent.items]
    function = checker.function
    if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        contexts += function.decorator_list
    for expr in contexts:
        call = expr if isinstance(expr, ast.Call) else None
        name = checker.model.resolve(call.func if call else expr)
        if name not in NO_GRAD:
            continue
        if name == "torch.set_grad_enabled":
            flag = call.args[0] if call and call.args else None
            if isinstance(flag, ast.Constant) and flag.value is True:
                continue
        elif name == "torch.inference_mode" and call and call.args:
            flag = call.args[0]
            if isinstance(flag, ast.Constant) and flag.value is False:
                continue
        return True
    return False


def _keys_in(node: ast.AST) -> set[str]:
    """The names and `x.attr` chains mentioned anywhere in `node`."""
    found = set()
    for inner in ast.walk(node):
        if isinstance(inner, (ast.Name, ast.Attribute)):
            key = short_dotted(inner)
            if key is not None:
                found.add(key)
    return found


def _same(a: ast.AST, b: ast.AST) -> bool:
    key = short_dotted(a)
    return key is not None and key == short_dotted(b)


def _reset_in(loop: ast.AST, key: str) -> bool:
    """Whether every iteration of `loop` rebinds `key` with a plain assignment (a
    per-iteration total). A reset under an `if` (`if i % 100 == 99: running = 0.0`) is
    periodic: the graphs of the iterations between two resets still pile up."""
    for node in _unconditional(loop.body):  # type: ignore[attr-defined]
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if short_dotted(target) == key:
                    value = node.value
                    if not (isinstance(value, ast.BinOp) and _mentions(value, key)):
                        return True
    return False


def _unconditional(body: list[ast.stmt]) -> Iterable[ast.stmt]:
    """The statements of `body` that run on every pass: into `with` and `try` blocks, not
    into branches or inner loops."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            yield from _unconditional(stmt.body)
        elif isinstance(stmt, ast.Try):
            yield from _unconditional(stmt.body)
            yield from _unconditional(stmt.finalbody)


def _mentions(node: ast.AST, key: str) -> bool:
    return any(short_dotted(n) == key for n in ast.walk(node))


def _backpropagated(checker: Checker) -> set[str]:
    """Names that reach a `.backward()` or `autograd.backward/grad` call in this function (or
    in the module's statements outside functions)."""
    function = checker.function or checker.tree

    def compute() -> set[str]:
        names: set[str] = set()
        for node in walk_local(function):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            parts: list[ast.AST] = []
            if isinstance(func, ast.Attribute) and func.attr == "backward":
                parts = [func.value, *node.args]
            elif isinstance(func, ast.Attribute) and func.attr in (
                "backward",
                "grad",
                "manual_backward",
            ):
                parts = list(node.args)
            for part in parts:
                names.update(_keys_in(part))
        # `loss = sum(losses) / len(losses)`, then `loss.backward()`: `losses` reaches it too.
        assigns = [
            (node.targets if isinstance(node, ast.Assign) else [node.target], node.value)
            for node in walk_local(function)
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value
        ]
        grown = True
        while grown:
            grown = False
            for targets, value in assigns:
                if any(short_dotted(t) in names for t in targets):
                    new = _keys_in(value) - names
                    if new:
                        names |= new
                        grown = True
        return names

    return checker.cached(function, "backpropagated", compute)
