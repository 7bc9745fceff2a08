"""PFL107-PFL109 and PFL305: parameter generators used up, non-leaf tensors meant to train,
wrapped models saved with prefixed keys, and gradient clipping that clips nothing."""

from __future__ import annotations

import ast

from pitfalls.check.checker import Checker, check, documents, walk_local
from pitfalls.check.kinds import MODULE
from pitfalls.check.optimizers import is_optimizer, scaler_step

CLIPS = frozenset({"clip_grad_norm_", "clip_grad_value_", "clip_grad_norm"})
GENERATORS = frozenset({"parameters", "named_parameters"})
# Calls that look at an iterator without running it to the end.
NOT_CONSUMING = frozenset({"next", "iter", "isinstance", "type", "id", "print", "repr", "str"})
# Methods that keep an object without iterating it.
STORING = frozenset({"append", "add", "insert", "put", "put_nowait", "setdefault", "info", "debug"})
_BRANCHES = (ast.If, ast.Try, ast.IfExp, ast.BoolOp, ast.Match)
_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp)


def _function_of(checker: Checker) -> ast.AST:
    return checker.function or checker.tree


# -- PFL305 -------------------------------------------------------------------------------
def _clip_events(checker: Checker, loop: ast.AST) -> list[tuple[tuple[int, int], str, ast.AST]]:
    """`backward`, optimizer `step` and gradient clipping calls in `loop`, in source order."""
    found = []
    for node in walk_local(loop):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id in CLIPS and checker.model.resolve(node.func):
                    found.append(((node.lineno, node.col_offset), "clip", node))
            continue
        attr = node.func.attr
        where = (node.lineno, node.col_offset)
        if attr in ("backward", "manual_backward"):
            found.append((where, "backward", node))
        elif attr == "step" and (
            is_optimizer(checker, node.func.value) or scaler_step(checker, node)
        ):
            found.append((where, "step", node))
        elif attr in CLIPS:
            found.append((where, "clip", node))
    found.sort(key=lambda item: item[0])
    return found


@check("PFL305", ast.For, ast.While, ast.FunctionDef)
@documents("PFL305")
def clip_placement(checker: Checker, node: ast.AST) -> None:
    """## What it does
    Finds `clip_grad_norm_`/`clip_grad_value_` called in a training loop (or a loop-free
    training-step function) after `optimizer.step()` with no `backward()` in between, or
    before the first `backward()` with no `step()` in between. The loop must call both
    `backward()` and an optimizer's `step()` (or `scaler.step(optimizer)`).

    ## Why is this bad?
    Clipping edits the `.grad` tensors that exist when it runs; the optimizer does not remember
    it. After `step()` the weights have already moved by the unclipped gradient; before
    `backward()` there is no gradient yet (it returns 0), and `backward()` then writes the
    full one. Either way the clip does nothing to this step.

    ## Example
    `loss.backward()\\noptimizer.step()\\nclip_grad_norm_(model.parameters(), 1.0)`

    Use instead: `loss.backward()\\nclip_grad_norm_(model.parameters(), 1.0)\\noptimizer.step()`
    (under `GradScaler`, call `scaler.unscale_(optimizer)` before clipping).
    """
    text = checker.source_lines(node)
    if "clip_grad" not in text or ".step(" not in text or "backward(" not in text:
        return
    if isinstance(node, ast.FunctionDef) and any(
        isinstance(inner, (ast.For, ast.AsyncFor, ast.While)) for inner in walk_local(node)
    ):
        return  # its loops are checked on their own
    events = _clip_events(checker, node)
    kinds = [kind for _, kind, _ in events]
    if "backward" not in kinds or "step" not in kinds or "clip" not in kinds:
        return
    reported = checker.cached(checker.tree, "clip-reported", set)
    first_backward = kinds.index("backward")
    for index, kind in enumerate(kinds):
        if kind != "clip":
            continue
        before = kinds[:index]
        call = events[index][2]
        message = None
        if "step" in before:
            last_step = len(before) - 1 - before[::-1].index("step")
            if "backward" not in before[last_step:] and "backward" in before[:last_step]:
                message = (
                    "runs after `optimizer.step()`: the weights already moved by the unclipped "
                    "gradient; clip between `backward()` and `step()`"
                )
        elif index < first_backward and "step" not in kinds[index:first_backward]:
            if "step" in kinds[first_backward:]:
                message = (
                    "runs before `backward()`: there is no gradient to clip yet; clip between "
                    "`backward()` and `step()`"
                )
        if message and id(call) not in reported:
            reported.add(id(call))
            name = call.func.attr if isinstance(call.func, ast.Attribute) else call.func.id
            checker.report("PFL305", call, f"`{name}` {message}")


