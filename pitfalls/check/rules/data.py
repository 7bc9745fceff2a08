"""PFL109, PFL306 and PFL307: wrapped models saved with prefixed keys, random generators copied
into every DataLoader worker, and worker functions that spawn cannot pickle."""

from __future__ import annotations

import ast

from pitfalls.check.checker import Checker, check, documents, walk_local

WRAPPERS = {
    "torch.nn.DataParallel": "module",
    "torch.nn.parallel.DataParallel": "module",
    "torch.nn.parallel.DistributedDataParallel": "module",
    "torch.nn.parallel.distributed.DistributedDataParallel": "module",
    "torch.compile": "_orig_mod",
}
# Text that shows the file already deals with the prefix.
PREFIX_HANDLED = (
    "consume_prefix_in_state_dict_if_present",
    "'module.",
    '"module.',
    "'_orig_mod.",
    '"_orig_mod.',
)
RNG_FACTORIES = frozenset(
    {
        "numpy.random.default_rng",
        "numpy.random.RandomState",
        "numpy.random.Generator",
        "random.Random",
        "torch.Generator",
    }
)
RESEEDS = frozenset({"seed", "manual_seed", "set_state", "setstate", "bit_generator"})
LOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
WORKER_FUNCTIONS = ("collate_fn", "worker_init_fn")


# -- PFL109 -------------------------------------------------------------------------------
# Methods of a module that return the module itself: `model.to(device)` keeps the wrapper.
_SELF_RETURNING = frozenset({"to", "cuda", "cpu", "train", "eval", "float", "half", "bfloat16"})


def _prefixes(checker: Checker, value: ast.AST | None, seen: frozenset[int]) -> frozenset[str]:
    """The key prefixes the model `value` evaluates to may carry: "" for a bare model (or one
    we know nothing of), "module" for `nn.DataParallel(m)`, "module._orig_mod" for
    `DDP(torch.compile(m))`. A name takes the union over the bindings that reach it (see
    `flow`), so a wrapper bound on one path only still counts; `m.module` and
    `m._orig_mod` unwrap one level."""
    bare = frozenset({""})
    if value is None:
        return bare
    if isinstance(value, ast.Name):
        reaching = checker.model.reaching(value)
        if not reaching:
            return bare
        found: set[str] = set()
        for stmt, bound in reaching:
            if id(stmt) in seen:
                continue
            found |= _prefixes(checker, bound, seen | {id(stmt)})
        return frozenset(found) or bare
    if isinstance(value, ast.IfExp):
        unwrapped = _conditional_unwrap(value)
        if unwrapped is not None:
            # `m.module if hasattr(m, "module") else m`: the test says whether `m` is wrapped.
            return _strip(_prefixes(checker, unwrapped[0], seen), unwrapped[1], keep=True)
        return _prefixes(checker, value.body, seen) | _prefixes(checker, value.orelse, seen)
    if (
        isinstance(value, ast.Call)
        and checker.model.resolve(value.func) == "getattr"
        and len(value.args) == 3
        and isinstance(value.args[1], ast.Constant)
        and value.args[1].value in ("module", "_orig_mod")
        and ast.dump(value.args[0]) == ast.dump(value.args[2])
    ):
        # `getattr(m, "module", m)`: unwrapped where wrapped.
        return _strip(_prefixes(checker, value.args[0], seen), value.args[1].value, keep=True)
    if isinstance(value, ast.Attribute) and value.attr in ("module", "_orig_mod"):
        return _strip(_prefixes(checker, value.value, seen), value.attr, keep=False)
    if not isinstance(value, ast.Call):
        return bare
    func = value.func
    if isinstance(func, ast.Attribute) and func.attr in _SELF_RETURNING:
        return _prefixes(checker, func.value, seen)
    attr = WRAPPERS.get(checker.model.resolve(func) or "")
    if attr is None or not value.args:
        return bare
    inner = _prefixes(checker, value.args[0], seen)
    return frozenset(f"{attr}.{p}" if p else attr for p in inner)


def _strip(prefixes: frozenset[str], attr: str, keep: bool) -> frozenset[str]:
    """The prefixes after taking `.attr` of the model: one level less where it is the
    wrapper's; elsewhere the same prefix when `keep` (a guarded unwrap left it alone),
    else "" (an attribute of something else, which we do not follow)."""
    out = set()
    for prefix in prefixes:
        head, _, rest = prefix.partition(".")
        out.add(rest if head == attr else prefix if keep else "")
    return frozenset(out)


