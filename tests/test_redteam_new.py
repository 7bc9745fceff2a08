"""Regression tests from a red-team pass over `search`, `trace`, `check`, `lint` and the
IPython extension: each test names the input that used to crash (a traceback), hang, lose
what the user wrote, or answer misleadingly."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROBUST, TESTS, assert_no_traceback, run_cli

INPLACE = (
    "RuntimeError: one of the variables needed for gradient computation has been modified by "
    "an inplace operation: [torch.FloatTensor [3]] is at version 1; expected version 0 instead."
)


def run_bytes(
    *args: str, input: bytes | None = None, env: dict[str, str] | None = None, cwd: Path = TESTS
) -> subprocess.CompletedProcess[bytes]:
    """The real CLI with bytes in and out (for input that is not text)."""
    return subprocess.run(
        [sys.executable, "-m", "pitfalls", *args],
        input=input,
        capture_output=True,
        env={**os.environ, **(env or {})},
        cwd=str(cwd),
        timeout=120,
    )


def run_shell(script: str, cwd: Path = TESTS, timeout: float = 60) -> subprocess.CompletedProcess:
    """A shell line where `$PITFALLS` is the CLI: for closed streams and pipelines."""
    env = {**os.environ, "PITFALLS": f"{sys.executable} -m pitfalls"}
    return subprocess.run(
        ["sh", "-c", script],
        capture_output=True,
        text=True,
        errors="replace",
        env=env,
        cwd=str(cwd),
        timeout=timeout,
    )


# -- search ------------------------------------------------------------------------------------


def test_search_reads_stdin_that_is_not_utf8_under_a_strict_encoding() -> None:
    data = b"\xff\xfe\x00 junk\n" + INPLACE.encode() + b"\n"
    result = run_bytes("search", "-", input=data, env={"PYTHONIOENCODING": "utf-8"})
    assert_no_traceback(result.stderr.decode("utf-8", "replace"))
    assert result.returncode == 0
    assert result.stdout.startswith(b"inplace-autograd\t")


@pytest.mark.parametrize("command", ["search -", "check -"])
def test_a_closed_stdin_is_a_one_line_usage_error(command: str) -> None:
    result = run_shell(f"$PITFALLS {command} <&-")
    assert_no_traceback(result.stderr)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "stdin" in result.stderr


def test_ten_megabytes_on_stdin_are_searched_quickly_by_their_end() -> None:
    noise = ("lorem ipsum dolor sit amet consectetur adipiscing " * 200 + "\n") * 1000
    data = (noise + INPLACE + "\n").encode()
    assert len(data) > 10_000_000
    started = time.monotonic()
    result = run_bytes("search", "-", input=data)
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(b"inplace-autograd\t")
    assert elapsed < 15, elapsed  # it took 30 s and more when the whole input was ranked


def test_a_huge_query_is_ranked_by_its_tail_only() -> None:
    from pitfalls.catalogue.registry import Registry
    from pitfalls.search.ranking import MAX_QUERY_CHARS, best_match

    registry = Registry.load()
    query = "x " * (MAX_QUERY_CHARS * 4) + "\n" + INPLACE
    started = time.monotonic()
    hit = best_match(registry, query)
    assert hit is not None and hit.recipe.id == "inplace-autograd"
    assert time.monotonic() - started < 5


# -- trace -------------------------------------------------------------------------------------


def test_trace_into_head_ends_an_endless_command_with_its_own_status() -> None:
    # `yes | head -1` ends at once: the writer dies of SIGPIPE. Through trace it used to run
    # forever, since trace swallowed the broken pipe and kept draining the command.
    process = subprocess.Popen(
        [sys.executable, "-m", "pitfalls", "trace", "--", "sh", "-c", "while :; do echo x; done"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline() == b"x\n"
    process.stdout.close()
    try:
        code = process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        pytest.fail("trace kept running after its reader went away")
    stderr = process.stderr.read().decode("utf-8", "replace")
    process.stderr.close()
    assert_no_traceback(stderr)
    assert code == 128 + 13  # the command died of SIGPIPE, as without trace


def test_trace_to_a_full_disk_does_not_crash() -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    result = run_shell("$PITFALLS trace -- sh -c 'echo hello; exit 3' >/dev/full")
    assert_no_traceback(result.stderr)
    assert result.returncode in (3, 128 + 13)


def test_trace_with_stdout_closed_does_not_crash() -> None:
    result = run_shell("$PITFALLS trace -- sh -c 'exit 5' >&-")
    assert_no_traceback(result.stderr)
    assert result.returncode == 5


# -- check: encodings and files ------------------------------------------------------------------


FIX_ME = "import numpy as np\nx = np.float(1)\n"


def test_a_utf8_bom_is_not_a_syntax_error_and_fix_keeps_it(tmp_path: Path) -> None:
    path = tmp_path / "bom.py"
    path.write_bytes(b"\xef\xbb\xbf" + FIX_ME.encode())
    result = run_cli("check", str(path))
    assert "PFL000" not in result.stdout and "PFL001" in result.stdout
    run_cli("check", "--fix", str(path))
    assert path.read_bytes() == b"\xef\xbb\xbfimport numpy as np\nx = float(1)\n"


def test_fix_keeps_a_files_declared_encoding(tmp_path: Path) -> None:
    original = b"# -*- coding: latin-1 -*-\nimport numpy as np\ns = 'caf\xe9'\nx = np.float(1)\n"
    path = tmp_path / "latin.py"
    path.write_bytes(original)
    result = run_cli("check", "--fix", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert path.read_bytes() == original.replace(b"np.float(1)", b"float(1)")


def test_fix_keeps_crlf_and_mixed_line_endings_byte_for_byte(tmp_path: Path) -> None:
    original = b"import numpy as np\r\nx = np.float(1)\ny = np.int(2)\r\n"
    path = tmp_path / "mixed.py"
    path.write_bytes(original)
    run_cli("check", "--fix", str(path))
    expected = original.replace(b"np.float", b"float").replace(b"np.int", b"int")
    assert path.read_bytes() == expected
    run_cli("check", "--fix", str(path))
    assert path.read_bytes() == expected


def _notebook(*sources: object, **extra: object) -> dict:
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Title é\n"]},
        *(
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {},
                "outputs": [],
                "source": source,
            }
            for source in sources
        ),
    ]
    return {"cells": cells, "metadata": {"title": "café"}, "nbformat": 4, "nbformat_minor": 5}


def test_notebook_fix_with_form_feeds_and_line_separators_moves_no_code(tmp_path: Path) -> None:
    # str.splitlines() also splits at \x0c and \u2028: the fixed lines went to other cells and
    # the last cell's code was lost.
    data = _notebook(
        ["import numpy as np\n", "s = 'a\x0cb'\n", "t = '\u2028'\n", "y = np.int(2)"],
        ["k = np.float(5)\n"],
        "import numpy as np\ru = np.float(3)\r",
    )
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    result = run_cli("check", str(path))
    assert "cell 2:4:5: PFL001" in result.stdout and "cell 3:1:5: PFL001" in result.stdout
    assert "cell 4:2:5: PFL001" in result.stdout
    run_cli("check", "--fix", str(path))
    fixed = json.loads(path.read_text(encoding="utf-8"))
    sources = [cell["source"] for cell in fixed["cells"]]
    assert sources[1] == ["import numpy as np\n", "s = 'a\x0cb'\n", "t = '\u2028'\n", "y = int(2)"]
    assert sources[2] == ["k = float(5)\n"]
    assert sources[3] == "import numpy as np\ru = float(3)\r"


@pytest.mark.parametrize(
    "dump",
    [
        lambda d: json.dumps(d, indent=1, ensure_ascii=False) + "\n",  # Jupyter
        lambda d: json.dumps(d, indent=2) + "\n",  # ASCII escapes, two spaces
        lambda d: json.dumps(d),  # one line, no newline at the end
        lambda d: (json.dumps(d, indent=1, ensure_ascii=False) + "\n").replace("\n", "\r\n"),
    ],
)
def test_notebook_fix_changes_only_the_fixed_text(tmp_path: Path, dump) -> None:
    data = _notebook(["import numpy as np\n", "x = np.float(1)  # é\n"])
    path = tmp_path / "nb.ipynb"
    original = dump(data).encode("utf-8")
    path.write_bytes(original)
    run_cli("check", "--fix", str(path))
    assert path.read_bytes() == original.replace(b"np.float(1)", b"float(1)")
    run_cli("check", "--fix", str(path))  # idempotent
    assert path.read_bytes() == original.replace(b"np.float(1)", b"float(1)")


def test_notebook_fix_leaves_cells_it_does_not_fix_as_they_were_split(tmp_path: Path) -> None:
    data = _notebook(["import numpy ", "as np\n", "y = 1"], ["x = np.float(1)\n"])
    path = tmp_path / "nb.ipynb"
    original = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    path.write_text(original, encoding="utf-8")
    run_cli("check", "--fix", str(path))
    assert path.read_text(encoding="utf-8") == original.replace("np.float(1)", "float(1)")


@pytest.mark.parametrize(
    "text",
    [
        '{"cells": 5, "x": "torch"}',
        '{"cells": {"a": 1}, "x": "torch"}',
        '{"cells": [{"cell_type": "code", "source": ["import torch\\n", 5]}]}',
        '{"cells": [{"cell_type": "code", "source": null}, {"cell_type": "code", '
        '"source": ["import torch\\n", null]}]}',
        '["torch"]',
    ],
)
def test_a_notebook_of_the_wrong_shape_is_one_line(tmp_path: Path, text: str) -> None:
    (tmp_path / "nb.ipynb").write_text(text, encoding="utf-8")
    result = run_cli("check", str(tmp_path / "nb.ipynb"))
    assert_no_traceback(result.stdout + result.stderr)
    assert result.returncode == 2
    assert "cannot read" in result.stderr and "not a Jupyter notebook" in result.stderr


def test_stdin_fix_echoes_the_source_it_cannot_read() -> None:
    text = "import numpy as np\nx = np.float(1)\n"  # not notebook JSON
    result = run_cli("check", "-", "--fix", "--stdin-filename", "nb.ipynb", input=text)
    assert result.returncode == 2
    assert result.stdout == text  # an editor replacing its buffer with stdout loses nothing


@pytest.mark.parametrize(
    "toml", ["tool = 1\n", '[tool]\npitfalls = "x"\n', "[tool]\npitfalls = [1]\n"]
)
def test_a_pyproject_with_a_tool_of_the_wrong_type_is_a_usage_error(
    tmp_path: Path, toml: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(toml, encoding="utf-8")
    (tmp_path / "a.py").write_text(FIX_ME, encoding="utf-8")
    result = run_cli("check", str(tmp_path))
    assert_no_traceback(result.stdout + result.stderr)
    assert result.returncode == 2
    assert "pyproject.toml" in result.stderr


def _without_read_permission() -> list[str]:
    """A prefix that runs a command without root's power to read anything."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("root without setpriv cannot be denied a read")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search"]


