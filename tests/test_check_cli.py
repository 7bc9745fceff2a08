"""`pitfalls check` end to end: formats, exit codes, selection, config, noqa, files, stdin,
and `--fix`/`--diff`."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from conftest import REPO, assert_no_traceback
from pitfalls.cli import app

runner = CliRunner()
BAD = "import torch\nstate = torch.load('m.pt')\n"  # one PFL005 on line 2
FIXABLE = (
    "import numpy as np\nimport torch\n"
    "x = np.zeros(3, dtype=np.float)\n"
    "it = iter(torch.utils.data.DataLoader(ds))\n"
    "batch = it.next()\n"
    "y = iter(loader).next().float()\n"
)


def invoke(*args: str, cwd: Path | None = None, input: str | None = None):
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        result = runner.invoke(app, ["check", *args], input=input)
    finally:
        os.chdir(old)
    assert_no_traceback(result.output)
    return result


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_plain_output_is_one_line_per_finding_with_the_recipe(tmp_path: Path) -> None:
    write(tmp_path, "train.py", BAD)
    result = invoke(".", cwd=tmp_path)
    assert result.exit_code == 1
    line = result.stdout.strip()
    assert line.startswith("train.py:2:9: PFL005 `torch.load` without `weights_only`")
    assert line.endswith("[torch-load-weights-only]")
    assert "Found 1 finding" in result.stderr


def test_clean_tree_exits_0_and_exit_zero_forces_0(tmp_path: Path) -> None:
    write(tmp_path, "ok.py", "import torch\nstate = torch.load('m.pt', weights_only=True)\n")
    assert invoke(".", cwd=tmp_path).exit_code == 0
    write(tmp_path, "bad.py", BAD)
    assert invoke(".", cwd=tmp_path).exit_code == 1
    assert invoke(".", "--exit-zero", cwd=tmp_path).exit_code == 0


def test_quiet_prints_findings_only(tmp_path: Path) -> None:
    write(tmp_path, "bad.py", BAD)
    result = invoke(".", "--quiet", cwd=tmp_path)
    assert result.exit_code == 1 and "PFL005" in result.stdout and result.stderr == ""


def test_json_format(tmp_path: Path) -> None:
    write(tmp_path, "bad.py", FIXABLE)
    result = invoke(".", "--output-format", "json", cwd=tmp_path)
    data = json.loads(result.stdout)
    first = data[0]
    assert first["code"] == "PFL001" and first["recipe"] == "numpy-aliases-removed"
    assert first["location"] == {"row": 3, "column": 23}
    assert first["fix"]["applicability"] == "safe"
    assert first["fix"]["edits"][0]["content"] == "float"
    assert first["filename"] == "bad.py" and first["cell"] is None


def test_sarif_has_the_required_fields(tmp_path: Path) -> None:
    write(tmp_path, "bad.py", BAD)
    log = json.loads(invoke(".", "--output-format", "sarif", cwd=tmp_path).stdout)
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-2.1.0.json")
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "pitfalls"
    ids = [rule["id"] for rule in driver["rules"]]
    assert "PFL005" in ids and len(ids) == len(set(ids))
    assert all(rule["shortDescription"]["text"] for rule in driver["rules"])
    (result,) = run["results"]
    assert result["ruleId"] == "PFL005" and result["message"]["text"]
    assert result["ruleId"] in ids
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "bad.py"
    assert location["region"]["startLine"] == 2 and location["region"]["startColumn"] == 9


def test_github_annotations(tmp_path: Path) -> None:
    write(tmp_path, "bad.py", BAD)
    out = invoke(".", "--output-format", "github", cwd=tmp_path).stdout
    assert out.startswith("::error title=pitfalls (PFL005),file=bad.py,line=2,col=9,")
    assert "::bad.py:2:9: PFL005 `torch.load`" in out


def test_statistics_count_per_code(tmp_path: Path) -> None:
    write(tmp_path, "bad.py", FIXABLE + BAD)
    out = invoke(".", "--statistics", cwd=tmp_path).stdout.splitlines()
    assert out[0] == "2\tPFL003\t[*]\titerator-next-method"
    assert "1\tPFL005\t\ttorch-load-without-weights-only" in out


def test_unknown_format_and_selector_are_usage_errors(tmp_path: Path) -> None:
    write(tmp_path, "bad.py", BAD)
    assert invoke(".", "--output-format", "xml", cwd=tmp_path).exit_code == 2
    result = invoke(".", "--select", "PFL999", cwd=tmp_path)
    assert result.exit_code == 2 and "PFL999" in result.stderr


def test_select_ignore_and_extend_select(tmp_path: Path) -> None:
    write(tmp_path, "bad.py", FIXABLE + BAD)

    def found(*args: str) -> set[str]:
        out = invoke(".", "--output-format", "json", *args, cwd=tmp_path).stdout
        return {f["code"] for f in json.loads(out)}

    assert found() == {"PFL001", "PFL003", "PFL005"}
    assert found("--select", "PFL001") == {"PFL001"}
    assert found("--ignore", "PFL00") == set()
    assert found("--ignore", "PFL0", "--extend-select", "PFL005") == {"PFL005"}
    assert found("--select", "PFL001,PFL005") == {"PFL001", "PFL005"}


def test_noqa_bare_and_with_codes(tmp_path: Path) -> None:
    source = (
        "import torch\n"
        "a = torch.load('a')  # noqa\n"
        "b = torch.load('b')  # noqa: PFL005\n"
        "c = torch.load('c')  # noqa: E501\n"
        "d = torch.load('d')  # NOQA:PFL001,PFL005\n"
        "e = torch.load('e')\n"
    )
    write(tmp_path, "n.py", source)
    data = json.loads(invoke(".", "--output-format", "json", cwd=tmp_path).stdout)
    assert [f["location"]["row"] for f in data] == [4, 6]


def test_config_from_the_nearest_pyproject(tmp_path: Path) -> None:
    write(
        tmp_path,
        "pyproject.toml",
        "[tool.pitfalls.check]\n"
        'ignore = ["PFL001"]\n'
        'exclude = ["legacy"]\n'
        'per-file-ignores = {"tests/*" = ["PFL005"], "conftest.py" = ["PFL"]}\n',
    )
    write(tmp_path, "src/a.py", FIXABLE + BAD)
    write(tmp_path, "tests/test_a.py", BAD)
    write(tmp_path, "tests/sub/test_b.py", BAD)
    write(tmp_path, "conftest.py", BAD)
    write(tmp_path, "legacy/old.py", BAD)
    data = json.loads(invoke("--output-format", "json", cwd=tmp_path / "src").stdout)
    assert {(f["filename"], f["code"]) for f in data} == {("a.py", "PFL003"), ("a.py", "PFL005")}
    data = json.loads(invoke(".", "--output-format", "json", cwd=tmp_path).stdout)
    files = {f["filename"] for f in data}
    assert files == {"src/a.py"}
    # A file named on the command line is checked even when excluded, as in ruff.
    data = json.loads(invoke("legacy/old.py", "--output-format", "json", cwd=tmp_path).stdout)
    assert [f["code"] for f in data] == ["PFL005"]
    # ...unless --force-exclude, which the pre-commit hook passes.
    result = invoke("legacy/old.py", "tests/test_a.py", "--force-exclude", cwd=tmp_path)
    assert result.exit_code == 0 and result.stdout == ""


def test_bad_config_is_a_usage_error(tmp_path: Path) -> None:
    write(tmp_path, "pyproject.toml", "[tool.pitfalls.check]\nselekt = ['PFL']\n")
    write(tmp_path, "a.py", BAD)
    result = invoke(".", cwd=tmp_path)
    assert result.exit_code == 2 and "selekt" in result.stderr


def test_numpy_pin_enables_bool_and_long(tmp_path: Path) -> None:
    write(tmp_path, "a.py", "import numpy as np\nx = np.bool(1)\n")
    assert invoke(".", cwd=tmp_path).exit_code == 0
    write(tmp_path, "requirements.txt", "torch\nnumpy<2\n")
    assert "PFL002" in invoke(".", cwd=tmp_path).stdout


def test_syntax_error_is_one_finding_and_the_rest_is_checked(tmp_path: Path) -> None:
    write(tmp_path, "a_broken.py", "import torch\nprint 'python 2'\n")
    write(tmp_path, "b.py", BAD)
    result = invoke(".", cwd=tmp_path)
    lines = result.stdout.splitlines()
    assert result.exit_code == 1 and len(lines) == 2
    assert lines[0].startswith("a_broken.py:2:") and "PFL000 syntax error" in lines[0]
    assert lines[1].startswith("b.py:2:9: PFL005")


def test_missing_path_exits_2(tmp_path: Path) -> None:
    result = invoke("nope", cwd=tmp_path)
    assert result.exit_code == 2 and "nope" in result.stderr


def test_unreadable_file_exits_2_after_checking_the_rest(tmp_path: Path) -> None:
    (tmp_path / "latin.py").write_bytes(b"import torch\nname = '\xe9'\n")  # no coding line
    write(tmp_path, "b.py", BAD)
    result = invoke(".", cwd=tmp_path)
    assert result.exit_code == 2
    assert "cannot read latin.py" in result.stderr and "b.py:2:9" in result.stdout
    coded = b"# -*- coding: latin-1 -*-\nimport torch\nname = '\xe9'\n"
    (tmp_path / "latin.py").write_bytes(coded)
    assert invoke(".", cwd=tmp_path).exit_code == 1


def test_an_unreadable_file_is_never_reported_as_passing(tmp_path: Path) -> None:
    (tmp_path / "latin.py").write_bytes(b"import torch\nname = '\xe9'\n")
    write(tmp_path, "ok.py", "import torch\n")
    result = invoke(".", cwd=tmp_path)
    assert result.exit_code == 2
    assert "All checks passed" not in result.stderr
    assert "1 file could not be checked" in result.stderr


def test_stdin_with_stdin_filename(tmp_path: Path) -> None:
    result = invoke("-", "--stdin-filename", "pkg/model.py", input=BAD, cwd=tmp_path)
    assert result.exit_code == 1
    assert result.stdout.startswith("pkg/model.py:2:9: PFL005")
    result = invoke("-", input=BAD, cwd=tmp_path)
    assert result.stdout.startswith("-:2:9: PFL005")


def test_stdin_fix_prints_the_fixed_source(tmp_path: Path) -> None:
    result = invoke("-", "--fix", "--stdin-filename", "a.py", input=FIXABLE, cwd=tmp_path)
    assert "dtype=float)" in result.stdout and "batch = next(it)" in result.stdout
    assert "PFL" not in result.stdout


def test_skips_vcs_venvs_builds_and_gitignored_paths(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path, ".gitignore", "generated/\n*_pb2.py\n")
    for name in (
        "generated/a.py",
        "x_pb2.py",
        ".venv/lib/b.py",
        "env2/lib/site-packages/c.py",
        "build/lib/d.py",
        "node_modules/e.py",
    ):
        write(tmp_path, name, BAD)
    write(tmp_path, "env2/pyvenv.cfg", "home = /usr\n")
    write(tmp_path, "kept/f.py", BAD)
    data = json.loads(invoke(".", "--output-format", "json", cwd=tmp_path).stdout)
    assert {f["filename"] for f in data} == {"kept/f.py"}
    data = json.loads(
        invoke(".", "--output-format", "json", "--no-respect-gitignore", cwd=tmp_path).stdout
    )
    assert {f["filename"] for f in data} == {"kept/f.py", "generated/a.py", "x_pb2.py"}


def test_fix_round_trip_keeps_the_file_parseable_and_is_idempotent(tmp_path: Path) -> None:
    path = write(tmp_path, "a.py", FIXABLE + BAD)
    result = invoke(".", "--fix", cwd=tmp_path)
    fixed = path.read_text(encoding="utf-8")
    ast.parse(fixed)
    assert "np.float" not in fixed and "dtype=float)" in fixed
    assert "batch = next(it)" in fixed and "y = next(iter(loader)).float()" in fixed
    assert "Fixed 3 findings" in result.stderr
    assert result.exit_code == 1 and "PFL005" in result.stdout  # not fixable: still reported
    again = invoke(".", "--fix", cwd=tmp_path)
    assert path.read_text(encoding="utf-8") == fixed and "Fixed" not in again.stderr


def test_diff_previews_without_writing(tmp_path: Path) -> None:
    path = write(tmp_path, "a.py", FIXABLE)
    result = invoke(".", "--diff", cwd=tmp_path)
    assert result.exit_code == 1
    assert "-x = np.zeros(3, dtype=np.float)" in result.stdout
    assert "+x = np.zeros(3, dtype=float)" in result.stdout
    assert "--- a/a.py" in result.stdout
    assert path.read_text(encoding="utf-8") == FIXABLE
    write(tmp_path, "a.py", BAD)
    assert invoke(".", "--diff", cwd=tmp_path).exit_code == 0


def test_a_fix_that_breaks_the_syntax_is_reverted(monkeypatch, tmp_path: Path) -> None:
    from pitfalls.check.rules import api_changes as rules_api

    monkeypatch.setitem(rules_api.NUMPY_REMOVED, "float", "float(")
    path = write(tmp_path, "a.py", "import numpy as np\nx = np.float\n")
    invoke(".", "--fix", cwd=tmp_path)
    assert path.read_text(encoding="utf-8") == "import numpy as np\nx = np.float\n"


def test_parallel_and_serial_agree(tmp_path: Path) -> None:
    from pitfalls.catalogue.rule_table import resolve_selection
    from pitfalls.check.driver import PARALLEL_MIN_FILES, Settings, check_files

    files = []
    for index in range(PARALLEL_MIN_FILES + 6):
        path = write(tmp_path, f"m{index}.py", FIXABLE if index % 2 else BAD)
        files.append((path, path.name))
    settings = Settings(enabled=resolve_selection(None, [], []), root=tmp_path)
    serial = check_files(files, settings, jobs=1)
    parallel = check_files(files, settings, jobs=2)
    assert [(r.path, [(f.line, f.code) for f in r.findings]) for r in serial] == [
        (r.path, [(f.line, f.code) for f in r.findings]) for r in parallel
    ]


def test_explain_prints_the_rule_and_its_recipe() -> None:
    result = runner.invoke(app, ["check", "--explain", "pfl101"])
    assert result.exit_code == 0
    assert "PFL101 (data-attribute-write)" in result.stdout
    assert "## Why is this bad?" in result.stdout and "Recipe: `detach`" in result.stdout
    assert "`.data`" in result.stdout
    assert runner.invoke(app, ["check", "--explain", "PFL999"]).exit_code == 2
    data = json.loads(
        runner.invoke(app, ["check", "--explain", "PFL003", "--output-format", "json"]).stdout
    )
    assert data["recipe"] == "dataloader-len" and data["fix"] == "sometimes"


def test_show_looks_up_a_rule_code_first_and_lists_rules() -> None:
    by_code = runner.invoke(app, ["show", "PFL102", "--raw"])
    assert by_code.exit_code == 0 and "`detach`" in by_code.stdout
    data = json.loads(runner.invoke(app, ["show", "detach", "--json"]).stdout)
    assert [r["code"] for r in data["rules"]] == ["PFL101", "PFL102"]
    page = runner.invoke(app, ["show", "detach", "--raw"]).stdout
    assert "PFL101 data-attribute-write" in page


def test_help_documents_exit_codes() -> None:
    result = runner.invoke(app, ["check", "--help"])
    text = " ".join(result.stdout.split())
    assert "2 usage error" in text and "1 findings" in text


def test_check_never_imports_torch(tmp_path: Path) -> None:
    write(tmp_path, "a.py", FIXABLE + BAD)
    probe = (
        "import sys\nsys.argv = ['pitfalls', 'check', '.', '--exit-zero']\n"
        "from pitfalls.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('TORCH' if 'torch' in sys.modules else 'CLEAN')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert result.stdout.strip().splitlines()[-1] == "CLEAN", result.stderr
