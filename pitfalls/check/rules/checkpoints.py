"""PFL111 and PFL112: what `torch.save` is handed: a whole module (pickled by class name) and
objects that the weights-only loader refuses (a Namespace, a config object, NumPy values)."""

from __future__ import annotations

import ast

from pitfalls.check.checker import Checker, check, documents, walk_local
from pitfalls.check.kinds import MODULE, MODULE_SELF


def local_values(
    checker: Checker, function: ast.AST | None = None
) -> dict[str, list[tuple[int, ast.AST | None]]]:
    """For each name of the function at hand (the module at top level), its bindings in line
    order as `(line, value)`; the value is None for a binding that is not a plain `name = x`
    (a loop target, an unpacking, an augmented assignment, a `with ... as`)."""
    function = function or checker.function or checker.tree

    def compute() -> dict[str, list[tuple[int, ast.AST | None]]]:
        found: dict[str, list[tuple[int, ast.AST | None]]] = {}
        for node in walk_local(function):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        found.setdefault(target.id, []).append((node.lineno, node.value))
                    else:
                        for name in ast.walk(target):
                            if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                                found.setdefault(name.id, []).append((node.lineno, None))
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.With, ast.NamedExpr)):
                targets = (
                    [node.target]
                    if not isinstance(node, ast.With)
                    else [i.optional_vars for i in node.items if i.optional_vars is not None]
                )
                for target in targets:
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                            value = node.value if isinstance(node, ast.AnnAssign) else None
                            found.setdefault(name.id, []).append((node.lineno, value))
        for bindings in found.values():
            bindings.sort(key=lambda binding: binding[0])
        return found

    return checker.cached(function, "local-values", compute)  # type: ignore[no-any-return]


def mentions(checker: Checker, word: str) -> bool:
    """Whether the file's text contains `word` (once per file, for rules that need a name
    to appear before they look at any node)."""
    return checker.cached(checker.tree, "mentions:" + word, lambda: word in checker.text)  # type: ignore[no-any-return]


def value_before(checker: Checker, name: str, line: int) -> ast.AST | None:
    """The value of the last plain binding of `name` above `line` in the function at hand,
    or None when there is none or the last binding is not plain. A name the function
    neither binds nor takes as a parameter is looked up at module level (its last plain
    binding anywhere there: `args = parser.parse_args()` under `if __name__ == ...`)."""
    bindings = local_values(checker).get(name)
    function = checker.function
    if bindings is None and isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        params = function.args
        every = [*params.posonlyargs, *params.args, *params.kwonlyargs, params.vararg]
        if name in {a.arg for a in every if a is not None} or (
            params.kwarg is not None and params.kwarg.arg == name
        ):
            return None
        module = local_values(checker, checker.tree).get(name, [])
        return module[-1][1] if module else None
    earlier = [b for b in bindings or () if b[0] < line]
    return earlier[-1][1] if earlier else None


def is_save(checker: Checker, node: ast.Call) -> bool:
    return bool(node.args) and checker.callee(node) == "torch.save"


# -- PFL111 -------------------------------------------------------------------------------
@check("PFL111", ast.Call)
@documents("PFL111")
def whole_model_pickle(checker: Checker, node: ast.Call) -> None:
    """## What it does
    Finds `torch.save(model, ...)` where `model` is a module: a name the checker knows holds
    an `nn.Module` (an instance of a torch layer or of a module class of the file), or a
    call that makes one.

    ## Why is this bad?
    Pickle stores the model's class by its module and name (`__main__.Net` for a class of a
    training script), not its code. Loading needs that exact class importable under that
    name: from another script, after a file is renamed or a class refactored, it fails, or
    loads an object whose `forward` no longer matches its attributes. It also needs
    `weights_only=False`, which runs arbitrary code.

    ## Example
    `torch.save(model, "model.pt")`

    Use instead: `torch.save(model.state_dict(), "model.pt")`, and
    `model.load_state_dict(torch.load("model.pt", weights_only=True))` into a new instance.
    """
    if not is_save(checker, node):
        return
    value = node.args[0]
    if not isinstance(value, (ast.Name, ast.Call, ast.Attribute)):
        return
    if isinstance(value, ast.Call) and not isinstance(value.func, (ast.Name, ast.Attribute)):
        return
    if checker.model.kind_of(value) not in (MODULE, MODULE_SELF):
        return
    what = checker.segment(value)
    checker.report(
        "PFL111",
        value,
        f"`torch.save({what})` pickles the whole module, which loads only where its class is "
        f"importable under the same name and unchanged: save `{what}.state_dict()`",
    )


# -- PFL112 -------------------------------------------------------------------------------
NAMESPACES = frozenset({"argparse.Namespace", "types.SimpleNamespace"})
PLAIN_NUMPY = ("numpy.ndarray.tolist",)


def _object_kind(checker: Checker, value: ast.AST, line: int, depth: int = 0) -> str | None:
    """What non-tensor object `value` is, when the weights-only loader refuses it."""
    if isinstance(value, ast.Name) and depth < 3:
        bound = value_before(checker, value.id, line)
        return None if bound is None else _object_kind(checker, bound, line, depth + 1)
    if not isinstance(value, ast.Call) or not isinstance(value.func, (ast.Name, ast.Attribute)):
        return None
    func = value.func
    name = checker.model.resolve(func) or ""
    if name in NAMESPACES:
        return "an `argparse.Namespace`"
    if isinstance(func, ast.Attribute) and func.attr == "parse_args":
        return "the `argparse.Namespace` from `parse_args()`"
    if name.startswith("numpy.") and not name.startswith("numpy.random.") and name:
        short = "np." + name[len("numpy.") :]
        return f"the NumPy value of `{short}(...)`"
    if name.startswith("omegaconf.OmegaConf.") or name == "omegaconf.DictConfig":
        return "an OmegaConf config"
    return None


@check("PFL112", ast.Call)
@documents("PFL112")
def checkpoint_objects(checker: Checker, node: ast.Call) -> None:
    """## What it does
    Finds a dict literal passed to `torch.save` with a value that is an `argparse.Namespace`
    (`parser.parse_args()`, `argparse.Namespace(...)`), an OmegaConf config, or a NumPy value
    (the result of an `np.` function such as `np.mean` or `np.array`), directly or through a
    name bound in the same function.

    ## Why is this bad?
    Since torch 2.6 `torch.load` defaults to `weights_only=True`, whose unpickler accepts
    tensors and plain Python containers and numbers only: the checkpoint fails to load with
    "Weights only load failed ... Unsupported global". The reflex fixes are worse:
    `weights_only=False` runs whatever the file contains, and allow-listing one NumPy name
    only uncovers the next.

    ## Example
    `torch.save({"model": model.state_dict(), "args": args, "best": np.mean(accs)}, path)`

    Use instead: plain types: `vars(args)`, `dataclasses.asdict(config)`, `float(...)`,
    `array.tolist()`.
    """
    if not is_save(checker, node) or not isinstance(node.args[0], ast.Dict):
        return
    for key, value in zip(node.args[0].keys, node.args[0].values):
        what = _object_kind(checker, value, node.lineno)
        if what is None:
            continue
        label = f"`{key.value}`" if isinstance(key, ast.Constant) else "a value"
        checker.report(
            "PFL112",
            value,
            f"{label} of the checkpoint is {what}, which `torch.load`'s default "
            f"`weights_only=True` (torch 2.6+) refuses: store plain types (`vars(args)`, "
            f"`float(x)`, `x.tolist()`)",
        )