def test_a_folder_without_permission_is_reported_not_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text("import torch\nx = torch.load('m')\n", encoding="utf-8")
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "a.py").write_text("import torch\n", encoding="utf-8")
    locked.chmod(0)
    try:
        prefix = _without_read_permission()
        for args in (["."], ["locked/a.py"], ["locked"]):
            result = subprocess.run(
                [*prefix, sys.executable, "-m", "pitfalls", "check", *args],
                capture_output=True,
                text=True,
                cwd=str(tmp_path),
                timeout=60,
            )
            assert_no_traceback(result.stdout + result.stderr)
            assert result.returncode == 2, (args, result.stderr)
            assert "locked" in result.stderr and "ermission denied" in result.stderr
            if args == ["."]:
                assert result.stdout.startswith("ok.py:2:5: PFL005")  # the rest is checked
    finally:
        locked.chmod(0o755)


def test_symlinked_folder_cycles_are_walked_once(tmp_path: Path) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "a.py").write_text("import torch\nx = torch.load('m')\n", encoding="utf-8")
    (sub / "up").symlink_to("..")
    (sub / "self").symlink_to("../sub")
    result = run_cli("check", str(tmp_path), timeout=60)
    assert result.returncode == 1
    assert result.stdout.count("PFL005") == 1


def test_a_symlink_loop_named_on_the_command_line_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "loop1.py").symlink_to("loop2.py")
    (tmp_path / "loop2.py").symlink_to("loop1.py")
    result = run_cli("check", str(tmp_path / "loop1.py"))
    assert_no_traceback(result.stdout + result.stderr)
    assert result.returncode == 2 and "loop1.py" in result.stderr


