"""PFL506 and PFL507: code that the compilers see one way: Python-side work inside a function
under `torch.compile` (graph breaks), and a Python branch on a tensor value in a module that
`torch.jit.trace` records once."""

from __future__ import annotations

import ast

from pitfalls.check.checker import Checker, check, documents, walk_local
from pitfalls.check.rules.checkpoints import mentions

COMPILERS = frozenset({"torch.compile"})
BREAKING_METHODS = {"item": "`.item()`", "numpy": "`.numpy()`", "tolist": "`.tolist()`"}


def _compiled_names(checker: Checker) -> frozenset[str]:
    """Names of functions handed to `torch.compile(f, ...)` anywhere in the file."""

    def compute() -> frozenset[str]:
        found = set()
        for node in ast.walk(checker.tree):
            if (
                isinstance(node, ast.Call)
                and node.args
                and isinstance(node.args[0], ast.Name)
                and isinstance(node.func, (ast.Name, ast.Attribute))
                and checker.model.resolve(node.func) in COMPILERS
            ):
                found.add(node.args[0].id)
        return frozenset(found)

    return checker.cached(checker.tree, "compiled-names", compute)  # type: ignore[no-any-return]


def _decorated(checker: Checker, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, (ast.Name, ast.Attribute)):
            if checker.model.resolve(target) in COMPILERS:
                return True
    return False


@check("PFL506", ast.FunctionDef, ast.AsyncFunctionDef)
@documents("PFL506")
def graph_breaks(checker: Checker, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
    """## What it does
    Finds `.item()`, `.numpy()`, `.tolist()` and `print(...)` in a function decorated with
    `@torch.compile` or handed by name to `torch.compile(f, ...)` in the same file. Nested
    functions are not looked into.

    ## Why is this bad?
    Each of them needs a Python value in the middle of the graph: dynamo stops the graph
    there (a graph break), runs that piece in Python and starts a new graph after it. The
    result is right, but the function is split in several graphs with a trip through Python
    between them, which can cost most of what compiling gained; with `fullgraph=True` it is
    an error instead.

    ## Example
    `@torch.compile\\ndef step(x):\\n    print("loss", loss.item())`

    Use instead: keep values as tensors inside (`amax()` rather than `max().item()`,
    `torch.where` for a branch) and log outside, after the compiled call returns.
    """
    decorated = _decorated(checker, node)
    if not decorated:
        if checker.function is not None or not mentions(checker, "compile("):
            return  # a nested function is compiled only by its decorator here
        if node.name not in _compiled_names(checker):
            return
    for inner in walk_local(node):
        if not isinstance(inner, ast.Call):
            continue
        func = inner.func
        if isinstance(func, ast.Attribute) and func.attr in BREAKING_METHODS and not inner.args:
            what = BREAKING_METHODS[func.attr]
        elif isinstance(func, ast.Name) and func.id == "print":
            what = "`print(...)`"
        else:
            continue
        checker.report(
            "PFL506",
            inner,
            f"{what} inside `{node.name}`, which runs under `torch.compile`: it breaks the "
            f"graph in two (an error with `fullgraph=True`); keep tensors inside and log "
            f"outside",
        )


TRACERS = frozenset({"torch.jit.trace", "torch.jit.trace_module"})
TENSOR_VALUE_METHODS = frozenset(
    {
        "sum",
        "mean",
        "max",
        "min",
        "any",
        "all",
        "item",
        "norm",
        "amax",
        "amin",
        "std",
        "var",
        "prod",
        "count_nonzero",
        "abs",
        "eq",
        "gt",
        "lt",
        "ge",
        "le",
        "ne",
        "isnan",
        "isinf",
    }
)
NOT_TENSOR_ANNOTATIONS = ("int", "float", "bool", "str", "Optional", "list", "tuple", "dict")


def _traces(checker: Checker) -> bool:
    def compute() -> bool:
        if not mentions(checker, "trace"):
            return False
        return any(
            isinstance(node, ast.Call)
            and isinstance(node.func, (ast.Name, ast.Attribute))
            and checker.model.resolve(node.func) in TRACERS
            for node in ast.walk(checker.tree)
        )

    return checker.cached(checker.tree, "traces", compute)  # type: ignore[no-any-return]


def _tensor_params(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    params = set()
    for arg in [*node.args.posonlyargs, *node.args.args][1:]:
        annotation = ast.unparse(arg.annotation) if arg.annotation is not None else ""
        if not annotation.startswith(NOT_TENSOR_ANNOTATIONS):
            params.add(arg.arg)
    return params


def _value_test(test: ast.AST, params: set[str]) -> bool:
    """Whether `test` reads a tensor's values: `x.sum() > 0`, `(x < 0).any()`, `x.max()`."""
    for inner in ast.walk(test):
        if (
            isinstance(inner, ast.Call)
            and isinstance(inner.func, ast.Attribute)
            and inner.func.attr in TENSOR_VALUE_METHODS
        ):
            receiver = inner.func.value
            while isinstance(receiver, (ast.Call, ast.Attribute, ast.Compare, ast.BinOp)):
                if isinstance(receiver, ast.Call):
                    receiver = receiver.func
                elif isinstance(receiver, ast.Attribute):
                    if receiver.attr in ("shape", "size", "ndim", "dtype", "device"):
                        break
                    receiver = receiver.value
                elif isinstance(receiver, ast.Compare):
                    receiver = receiver.left
                else:
                    receiver = receiver.left
            if isinstance(receiver, ast.Name) and receiver.id in params:
                return True
    return False


@check("PFL507", ast.FunctionDef, ast.AsyncFunctionDef)
@documents("PFL507")
def traced_branch(checker: Checker, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
    """## What it does
    In a file that calls `torch.jit.trace`, finds an `if`, `while` or conditional expression
    in the `forward` of an `nn.Module` class whose test reads the values of an input tensor
    (`if x.sum() > 0:`, `if (x < 0).any():`, `while x.max() > 1:`). Tests on shapes, on
    `self.training` and on non-tensor arguments are not reported.

    ## Why is this bad?
    `torch.jit.trace` runs `forward` once on the example and records the operations that
    ran: the branch the example took is frozen into the trace, and the traced model gives
    wrong results, without an error, on inputs that should take the other branch. Tracing
    only warns ("Converting a tensor to a Python boolean might cause the trace to be
    incorrect").

    ## Example
    `if x.sum() > 0:\\n    x = x * 2\\nelse:\\n    x = -x`

    Use instead: a tensor operation that computes both sides (`torch.where(x.sum() > 0,
    x * 2, -x)`), or `torch.jit.script` / `torch.export` with `torch.cond`.
    """
    cls = checker.cls
    if node.name != "forward" or cls is None or not cls.is_module or not _traces(checker):
        return
    params = _tensor_params(node)
    if not params:
        return
    for inner in walk_local(node):
        if isinstance(inner, (ast.If, ast.While, ast.IfExp)) and _value_test(inner.test, params):
            checker.report(
                "PFL507",
                inner.test,
                "a Python branch on a tensor value: `torch.jit.trace` records the branch the "
                "example input took and replays it for every input; use `torch.where`",
            )
