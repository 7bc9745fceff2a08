"""PFL310: worker processes started by a script's top-level code, outside the
`if __name__ == "__main__":` guard that spawn and forkserver need."""

from __future__ import annotations

import ast

from pitfalls.check.checker import Checker, check, documents
from pitfalls.check.rules.checkpoints import value_before

SPAWNERS = frozenset(
    {
        "torch.multiprocessing.spawn",
        "torch.multiprocessing.start_processes",
        "torch.multiprocessing.spawn.spawn",
        "multiprocessing.Pool",
        "torch.multiprocessing.Pool",
    }
)
PROCESSES = frozenset({"multiprocessing.Process", "torch.multiprocessing.Process"})
LOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})


def _main_guard(test: ast.AST) -> bool:
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and len(test.comparators) == 1
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
    )


def _top_level(checker: Checker) -> bool:
    """At module level, not inside a function, a class or the main guard."""
    if checker.function is not None or checker.cls is not None:
        return False
    return not any(isinstance(p, ast.If) and _main_guard(p.test) for p in checker.parents)


def _process_factory(checker: Checker, call: ast.AST) -> bool:
    """`multiprocessing.Process(...)`, `ctx.Process(...)` for `ctx = get_context(...)`."""
    if not isinstance(call, ast.Call) or not isinstance(call.func, (ast.Name, ast.Attribute)):
        return False
    if checker.model.resolve(call.func) in PROCESSES:
        return True
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "Process":
        context = func.value
        if isinstance(context, ast.Name):
            context = value_before(checker, context.id, call.lineno) or context
        return (
            isinstance(context, ast.Call)
            and isinstance(context.func, (ast.Name, ast.Attribute))
            and (checker.model.resolve(context.func) or "").endswith("multiprocessing.get_context")
        )
    return False


def _workers(checker: Checker, loader: ast.AST, line: int) -> bool:
    """A DataLoader with `num_workers` a positive literal."""
    if isinstance(loader, ast.Name):
        loader = value_before(checker, loader.id, line) or loader
    if not (
        isinstance(loader, ast.Call)
        and isinstance(loader.func, (ast.Name, ast.Attribute))
        and checker.model.resolve(loader.func) in LOADERS
    ):
        return False
    for keyword in loader.keywords:
        if keyword.arg == "num_workers":
            value = keyword.value
            return isinstance(value, ast.Constant) and type(value.value) is int and value.value > 0
    return False


@check("PFL310", ast.Call, ast.For)
@documents("PFL310")
def unguarded_workers(checker: Checker, node: ast.Call | ast.For) -> None:
    """## What it does
    In a script (not a notebook), finds worker processes started by top-level code outside
    `if __name__ == "__main__":`: `torch.multiprocessing.spawn(...)`, `multiprocessing.Pool`,
    `.start()` of a `Process` (from `multiprocessing` or a `get_context(...)`), and a `for`
    loop over a `DataLoader` with `num_workers` > 0.

    ## Why is this bad?
    Under the spawn start method (Windows, macOS, and Linux's forkserver default from Python
    3.14) each worker starts a fresh interpreter that imports the main script to find its
    target. Unguarded, the import runs the training code again, and Python stops it: "An
    attempt has been made to start a new process before the current process has finished its
    bootstrapping phase." Under fork (Linux before 3.14) the same script works, so it breaks
    on another machine.

    ## Example
    `loader = DataLoader(ds, num_workers=4)\\nfor batch in loader: ...` at the top of a script

    Use instead: put the work in `def main():` and call it under
    `if __name__ == "__main__":`.
    """
    if checker.options.notebook or not _top_level(checker):
        return
    what = None
    if isinstance(node, ast.For):
        if _workers(checker, node.iter, node.lineno):
            what = "iterating a DataLoader with workers"
            where = node.iter
    else:
        func = node.func
        if not isinstance(func, (ast.Name, ast.Attribute)):
            return
        name = checker.model.resolve(func) or ""
        if name in SPAWNERS:
            what, where = f"`{name.rpartition('.')[2]}(...)`", node
        elif isinstance(func, ast.Attribute) and func.attr == "start" and not node.args:
            process = func.value
            if isinstance(process, ast.Name):
                process = value_before(checker, process.id, node.lineno) or process
            if _process_factory(checker, process):
                what, where = "starting a Process", node
    if what is None:
        return
    checker.report(
        "PFL310",
        where,
        f"{what} at the top level of the script: spawn and forkserver workers re-import it "
        f'and stop with "An attempt has been made to start a new process before ... '
        f'bootstrapping phase"; move this under `if __name__ == "__main__":`',
    )