@pytest.mark.parametrize(
    "code",
    [
        "x = " + "+".join(["a"] * 50_000),  # too deep for Python's own parser
        "x = torch" + ".a" * 5000,
        "x = " + "-" * 100_000 + "1",
        "x = " + "+".join(["a"] * 2000),  # Python compiles it; our rules recursed too deep
    ],
    ids=["sum-50000", "attributes-5000", "minus-100000", "sum-2000"],
)
def test_deeply_nested_code_does_not_stop_the_run(tmp_path: Path, code: str) -> None:
    (tmp_path / "deep.py").write_text("import torch\n" + code + "\n", encoding="utf-8")
    (tmp_path / "ok.py").write_text("import torch\nx = torch.load('m')\n", encoding="utf-8")
    result = run_cli("check", str(tmp_path))
    assert_no_traceback(result.stdout + result.stderr)
    assert "ok.py:2:5: PFL005" in result.stdout
    assert "deep.py" in result.stdout + result.stderr
    assert result.returncode in (1, 2)


def test_sarif_uris_are_valid_uri_references(tmp_path: Path) -> None:
    name = "we%ird na:me#1.py"
    (tmp_path / name).write_text(FIX_ME, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "pitfalls", "check", "--output-format", "sarif", name],
        capture_output=True,
        text=True,
        cwd=str(tmp_path),
        timeout=60,
    )
    log = json.loads(result.stdout)
    uri = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"][
        "uri"
    ]
    from urllib.parse import unquote

    assert uri == "we%25ird%20na%3Ame%231.py" and unquote(uri) == name


