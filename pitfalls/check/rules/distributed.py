"""PFL5xx: distributed training: the GPU chosen from the global rank, collectives that only
some ranks reach, attributes read through the DDP wrapper, a checkpoint read before rank 0
has written it, and a DistributedSampler never told the epoch.

Just over 400 lines as one family: the five rules share what a rank test is (`rank_test`) and
which calls are collectives, and each is short."""

from __future__ import annotations

import ast
import re

from pitfalls.check.checker import Checker, check, documents, walk_local
from pitfalls.check.rules.checkpoints import local_values, mentions, value_before

# -- PFL501 -------------------------------------------------------------------------------
ENV_GETTERS = frozenset({"os.environ.get", "os.getenv"})
GET_RANK = frozenset({"torch.distributed.get_rank"})


def _global_rank(checker: Checker, value: ast.AST, line: int, depth: int = 0) -> str | None:
    """The text of the global rank when `value` is it, as it is or through `int(...)` and
    names bound in this function: `os.environ["RANK"]`, `os.environ.get("RANK")`,
    `dist.get_rank()`. A value computed from it (`rank % n`, `gpus[rank]`) is not."""
    if isinstance(value, ast.Name):
        bound = value_before(checker, value.id, line) if depth < 3 else None
        return None if bound is None else _global_rank(checker, bound, line, depth + 1)
    if isinstance(value, ast.Subscript):
        if (
            checker.model.resolve(value.value) == "os.environ"
            and isinstance(value.slice, ast.Constant)
            and value.slice.value == "RANK"
        ):
            return checker.segment(value)
        return None
    if not isinstance(value, ast.Call) or not isinstance(value.func, (ast.Name, ast.Attribute)):
        return None
    name = checker.model.resolve(value.func) or ""
    if name == "int" and len(value.args) == 1:
        return _global_rank(checker, value.args[0], line, depth)
    if (
        name in ENV_GETTERS
        and value.args
        and isinstance(value.args[0], ast.Constant)
        and value.args[0].value == "RANK"
    ):
        return checker.segment(value)
    if name in GET_RANK and not value.args and not value.keywords:
        return checker.segment(value)
    return None


@check("PFL501", ast.Call)
@documents("PFL501")
def device_from_global_rank(checker: Checker, node: ast.Call) -> None:
    """## What it does
    Finds `torch.cuda.set_device(r)` and `torch.device("cuda", r)` where `r` is the global
    rank: `os.environ["RANK"]`, `os.environ.get("RANK")`, `os.getenv("RANK")` or
    `dist.get_rank()`, directly or through names bound in the same function.

    ## Why is this bad?
    `RANK` numbers the processes of the whole job; a GPU index is local to one machine. On
    one node the two agree, so the code works; on the second node of a 2 x 4 job, rank 4
    asks for `cuda:4` of a machine that has four GPUs ("invalid device ordinal"), or ranks of
    different nodes pile onto the wrong GPUs. torchrun sets `LOCAL_RANK` for this.

    ## Example
    `torch.cuda.set_device(int(os.environ["RANK"]))`

    Use instead: `torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))`
    """
    name = checker.callee(node)
    if name in ("torch.cuda.set_device", "torch.cuda.device") and node.args:
        value = node.args[0]
    elif name == "torch.device" and len(node.args) == 2:
        kind = node.args[0]
        if not (isinstance(kind, ast.Constant) and kind.value == "cuda"):
            return
        value = node.args[1]
    else:
        return
    source = _global_rank(checker, value, node.lineno)
    if source is None:
        return
    checker.report(
        "PFL501",
        value,
        f"the GPU index comes from the global rank (`{source}`), which exceeds the GPU count "
        f'from the second node on: use `int(os.environ["LOCAL_RANK"])`',
    )


# -- PFL502 -------------------------------------------------------------------------------
COLLECTIVES = frozenset(
    {
        "all_reduce",
        "all_gather",
        "all_gather_object",
        "all_gather_into_tensor",
        "all_to_all",
        "all_to_all_single",
        "barrier",
        "broadcast",
        "broadcast_object_list",
        "reduce",
        "reduce_scatter",
        "reduce_scatter_tensor",
        "gather",
        "gather_object",
        "scatter",
        "scatter_object_list",
        "monitored_barrier",
    }
)
RANK_NAME = re.compile(r"^(?:rank|local_rank|global_rank|node_rank|rank_id|process_rank)$", re.I)
MAIN_PROCESS = re.compile(
    r"^(?:is_(?:main|master|primary)(?:_process|_rank)?|is_rank_zero|(?:main|master)_process)$"
)


