"""PFL3xx: the training loop (loss totals that keep graphs, step order, zero_grad, dropout)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from pitfalls.check.checker import Checker, check, documents, walk_local
from pitfalls.check.kinds import BATCH, LOSS, OPTIMIZER, SCHEDULER
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
OPTIMIZER_NAME = re.compile(r"optim|^opt(_|$)|_opt$", re.IGNORECASE)
SCHEDULER_NAME = re.compile(r"sched", re.IGNORECASE)


@check("PFL301", ast.AugAssign, ast.Assign, ast.Call)
@documents("PFL301")
def loss_total_with_graph(checker: Checker, node: ast.AST) -> None:
    """## What it does
    Finds a loss tensor added to a running total (`total += loss`, `total = total + loss`) or
    appended to a list (`losses.append(loss)`) inside a loop, when the total lives across
    iterations and is never backpropagated.

    ## Why is this bad?
    Each loss drags its whole autograd graph along; summed across iterations, all those graphs
    stay alive and memory grows until the process dies. A loss summed inside one iteration
    and then backpropagated (several heads, several terms) is fine and is not reported, nor
    is a loss that a function builds in a loop and returns for its caller to backpropagate
    (a loop without `backward()` over heads or samples, not over batches of data), nor a
    total kept under `torch.no_grad()` or `torch.inference_mode()`, where no graph is
    recorded.

    A value is a loss when a loss function or module computes it, when it is a model
    output's `.loss`, or when the code calls `.backward()` on it.

    ## Example
    `running_loss += loss`

    Use instead: `running_loss += loss.item()`
    """
    if not checker.loops:
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
    if added is None or (key := _total_key(checker, total)) is None:
        return
    if checker.model.kind_of(added) != LOSS or grad_disabled(checker):
        return
    loop = checker.loops[-1]
    if _reset_in(loop, key) or key in _backpropagated(checker):
        return
    if _built_for_caller(checker, loop, key):
        return
    if isinstance(total, ast.Name) and not checker.model.scope.lookup(key)[0]:
        return
    what = checker.segment(added)
    fix = f"{what}.item()" if isinstance(added, ast.Name) else f"({what}).item()"
    checker.report(
        "PFL301",
        node,
        f"`{key}` collects `{what}` with its autograd graph on every iteration, so memory "
        f"grows: add `{fix}` (or `.detach()`)",
    )


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
                    key = _dotted(inner)
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


def _same(a: ast.AST, b: ast.AST) -> bool:
    key = _dotted(a)
    return key is not None and key == _dotted(b)


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


def _reset_in(loop: ast.AST, key: str) -> bool:
    """Whether every iteration of `loop` rebinds `key` with a plain assignment (a
    per-iteration total). A reset under an `if` (`if i % 100 == 99: running = 0.0`) is
    periodic: the graphs of the iterations between two resets still pile up."""
    for node in _unconditional(loop.body):  # type: ignore[attr-defined]
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if _dotted(target) == key:
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
    return any(_dotted(n) == key for n in ast.walk(node))


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
                for inner in ast.walk(part):
                    if isinstance(inner, (ast.Name, ast.Attribute)):
                        key = _dotted(inner)
                        if key is not None:
                            names.add(key)
        return names

    return checker.cached(function, "backpropagated", compute)


def _receiver_name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _is_optimizer(checker: Checker, node: ast.AST) -> bool:
    kind = checker.model.kind_of(node)
    return kind == OPTIMIZER or kind is None and bool(OPTIMIZER_NAME.search(_receiver_name(node)))


def _is_scheduler(checker: Checker, node: ast.AST) -> bool:
    kind = checker.model.kind_of(node)
    return kind == SCHEDULER or kind is None and bool(SCHEDULER_NAME.search(_receiver_name(node)))


def _step_calls(checker: Checker, loop: ast.AST) -> list[tuple[tuple[int, int], str, ast.AST]]:
    """`.step()`, `.backward()`, zero-grad evidence and helper calls in `loop`, in order."""
    found: list[tuple[tuple[int, int], str, ast.AST]] = []
    helper_calls: list[ast.Call] = []
    for node in walk_local(loop):
        if _zeroes_grad_by_hand(node):
            found.append(((node.lineno, node.col_offset), "grad", node))  # type: ignore[attr-defined]
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        where = (node.lineno, node.col_offset)
        if isinstance(func, ast.Attribute):
            if func.attr == "step":
                if _is_scheduler(checker, func.value):
                    found.append((where, "scheduler", node))
                elif _is_optimizer(checker, func.value) or _scaler_step(checker, node):
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
        helpers = _helper_summaries(checker)
        for call in helper_calls:
            for flag in sorted(helpers.get(_receiver_name(call.func), ())):
                found.append(((call.lineno, call.col_offset), flag, call))
    found.sort(key=lambda item: item[0])
    return found


def _zeroes_grad_by_hand(node: ast.AST) -> bool:
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


def _scaler_step(checker: Checker, node: ast.Call) -> bool:
    """`scaler.step(optimizer)` steps the optimizer."""
    return bool(node.args) and _is_optimizer(checker, node.args[0])


def _helper_summaries(checker: Checker) -> dict[str, set[str]]:
    """For each function of this file, whether it zeroes gradients or steps an optimizer."""

    def compute() -> dict[str, set[str]]:
        summaries: dict[str, set[str]] = {}
        for node in ast.walk(checker.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                flags: set[str] = set()
                for inner in ast.walk(node):
                    if _zeroes_grad_by_hand(inner):
                        flags.add("zero_grad")
                    if isinstance(inner, ast.Attribute):
                        if inner.attr == "zero_grad":
                            flags.add("zero_grad")
                        elif inner.attr == "step" and OPTIMIZER_NAME.search(
                            _receiver_name(inner.value)
                        ):
                            flags.add("optimizer")
                        elif inner.attr in ("backward", "manual_backward"):
                            flags.add("backward")
                if flags:
                    summaries.setdefault(node.name, set()).update(flags)
        return summaries

    return checker.cached(checker.tree, "helpers", compute)


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