# -- lint ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("top", "tail", "code"),
    [
        ("", '\n[[expect]]\nside = "problem"\nkey = "bad"\nraises = {match = 5}\n', "PIT018"),
        ("", '\n[[expect]]\nside = "problem"\nkey = ["bad"]\nequals = true\n', "PIT018"),
        ('related = [5, "detach"]\n', "", "PIT003"),
        ("related = [{a = 1}]\n", "", "PIT003"),
    ],
)
def test_lint_reports_wrong_types_instead_of_crashing(
    tmp_path: Path, top: str, tail: str, code: str
) -> None:
    folder = tmp_path / "rt-wrong"
    shutil.copytree(ROBUST / "t-ok", folder)
    text = (folder / "recipe.toml").read_text(encoding="utf-8").replace("t-ok", folder.name)
    (folder / "recipe.toml").write_text(top + text + tail, encoding="utf-8")
    result = run_cli("lint", str(folder))
    assert_no_traceback(result.stdout + result.stderr)
    assert result.returncode == 1
    assert f" {code} error: " in result.stdout
    listed = run_cli("list", env={"PITFALLS_PATH": str(tmp_path)})
    assert_no_traceback(listed.stderr)
    assert listed.stderr.count(f"skipped {folder}:") == 1


# -- the IPython extension -----------------------------------------------------------------------


def test_magic_names_an_unknown_recipe_and_wants_search_words(capsys) -> None:
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    try:
        ip.run_line_magic("load_ext", "pitfalls")
        ip.run_line_magic("pitfalls", "run no-such-recipe-xyz")
        out = capsys.readouterr().out
        assert "No recipe named 'no-such-recipe-xyz'." in out
        ip.run_line_magic("pitfalls", "search")
        assert capsys.readouterr().out.startswith("usage:")
    finally:
        ip.run_line_magic("unload_ext", "pitfalls")
        InteractiveShell.clear_instance()


def test_a_huge_exception_message_does_not_stall_the_kernel() -> None:
    pytest.importorskip("IPython")
    from pitfalls.notebook import hint_for

    error = RuntimeError(INPLACE[len("RuntimeError: ") :] + " x" * 5_000_000)
    started = time.monotonic()
    hint = hint_for(error)
    assert time.monotonic() - started < 5  # it took over 10 s
    assert hint is not None and "inplace-autograd" in hint
