"""PFL0xx: APIs that changed meaning or went away (NumPy aliases, `.next()`, `Variable`, ...)."""

from __future__ import annotations

import ast

from pitfalls.check.checker import Checker, Edit, check, documents
from pitfalls.check.kinds import INT, ITERATOR, LOADER, LOADER_ITERATOR, is_module

NUMPY_REMOVED = {
    "float": "float",
    "int": "int",
    "object": "object",
    "str": "str",
    "complex": "complex",
    "unicode": "str",
}
NUMPY_RETURNED = {"bool": "bool", "long": "int"}


@check(("PFL001", "PFL002"), ast.Attribute)
def numpy_removed_alias(checker: Checker, node: ast.Attribute) -> None:
    """## What it does
    Finds `np.float`, `np.int`, `np.object`, `np.str`, `np.complex` and `np.unicode`.

    ## Why is this bad?
    NumPy deprecated these aliases of Python builtins in 1.20 and removed them in 1.24: old code
    now fails with `AttributeError`. `np.bool` and `np.long` came back in NumPy 2 with new
    meanings, so they are reported (PFL002) only where the project pins NumPy below 2.

    ## Example
    `x.astype(np.float)`

    Use instead: `x.astype(float)` (or `np.float64`).

    ## Fix safety
    Always safe: each alias was the builtin itself.
    """
    attr = node.attr
    if attr not in NUMPY_REMOVED and attr not in NUMPY_RETURNED:
        return
    if not checker.model.imports_numpy or not isinstance(node.ctx, ast.Load):
        return
    if checker.model.resolve(node) != f"numpy.{attr}":
        return
    if attr in NUMPY_REMOVED:
        builtin = NUMPY_REMOVED[attr]
        start, end = checker.offsets(node)
        checker.report(
            "PFL001",
            node,
            f"`{checker.segment(node)}` was removed in NumPy 1.24: use the builtin `{builtin}`",
            edits=(Edit(start, end, builtin),),
            fix_title=f"Replace with `{builtin}`",
        )
    elif checker.options.numpy_below_2:
        checker.report(
            "PFL002",
            node,
            f"`{checker.segment(node)}` does not exist in NumPy 1.24-1.26, which this project "
            f"pins: use `{NUMPY_RETURNED[attr]}` (or `np.{attr}_`)",
        )


@check("PFL003", ast.Call)
def iterator_next_method(checker: Checker, node: ast.Call) -> None:
    """## What it does
    Finds `it.next()` where `it` is an iterator: `iter(loader).next()`, or a name or `self.`
    attribute bound to `iter(...)`.

    ## Why is this bad?
    Python 2's `.next()` method became `__next__` in Python 3; the call raises
    `AttributeError`. Old DataLoader code used it to draw single batches.

    ## Example
    `images, labels = iter(loader).next()`

    Use instead: `images, labels = next(iter(loader))`

    ## Fix safety
    Safe where the receiver is known to come from `iter()`. Where it is bound to `iter()`
    only further down the loop (`except StopIteration: it = iter(loader)`), it may hold
    something else on the first iteration (`None`, whose `.next()` raises an
    AttributeError that a handler may be catching), and no fix is offered.
    """
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "next") or node.args or node.keywords:
        return
    kind = checker.model.kind_of(func.value)
    if kind not in (ITERATOR, LOADER_ITERATOR):
        return
    receiver = checker.segment(func.value)
    start, end = checker.offsets(node)
    what = "a DataLoader iterator" if kind == LOADER_ITERATOR else "an iterator"
    message = f"`.next()` on {what} fails in Python 3: use `next({receiver})`"
    if checker.model.only_carried(func.value):
        message = (
            f"`.next()` on {what} (bound further down the loop, used here from the second "
            f"iteration) fails in Python 3: use `next({receiver})`"
        )
        checker.report("PFL003", node, message)
        return
    checker.report(
        "PFL003",
        node,
        message,
        edits=(Edit(start, end, f"next({receiver})"),),
        fix_title=f"Replace with `next({receiver})`",
    )


@check(("PFL004", "PFL005", "PFL006", "PFL007", "PFL009", "PFL010", "PFL011"), ast.Call)
def torch_api_calls(checker: Checker, node: ast.Call) -> None:
    """Calls recognised by their resolved name; see each rule's entry in `--explain`."""
    name = checker.callee(node)
    if name is None:
        return
    keywords = {k.arg for k in node.keywords}
    has_star_kwargs = None in keywords
    if name == "itertools.cycle" and node.args:
        _cycle(checker, node)
    elif not name.startswith("torch."):
        return
    elif name == "torch.load":
        if "weights_only" not in keywords and not has_star_kwargs:
            checker.report(
                "PFL005",
                node,
                "`torch.load` without `weights_only`: pass `weights_only=True` (torch >= 2.6 "
                "defaults to it and old checkpoints may fail; `False` only for trusted files)",
            )
    elif name in ("torch.autograd.Variable", "torch.autograd.variable.Variable"):
        checker.report(
            "PFL006", node, "`Variable(x)` is a no-op since torch 0.4: use the tensor itself"
        )
        for keyword in node.keywords:
            if keyword.arg == "volatile":
                checker.report(
                    "PFL007",
                    keyword,
                    "`volatile=True` is ignored since torch 0.4: wrap inference in "
                    "`with torch.no_grad():`",
                )
    elif name.startswith("torch.cuda.amp.") and name.rsplit(".", 1)[-1] in AMP_NAMES:
        _cuda_amp(checker, node, name)
    elif name in CHECKPOINTS:
        if "use_reentrant" not in keywords and not has_star_kwargs:
            checker.report(
                "PFL010",
                node,
                "`checkpoint` without `use_reentrant`: pass `use_reentrant=False` (the "
                "reentrant variant returns no gradients when no input requires grad)",
            )
    elif name in LEGACY_CONSTRUCTORS:
        _tensor_constructor(checker, node, name)