# -- PFL107 -------------------------------------------------------------------------------
def _generator_value(checker: Checker, value: ast.AST) -> str | None:
    """`model.parameters()`, `m.named_parameters()`, or `filter(..., model.parameters())`."""
    if not isinstance(value, ast.Call):
        return None
    func = value.func
    if isinstance(func, ast.Attribute) and func.attr in GENERATORS and not value.args:
        if any(k.arg not in ("recurse", "prefix", "remove_duplicate") for k in value.keywords):
            return None
        if isinstance(func.value, ast.Name) and func.value.id in checker.model.classes:
            return None
        return f"{func.attr}()"
    if isinstance(func, ast.Name) and func.id in ("filter", "map") and len(value.args) == 2:
        if checker.model.resolve(func) in (func.id, f"builtins.{func.id}", None):
            if _generator_value(checker, value.args[1]):
                return f"{func.id}(...)"
    return None


def _defines_parameters(checker: Checker) -> bool:
    def compute() -> bool:
        return any(
            isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name in GENERATORS
            for n in ast.walk(checker.tree)
        )

    return checker.cached(checker.tree, "defines-parameters", compute)  # type: ignore[no-any-return]


def _parents(checker: Checker, function: ast.AST) -> dict[int, ast.AST]:
    def compute() -> dict[int, ast.AST]:
        parents: dict[int, ast.AST] = {}
        stack = [function]
        while stack:
            current = stack.pop()
            for child in ast.iter_child_nodes(current):
                parents[id(child)] = current
                stack.append(child)
        return parents

    return checker.cached(function, "parents", compute)  # type: ignore[no-any-return]


def _consumes(parents: dict[int, ast.AST], use: ast.Name) -> bool:
    """Whether this load of the name runs the iterator: a call argument, or what a `for` or a
    comprehension iterates."""
    parent = parents.get(id(use))
    if isinstance(parent, ast.Starred):
        use, parent = parent, parents.get(id(parent))  # type: ignore[assignment]
    if isinstance(parent, ast.keyword):
        use, parent = parent, parents.get(id(parent))  # type: ignore[assignment]
    if isinstance(parent, ast.Call) and use is not parent.func:
        func = parent.func
        if isinstance(func, ast.Attribute):
            return func.attr not in STORING
        return not (isinstance(func, ast.Name) and func.id in NOT_CONSUMING)
    if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)):
        return parent.iter is use
    return False


def _used_as_list(parents: dict[int, ast.AST], use: ast.Name) -> bool:
    parent = parents.get(id(use))
    if isinstance(parent, ast.Subscript) and parent.value is use:
        return True
    if isinstance(parent, ast.BinOp):
        return True
    return (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Name)
        and parent.func.id == "len"
    )


def _chain(parents: dict[int, ast.AST], node: ast.AST, stop: ast.AST) -> list[ast.AST]:
    chain = []
    while node is not stop and id(node) in parents:
        node = parents[id(node)]
        chain.append(node)
    return chain


def _exclusive(parents: dict[int, ast.AST], a: ast.AST, b: ast.AST, top: ast.AST) -> bool:
    """Whether `a` and `b` sit in different branches of one `if`, `try` or `match`."""
    ups_a = [a, *_chain(parents, a, top)]
    ups_b = {id(n) for n in _chain(parents, b, top)}
    for lower, node in zip(ups_a, ups_a[1:]):
        if id(node) in ups_b:
            return isinstance(node, _BRANCHES) and not _contains(lower, b)
    return False