def _conditional_unwrap(value: ast.IfExp) -> tuple[ast.AST, str] | None:
    """`(m, "module")` for `m.module if ... else m` (either way round), else None."""
    for unwrapped, other in ((value.body, value.orelse), (value.orelse, value.body)):
        if (
            isinstance(unwrapped, ast.Attribute)
            and unwrapped.attr in ("module", "_orig_mod")
            and ast.dump(unwrapped.value) == ast.dump(other)
        ):
            return other, unwrapped.attr
    return None


@check("PFL109", ast.Call)
@documents("PFL109")
def prefixed_state_dict(checker: Checker, node: ast.Call) -> None:
    """## What it does
    Finds `torch.save(...)` of `model.state_dict()` (directly or in a dict or list literal)
    where `model` can hold `nn.DataParallel(...)`, `DistributedDataParallel(...)` or
    `torch.compile(...)` of a model: the bindings that reach the save are followed through
    the function's control flow (a wrapper bound inside `if args.dp:` reaches it on one
    path: "may be wrapped"; one bound later in a loop reaches it on the next iteration),
    through other names (`raw = model.module if ddp else model`) and through unwrapping
    (`model = model.module` saves the bare model). Files that strip the prefix by its text
    (`"module."`, `"_orig_mod."`) or with `consume_prefix_in_state_dict_if_present` are
    skipped.

    ## Why is this bad?
    The wrappers keep the model as their attribute `module` (`_orig_mod` for
    `torch.compile`), so every key gains that prefix. The bare model cannot load the
    checkpoint, and `strict=False` "fixes" that by loading nothing.

    ## Example
    `model = nn.DataParallel(model)\\ntorch.save(model.state_dict(), path)`

    Use instead: `torch.save(model.module.state_dict(), path)` (`model._orig_mod` for a
    compiled model).
    """
    if not node.args or checker.callee(node) != "torch.save":
        return
    if any(text in checker.text for text in PREFIX_HANDLED):
        return
    for inner in ast.walk(node.args[0]):
        if not (
            isinstance(inner, ast.Call)
            and isinstance(inner.func, ast.Attribute)
            and inner.func.attr == "state_dict"
        ):
            continue
        if isinstance(node.args[0], ast.Call) and inner is not node.args[0]:
            continue  # `torch.save(strip(model.state_dict()), ...)`: transformed first
        receiver = inner.func.value
        prefixes = _prefixes(checker, receiver, frozenset())
        wrapped = sorted(p for p in prefixes if p)
        if not wrapped:
            continue
        name = checker.segment(receiver)
        attr = wrapped[0]
        if len(prefixes) == 1:
            how = f"`{name}` is wrapped, so every key of `{name}.state_dict()` starts with"
        else:
            how = (
                f"`{name}` may be wrapped (a wrapper reaches this line on some path), so the "
                f"keys of `{name}.state_dict()` may start with"
            )
        checker.report(
            "PFL109",
            inner,
            f"{how} `{attr}.` and the bare model cannot load it: save `{name}.{attr}.state_dict()`",
        )


# -- PFL306 -------------------------------------------------------------------------------
def _rng_attrs(checker: Checker, init: ast.AST, self_name: str) -> dict[str, str]:
    """`self.x = np.random.default_rng(...)` (or `torch.Generator().manual_seed(0)`) in
    `__init__`: attribute -> the factory's short name."""
    found = {}
    for node in walk_local(init):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target = node.targets[0]
        if not (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == self_name
        ):
            continue
        value = node.value
        while (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr == "manual_seed"
        ):
            value = value.func.value
        if isinstance(value, ast.Call):
            name = checker.model.resolve(value.func) or ""
            if name in RNG_FACTORIES:
                found[target.attr] = name.replace("numpy.", "np.")
    return found


