"""Notebooks: cells parsed one by one, magics neutralised, findings named by cell and line."""

from __future__ import annotations

import ast
import json
import os
import shutil
from pathlib import Path

from typer.testing import CliRunner

from conftest import FIXTURES
from pitfalls.check.notebook import neutralise
from pitfalls.cli import app

NOTEBOOK = FIXTURES / "check" / "notebook.ipynb"
runner = CliRunner()


def check(folder: Path, *args: str):
    old = os.getcwd()
    os.chdir(folder)
    try:
        return runner.invoke(app, ["check", *args])
    finally:
        os.chdir(old)


def test_findings_name_the_cell_and_the_line_in_it(tmp_path: Path) -> None:
    shutil.copy(NOTEBOOK, tmp_path / "nb.ipynb")
    result = check(tmp_path, ".")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "nb.ipynb:cell 2:7:23: PFL001 `np.float` was removed in NumPy 1.24: use the builtin "
        "`float` [numpy-aliases-removed]",
        "nb.ipynb:cell 4:4:13: PFL003 `.next()` on a DataLoader iterator fails in Python 3: "
        "use `next(iter(loader))` [dataloader-len]",
        "nb.ipynb:cell 4:5:9: PFL005 `torch.load` without `weights_only`: pass "
        "`weights_only=True` (torch >= 2.6 defaults to it and old checkpoints may fail; "
        "`False` only for trusted files) [torch-load-weights-only]",
        "nb.ipynb:cell 5:1:1: PFL000 syntax error: Missing parentheses in call to 'print'. "
        "Did you mean print(...)?",
    ]


def test_json_carries_the_cell(tmp_path: Path) -> None:
    shutil.copy(NOTEBOOK, tmp_path / "nb.ipynb")
    data = json.loads(check(tmp_path, ".", "--output-format", "json").stdout)
    assert [(f["cell"], f["location"]["row"], f["code"]) for f in data] == [
        (2, 7, "PFL001"),
        (4, 4, "PFL003"),
        (4, 5, "PFL005"),
        (5, 1, "PFL000"),
    ]


def test_fix_rewrites_cells_and_keeps_the_notebook_valid(tmp_path: Path) -> None:
    path = tmp_path / "nb.ipynb"
    shutil.copy(NOTEBOOK, path)
    check(tmp_path, ".", "--fix")
    data = json.loads(path.read_text(encoding="utf-8"))
    original = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    sources = ["".join(cell["source"]) for cell in data["cells"]]
    assert sources[1].endswith("x = np.zeros(3, dtype=float)")  # no newline added at the end
    assert "    batch = next(iter(loader))\n" in sources[3]
    assert sources[1].startswith("%matplotlib inline\n!pip install torch\n")  # magics kept
    assert sources[2] == "".join(original["cells"][2]["source"])
    assert data["metadata"] == original["metadata"] and len(data["cells"]) == 6
    for source in sources[1:4]:
        code = neutralise(source)
        assert code is None or ast.parse(code)
    again = check(tmp_path, ".", "--fix")
    assert "Fixed" not in again.stderr


def test_neutralise_keeps_line_numbers() -> None:
    source = "%load_ext autoreload\nx = 1\n!ls \\\n  -la\nout = %timeit f()\nobj??\n"
    code = neutralise(source)
    assert code is not None
    assert code.count("\n") == source.count("\n")
    assert ast.parse(code)
    assert neutralise("%%bash\necho hi\n") is None


def test_a_notebook_that_is_not_json_is_unreadable(tmp_path: Path) -> None:
    (tmp_path / "broken.ipynb").write_text("{ torch", encoding="utf-8")
    result = check(tmp_path, ".")
    assert result.exit_code == 2 and "broken.ipynb" in result.stderr
