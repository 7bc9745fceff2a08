"""PFL104/PFL105: modules and tensors that `nn.Module.__init__` keeps where nothing registers
them (a plain list or dict on `self`, a local list handed to `self`, a plain tensor)."""

from __future__ import annotations

import ast
from typing import Any

from pitfalls.check.checker import Checker, check, walk_local
from pitfalls.check.kinds import TENSOR_PARAM, is_module, is_tensor

REGISTERING = frozenset(
    {"ModuleList", "ModuleDict", "Sequential", "ParameterList", "ParameterDict"}
)
# Builtins that read a local list without keeping it: handing the list to anything else (a
# registering container, a helper) may register its modules, so it is not reported.
_READERS = frozenset({"len", "print", "enumerate", "zip", "reversed", "range", "isinstance"})
_PLAIN = frozenset({"list", "dict", "collections.OrderedDict"})
# Modules without parameters, buffers or a train/eval mode: a plain list of these loses nothing.
_STATELESS = frozenset(
    "ReLU ReLU6 LeakyReLU ELU SELU CELU GELU SiLU Mish Tanh Sigmoid Hardtanh Hardswish "
    "Hardsigmoid Softplus Softsign Tanhshrink Softmax LogSoftmax Softmin Identity Flatten "
    "Unflatten MaxPool1d MaxPool2d MaxPool3d AvgPool1d AvgPool2d AvgPool3d AdaptiveAvgPool1d "
    "AdaptiveAvgPool2d AdaptiveAvgPool3d AdaptiveMaxPool1d AdaptiveMaxPool2d AdaptiveMaxPool3d "
    "Upsample PixelShuffle PixelUnshuffle".split()
)
_ADDERS = ("append", "extend", "insert")


def _module_init(checker: Checker) -> ast.FunctionDef | None:
    """The `__init__` of an `nn.Module` subclass that the node at hand is in, if any."""
    function = checker.function
    cls = checker.model.scope.cls
    if not isinstance(function, ast.FunctionDef) or function.name != "__init__":
        return None
    if cls is None or not cls.is_module:
        return None
    return function


@check(("PFL104", "PFL105"), ast.Assign)
def unregistered_state(checker: Checker, node: ast.Assign) -> None:
    """## What it does
    In `__init__` of an `nn.Module` subclass, finds a plain Python list, tuple or dict of
    modules or tensors stored on `self` (`self.heads = [nn.Linear(...) for _ in range(3)]`,
    `self.blocks = list(...)`), modules added to a plain list or dict on `self`
    (`self.blocks.append(nn.Linear(...))`, `self.heads[name] = nn.Linear(...)`), and a local
    list or dict filled with modules and then stored on `self` (`layers.append(...)`, then
    `self.layers = layers`) (PFL104); and, when selected, a plain tensor stored on `self`
    (PFL105, off by default). Modules that are also attributes of `self`, and lists handed to
    `nn.Sequential`, `nn.ModuleList` or another call, are registered and not reported.

    ## Why is this bad?
    `nn.Module` registers only attributes that are modules, `nn.Parameter`s and buffers. The
    layers in a plain list are missing from `.parameters()` (the optimizer never trains them),
    `.to(device)` and `state_dict()`.

    ## Example
    `self.heads = [nn.Linear(64, 10) for _ in range(3)]`

    Use instead: `self.heads = nn.ModuleList(nn.Linear(64, 10) for _ in range(3))`, and
    `self.register_buffer("mean", torch.zeros(3))` for a tensor.
    """
    function = _module_init(checker)
    if function is None or len(node.targets) != 1:
        return
    target, value = node.targets[0], node.value
    if isinstance(target, ast.Name):
        _note_local(checker, function, target.id, value)
        return
    if isinstance(target, ast.Subscript):
        _item_assigned(checker, function, node, target)
        return
    if not isinstance(target, ast.Attribute) or checker.model.class_of_self(target.value) is None:
        return
    kind = _container_of_modules(checker, function, value)
    if kind is not None:
        if not _registered_later(checker, function, target):
            what = f"a plain {kind} of modules or tensors on `self.{target.attr}` is"
            _report(checker, node, what, kind)
        return
    if isinstance(value, ast.Name) and value.id in _filled(checker, function):
        if not _handed_on(checker, function, value.id):
            if not _registered_later(checker, function, target):
                kind = _plain_containers(checker, function)[1].get(value.id, "list")
                what = (
                    f"`self.{target.attr}` is the plain {kind} `{value.id}`: the modules put in "
                    "it are"
                )
                _report(checker, node, what, kind)
        return
    if "PFL105" in checker.enabled and isinstance(value, ast.Call):
        kind = checker.model.kind_of(value)
        name = checker.model.resolve(value.func) or ""
        if is_tensor(kind) and kind != TENSOR_PARAM and name.startswith("torch."):
            checker.report(
                "PFL105",
                node,
                f"tensor `self.{target.attr}` is not a buffer: it stays behind on `.to()` and is "
                f"not saved; use `self.register_buffer({target.attr!r}, ...)`",
            )


