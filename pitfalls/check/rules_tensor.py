"""PFL1xx: tensors, autograd and modules (`.data`, discarded results, unregistered state)."""

from __future__ import annotations

import ast

from pitfalls.check.checker import Checker, check, documents, walk_local
from pitfalls.check.kinds import TENSOR_PARAM, is_module, is_tensor


@check(("PFL101", "PFL102"), ast.Attribute)
def data_attribute(checker: Checker, node: ast.Attribute) -> None:
    """## What it does
    Finds `.data` on tensors, parameters and module outputs: writes (PFL101: `p.data = ...`,
    `w.data.mul_(...)`, `x.data[i] = ...`) and reads (PFL102: `out.data`).

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
    if not is_tensor(checker.model.kind_of(node.value)):
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
REGISTERING = frozenset(
    {"ModuleList", "ModuleDict", "Sequential", "ParameterList", "ParameterDict"}
)


@check(("PFL104", "PFL105"), ast.Assign)
def unregistered_state(checker: Checker, node: ast.Assign) -> None:
    """## What it does
    In `__init__` of an `nn.Module` subclass, finds a plain Python list, tuple or dict of
    modules or tensors stored on `self`, or modules appended to a plain list on `self`
    (`self.blocks = []`, then `self.blocks.append(nn.Linear(...))`) (PFL104), and, when
    selected, a plain tensor stored on `self` (PFL105, off by default).

    ## Why is this bad?
    `nn.Module` registers only attributes that are modules, `nn.Parameter`s and buffers. The
    layers in a plain list are missing from `.parameters()` (the optimizer never trains them),
    `.to(device)` and `state_dict()`.

    ## Example
    `self.heads = [nn.Linear(64, 10) for _ in range(3)]`

    Use instead: `self.heads = nn.ModuleList(nn.Linear(64, 10) for _ in range(3))`, and
    `self.register_buffer("mean", torch.zeros(3))` for a tensor.
    """
    function = checker.function
    cls = checker.model.scope.cls
    if not isinstance(function, ast.FunctionDef) or function.name != "__init__":
        return
    if cls is None or not cls.is_module or len(node.targets) != 1:
        return
    target = node.targets[0]
    if not isinstance(target, ast.Attribute) or checker.model.class_of_self(target.value) is None:
        return
    value = node.value
    if isinstance(value, (ast.List, ast.Tuple, ast.Dict, ast.ListComp, ast.DictComp)):
        if _holds_modules(checker, value) and not _registered_later(checker, function, target):
            kind = "dict" if isinstance(value, (ast.Dict, ast.DictComp)) else "list"
            wrapper = "nn.ModuleDict" if kind == "dict" else "nn.ModuleList"
            checker.report(
                "PFL104",
                node,
                f"a plain {kind} of modules or tensors on `self.{target.attr}` is invisible to "
                f"`.parameters()`, `.to()` and `state_dict()`: wrap it in `{wrapper}` "
                "(or `nn.ParameterList`)",
            )
    elif "PFL105" in checker.enabled and isinstance(value, ast.Call):
        kind = checker.model.kind_of(value)
        name = checker.model.resolve(value.func) or ""
        if is_tensor(kind) and kind != TENSOR_PARAM and name.startswith("torch."):
            checker.report(
                "PFL105",
                node,
                f"tensor `self.{target.attr}` is not a buffer: it stays behind on `.to()` and is "
                f"not saved; use `self.register_buffer({target.attr!r}, ...)`",
            )


@check("PFL104", ast.Call)
def module_appended_to_list(checker: Checker, node: ast.Call) -> None:
    """`self.layers = []` then `self.layers.append(nn.Linear(...))` in `__init__`: see PFL104."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr in ("append", "extend", "insert")):
        return
    receiver = func.value
    if not isinstance(receiver, ast.Attribute) or len(node.args) != (
        2 if func.attr == "insert" else 1
    ):
        return
    function = checker.function
    cls = checker.model.class_of_self(receiver.value)
    if cls is None or not cls.is_module or not isinstance(function, ast.FunctionDef):
        return
    if function.name != "__init__" or receiver.attr not in _plain_lists(checker, function):
        return
    item = node.args[-1]
    if func.attr == "extend":
        if not isinstance(item, (ast.List, ast.Tuple, ast.ListComp)):
            return
        holds = _holds_modules(checker, item)
    else:
        kind = checker.model.kind_of(item)
        holds = is_module(kind) or kind == TENSOR_PARAM
    if holds and not _registered_later(checker, function, receiver):
        checker.report(
            "PFL104",
            node,
            f"modules added to the plain list `self.{receiver.attr}` are invisible to "
            f"`.parameters()`, `.to()` and `state_dict()`: make it `nn.ModuleList()` (or "
            "`nn.ParameterList()`)",
        )