@check("PFL009", ast.FunctionDef, ast.AsyncFunctionDef)
def cuda_amp_decorator(checker: Checker, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
    """`@torch.cuda.amp.custom_fwd` without a call: see PFL009."""
    for decorator in node.decorator_list:
        if isinstance(decorator, (ast.Name, ast.Attribute)):
            name = checker.model.resolve(decorator) or ""
            last = name.rsplit(".", 1)[-1]
            if name.startswith("torch.cuda.amp.") and last in ("custom_fwd", "custom_bwd"):
                checker.report(
                    "PFL009",
                    decorator,
                    f"`torch.cuda.amp.{last}` is deprecated: use "
                    f'`@torch.amp.{last}(device_type="cuda")` (torch >= 2.3)',
                )


CHECKPOINTS = ("torch.utils.checkpoint.checkpoint", "torch.utils.checkpoint.checkpoint_sequential")


@documents("PFL004")
def _cycle(checker: Checker, node: ast.Call) -> None:
    """## What it does
    Finds `itertools.cycle(loader)` on a DataLoader.

    ## Why is this bad?
    `cycle` stores every item of the first pass and replays them: the loader is never
    reshuffled or re-augmented, and all batches stay in memory.

    ## Example
    `batches = itertools.cycle(train_loader)`

    Use instead: a generator that re-enters the loader:
    `def forever(loader):\n    while True:\n        yield from loader`
    """
    arg = node.args[0]
    name = ""
    if isinstance(arg, (ast.Name, ast.Attribute)):
        name = arg.id if isinstance(arg, ast.Name) else arg.attr
    if checker.model.kind_of(arg) == LOADER or "loader" in name.lower():
        checker.report(
            "PFL004",
            node,
            "`itertools.cycle` on a DataLoader replays the first epoch's batches (no reshuffle) "
            "and keeps them all in memory: loop `while True: yield from loader` instead",
        )


AMP_NAMES = frozenset({"autocast", "GradScaler", "custom_fwd", "custom_bwd"})
AMP_POSITIONAL = {
    "autocast": ("enabled", "dtype", "cache_enabled"),
    "GradScaler": ("init_scale", "growth_factor", "backoff_factor", "growth_interval", "enabled"),
}


@documents("PFL009")
def _cuda_amp(checker: Checker, node: ast.Call, name: str) -> None:
    """## What it does
    Finds calls into `torch.cuda.amp` (`autocast`, `GradScaler`, `custom_fwd`, `custom_bwd`).

    ## Why is this bad?
    The namespace is deprecated since torch 2.4 and warns on every use; `torch.amp` takes the
    device type first, so positional arguments change meaning. Not fixed automatically: the
    replacement needs torch >= 2.3.

    ## Example
    `scaler = torch.cuda.amp.GradScaler()`

    Use instead: `scaler = torch.amp.GradScaler("cuda")`
    """
    last = name.rsplit(".", 1)[-1]
    args = [checker.segment(a) for a in node.args]
    names = AMP_POSITIONAL.get(last, ())
    if len(args) > len(names) and last in AMP_POSITIONAL:
        replacement = None
    else:
        parts = [f"{n}={a}" for n, a in zip(names, args)] if last in AMP_POSITIONAL else args
        parts += [checker.segment(k) for k in node.keywords]
        if last in ("autocast", "GradScaler"):
            joined = ", ".join(['"cuda"', *parts])
            replacement = f"torch.amp.{last}({joined})"
        elif last in ("custom_fwd", "custom_bwd"):
            joined = ", ".join([*parts, 'device_type="cuda"'])
            replacement = f"torch.amp.{last}({joined})"
        else:
            replacement = None
    hint = f"use `{replacement}`" if replacement else f"use `torch.amp.{last}` with the device"
    checker.report("PFL009", node, f"`torch.cuda.amp.{last}` is deprecated: {hint} (torch >= 2.3)")


LEGACY_CONSTRUCTORS = frozenset(
    f"torch.{prefix}{name}Tensor"
    for prefix in ("", "cuda.")
    for name in ("", "Float", "Double", "Half", "Long", "Int", "Short", "Byte", "Char", "Bool")
) - {"torch.cuda.Tensor"}


@documents("PFL011")
def _tensor_constructor(checker: Checker, node: ast.Call, name: str) -> None:
    """## What it does
    Finds `torch.Tensor(n)` (and `torch.FloatTensor(n)`, `torch.LongTensor(n)`, ...) called
    with a single integer.

    ## Why is this bad?
    The legacy constructors read an integer as a size: `torch.Tensor(3)` is three
    uninitialised numbers, not the value 3. Allocations meant to be filled in place
    (`nn.Parameter(torch.Tensor(n))`, `torch.Tensor(n).uniform_()`) are not reported.

    ## Example
    `target = torch.LongTensor(label)`

    Use instead: `torch.tensor([label])`, or `torch.empty(n)` for a buffer.
    """
    if len(node.args) != 1 or node.keywords:
        return
    arg = node.args[0]
    if isinstance(arg, ast.Constant):
        if type(arg.value) is not int:
            return
    elif checker.model.kind_of(arg) != INT:
        return
    parent = checker.parent
    if isinstance(parent, ast.Attribute) and parent.attr.endswith("_"):
        return  # torch.Tensor(n).uniform_(): an allocation filled at once
    if isinstance(parent, ast.Call) and (checker.model.resolve(parent.func) or "").endswith(
        "Parameter"
    ):
        return
    short = name.replace("torch.", "", 1)
    value = checker.segment(arg)
    checker.report(
        "PFL011",
        node,
        f"`{short}({value})` makes an uninitialised tensor of size {value}, not one holding "
        f"{value}: use `torch.tensor([{value}])`, or `torch.empty({value})` for a buffer",
    )


@check("PFL008", ast.Call)
def register_backward_hook(checker: Checker, node: ast.Call) -> None:
    """## What it does
    Finds `module.register_backward_hook(...)`.

    ## Why is this bad?
    The old module hook fires on the gradients of the module's last operation only, so for
    any module with more than one operation it reports the wrong `grad_input`. It is
    deprecated.

    ## Example
    `layer.register_backward_hook(reverse)`

    Use instead: `layer.register_full_backward_hook(reverse)`, or a hook on the tensor.
    """
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "register_backward_hook":
        if checker.model.imports_torch:
            checker.report(
                "PFL008",
                node,
                "`register_backward_hook` sees only the last operation's gradients: use "
                "`register_full_backward_hook` (or `tensor.register_hook`)",
            )


@check(("PFL012", "PFL013"), ast.Assign, ast.AugAssign)
def requires_grad_assignment(checker: Checker, node: ast.Assign | ast.AugAssign) -> None:
    """## What it does
    Finds assignments to `x.require_grad` (PFL012) and `module.requires_grad` (PFL013).

    ## Why is this bad?
    Python accepts any attribute name, so `p.require_grad = False` silently freezes nothing;
    and a module has no `requires_grad` flag: setting one leaves every parameter trainable.

    ## Example
    `model.encoder.requires_grad = False`

    Use instead: `model.encoder.requires_grad_(False)`
    """
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    for target in targets:
        if not isinstance(target, ast.Attribute):
            continue
        if target.attr == "require_grad":
            checker.report(
                "PFL012",
                target,
                "`require_grad` is a typo: the attribute is `requires_grad` (or call "
                "`.requires_grad_()`); this assignment changes nothing",
            )
        elif target.attr == "requires_grad" and is_module(checker.model.kind_of(target.value)):
            receiver = checker.segment(target.value)
            checker.report(
                "PFL013",
                target,
                f"a module has no `requires_grad` flag: this does not freeze its parameters; "
                f"use `{receiver}.requires_grad_(False)`",
            )


@documents("PFL005")
def _torch_load_doc() -> None:
    """## What it does
    Finds `torch.load(...)` calls that do not pass `weights_only`.

    ## Why is this bad?
    Without `weights_only=True`, `torch.load` unpickles arbitrary objects, so a downloaded
    checkpoint can run code. torch 2.6 changed the default to `True`, so old calls that load
    whole pickled objects now fail; saying it explicitly keeps the behaviour stable.

    ## Example
    `state = torch.load("model.pt")`

    Use instead: `state = torch.load("model.pt", weights_only=True)`
    """


@documents("PFL006", "PFL007")
def _variable_doc() -> None:
    """## What it does
    Finds `Variable(...)` (PFL006) and its `volatile=True` flag (PFL007).

    ## Why is this bad?
    Since torch 0.4 tensors carry autograd themselves: `Variable(x)` returns `x`, and
    `volatile=True` is ignored with a warning, so inference code that relied on it now builds
    graphs and keeps activations alive.

    ## Example
    `x = Variable(images, volatile=True)`

    Use instead: `with torch.no_grad(): out = model(images)`
    """


@documents("PFL010")
def _checkpoint_doc() -> None:
    """## What it does
    Finds `torch.utils.checkpoint.checkpoint(...)` without `use_reentrant`.

    ## Why is this bad?
    The reentrant variant, long the default, returns no gradients for the checkpointed
    parameters when none of the inputs requires grad, and torch warns when the flag is left
    out. The non-reentrant variant has none of these limits.

    ## Example
    `y = checkpoint(block, x)`

    Use instead: `y = checkpoint(block, x, use_reentrant=False)`
    """
