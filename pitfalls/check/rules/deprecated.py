"""PFL014-PFL022: functions torch removed or deprecated, on use and on import.

The facts are ours, measured by calling each function on torch 2.0.1, 2.4.1, 2.9.1, 2.13.0 and
2.15.0 (what raises, what warns and with which category); a release is named only where a
warning or the release notes name it, otherwise the message says "documented as deprecated".
The `deprecated-apis` recipe runs every replacement on the installed torch and checks it gives
the old function's result.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from pitfalls.check.checker import Checker, Edit, check, documents


@dataclass(frozen=True)
class Gone:
    """One removed or deprecated name: what replaces it, what to say, and the fix if any."""

    code: str
    replacement: str
    note: str
    # A mechanical rewrite of the whole call, or of the name: see `_fix`.
    fix: str | None = None


_REMOVED_NOTE = "removed (deprecated in 1.9): every call raises RuntimeError"
# torch.qr and torch.cholesky warned from 1.9 to 2.14 and raise on 2.15.
_REMOVED_215 = "deprecated since 1.9 (UserWarning); removed in torch 2.15, where it raises"

SYMBOLS: dict[str, Gone] = {
    # PFL014: removed, calling them raises.
    "torch.solve": Gone(
        "PFL014", "torch.linalg.solve(A, B)", _REMOVED_NOTE + "; note the swapped arguments"
    ),
    "torch.symeig": Gone(
        "PFL014", "torch.linalg.eigh", _REMOVED_NOTE + "; eigh uses the lower triangle"
    ),
    "torch.lstsq": Gone(
        "PFL014", "torch.linalg.lstsq(A, B)", _REMOVED_NOTE + "; note the swapped arguments"
    ),
    "torch.matrix_rank": Gone("PFL014", "torch.linalg.matrix_rank", _REMOVED_NOTE),
    "torch.eig": Gone(
        "PFL014", "torch.linalg.eig (complex results) or torch.linalg.eigh", _REMOVED_NOTE
    ),
    # PFL015: deprecated, warn at run time.
    "torch.qr": Gone(
        "PFL015",
        "torch.linalg.qr (mode='reduced' for some=True, 'complete' for some=False)",
        _REMOVED_215,
    ),
    "torch.cholesky": Gone(
        "PFL015", "torch.linalg.cholesky (upper=True becomes .mH of the result)", _REMOVED_215
    ),
    "torch.lu": Gone(
        "PFL015", "torch.linalg.lu_factor (or lu_factor_ex)", "deprecated: it warns (UserWarning)"
    ),
    "torch.lu_solve": Gone(
        "PFL015",
        "torch.linalg.lu_solve (takes LU and pivots first)",
        "deprecated: it warns (UserWarning)",
    ),
    "torch.triangular_solve": Gone(
        "PFL015",
        "torch.linalg.solve_triangular (other argument order, returns one tensor)",
        "deprecated: it warns (UserWarning)",
    ),
    "torch.chain_matmul": Gone(
        "PFL015",
        "torch.linalg.multi_dot([...])",
        "deprecated: it warns (UserWarning)",
        fix="multi_dot",
    ),
    "torch.range": Gone(
        "PFL015",
        "torch.arange(start, end + step, step) (range includes its end, arange does not)",
        "deprecated: it warns (UserWarning)",
    ),
    "torch.testing.assert_allclose": Gone(
        "PFL015",
        "torch.testing.assert_close (its default tolerances differ)",
        "deprecated since 1.12 (FutureWarning)",
    ),
    "torch.nn.utils.weight_norm": Gone(
        "PFL015",
        "torch.nn.utils.parametrizations.weight_norm (state_dict keys change)",
        "deprecated (a FutureWarning on torch 2.4 and later)",
    ),
    "torch.backends.cuda.sdp_kernel": Gone(
        "PFL015",
        "torch.nn.attention.sdpa_kernel([SDPBackend...])",
        "deprecated (a FutureWarning on torch 2.4 and later)",
    ),
    "torch.utils._pytree._register_pytree_node": Gone(
        "PFL015",
        "torch.utils._pytree.register_pytree_node",
        "deprecated (a FutureWarning on torch 2.4 and later)",
    ),
    # PFL016: deprecated in their documentation only: no warning, still fine to run.
    "torch.norm": Gone(
        "PFL016",
        "torch.linalg.vector_norm / matrix_norm (p=2 on a matrix is not ord=2)",
        "documented as deprecated",
    ),
    "torch.svd": Gone(
        "PFL016",
        "torch.linalg.svd (returns Vh, not V; full_matrices replaces some)",
        "documented as deprecated",
    ),
    "torch.ger": Gone("PFL016", "torch.outer", "documented as deprecated", fix="torch.outer"),
    "torch.nn.UpsamplingNearest2d": Gone(
        "PFL016", "nn.Upsample(mode='nearest') or F.interpolate", "documented as deprecated"
    ),
    "torch.nn.UpsamplingBilinear2d": Gone(
        "PFL016",
        "nn.Upsample(mode='bilinear', align_corners=True) or F.interpolate",
        "documented as deprecated",
    ),
}

# PFL017: functorch's transforms moved to torch.func in 2.0; functorch warns on every use.
FUNCTORCH = (
    "vmap",
    "grad",
    "grad_and_value",
    "vjp",
    "jvp",
    "jacrev",
    "jacfwd",
    "hessian",
    "functionalize",
)
for _name in FUNCTORCH:
    SYMBOLS[f"functorch.{_name}"] = Gone(
        "PFL017",
        f"torch.func.{_name}",
        "deprecated since torch 2.0 (a UserWarning, a FutureWarning from 2.4)",
        fix=f"torch.func.{_name}",
    )

# PFL018: the `torch.has_*` flags warn (a UserWarning on 2.4 and later) and name their successors.
HAS_FLAGS = {
    "has_cuda": "backends.cuda.is_built()",
    "has_mps": "backends.mps.is_built()",
    "has_cudnn": "backends.cudnn.is_available()",
    "has_mkldnn": "backends.mkldnn.is_available()",
}

# PFL022: `torch.cpu.amp` (FutureWarning since 2.4), beside PFL009's `torch.cuda.amp`.
CPU_AMP = {"autocast": "torch.amp.autocast", "GradScaler": "torch.amp.GradScaler"}


# The last component of every name above: a cheap first test for every Attribute node.
_LAST = frozenset({name.rsplit(".", 1)[1] for name in SYMBOLS} | set(HAS_FLAGS) | set(CPU_AMP))


def _torch_root(checker: Checker, node: ast.AST) -> bool:
    """`node` is a name that resolves to the `torch` module itself."""
    return checker.model.resolve(node) == "torch"


@check(("PFL014", "PFL015", "PFL016", "PFL017", "PFL018", "PFL022"), ast.Attribute, ast.Name)
def deprecated_name(checker: Checker, node: ast.Attribute | ast.Name) -> None:
    """Names are found where they are read: calls, references (`fn = torch.qr`) and
    decorators alike. See each code's entry in `--explain`."""
    if not isinstance(node.ctx, ast.Load):
        return
    if isinstance(node, ast.Name):
        if checker.model.imports.get(node.id) not in SYMBOLS:
            return
    elif node.attr not in _LAST:
        return
    parent = checker.parent
    if isinstance(parent, ast.Attribute) and parent.value is node:
        return  # the longer chain is looked at on its own
    name = checker.model.resolve(node)
    if name is None or not name.startswith(("torch.", "functorch.")):
        return
    gone = SYMBOLS.get(name)
    if gone is not None:
        _report(checker, node, name, gone, parent)
        return
    if isinstance(node, ast.Attribute):
        if node.attr in HAS_FLAGS and name == f"torch.{node.attr}":
            _has_flag(checker, node)
        elif name.startswith("torch.cpu.amp.") and node.attr in CPU_AMP:
            _cpu_amp(checker, node, parent)