def _is_rank(checker: Checker, node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return bool(RANK_NAME.match(node.id))
    if isinstance(node, ast.Attribute):
        return bool(RANK_NAME.match(node.attr))
    if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
        name = checker.model.resolve(node.func) or ""
        return name.rpartition(".")[2] in ("get_rank", "get_local_rank", "get_node_local_rank")
    return False


def _is_int(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(_is_int(e) for e in node.elts)
    return isinstance(node, ast.Constant) and type(node.value) is int


def rank_test(checker: Checker, test: ast.AST) -> bool:
    """Whether an `if` test picks some ranks: a rank compared with a number (`rank == 0`,
    `dist.get_rank() != 0`, `local_rank in [-1, 0]`) or `is_main_process()`-style names."""
    for inner in ast.walk(test):
        if isinstance(inner, ast.Compare) and len(inner.comparators) == 1:
            left, right = inner.left, inner.comparators[0]
            if (_is_rank(checker, left) and _is_int(right)) or (
                _is_rank(checker, right) and _is_int(left)
            ):
                return True
        name = inner.id if isinstance(inner, ast.Name) else getattr(inner, "attr", None)
        if isinstance(inner, (ast.Name, ast.Attribute)) and MAIN_PROCESS.match(name or ""):
            return True
    return False


def _collective(checker: Checker, node: ast.Call) -> str | None:
    name = checker.callee(node) or ""
    if name.startswith("torch.distributed.") and name.rpartition(".")[2] in COLLECTIVES:
        return name.rpartition(".")[2]
    return None


def _calls(checker: Checker, body: list[ast.stmt], wanted: str) -> bool:
    for stmt in body:
        for inner in ast.walk(stmt):
            if isinstance(inner, ast.Call) and _collective(checker, inner) == wanted:
                return True
    return False


def _called_elsewhere(checker: Checker, block: ast.If, what: str) -> bool:
    """Whether the function calls the same collective under another rank test: the other
    ranks' half of a pairing such as `if rank != 0: barrier()` ... `if rank == 0: barrier()`."""
    function = checker.function or checker.tree
    inside = {id(inner) for inner in ast.walk(block)}
    for other in walk_local(function):
        if (
            isinstance(other, ast.If)
            and id(other) not in inside
            and block not in ast.walk(other)
            and rank_test(checker, other.test)
            and (_calls(checker, other.body, what) or _calls(checker, other.orelse, what))
        ):
            return True
    return False


@check("PFL502", ast.Call)
@documents("PFL502")
def collective_under_rank_test(checker: Checker, node: ast.Call) -> None:
    """## What it does
    Finds a `torch.distributed` collective (`all_reduce`, `barrier`, `broadcast`,
    `all_gather`, `reduce`, `gather`...) inside an `if` that tests the rank
    (`if rank == 0:`, `if dist.get_rank() == 0:`, `if is_main_process():`), unless the other
    branch calls the same collective.

    ## Why is this bad?
    A collective returns only when every rank of the group has called it. Called on rank 0
    alone, rank 0 waits forever (or until the process group's timeout) while the other ranks
    go on, and the job hangs at a point far from the cause. The same hang follows a rank
    that runs out of batches earlier than the others.

    ## Example
    `if rank == 0:\\n    dist.all_reduce(val_loss)\\n    print(val_loss / world_size)`

    Use instead: call the collective on every rank and print on rank 0 only; for uneven
    data use `DistributedSampler` (equal batches) or `torch.distributed.algorithms.Join`.
    """
    what = _collective(checker, node)
    if what is None:
        return
    for parent in reversed(checker.parents):
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return
        if not isinstance(parent, ast.If) or not rank_test(checker, parent.test):
            continue
        in_body = parent.body and parent.body[0].lineno <= node.lineno <= parent.body[-1].end_lineno
        other = parent.orelse if in_body else parent.body
        if _calls(checker, other, what) or _called_elsewhere(checker, parent, what):
            return
        checker.report(
            "PFL502",
            node,
            f"`{what}` is a collective, and only the ranks that pass "
            f"`if {checker.segment(parent.test)}` call it: the others never arrive and the "
            f"job hangs; call it on every rank",
        )
        return


# -- PFL503 -------------------------------------------------------------------------------
# The public attributes and methods of nn.Module, DistributedDataParallel and DataParallel:
# every method and `self.x` they assign, read from torch 2.4.1, 2.13 and 2.15 sources.
MODULE_API = frozenset(
    """add_module apply batched_grad_copy bfloat16 broadcast_bucket_size broadcast_buffers
    bucket_bytes_cap bucket_bytes_cap_default bucket_bytes_cap_list buffer_hook buffers
    call_super_init children compile cpu cuda device device_ids device_mesh device_type dim
    double dump_patches eval extra_repr finalize_backward find_unused_parameters float
    forward forward_sync_buffers gather get_buffer get_extra_state get_parameter
    get_submodule gradient_as_bucket_view half ipu is_multi_device_module join join_device
    join_hook join_process_group lazy_bucket_allocation load_state_dict logger
    mixed_precision module modules modules_buffers mtia named_buffers named_children
    named_module_buffers named_modules named_parameters no_sync output_device
    parallel_apply parameters parameters_to_ignore process_group reducer
    register_backward_hook register_buffer register_comm_hook register_forward_hook
    register_forward_pre_hook register_full_backward_hook register_full_backward_pre_hook
    register_load_state_dict_post_hook register_load_state_dict_pre_hook register_module
    register_parameter register_state_dict_post_hook register_state_dict_pre_hook replicate
    require_backward_grad_sync require_forward_param_sync
    require_manual_backward_finalization requires_grad_ scatter set_extra_state
    set_submodule share_memory should_finalize_after_backward skip_all_reduce_unused_params
    src_device_obj state_dict static_graph to to_empty to_kwargs train training type
    use_side_stream_for_tensor_copies will_sync_module_buffers xpu zero_grad""".split()
)
DDP_NAMES = frozenset(
    {
        "torch.nn.parallel.DistributedDataParallel",
        "torch.nn.parallel.distributed.DistributedDataParallel",
        "torch.nn.DataParallel",
        "torch.nn.parallel.DataParallel",
    }
)


@check("PFL503", ast.Attribute)
@documents("PFL503")
def attribute_through_wrapper(checker: Checker, node: ast.Attribute) -> None:
    """## What it does
    Finds `model.x` read from a name last bound to `DistributedDataParallel(...)` or
    `nn.DataParallel(...)` in the same function, where `x` is not an attribute of
    `nn.Module` or of the wrapper (`module`, `no_sync`, `parameters`, `state_dict`...).
    Private names (`_x`) are not reported.

    ## Why is this bad?
    The wrapper is a new module that holds the model as `model.module`; it does not forward
    attribute lookups to it. `model.num_classes`, `model.encoder`, `model.generate(...)`
    raise "'DistributedDataParallel' object has no attribute ...". And calling a method of
    the inner model through `.module` in training skips DDP's gradient synchronisation.

    ## Example
    `model = DDP(model)\\nn = model.num_classes`

    Use instead: `model.module.num_classes` to read; call `model(x)` (the wrapper) to train.
    """
    if not isinstance(node.ctx, ast.Load) or not isinstance(node.value, ast.Name):
        return
    attr = node.attr
    if attr.startswith("_") or attr in MODULE_API or not mentions(checker, "DataParallel"):
        return
    function = checker.function or checker.tree
    if not checker.cached(function, "pfl503-wraps", lambda: _wraps_here(checker, function)):
        return  # no wrapper is built in this function: skip the walk over its bindings
    name = node.value.id
    values = [b for b in local_values(checker).get(name, ()) if b[0] < node.lineno]
    if not values or not isinstance(values[-1][1], ast.Call):
        return
    wrapper = values[-1][1].func
    if not isinstance(wrapper, (ast.Name, ast.Attribute)):
        return
    if (checker.model.resolve(wrapper) or "") not in DDP_NAMES:
        return
    checker.report(
        "PFL503",
        node,
        f"`{name}` is wrapped, and the wrapper does not forward attributes to the model: "
        f"`{name}.{attr}` raises AttributeError; use `{name}.module.{attr}`",
    )


# -- PFL504 -------------------------------------------------------------------------------
def _guarded_saves(checker: Checker, function: ast.AST) -> list[tuple[ast.If, ast.Call]]:
    found = []
    for node in walk_local(function):
        if isinstance(node, ast.If) and rank_test(checker, node.test):
            for inner in ast.walk(node):
                if (
                    isinstance(inner, ast.Call)
                    and isinstance(inner.func, (ast.Name, ast.Attribute))
                    and checker.model.resolve(inner.func) == "torch.save"
                    and len(inner.args) > 1
                ):
                    found.append((node, inner))
    return found


@check("PFL504", ast.Call)
@documents("PFL504")
def load_before_rank_zero_saved(checker: Checker, node: ast.Call) -> None:
    """## What it does
    Finds `torch.load(path)` after an `if rank == 0:` block (any rank test) that saves to
    the same path with `torch.save`, in the same function, with no `barrier()` call between
    the end of that block and the load.

    ## Why is this bad?
    Nothing orders rank 0's write and the other ranks' read: the others reach `torch.load`
    while rank 0 is still evaluating or writing, and read the previous epoch's checkpoint, a
    half-written file ("PytorchStreamReader failed reading zip archive") or no file at all.

    ## Example
    `if rank == 0:\\n    torch.save(model.state_dict(), path)\\nstate = torch.load(path)`

    Use instead: `dist.barrier()` between the save block and the load, on every rank.
    """
    if not node.args or checker.callee(node) != "torch.load":
        return
    function = checker.function or checker.tree
    path = checker.segment(node.args[0])
    saves = checker.cached(function, "rank-saves", lambda: _guarded_saves(checker, function))
    for block, save in saves:
        if block.end_lineno >= node.lineno or checker.segment(save.args[1]) != path:
            continue
        between = [
            inner
            for inner in walk_local(function)
            if isinstance(inner, ast.Call)
            and isinstance(inner.func, (ast.Name, ast.Attribute))
            and block.end_lineno < inner.lineno <= node.lineno
            and (checker.model.resolve(inner.func) or "").rpartition(".")[2]
            in ("barrier", "monitored_barrier")
        ]
        if between:
            continue
        checker.report(
            "PFL504",
            node,
            f"`{path}` is written by rank 0 only (`if {checker.segment(block.test)}`), and "
            f"nothing makes the other ranks wait for it: call `dist.barrier()` before "
            f"`torch.load`",
        )
        return


# -- PFL505 -------------------------------------------------------------------------------
SAMPLERS = frozenset(
    {"torch.utils.data.DistributedSampler", "torch.utils.data.distributed.DistributedSampler"}
)


def _epoch_loop(function: ast.AST) -> ast.For | None:
    for node in walk_local(function):
        if (
            isinstance(node, ast.For)
            and isinstance(node.target, ast.Name)
            and "epoch" in node.target.id.lower()
        ):
            return node
    return None


@check("PFL505", ast.Call)
@documents("PFL505")
def sampler_without_set_epoch(checker: Checker, node: ast.Call) -> None:
    """## What it does
    Finds a `DistributedSampler(...)` (shuffling, the default) made in a function that then
    loops over epochs (`for epoch in ...`), in a file that never calls `set_epoch`.

    ## Why is this bad?
    `DistributedSampler` seeds its shuffle with `seed + epoch`, and the epoch is whatever
    `set_epoch` last set: 0 when it is never called. Every epoch then visits the data in the
    same order on every rank, which training with shuffling is meant to avoid.

    ## Example
    `sampler = DistributedSampler(ds)` then `for epoch in range(n): for batch in loader:`

    Use instead: `sampler.set_epoch(epoch)` at the start of each epoch, before iterating.
    """
    if checker.callee(node) not in SAMPLERS or mentions(checker, "set_epoch"):
        return
    for keyword in node.keywords:
        if keyword.arg == "shuffle" and not (
            isinstance(keyword.value, ast.Constant) and keyword.value.value is True
        ):
            return
    function = checker.function or checker.tree
    loop = _epoch_loop(function)
    if loop is None:
        return
    checker.report(
        "PFL505",
        node,
        "this DistributedSampler is never given `set_epoch(epoch)`: it shuffles every epoch "
        "in the same order; call `sampler.set_epoch(epoch)` at the start of each epoch",
    )


def _wraps_here(checker: Checker, function: ast.AST) -> bool:
    """Whether the text of `function` calls a DDP/DataParallel constructor by any name the
    file imports it as (a cheap string test before the binding walk)."""
    names = {alias for alias, full in checker.model.imports.items() if full in DDP_NAMES}
    names.add("DataParallel")
    text = checker.text if function is checker.tree else checker.source_lines(function)
    return any(f"{name}(" in text for name in names)