@check("PFL306", ast.FunctionDef)
@documents("PFL306")
def worker_rng(checker: Checker, node: ast.FunctionDef) -> None:
    """## What it does
    Finds a `Dataset` subclass whose `__init__` stores a random generator object on `self`
    (`np.random.default_rng(...)`, `np.random.RandomState(...)`, `random.Random(...)`,
    `torch.Generator()`) and whose `__getitem__` or `__iter__` draws from it. Not reported
    when the file calls `get_worker_info` (a `worker_init_fn` that reseeds the copies), or
    when the method reseeds the generator or rebinds it.

    ## Why is this bad?
    Every DataLoader worker gets a copy of the dataset with the generator in the same state,
    and every epoch starts again from the main process's copy, which never advanced: random
    augmentations repeat across workers and across epochs. Torch reseeds only the global
    `random`, `torch` and NumPy generators in each worker.

    ## Example
    `self.rng = np.random.default_rng()` in `__init__`, `self.rng.integers(10)` in
    `__getitem__`

    Use instead: reseed it in a `worker_init_fn` from `get_worker_info().seed`, or draw from
    the global generators (`np.random`, `torch.rand`), which each worker reseeds.
    """
    cls = checker.cls
    if cls is None or not cls.is_dataset or cls.node is None:
        return
    if node.name not in ("__getitem__", "__getitems__", "__iter__"):
        return
    if "get_worker_info" in checker.text or not node.args.args:
        return
    init = next(
        (s for s in cls.node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"),
        None,
    )
    if init is None or not init.args.args:
        return
    rngs = _rng_attrs(checker, init, init.args.args[0].arg)
    if not rngs:
        return
    self_name = node.args.args[0].arg
    draws: dict[str, ast.Attribute] = {}
    for inner in ast.walk(node):
        if not (
            isinstance(inner, ast.Attribute)
            and isinstance(inner.value, ast.Name)
            and inner.value.id == self_name
            and inner.attr in rngs
        ):
            continue
        if isinstance(inner.ctx, ast.Store):
            return  # rebound per item
        draws.setdefault(inner.attr, inner)
    for attr, use in draws.items():
        if _reseeded(node, self_name, attr):
            continue
        checker.report(
            "PFL306",
            use,
            f"`{self_name}.{attr}` (a `{rngs[attr]}` made in `__init__`) is copied into every "
            f"DataLoader worker in the same state: draws repeat across workers and epochs; "
            f"reseed it in `worker_init_fn` from `get_worker_info().seed`",
        )


def _reseeded(method: ast.AST, self_name: str, attr: str) -> bool:
    for inner in ast.walk(method):
        if isinstance(inner, ast.Attribute) and inner.attr in RESEEDS:
            receiver = inner.value
            if (
                isinstance(receiver, ast.Attribute)
                and receiver.attr == attr
                and isinstance(receiver.value, ast.Name)
                and receiver.value.id == self_name
            ):
                return True
    return False


# -- PFL307 -------------------------------------------------------------------------------
def _local_functions(checker: Checker) -> dict[str, str]:
    """Names that hold a lambda or a nested function, where the checker is: `def` inside the
    function at hand, and `name = lambda ...` there or at module level."""

    def scan(tree: ast.AST, nested: bool) -> dict[str, str]:
        found: dict[str, str] = {}
        for node in walk_local(tree):
            if nested and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found[node.name] = "a nested function"
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        found[target.id] = "a lambda"
        return found

    module = checker.cached(checker.tree, "module-lambdas", lambda: scan(checker.tree, False))
    if checker.function is None:
        return module  # type: ignore[no-any-return]
    local = checker.cached(
        checker.function, "local-functions", lambda: scan(checker.function, True)
    )
    return {**module, **local}


@check("PFL307", ast.Call)
@documents("PFL307")
def unpicklable_worker_function(checker: Checker, node: ast.Call) -> None:
    """## What it does
    Finds `DataLoader(..., num_workers=n)` (`n` not a literal 0) whose `collate_fn` or
    `worker_init_fn` is a lambda, a name bound to a lambda, or a function defined inside the
    enclosing function. A loader with `multiprocessing_context="fork"` is not reported.

    ## Why is this bad?
    Under the spawn start method (Windows, macOS) and forkserver (Linux from Python 3.14),
    each worker gets these functions by pickle, which stores a function by its importable
    name. A lambda or a `<locals>` function has none: the first worker fails with "Can't
    pickle local object". The same code runs under fork, so it works on one machine only.

    ## Example
    `DataLoader(ds, num_workers=4, collate_fn=lambda b: b[0])`

    Use instead: a `def` at module level (`functools.partial` for arguments).
    """
    keywords = {k.arg: k.value for k in node.keywords if k.arg}
    if "num_workers" not in keywords or not any(k in keywords for k in WORKER_FUNCTIONS):
        return
    workers = keywords["num_workers"]
    if isinstance(workers, ast.Constant) and workers.value == 0:
        return
    context = keywords.get("multiprocessing_context")
    if isinstance(context, ast.Constant) and context.value == "fork":
        return
    if checker.callee(node) not in LOADERS:
        return
    for arg in WORKER_FUNCTIONS:
        value = keywords.get(arg)
        what = None
        if isinstance(value, ast.Lambda):
            what = "a lambda"
        elif isinstance(value, ast.Name):
            what = _local_functions(checker).get(value.id)
        if what is None:
            continue
        checker.report(
            "PFL307",
            value,
            f"`{arg}` is {what}, which spawn and forkserver workers (macOS, Windows, Linux "
            f"from Python 3.14) cannot pickle: define it with `def` at module level",
        )