@check(("PFL014", "PFL015", "PFL016", "PFL017"), ast.ImportFrom)
def deprecated_import(checker: Checker, node: ast.ImportFrom) -> None:
    """`from torch import solve`, `from functorch import vmap`: reported on the import too."""
    if node.level or not node.module:
        return
    names = [(alias, SYMBOLS.get(f"{node.module}.{alias.name}")) for alias in node.names]
    found = [(alias, gone) for alias, gone in names if gone is not None]
    if not found:
        return
    edits: tuple[Edit, ...] = ()
    title = None
    if node.module == "functorch" and len(found) == len(names):
        # Every name has a torch.func twin: the import line moves as a whole.
        start, end = checker.offsets(node)
        text = checker.segment(node)
        head = text.split("import", 1)[0]
        edits = (Edit(start, start + len(head), head.replace("functorch", "torch.func", 1)),)
        title = "Import from `torch.func`"
    for alias, gone in found:
        checker.report(
            gone.code,
            node,
            f"`{node.module}.{alias.name}` is {gone.note}: import `{gone.replacement}` instead",
            edits=edits,
            fix_title=title,
        )
        edits, title = (), None  # one edit per statement


def _report(checker: Checker, node: ast.AST, name: str, gone: Gone, parent: ast.AST | None) -> None:
    if isinstance(node, ast.Name) and gone.fix is not None:
        # A bare name imported with `from ... import`: the import line carries the fix.
        edits: tuple[Edit, ...] = ()
        title = None
    else:
        edits, title = _fix(checker, node, gone, parent)
    checker.report(
        gone.code,
        node,
        f"`{name}` is {gone.note}: use `{gone.replacement}`",
        edits=edits,
        fix_title=title,
    )