def _contains(node: ast.AST, inner: ast.AST) -> bool:
    return any(n is inner for n in ast.walk(node))


def _in_loop_without(parents: dict[int, ast.AST], use: ast.AST, binds: list[ast.AST]) -> bool:
    """Whether `use` repeats in a loop that does not rebind the name (the assignment is
    outside it): the second pass finds the generator empty."""
    child = use
    while id(child) in parents:
        node = parents[id(child)]
        if isinstance(node, _LOOPS) and not any(_contains(node, b) for b in binds):
            if isinstance(node, (ast.For, ast.AsyncFor)) and child is node.iter:
                pass
            elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp)):
                if child is not node.generators[0]:
                    return True
            else:
                return True
        child = node
    return False


@check("PFL107", ast.Assign)
@documents("PFL107")
def exhausted_parameters(checker: Checker, node: ast.Assign) -> None:
    """## What it does
    Finds a name bound to `model.parameters()` or `model.named_parameters()` (or a `filter`
    or `map` over them) that is then consumed twice: passed to two calls (an optimizer, then
    `clip_grad_norm_`), iterated twice, or consumed inside a loop that does not rebind it.
    Uses in different branches of an `if` count once, uses after the next binding of the
    name belong to that one, and a name used in a nested function is skipped. A name used
    as a list (`len(params)`, `params[0]`) is not a generator.

    ## Why is this bad?
    `parameters()` returns a generator, which runs once. The second consumer gets an empty
    sequence: an optimizer raises "empty parameter list", `clip_grad_norm_` clips nothing and
    returns 0 (a warning only since torch 2.8).

    ## Example
    `params = model.parameters()\\nopt = SGD(params, lr=0.1)\\nclip_grad_norm_(params, 1.0)`

    Use instead: `params = list(model.parameters())`, or call `model.parameters()` at each use.
    """
    if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
        return
    what = _generator_value(checker, node.value)
    if what is None or _defines_parameters(checker):
        return
    name = node.targets[0].id
    receiver = node.value.func.value if isinstance(node.value.func, ast.Attribute) else None
    if receiver is not None and checker.model.kind_of(receiver) not in (None, MODULE):
        return
    function = _function_of(checker)
    uses: list[ast.Name] = []
    stores: list[ast.Name] = []
    for inner in walk_local(function):
        if isinstance(inner, ast.Name) and inner.id == name:
            if isinstance(inner.ctx, ast.Load):
                uses.append(inner)
            elif inner is not node.targets[0]:
                stores.append(inner)
        elif isinstance(inner, (ast.Global, ast.Nonlocal)) and name in inner.names:
            return
        elif isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(inner)):
                return
    start = (node.lineno, node.col_offset)
    later = [(s.lineno, s.col_offset) for s in stores if (s.lineno, s.col_offset) > start]
    end = min(later, default=(1 << 30, 0))  # the next binding ends this one's uses
    uses = [u for u in uses if start < (u.lineno, u.col_offset) < end]
    parents = _parents(checker, function)
    if any(_used_as_list(parents, u) for u in uses):
        return  # `len(params)`, `params[0]`: not a generator after all
    consumed = sorted(
        (u for u in uses if _consumes(parents, u)), key=lambda u: (u.lineno, u.col_offset)
    )
    second: ast.Name | None = None
    for index, use in enumerate(consumed):
        if _in_loop_without(parents, use, [node, *stores]):
            second = use
            break
        if any(not _exclusive(parents, prev, use, function) for prev in consumed[:index]):
            second = use
            break
    if second is not None:
        checker.report(
            "PFL107",
            second,
            f"`{name}` holds `{what}`, a generator that an earlier use already ran to the "
            f"end: this use sees nothing; bind `{name} = list(...)` instead",
        )


# -- PFL108 -------------------------------------------------------------------------------
FACTORIES = frozenset(
    f"torch.{name}"
    for name in (
        "randn rand randint normal zeros ones empty full tensor arange linspace logspace eye "
        "randn_like rand_like zeros_like ones_like empty_like full_like as_tensor"
    ).split()
)
CONVERSIONS = frozenset({"to", "cuda", "double", "half", "bfloat16", "type"})
_NO_OP_DTYPES = frozenset({"torch.float", "torch.float32"})


