"""`%load_ext pitfalls` in a real IPython shell and, through nbclient, in a real kernel."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import FIXTURES, REPO

FINDABLE = FIXTURES / "findable"
FRAGMENT = "the flux capacitor overheated while computing gradients"

pytest.importorskip("IPython")


@pytest.fixture
def shell(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    from IPython.core.interactiveshell import InteractiveShell

    import pitfalls.notebook as notebook

    monkeypatch.setenv("PITFALLS_PATH", str(FINDABLE))
    monkeypatch.setitem(notebook._STATE, "registry", None)
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "pitfalls")
    yield ip
    ip.run_line_magic("unload_ext", "pitfalls")
    InteractiveShell.clear_instance()


def test_a_matching_error_gets_a_hint_after_ipythons_own_traceback(shell, capsys) -> None:
    result = shell.run_cell(f"raise RuntimeError({FRAGMENT!r})")
    assert isinstance(result.error_in_exec, RuntimeError)
    out = capsys.readouterr()
    text = out.out + out.err
    assert "RuntimeError" in text and "Traceback" in text  # IPython's display is intact
    assert text.index("RuntimeError") < text.index("boom-fragment")
    assert "%pitfalls show boom-fragment" in text


def test_an_unrelated_error_and_a_good_cell_get_no_hint(shell, capsys) -> None:
    shell.run_cell("raise KeyError('nothing to see')")
    shell.run_cell("x = 1 + 1")
    text = "".join(capsys.readouterr())
    assert "pitfalls" not in text


def test_loading_twice_gives_one_hint(shell, capsys) -> None:
    shell.run_line_magic("load_ext", "pitfalls")
    shell.run_line_magic("reload_ext", "pitfalls")
    shell.run_cell(f"raise RuntimeError({FRAGMENT!r})")
    text = "".join(capsys.readouterr())
    assert text.count("%pitfalls show boom-fragment") == 1


def test_magic_show_and_search(shell, capsys) -> None:
    shell.run_line_magic("pitfalls", "show boom-fragment")
    assert "The flux capacitor overheats" in capsys.readouterr().out
    shell.run_line_magic("pitfalls", "show boom-fragment --lang zh")
    assert "通量电容器过热" in capsys.readouterr().out
    shell.run_line_magic("pitfalls", f"search {FRAGMENT}")
    assert "boom-fragment" in capsys.readouterr().out
    shell.run_line_magic("pitfalls", "frobnicate")
    assert "usage: %pitfalls" in capsys.readouterr().out
    shell.run_line_magic("pitfalls", "show no-such-recipe-anywhere")
    assert "pitfalls:" in capsys.readouterr().out


def test_magic_run_runs_in_a_child_process_not_the_kernel(shell, capsys) -> None:
    before = set(sys.modules)
    shell.run_line_magic("pitfalls", "run boom-fragment --device cpu")
    out = capsys.readouterr().out
    assert "reproduced" in out and "yes" in out
    assert "snippet" not in set(sys.modules) - before  # the snippet was never imported here


def test_loading_the_extension_module_imports_nothing_heavy() -> None:
    code = (
        "import sys, pitfalls; assert callable(pitfalls.load_ipython_extension); "
        "names = ('IPython', 'torch', 'rich', 'pitfalls.notebook'); "
        "heavy = [m for m in names if m in sys.modules]; "
        "assert not heavy, heavy"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(REPO / "tests"))


def test_a_real_kernel_shows_the_hint_as_markdown(tmp_path) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    kernels = tmp_path / "jupyter" / "kernels" / "pitfalls-test"
    kernels.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "pitfalls test",
        "language": "python",
        "env": {"PITFALLS_PATH": str(FINDABLE)},
    }
    (kernels / "kernel.json").write_text(json.dumps(spec))
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("%load_ext pitfalls"),
        nbformat.v4.new_code_cell(f"raise RuntimeError({FRAGMENT!r})"),
        nbformat.v4.new_code_cell("%pitfalls show boom-fragment"),
    ]
    old = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = str(tmp_path / "jupyter")
    try:
        client = nbclient.NotebookClient(
            notebook, kernel_name="pitfalls-test", timeout=120, allow_errors=True
        )
        client.execute()
    finally:
        if old is None:
            os.environ.pop("JUPYTER_PATH", None)
        else:
            os.environ["JUPYTER_PATH"] = old
    error_cell = notebook.cells[1]
    kinds = [o["output_type"] for o in error_cell.outputs]
    assert kinds[0] == "error" and error_cell.outputs[0]["ename"] == "RuntimeError"
    hints = [o for o in error_cell.outputs if o["output_type"] == "display_data"]
    assert hints and "boom-fragment" in hints[0]["data"]["text/markdown"]
    shown = [o for o in notebook.cells[2].outputs if o["output_type"] == "display_data"]
    assert "The flux capacitor overheats" in shown[0]["data"]["text/markdown"]