def _fix(
    checker: Checker, node: ast.AST, gone: Gone, parent: ast.AST | None
) -> tuple[tuple[Edit, ...], str | None]:
    """The rewrite for `node`, where it keeps meaning exactly; otherwise none."""
    if gone.fix is None or not isinstance(node, ast.Attribute):
        return (), None
    if gone.fix == "multi_dot":
        # chain_matmul(a, b, c) -> linalg.multi_dot([a, b, c]): plain positional arguments only.
        if not (isinstance(parent, ast.Call) and parent.func is node and parent.args):
            return (), None
        if parent.keywords or any(isinstance(a, ast.Starred) for a in parent.args):
            return (), None
        base = checker.segment(node.value)
        args = ", ".join(checker.segment(a) for a in parent.args)
        start, end = checker.offsets(parent)
        return (
            (Edit(start, end, f"{base}.linalg.multi_dot([{args}])"),),
            "Replace with `torch.linalg.multi_dot([...])`",
        )
    if gone.fix.startswith("torch."):
        root = node.value
        if gone.fix.startswith("torch.func."):
            # functorch.vmap -> torch.func.vmap needs a `torch` name bound to the module.
            if not _binds_torch(checker):
                return (), None
            new = gone.fix
        else:
            new = f"{checker.segment(root)}.{gone.fix.split('.', 1)[1]}"
        start, end = checker.offsets(node)
        return (Edit(start, end, new),), f"Replace with `{gone.fix}`"
    return (), None


def _binds_torch(checker: Checker) -> bool:
    return checker.model.imports.get("torch") == "torch"


@documents("PFL018")
def _has_flag(checker: Checker, node: ast.Attribute) -> None:
    """## What it does
    Finds `torch.has_cuda`, `torch.has_mps`, `torch.has_cudnn` and `torch.has_mkldnn`.

    ## Why is this bad?
    The flags are deprecated: each read warns ("'has_cuda' is deprecated, please use
    'torch.backends.cuda.is_built()'", a UserWarning on torch 2.4 and later). `has_cuda` says
    whether this build was compiled with CUDA, not whether a GPU is usable: for that, ask
    `torch.cuda.is_available()`.

    ## Example
    `if torch.has_cuda: ...`

    Use instead: `torch.backends.cuda.is_built()` (the same question), or
    `torch.cuda.is_available()` (the one usually meant).

    ## Fix safety
    Safe: the replacement is what the flag itself returns.
    """
    replacement = HAS_FLAGS[node.attr]
    start, end = checker.offsets(node)
    base = checker.segment(node.value)
    checker.report(
        "PFL018",
        node,
        f"`torch.{node.attr}` is deprecated (it warns): use `torch.{replacement}`"
        + (" (or `torch.cuda.is_available()` for a usable GPU)" if node.attr == "has_cuda" else ""),
        edits=(Edit(start, end, f"{base}.{replacement}"),),
        fix_title=f"Replace with `torch.{replacement}`",
    )