def _plain_lists(checker: Checker, function: ast.FunctionDef) -> frozenset[str]:
    """The `self.` attributes that `__init__` sets to a plain list (`[]`, `list()`)."""

    def compute() -> frozenset[str]:
        names = set()
        for stmt in walk_local(function):
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target, value = stmt.targets[0], stmt.value
                plain = isinstance(value, (ast.List, ast.ListComp)) or (
                    isinstance(value, ast.Call)
                    and isinstance(value.func, ast.Name)
                    and value.func.id == "list"
                    and checker.model.resolve(value.func) == "list"
                )
                if plain and isinstance(target, ast.Attribute):
                    if checker.model.class_of_self(target.value) is not None:
                        names.add(target.attr)
        return frozenset(names)

    return checker.cached(function, "plain-lists", compute)


def _holds_modules(checker: Checker, value: ast.AST) -> bool:
    if isinstance(value, (ast.List, ast.Tuple)):
        items: list[ast.AST] = list(value.elts)
    elif isinstance(value, ast.Dict):
        items = [v for v in value.values if v is not None]
    elif isinstance(value, ast.ListComp):
        items = [value.elt]
    elif isinstance(value, ast.DictComp):
        items = [value.value]
    else:
        return False
    if not items:
        return False
    model = checker.model
    saved = model.scope.names.copy(), model.scope.opaque.copy()
    if isinstance(value, (ast.ListComp, ast.DictComp)):
        for generator in value.generators:
            model.bind_loop(generator.target, generator.iter)
    try:
        kinds = [model.kind_of(item) for item in items]
    finally:
        model.scope.names, model.scope.opaque = saved
    return all(is_module(k) or k == TENSOR_PARAM for k in kinds)


def _registered_later(checker: Checker, function: ast.AST, target: ast.Attribute) -> bool:
    """Whether `__init__` hands `self.<attr>` to a registering container or `add_module`."""
    for node in walk_local(function):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in ("add_module", "register_module", "register_parameter", "register_buffer"):
            return True
        if name in REGISTERING:
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                inner = arg.value if isinstance(arg, ast.Starred) else arg
                if isinstance(inner, ast.Attribute) and inner.attr == target.attr:
                    return True
    return False


@check("PFL106", ast.Assign)
@documents("PFL106")
def state_dict_alias(checker: Checker, node: ast.Assign) -> None:
    """## What it does
    Finds `best = model.state_dict()` inside a training loop when `best` is used after the
    loop (to load, save or return it). Copies of the dict that keep the same tensors count
    too: `model.state_dict().copy()`, `dict(model.state_dict())`,
    `{k: v for k, v in model.state_dict().items()}`.

    ## Why is this bad?
    `state_dict()` returns references to the live parameters, not a copy: as training goes on
    the "best" weights keep changing, and what is restored at the end is the last epoch.
    Copying the dict copies the references, not the tensors.

    ## Example
    `if acc > best_acc: best_state = model.state_dict()`

    Use instead: `best_state = copy.deepcopy(model.state_dict())`, or
    `{k: v.detach().clone() for k, v in model.state_dict().items()}`.
    """
    value = node.value
    if not checker.loops or len(node.targets) != 1:
        return
    call = _aliased_state_dict(checker, value)
    if call is None:
        return
    target = node.targets[0]
    loop = _kept_across(checker)
    if isinstance(target, ast.Attribute):
        used_after = checker.model.class_of_self(target.value) is not None
    elif isinstance(target, ast.Name):
        end = loop.end_lineno or loop.lineno
        scope = checker.function or checker.tree
        used_after = any(
            isinstance(n, ast.Name) and n.id == target.id and n.lineno > end
            for n in walk_local(scope)
        )
    else:
        return
    if used_after:
        what = checker.segment(target)
        checker.report(
            "PFL106",
            node,
            f"`{what}` holds references to the live weights, which keep training: store "
            f"`copy.deepcopy({checker.segment(call)})`",
        )


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


def _state_dict_call(node: ast.AST) -> ast.Call | None:
    """`x.state_dict()` itself."""
    if isinstance(node, ast.Call) and not node.args:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "state_dict":
            return node
    return None


def _aliased_state_dict(checker: Checker, value: ast.AST) -> ast.Call | None:
    """The `state_dict()` call whose tensors `value` shares: the dict itself, a shallow copy
    (`.copy()`, `dict(...)`, `OrderedDict(...)`), or a comprehension that keeps the values."""
    if not isinstance(value, (ast.Call, ast.DictComp)):
        return None
    found = _state_dict_call(value)
    if found is not None:
        return found
    if isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr == "copy" and not value.args:
            return _state_dict_call(func.value)
        if len(value.args) == 1 and not value.keywords:
            name = (
                checker.model.resolve(func) if isinstance(func, ast.Name | ast.Attribute) else None
            )
            if name in ("dict", "collections.OrderedDict"):
                return _state_dict_call(value.args[0])
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
            return _state_dict_call(source.func.value)
    return None
