"""PFL110, PFL113 and PFL308: idioms that an API change or a device turned into an error: the
torch <= 0.3 `loss.data[0]`, `pack_padded_sequence` lengths on the GPU, and DataLoader options
that need worker processes given to a loader without any."""

from __future__ import annotations

import ast
import re

from pitfalls.check.checker import Checker, check, documents
from pitfalls.check.rules.checkpoints import value_before

# Names that hold a reduced value: a loss, an accuracy count, a metric.
SCALAR_NAME = re.compile(
    r"(?:^|_)(?:loss|losses|acc|accuracy|correct|metric|nll|ce|mse|kl|err|error|total)(?:_|$|\d)",
    re.I,
)


def _receiver_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


# -- PFL110 -------------------------------------------------------------------------------
@check("PFL110", ast.Subscript)
@documents("PFL110")
def zero_dim_index(checker: Checker, node: ast.Subscript) -> None:
    """## What it does
    Finds `x.data[0]` where `x` is named like a loss or a metric (`loss`, `val_loss`,
    `correct`, `acc`, `total_err`...), the way torch 0.3 code read a number out of a loss.

    ## Why is this bad?
    Since torch 0.4 a loss (any full reduction) is a 0-dimensional tensor: indexing it raises
    `IndexError: invalid index of a 0-dim tensor. Use tensor.item()`. Dropping only the index
    keeps a tensor on the device (and `.data` hides it from autograd), so a running total
    stays a tensor and each addition may synchronise with the GPU.

    ## Example
    `running_loss += loss.data[0]`

    Use instead: `running_loss += loss.item()` (`.tolist()` for a per-sample loss).
    """
    index = node.slice
    if not (isinstance(index, ast.Constant) and index.value == 0 and type(index.value) is int):
        return
    data = node.value
    if not (isinstance(data, ast.Attribute) and data.attr == "data"):
        return
    name = _receiver_name(data.value)
    if name is None or not SCALAR_NAME.search(name):
        return
    checker.report(
        "PFL110",
        node,
        f"`{name}.data[0]` is the torch <= 0.3 idiom: `{name}` is a 0-dim tensor since 0.4, "
        f"and indexing it raises IndexError: use `{name}.item()`",
    )


# -- PFL113 -------------------------------------------------------------------------------
PACKERS = frozenset({"torch.nn.utils.rnn.pack_padded_sequence", "torch.nn.utils.rnn.pack_sequence"})


def _moved_to_device(checker: Checker, value: ast.AST, line: int, depth: int = 0) -> str | None:
    """`lengths.cuda()`, `lengths.to(device)` (not "cpu"): the text of that call."""
    if isinstance(value, ast.Name) and depth < 3:
        bound = value_before(checker, value.id, line)
        return None if bound is None else _moved_to_device(checker, bound, line, depth + 1)
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)):
        return None
    method = value.func.attr
    if method == "cuda":
        return checker.segment(value)
    if method != "to" or not value.args:
        return None
    target = value.args[0]
    if isinstance(target, ast.Constant) and target.value != "cpu" and isinstance(target.value, str):
        return checker.segment(value)
    if isinstance(target, ast.Constant):
        return None
    text = checker.segment(target)
    if "cpu" in text.lower() or "dtype" in text or text.startswith("torch."):
        return None  # `.to(torch.int64)`, `.to(cpu)`
    return checker.segment(value)


@check("PFL113", ast.Call)
@documents("PFL113")
def pack_lengths_on_device(checker: Checker, node: ast.Call) -> None:
    """## What it does
    Finds `pack_padded_sequence(x, lengths, ...)` whose `lengths` is moved to a device:
    `lengths.cuda()`, `lengths.to(device)`, `lengths.to("cuda")`, directly or through a name
    bound in the same function (`.to("cpu")` and `.to(torch.int64)` are fine).

    ## Why is this bad?
    Since torch 1.7 the lengths must be a 1-D int64 CPU tensor (or a list): lengths on the
    GPU raise "'lengths' argument should be a 1D CPU int64 tensor, but got 1D cuda:0 Long
    tensor". The padded batch itself may sit on any device.

    ## Example
    `pack_padded_sequence(x, lengths.to(device), batch_first=True)`

    Use instead: `pack_padded_sequence(x, lengths.cpu(), batch_first=True,
    enforce_sorted=False)`
    """
    lengths = node.args[1] if len(node.args) > 1 else None
    for keyword in node.keywords:
        if keyword.arg == "lengths":
            lengths = keyword.value
    if lengths is None or checker.callee(node) not in PACKERS:
        return
    moved = _moved_to_device(checker, lengths, node.lineno)
    if moved is None:
        return
    checker.report(
        "PFL113",
        lengths,
        f"`pack_padded_sequence` needs the lengths as a 1-D int64 CPU tensor, and `{moved}` "
        f"puts them on the device: pass `lengths.cpu()`",
    )


# -- PFL308 -------------------------------------------------------------------------------
LOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
WORKER_ONLY = ("prefetch_factor", "persistent_workers", "multiprocessing_context", "timeout")


def _is_zero(checker: Checker, value: ast.AST | None, line: int) -> bool:
    """`num_workers` absent (None), a literal 0, or a name bound to a literal 0 here."""
    if value is None:
        return True
    if isinstance(value, ast.Name):
        bound = value_before(checker, value.id, line)
        return isinstance(bound, ast.Constant) and bound.value == 0
    return isinstance(value, ast.Constant) and value.value == 0


def _set(value: ast.AST) -> bool:
    """Whether a worker-only option is given a value that needs workers."""
    if isinstance(value, ast.Constant):
        return value.value not in (None, False, 0)
    return False  # a name or an expression: may well be None or 0 when there are no workers


@check("PFL308", ast.Call)
@documents("PFL308")
def options_without_workers(checker: Checker, node: ast.Call) -> None:
    """## What it does
    Finds `DataLoader(...)` given `prefetch_factor`, `persistent_workers=True`,
    `multiprocessing_context` or `timeout` as literals, with `num_workers` absent, 0, or a
    name bound to 0 in the same function. A call that also passes `**kwargs` is skipped.

    ## Why is this bad?
    These options configure worker processes. With `num_workers=0` (the default), the
    constructor refuses them: "prefetch_factor option could only be specified in
    multiprocessing" (since torch 2.0, even for the value 2 the docs list as the default),
    "persistent_workers option needs num_workers > 0"; `timeout` is accepted and then fails
    an assert when the first batch is read. Code tuned with workers breaks the moment it is
    debugged, run on Windows, or in CI with `num_workers=0`.

    ## Example
    `DataLoader(ds, batch_size=32, prefetch_factor=4, persistent_workers=True)`

    Use instead: pass them only when `num_workers > 0` (build the keyword arguments in an
    `if`), or `prefetch_factor=None`.
    """
    keywords = {k.arg: k.value for k in node.keywords}
    if None in keywords:
        return  # `**options`: cannot tell
    given = [k for k in WORKER_ONLY if k in keywords and _set(keywords[k])]
    if not given or checker.callee(node) not in LOADERS:
        return
    if len(node.args) >= 6:
        return  # positional num_workers (the sixth parameter)
    if not _is_zero(checker, keywords.get("num_workers"), node.lineno):
        return
    names = ", ".join(f"`{k}`" for k in given)
    checker.report(
        "PFL308",
        node.func,
        f"{names} {'configure' if len(given) > 1 else 'configures'} worker processes, and "
        f"this DataLoader has none "
        f"(`num_workers` is 0): the constructor or the first batch raises; pass them only "
        f"when `num_workers > 0`",
    )