def _requires_grad_factory(checker: Checker, node: ast.AST) -> bool:
    if not isinstance(node, ast.Call) or checker.model.resolve(node.func) not in FACTORIES:
        return False
    return any(
        k.arg == "requires_grad" and isinstance(k.value, ast.Constant) and k.value.value is True
        for k in node.keywords
    )


def _converts(checker: Checker, node: ast.Call) -> bool:
    """A conversion that copies: `.to(...)` other than to float32, `.cuda()`, `.double()`..."""
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr not in CONVERSIONS:
        return False
    if func.attr == "to":
        values = [*node.args, *(k.value for k in node.keywords if k.arg != "non_blocking")]
        if not values:
            return False
        if all(checker.model.resolve(v) in _NO_OP_DTYPES for v in values):
            return False
    return True


def _trained_as_leaf(checker: Checker, name: str) -> bool:
    """Whether the function at hand reads `name.grad` or hands `name` to a torch optimizer."""
    function = _function_of(checker)

    def compute() -> frozenset[str]:
        found = set()
        for node in walk_local(function):
            if isinstance(node, ast.Attribute) and node.attr in ("grad", "is_leaf"):
                if isinstance(node.value, ast.Name):
                    found.add(node.value.id)
            elif isinstance(node, ast.Call):
                callee = checker.model.resolve(node.func) or ""
                if callee.startswith("torch.optim."):
                    for arg in [*node.args, *(k.value for k in node.keywords)]:
                        for inner in ast.walk(arg):
                            if isinstance(inner, ast.Name):
                                found.add(inner.id)
        return frozenset(found)

    return name in checker.cached(function, "trained-leaves", compute)


@check("PFL108", ast.Assign, ast.AnnAssign)
@documents("PFL108")
def nonleaf_parameter(checker: Checker, node: ast.Assign | ast.AnnAssign) -> None:
    """## What it does
    Finds a name bound to a tensor factory called with `requires_grad=True` and then
    converted in the same expression (`torch.randn(3, requires_grad=True).cuda()`,
    `.to(device)`, `.double()`, `.half()`), when the same function reads the name's `.grad`
    or `.is_leaf`, or hands it to a `torch.optim` optimizer. A conversion to float32 (a
    no-op for the default dtype) is not reported, nor a copy wrapped in `nn.Parameter(...)`
    or followed by `.detach()`, nor an input that only has to require grad.

    ## Why is this bad?
    The factory's tensor is the leaf; the conversion returns a copy computed from it, and the
    name holds that non-leaf copy. Its `.grad` stays None after `backward()` and optimizers
    refuse it. On CPU `.to("cpu")` returns the same tensor, so the bug shows only on a GPU.

    ## Example
    `w = torch.randn(3, requires_grad=True).to(device)`

    Use instead: `w = torch.randn(3, device=device, requires_grad=True)`, or
    `torch.randn(3).to(device).requires_grad_()`.
    """
    value = node.value
    if value is None:
        return
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        if value.func.attr == "requires_grad_":
            value = value.func.value  # still the non-leaf copy
        else:
            break
    conversion = None
    while isinstance(value, ast.Call) and _converts(checker, value):
        conversion = value
        value = value.func.value  # type: ignore[attr-defined]
    if conversion is None or not _requires_grad_factory(checker, value):
        return
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    if len(targets) != 1 or not isinstance(targets[0], ast.Name):
        return
    if not _trained_as_leaf(checker, targets[0].id):
        return  # an input that only has to require grad: a non-leaf copy does that too
    method = conversion.func.attr  # type: ignore[attr-defined]
    checker.report(
        "PFL108",
        node.value,
        f"`.{method}()` after `requires_grad=True` returns a non-leaf copy whose `.grad` stays "
        f"None: pass `device=`/`dtype=` to the factory, or call `.requires_grad_()` after "
        f"`.{method}()`",
    )