@documents("PFL022")
def _cpu_amp(checker: Checker, node: ast.Attribute, parent: ast.AST | None) -> None:
    """## What it does
    Finds `torch.cpu.amp.autocast` and `torch.cpu.amp.GradScaler`.

    ## Why is this bad?
    The namespace is deprecated since torch 2.4 and every use warns ("`torch.cpu.amp.autocast
    (args...)` is deprecated. Please use `torch.amp.autocast('cpu', args...)` instead.", a
    FutureWarning), like `torch.cuda.amp` (PFL009).

    ## Example
    `with torch.cpu.amp.autocast(dtype=torch.bfloat16): ...`

    Use instead: `with torch.amp.autocast("cpu", dtype=torch.bfloat16): ...`

    ## Fix safety
    Fixed only when every argument is a keyword: `torch.amp.autocast` takes the device type
    first, so positional arguments would change meaning.
    """
    new = CPU_AMP[node.attr]
    edits: tuple[Edit, ...] = ()
    title = None
    call = parent if isinstance(parent, ast.Call) and parent.func is node else None
    if call is not None and not call.args and _torch_name(checker, node) is not None:
        base = _torch_name(checker, node)
        start, _ = checker.offsets(call)
        func_end = checker.offsets(node)[1]
        rest = checker.segment(call)[func_end - start :]  # "(dtype=...)" with its spacing
        inner = rest[1:].lstrip()
        sep = "" if inner.startswith(")") else ", "
        text = f'{base}.amp.{node.attr}("cpu"{sep}{inner}'
        edits = (Edit(start, checker.offsets(call)[1], text),)
        title = f'Replace with `{new}("cpu", ...)`'
    checker.report(
        "PFL022",
        node,
        f'`torch.cpu.amp.{node.attr}` is deprecated since torch 2.4: use `{new}("cpu", ...)`',
        edits=edits,
        fix_title=title,
    )


def _torch_name(checker: Checker, node: ast.Attribute) -> str | None:
    """The source of the `torch` name at the root of `torch.cpu.amp.X`, if it is one."""
    root: ast.AST = node
    while isinstance(root, ast.Attribute):
        root = root.value
    if isinstance(root, ast.Name) and _torch_root(checker, root):
        return root.id
    return None


@documents("PFL014")
def _doc_removed() -> None:
    """## What it does
    Finds `torch.solve`, `torch.symeig`, `torch.lstsq`, `torch.matrix_rank` and `torch.eig`,
    called, referenced or imported.

    ## Why is this bad?
    They were deprecated in torch 1.9 and later removed: every call raises "RuntimeError: This
    function was deprecated since version 1.9 and is now removed." Code that still has them
    fails on the first call, often deep in a training run.

    ## Example
    `x = torch.solve(b, A).solution`

    Use instead: `x = torch.linalg.solve(A, b)` (the arguments are swapped).

    ## Fix safety
    Not fixed: the replacements take their arguments in another order or return other
    values.
    """


@documents("PFL015")
def _doc_deprecated() -> None:
    """## What it does
    Finds functions that warn when called because torch deprecated them: `torch.qr`,
    `torch.cholesky` (both removed in torch 2.15), `torch.lu`, `torch.lu_solve`,
    `torch.triangular_solve`, `torch.chain_matmul`, `torch.range`,
    `torch.testing.assert_allclose`, `torch.nn.utils.weight_norm`,
    `torch.backends.cuda.sdp_kernel` and `torch.utils._pytree._register_pytree_node`.

    ## Why is this bad?
    Each call prints a warning and the function is due to go: `torch.qr` and
    `torch.cholesky` already raise on torch 2.15. The replacements live in `torch.linalg`,
    `torch.nn.attention` and `torch.nn.utils.parametrizations`.

    ## Example
    `q, r = torch.qr(a)`

    Use instead: `q, r = torch.linalg.qr(a)`

    ## Fix safety
    Only `chain_matmul(a, b, c)` is rewritten (to `torch.linalg.multi_dot([a, b, c])`): the
    others change argument order, defaults (`range` includes its end; `assert_allclose` has
    other tolerances) or state_dict keys (`weight_norm`).
    """


@documents("PFL016")
def _doc_documented() -> None:
    """## What it does
    Finds `torch.norm`, `torch.svd`, `torch.ger`, `nn.UpsamplingNearest2d` and
    `nn.UpsamplingBilinear2d`, which torch's documentation marks as deprecated.

    ## Why is this bad?
    They still run without a warning, but the documentation says they may be removed, and
    the replacements are clearer about what they compute: `torch.norm(A)` of a matrix is the
    Frobenius norm, not the spectral norm that `ord=2` would be.

    ## Example
    `torch.ger(u, v)`

    Use instead: `torch.outer(u, v)`

    ## Fix safety
    Only `torch.ger` → `torch.outer` is rewritten (the same function). `torch.norm` with `p=2`
    on a matrix is not `linalg.matrix_norm(ord=2)`, and `torch.svd` returns V where
    `linalg.svd` returns its conjugate transpose.
    """


@documents("PFL017")
def _doc_functorch() -> None:
    """## What it does
    Finds `functorch.vmap`, `functorch.grad` and the other transforms, called or imported.

    ## Why is this bad?
    functorch was merged into torch as `torch.func` in torch 2.0; the old names warn on every
    use and will be removed.

    ## Example
    `from functorch import vmap`

    Use instead: `from torch.func import vmap`

    ## Fix safety
    Safe: the names are the same functions. `functorch.vmap(...)` is rewritten only where the
    file imports `torch` by that name.
    """


