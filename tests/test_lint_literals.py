"""PIT026 extended (issue #24): an expectation on an observation the snippet computes from
literals alone cannot fail. An error in the built-in catalogue, a warning in packs."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from conftest import FIXTURES, run_cli
from pitfalls.authoring.linter import lint_paths
from pitfalls.authoring.literals import COMPUTED, LITERAL, fixed_observations

COMPUTED_FIXTURE = FIXTURES / "literal" / "fixture-computed"
EXPECTED = {("problem", "batch"), ("fix", "steps"), ("problem", "finite"), ("fix", "finite")}


def _pit026(findings: list) -> set[tuple[str, str, str]]:
    found = set()
    for f in findings:
        if f.code == "PIT026":
            side, key = f.message.split(" observation ")[0].split()[-1], f.message.split("'")[1]
            found.add((side, key, f.severity))
    return found


def test_computed_observations_are_warnings_in_a_pack() -> None:
    findings, _ = lint_paths([COMPUTED_FIXTURE])
    assert _pit026(findings) == {(side, key, "warning") for side, key in EXPECTED}
    assert [f for f in findings if f.code != "PIT026"] == []
    result = run_cli("lint", str(COMPUTED_FIXTURE))
    assert result.returncode == 0, result.stdout  # warnings alone
    assert "snippet.py computes it from literals alone" in result.stdout


def test_computed_observations_are_errors_in_the_built_in_catalogue(tmp_path: Path) -> None:
    builtins = tmp_path / "recipes"
    shutil.copytree(COMPUTED_FIXTURE, builtins / "fixture-computed")
    findings, _ = lint_paths([builtins / "fixture-computed"], builtins=builtins)
    assert _pit026(findings) == {(side, key, "error") for side, key in EXPECTED}


def test_a_returned_literal_stays_an_error_in_a_pack() -> None:
    findings, _ = lint_paths([FIXTURES / "lint" / "PIT026"])
    assert {(f.code, f.severity) for f in findings} == {("PIT026", "error")}


def _fixed(tmp_path: Path, source: str) -> dict[tuple[str, str], str]:
    snippet = tmp_path / "snippet.py"
    snippet.write_text(textwrap.dedent(source), encoding="utf-8")
    return fixed_observations(snippet)


def test_what_counts_as_computed_from_literals(tmp_path: Path) -> None:
    found = _fixed(
        tmp_path,
        """
        import math as m
        import torch
        N = 4
        def problem(device):
            n = N * 2
            s = f"{n} rows"
            return {"lit": True, "cmp": 1 < 2, "shape": [2, 3], "n": n, "s": s,
                    "fin": m.isfinite(1.0), "len": len((1, 2)), "pick": "a" if N else "b",
                    "sub": (1, 2)[0], "none": None}
        def fix(device):
            return {"neg": -1}
        """,
    )
    assert found == {
        ("problem", "lit"): LITERAL,
        **dict.fromkeys(
            [("problem", k) for k in ("cmp", "shape", "n", "s", "fin", "len", "pick", "sub")],
            COMPUTED,
        ),
        ("fix", "neg"): COMPUTED,
    }


@pytest.mark.parametrize(
    "body",
    [
        "x = torch.ones(2)\n    return {'v': x.sum().item()}",  # through torch
        "return {'v': helper()}",  # a helper of the snippet
        "return {'v': device}",  # a parameter
        "k = 0\n    for i in range(3):\n        k += i\n    return {'v': k}",  # a loop
        "v = 1\n    if device:\n        v = 2\n    return {'v': v}",  # bound twice
        "v = [1]\n    v.append(2)\n    return {'v': v}",  # a list changed in place
        "v = [1]\n    torch.manual_seed(0)\n    fill(v)\n    return {'v': v}",  # passed on
        "return {'v': len(torch.ones(2))}",  # a pure builtin on a torch value
        "return {'v': np.float32(1.0) == 1.0}",  # NumPy
        "return {'v': shadowed(1)}",  # not a pure builtin
        "return {'v': len([1]) if torch.cuda.is_available() else 0}",  # a branch through torch
    ],
)
def test_what_is_not_judged(tmp_path: Path, body: str) -> None:
    source = (
        "import numpy as np\nimport torch\n\n\ndef helper():\n    return 1\n\n\n"
        "def fill(v):\n    v.append(3)\n\n\ndef shadowed(x):\n    return x\n\n\n"
        f"def problem(device):\n    {body}\n\n\ndef fix(device):\n    return {{}}\n"
    )
    assert _fixed(tmp_path, source) == {}


def test_a_rebound_builtin_or_module_is_not_pure(tmp_path: Path) -> None:
    found = _fixed(
        tmp_path,
        """
        import math
        def len(x):
            return 7
        def problem(device):
            return {"a": len([1]), "b": math.floor(1.5)}
        def fix(device):
            math = device
            return {"c": math.floor(1.5)}
        """,
    )
    assert found == {("problem", "b"): COMPUTED}