def _report(checker: Checker, node: ast.AST, what: str, kind: str) -> None:
    wrapper = "Dict" if kind == "dict" else "List"
    checker.report(
        "PFL104",
        node,
        f"{what} invisible to `.parameters()`, `.to()` and `state_dict()`: wrap it in "
        f"`nn.Module{wrapper}` (or `nn.Parameter{wrapper}`)",
    )


def _container_of_modules(checker: Checker, function: ast.AST, value: ast.AST) -> str | None:
    """ "list" or "dict" when `value` builds a plain container of new modules: a literal, a
    comprehension, `list(<generator>)`, `dict(a=nn.Linear(...))`."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        name = checker.model.resolve(value.func)
        if name in ("list", "tuple") and len(value.args) == 1 and not value.keywords:
            inner = value.args[0]
            if isinstance(inner, (ast.GeneratorExp, ast.ListComp)):
                return "list" if _holds_modules(checker, function, inner) else None
        elif name == "dict" and value.keywords and not value.args:
            if all(k.arg is not None for k in value.keywords):
                dict_items = [k.value for k in value.keywords]
                return "dict" if _all_new_modules(checker, function, dict_items) else None
        return None
    if isinstance(value, (ast.List, ast.Tuple, ast.Dict, ast.ListComp, ast.DictComp)):
        if _hidden_argument(function, value):
            return None
        if _holds_modules(checker, function, value):
            return "dict" if isinstance(value, (ast.Dict, ast.DictComp)) else "list"
    return None


def _hidden_argument(function: ast.AST, value: ast.AST) -> bool:
    """`self._teacher = [teacher]`: a module handed to `__init__`, wrapped alone in a list so
    that it is kept out of `.parameters()` and `state_dict()` on purpose (a frozen teacher, a
    model an EMA copy follows)."""
    if not (isinstance(value, (ast.List, ast.Tuple)) and len(value.elts) == 1):
        return False
    item = value.elts[0]
    args = function.args  # type: ignore[attr-defined]
    params = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    return isinstance(item, ast.Name) and item.id in params


@check("PFL104", ast.Call)
def module_appended_to_list(checker: Checker, node: ast.Call) -> None:
    """`self.layers = []` then `self.layers.append(nn.Linear(...))` in `__init__`: see PFL104."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr in _ADDERS):
        return
    if len(node.args) != (2 if func.attr == "insert" else 1) or node.keywords:
        return
    function = _module_init(checker)
    if function is None:
        return
    _added(checker, function, node, func.value, node.args[-1], func.attr == "extend")


@check("PFL104", ast.AugAssign)
def modules_added_to_list(checker: Checker, node: ast.AugAssign) -> None:
    """`layers += [nn.Linear(...), nn.ReLU()]` in `__init__`: see PFL104."""
    if isinstance(node.op, ast.Add):
        function = _module_init(checker)
        if function is not None:
            _added(checker, function, node, node.target, node.value, True)