# PFL019: schedulers whose `step` took an epoch; ReduceLROnPlateau's first argument is the metric.
_EPOCH_SCHEDULERS_EXCLUDED = frozenset({"ReduceLROnPlateau"})


@check("PFL019", ast.Call)
def scheduler_step_epoch(checker: Checker, node: ast.Call) -> None:
    """## What it does
    Finds `scheduler.step(epoch)` (or `step(epoch=...)`) on a learning-rate scheduler.

    ## Why is this bad?
    Passing the epoch is deprecated: it warns ("The epoch parameter in `scheduler.step()` was
    not necessary and is being deprecated where possible.") and makes chained and closed-form
    schedules jump instead of stepping. `ReduceLROnPlateau.step(metric)` is not affected.

    ## Example
    `scheduler.step(epoch)`

    Use instead: `scheduler.step()` once per epoch, after `optimizer.step()`.
    """
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "step"):
        return
    if not node.args and not any(k.arg == "epoch" for k in node.keywords):
        return
    if checker.model.kind_of(func.value) != "scheduler":
        return
    if _constructed_as(checker, func.value) in _EPOCH_SCHEDULERS_EXCLUDED:
        return
    checker.report(
        "PFL019",
        node,
        f"`{checker.segment(node)}`: the epoch argument is deprecated (it warns); call "
        "`scheduler.step()` once per epoch",
    )


def _constructed_as(checker: Checker, node: ast.AST) -> str | None:
    """The class name a scheduler variable was built from, where the file shows it."""
    text = checker.source_lines(node)
    for name in _EPOCH_SCHEDULERS_EXCLUDED:
        if name in text:
            return name
    if isinstance(node, (ast.Name, ast.Attribute)):
        key = node.id if isinstance(node, ast.Name) else node.attr
        for stmt in ast.walk(checker.tree):
            if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
                for target in stmt.targets:
                    tname = (
                        target.id
                        if isinstance(target, ast.Name)
                        else target.attr
                        if isinstance(target, ast.Attribute)
                        else None
                    )
                    if tname == key:
                        called = checker.model.dotted(stmt.value.func) or ""
                        return called.rsplit(".", 1)[-1]
    return None


# PFL020: torchvision model builders took `pretrained=`; since torchvision 0.13 `weights=`.
@check(("PFL020", "PFL021"), ast.Call)
def torchvision_deprecated(checker: Checker, node: ast.Call) -> None:
    """## What it does
    Finds torchvision model builders called with `pretrained=` (PFL020) and
    `torchvision.transforms.v2.ToTensor()` (PFL021).

    ## Why is this bad?
    `pretrained=` is deprecated since torchvision 0.13 ("The parameter 'pretrained' is
    deprecated since 0.13 and may be removed in the future, please use 'weights' instead.");
    `weights=` names exactly which checkpoint (and which preprocessing) you get. In
    `transforms.v2`, `ToTensor` is deprecated: it is `ToImage()` followed by
    `ToDtype(torch.float32, scale=True)`, and writing both says that the pixels are scaled.

    ## Example
    `model = torchvision.models.resnet50(pretrained=True)`

    Use instead: `model = torchvision.models.resnet50(weights="IMAGENET1K_V1")` (or
    `weights=ResNet50_Weights.DEFAULT`).
    """
    name = checker.callee(node)
    if name is None or not name.startswith("torchvision."):
        return
    if name.startswith("torchvision.models.") and any(
        k.arg in ("pretrained", "pretrained_backbone") for k in node.keywords
    ):
        keyword = next(k for k in node.keywords if k.arg in ("pretrained", "pretrained_backbone"))
        checker.report(
            "PFL020",
            keyword,
            f"`{keyword.arg}=` is deprecated since torchvision 0.13: pass `weights=` "
            '(for example `weights="DEFAULT"`)'
            if keyword.arg == "pretrained"
            else "`pretrained_backbone=` is deprecated since torchvision 0.13: "
            "pass `weights_backbone=`",
        )
    elif name == "torchvision.transforms.v2.ToTensor":
        checker.report(
            "PFL021",
            node,
            "`v2.ToTensor()` is deprecated: use `v2.ToImage()` then "
            "`v2.ToDtype(torch.float32, scale=True)`",
        )
