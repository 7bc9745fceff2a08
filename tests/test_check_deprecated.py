"""The removed/deprecated-API rules (PFL014-PFL022, a superset of TorchFix's TOR0/TOR1/TOR2
families) and the opt-in performance rules (PFL401-PFL402): fixes keep meaning, and only
rewrites that are exact are offered."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pitfalls.catalogue.rule_table import RULES, resolve_selection
from pitfalls.check.driver import Settings, apply_edits, check_text


def findings(source: str, select: list[str] | None = None):
    enabled = resolve_selection(select or ["ALL"], [], [])
    settings = Settings(enabled=enabled, root=Path("."))
    return check_text(source, Path("x.py"), "x.py", settings).findings


def fixed(source: str, select: list[str] | None = None) -> str:
    edits = [e for f in findings(source, select) for e in f.edits]
    out, _ = apply_edits(source, edits)
    ast.parse(out)
    return out


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("import torch\no = torch.ger(u, v)\n", "import torch\no = torch.outer(u, v)\n"),
        ("import torch as T\no = T.ger(u, v)\n", "import torch as T\no = T.outer(u, v)\n"),
        (
            "import torch\nc = torch.chain_matmul(a, b, c)\n",
            "import torch\nc = torch.linalg.multi_dot([a, b, c])\n",
        ),
        (
            "import torch\nimport functorch\nf = functorch.vmap(torch.sin)\n",
            "import torch\nimport functorch\nf = torch.func.vmap(torch.sin)\n",
        ),
        (
            "from functorch import vmap, grad\nimport torch\n",
            "from torch.func import vmap, grad\nimport torch\n",
        ),
        (
            "import torch\nok = torch.has_cuda and torch.has_mps\n",
            "import torch\nok = torch.backends.cuda.is_built() and torch.backends.mps.is_built()\n",
        ),
        (
            "import torch\nwith torch.cpu.amp.autocast(dtype=torch.bfloat16):\n    pass\n",
            'import torch\nwith torch.amp.autocast("cpu", dtype=torch.bfloat16):\n    pass\n',
        ),
        (
            "import torch\ns = torch.cpu.amp.GradScaler()\n",
            'import torch\ns = torch.amp.GradScaler("cpu")\n',
        ),
    ],
)
def test_exact_rewrites(before: str, after: str) -> None:
    assert fixed(before) == after


@pytest.mark.parametrize(
    "source",
    [
        # No torch name bound: `torch.func.vmap` would be a NameError.
        "import functorch\nf = functorch.vmap(fn)\n",
        # A name functorch has no torch.func twin for keeps the import as it is.
        "from functorch import vmap, make_functional\n",
        # Positional arguments of cpu autocast (enabled first) would change meaning.
        "import torch\nwith torch.cpu.amp.autocast(True):\n    pass\n",
        # Meaning changes: norm's p=2 on a matrix, svd's V, range's end, qr's `some`.
        "import torch\nn = torch.norm(A, p=2)\n",
        "import torch\nu, s, v = torch.svd(A)\n",
        "import torch\nr = torch.range(0, 4)\n",
        "import torch\nq, r = torch.qr(A, some=False)\n",
        "import torch\nx = torch.solve(B, A)\n",
        # Star arguments of chain_matmul: the list cannot be written out.
        "import torch\nc = torch.chain_matmul(*mats)\n",
    ],
)
def test_no_rewrite_where_meaning_could_change(source: str) -> None:
    assert findings(source), "still reported"
    assert fixed(source) == source


def test_replacements_named_in_messages() -> None:
    (solve,) = findings("import torch\nx = torch.solve(B, A)\n")
    assert solve.code == "PFL014" and "torch.linalg.solve(A, B)" in solve.message
    (qr,) = findings("import torch\nq = torch.qr(A)\n")
    assert qr.code == "PFL015" and "2.15" in qr.message


def test_local_names_and_other_modules_are_not_torch() -> None:
    source = (
        "import torch\n"
        "import numpy as np\n"
        "def solve(b, a):\n    return b\n"
        "x = solve(b, a)\n"
        "n = np.linalg.norm(v)\n"
        "r = range(4)\n"
        "y = torch.linalg.svd(A)\n"
        "class M:\n    has_cuda = True\n"
        "m = M()\nz = m.has_cuda\n"
    )
    assert findings(source) == []


def test_reduce_lr_on_plateau_takes_a_metric() -> None:
    source = (
        "import torch\n"
        "s = torch.optim.lr_scheduler.ReduceLROnPlateau(opt)\n"
        "s.step(val_loss)\n"
        "t = torch.optim.lr_scheduler.CosineAnnealingLR(opt, 10)\n"
        "t.step(epoch)\n"
    )
    assert [(f.line, f.code) for f in findings(source)] == [(5, "PFL019")]


def test_performance_rules_are_off_by_default() -> None:
    source = (
        "import torch\nloader = torch.utils.data.DataLoader(ds)\nopt.zero_grad(set_to_none=False)\n"
    )
    assert not RULES["PFL401"].default and not RULES["PFL402"].default
    assert findings(source, ["PFL"]) == []
    assert {f.code for f in findings(source, ["PFL401", "PFL402"])} == {"PFL401", "PFL402"}
    workers = "import torch\nloader = torch.utils.data.DataLoader(ds, num_workers=4)\n"
    assert findings(workers, ["PFL401"]) == []