def _added(
    checker: Checker, function: ast.FunctionDef, node: ast.AST, receiver: Any, item: Any, many: bool
) -> None:
    """Modules added to a plain list: see `_put_into`."""
    if many:
        if isinstance(item, (ast.List, ast.Tuple, ast.ListComp)):
            if _holds_modules(checker, function, item):
                _put_into(checker, function, node, receiver, "added to the plain list")
    elif _new_module(checker, function, item):
        _put_into(checker, function, node, receiver, "added to the plain list")


def _item_assigned(
    checker: Checker, function: ast.FunctionDef, node: ast.Assign, target: ast.Subscript
) -> None:
    """`self.heads[name] = nn.Linear(...)` or `heads[name] = ...`: see `_put_into`."""
    if _new_module(checker, function, node.value):
        _put_into(checker, function, node, target.value, "stored in the plain container")


def _put_into(
    checker: Checker, function: ast.FunctionDef, node: ast.AST, receiver: Any, how: str
) -> None:
    """New modules put into a plain list or dict: reported when it is on `self`, remembered
    when it is a local (reported if it is stored on `self` later)."""
    if isinstance(receiver, ast.Name):
        if receiver.id in _plain_containers(checker, function)[1]:
            _filled(checker, function).add(receiver.id)
        return
    if not isinstance(receiver, ast.Attribute):
        return
    if checker.model.class_of_self(receiver.value) is None:
        return
    kind = _plain_containers(checker, function)[0].get(receiver.attr)
    if kind is not None and not _registered_later(checker, function, receiver):
        _report(checker, node, f"modules {how} `self.{receiver.attr}` are", kind)


def _note_local(checker: Checker, function: ast.FunctionDef, name: str, value: ast.AST) -> None:
    """A local bound to a plain list that already holds new modules is filled; a local bound
    to anything else is no longer a plain list."""
    if _container_of_modules(checker, function, value) is not None:
        _filled(checker, function).add(name)
    else:
        _filled(checker, function).discard(name)


def _filled(checker: Checker, function: ast.AST) -> set[str]:
    """Locals of `__init__` (plain lists or dicts) that modules have been added to so far."""
    return checker.cached(function, "filled-lists", set)  # type: ignore[no-any-return]


def _plain_kind(checker: Checker, value: ast.AST) -> str | None:
    """ "list" or "dict" for a plain container (a literal, a comprehension, `list()`, `{}`)."""
    if isinstance(value, (ast.List, ast.Tuple, ast.ListComp)):
        return "list"
    if isinstance(value, (ast.Dict, ast.DictComp)):
        return "dict"
    if isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)):
        name = checker.model.resolve(value.func)
        if name in _PLAIN:
            return "list" if name == "list" else "dict"
    return None


def _plain_containers(
    checker: Checker, function: ast.FunctionDef
) -> tuple[dict[str, str], dict[str, str]]:
    """The `self.` attributes and the local names that `__init__` binds to a plain list or
    dict (`[]`, `list()`, `{}`, `dict()`), each with which."""

    def compute() -> tuple[dict[str, str], dict[str, str]]:
        attrs: dict[str, str] = {}
        names: dict[str, str] = {}
        for stmt in walk_local(function):
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target = stmt.targets[0]
                kind = _plain_kind(checker, stmt.value)
                if kind is None:
                    continue
                if isinstance(target, ast.Name):
                    names[target.id] = kind
                elif isinstance(target, ast.Attribute):
                    if checker.model.class_of_self(target.value) is not None:
                        attrs[target.attr] = kind
        return attrs, names

    return checker.cached(function, "plain-containers", compute)  # type: ignore[no-any-return]


def _new_module(checker: Checker, function: ast.FunctionDef, item: ast.AST) -> bool:
    """Whether `item` is a module (or parameter) that nothing else registers and that has
    something to register: not a `self.` attribute, nor a local also stored on `self` or
    handed to `add_module`/`setattr`, nor a stateless layer such as `nn.ReLU()`."""
    kind = checker.model.kind_of(item)
    if not (is_module(kind) or kind == TENSOR_PARAM):
        return False
    if isinstance(item, ast.Call) and isinstance(item.func, (ast.Name, ast.Attribute)):
        name = checker.model.resolve(item.func) or ""
        if name.startswith("torch.nn.") and name.rsplit(".", 1)[-1] in _STATELESS:
            return False  # `nn.ReLU()`: nothing to register
    root = item
    while isinstance(root, ast.Attribute):
        root = root.value
    if root is not item and checker.model.class_of_self(root) is not None:
        return False
    if isinstance(root, ast.Name):
        return root.id not in _registered_names(checker, function)
    return True


def _all_new_modules(checker: Checker, function: ast.FunctionDef, items: list[Any]) -> bool:
    kinds = [checker.model.kind_of(item) for item in items]
    if not items or not all(is_module(k) or k == TENSOR_PARAM for k in kinds):
        return False
    return any(_new_module(checker, function, item) for item in items)


def _holds_modules(checker: Checker, function: ast.FunctionDef, value: ast.AST) -> bool:
    """Whether a literal or comprehension holds modules only, at least one of them new. A
    comprehension must build them (`[nn.Linear(...) for ...]`), not collect existing ones."""
    comprehension = isinstance(value, (ast.ListComp, ast.GeneratorExp, ast.DictComp))
    if isinstance(value, (ast.List, ast.Tuple)):
        items: list[Any] = list(value.elts)
    elif isinstance(value, ast.Dict):
        items = [v for v in value.values if v is not None]
    elif isinstance(value, (ast.ListComp, ast.GeneratorExp)):
        items = [value.elt]
    elif isinstance(value, ast.DictComp):
        items = [value.value]
    else:
        return False
    if comprehension and not isinstance(items[0], ast.Call):
        return False
    model = checker.model
    saved = model.scope.names.copy(), model.scope.opaque.copy()
    if comprehension:
        for generator in value.generators:  # type: ignore[attr-defined]
            model.bind_loop(generator.target, generator.iter)
    try:
        return _all_new_modules(checker, function, items)
    finally:
        model.scope.names, model.scope.opaque = saved


def _registered_names(checker: Checker, function: ast.FunctionDef) -> frozenset[str]:
    """Locals that `__init__` also registers: `self.x = conv`, `setattr(self, n, conv)`,
    `self.add_module(n, conv)`."""

    def compute() -> frozenset[str]:
        names = set()
        for node in walk_local(function):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
                if any(isinstance(t, ast.Attribute) for t in node.targets):
                    names.add(node.value.id)
            elif isinstance(node, ast.Call) and len(node.args) >= 2:
                func = node.func
                called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if called in ("setattr", "add_module", "register_module", "register_parameter"):
                    last = node.args[-1]
                    if isinstance(last, ast.Name):
                        names.add(last.id)
        return frozenset(names)

    return checker.cached(function, "registered-names", compute)  # type: ignore[no-any-return]


def _handed_on(checker: Checker, function: ast.FunctionDef, name: str) -> bool:
    """Whether `__init__` passes the local `name` to a call other than a builtin reader:
    `nn.Sequential(*layers)`, `nn.ModuleList(layers)`, a helper that may register them."""

    def compute() -> frozenset[str]:
        handed = set()
        for node in walk_local(function):
            if not isinstance(node, ast.Call):
                continue
            if isinstance(node.func, ast.Name) and node.func.id in _READERS:
                continue
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                inner = arg.value if isinstance(arg, ast.Starred) else arg
                if isinstance(inner, ast.Name):
                    handed.add(inner.id)
        return frozenset(handed)

    return name in checker.cached(function, "handed-on", compute)


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
