"""`pitfalls lint`: one failing fixture per code, the CLI's output and exit codes, and the
built-in catalogue passing."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import pitfalls.authoring.external as checks
import pitfalls.authoring.lint as lint_module
import pitfalls.authoring.linter as linter_module
from pitfalls.authoring.lint import CODES
from pitfalls.authoring.linter import lint_paths
from pitfalls.authoring.prose import code_blocks, is_excerpt, parse
from pitfalls.catalogue.registry import builtin_dir
from pitfalls.cli import app

LINT_FIXTURES = Path(__file__).resolve().parent / "fixtures" / "lint"
CLEAN = LINT_FIXTURES / "clean" / "fixture-clean"
FINDING_LINE = re.compile(
    r"^(?P<path>[^:]+)(:(?P<line>\d+))?: (?P<code>PIT\d{3}) (error|warning): .+$"
)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may fetch a URL: --check-links sees a fake that says every link is dead."""
    monkeypatch.setattr(checks, "fetch_problem", lambda url, timeout=10.0: "HTTP 404")


def codes_of(findings: list) -> set[str]:
    return {finding.code for finding in findings}


@pytest.mark.parametrize("code", sorted(CODES))
def test_each_code_has_a_fixture_that_triggers_exactly_it(code: str) -> None:
    if code == "PIT013" and checks.ruff_command() is None:
        pytest.skip("ruff is not installed, so formatting is not checked")
    fixture = LINT_FIXTURES / code
    assert fixture.is_dir(), f"add a failing fixture for {code} under {fixture}"
    findings, count = lint_paths([fixture], check_links=code == "PIT015")
    assert count >= 1
    assert codes_of(findings) == {code}, [str(f) for f in findings]


def test_every_fixture_folder_is_a_declared_code() -> None:
    folders = {p.name for p in LINT_FIXTURES.iterdir() if p.is_dir()}
    assert folders - {"clean"} == set(CODES)


def test_the_docstring_table_matches_the_declarations() -> None:
    # The module docstring is the human table; CODES is what runs. They must not drift.
    rows = re.findall(r"^\| (PIT\d{3}) \| (\w+)\s*\|", lint_module.__doc__ or "", re.MULTILINE)
    assert dict(rows) == {c.code: c.severity for c in CODES.values()}


def test_the_clean_fixture_has_no_findings() -> None:
    findings, count = lint_paths([CLEAN], check_links=False)
    assert count == 1
    assert findings == []


def test_links_are_fetched_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    def fetch(url: str, timeout: float = 10.0) -> str:
        raise AssertionError(f"fetched {url} without --check-links")

    monkeypatch.setattr(checks, "fetch_problem", fetch)
    assert lint_paths([CLEAN])[0] == []


def _copy_as(tmp_path: Path, recipe_id: str, aliases: list[str] | None = None) -> Path:
    """The clean fixture under a new id (and aliases), in a folder named after it."""
    folder = tmp_path / recipe_id
    shutil.copytree(CLEAN, folder)
    toml = folder / "recipe.toml"
    text = toml.read_text(encoding="utf-8").replace("fixture-clean-alias", "unused-alias-x")
    text = text.replace('id = "fixture-clean"', f'id = "{recipe_id}"')
    if aliases is not None:
        text = re.sub(r"^aliases = .*$", f"aliases = {json.dumps(aliases)}", text, flags=re.M)
    toml.write_text(text, encoding="utf-8")
    for name in ("en.md", "zh.md"):
        prose = folder / name
        prose.write_text(prose.read_text(encoding="utf-8").replace("fixture-clean", recipe_id))
    return folder


def _builtin_names() -> tuple[str | None, str | None]:
    """An id and an alias of the built-in catalogue, as they are today."""
    names = linter_module.builtin_names(builtin_dir())
    recipe_id = names[0][1][0] if names else None
    alias = next((n[1][1] for n in names if len(n[1]) > 1), None)
    return recipe_id, alias


def test_an_id_taken_by_a_built_in_is_pit006(tmp_path: Path) -> None:
    recipe_id, _ = _builtin_names()
    if recipe_id is None:
        pytest.skip("no built-in recipe to clash with")
    findings, _ = lint_paths([_copy_as(tmp_path, recipe_id)])
    assert codes_of(findings) == {"PIT006"}
    assert "built-in" in findings[0].message


def test_an_alias_taken_by_a_built_in_is_pit006(tmp_path: Path) -> None:
    _, alias = _builtin_names()
    if alias is None:
        pytest.skip("no built-in alias to clash with")
    findings, _ = lint_paths([_copy_as(tmp_path, "my-own-recipe", [alias])])
    assert codes_of(findings) == {"PIT006"}


def test_a_built_in_recipe_linted_alone_does_not_clash_with_itself() -> None:
    names = linter_module.builtin_names(builtin_dir())
    if not names:
        pytest.skip("no built-in recipes")
    findings, _ = lint_paths([names[0][0]])
    assert "PIT006" not in codes_of(findings)


# --- the command line -------------------------------------------------------------------


def invoke(*args: str):
    return CliRunner().invoke(app, ["lint", *args])


def test_cli_clean_exits_0() -> None:
    result = invoke(str(CLEAN))
    assert result.exit_code == 0, result.output
    assert result.stdout == ""


def test_cli_error_exits_1_with_one_finding_per_line() -> None:
    result = invoke(str(LINT_FIXTURES / "PIT008"))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines and all(FINDING_LINE.match(line) for line in lines), lines
    first = FINDING_LINE.match(lines[0])
    assert first and first["code"] == "PIT008" and first["path"].endswith("en.md")
    assert first["line"] == "10"


def test_cli_warnings_alone_exit_0() -> None:
    result = invoke(str(LINT_FIXTURES / "PIT007"))
    assert result.exit_code == 0
    assert "PIT007 warning" in result.stdout


def test_cli_json_lists_findings() -> None:
    result = invoke("--json", str(LINT_FIXTURES / "PIT017"), str(LINT_FIXTURES / "PIT007"))
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert {d["code"] for d in data} == {"PIT017", "PIT007"}
    assert set(data[0]) == {"code", "severity", "path", "line", "message"}


def test_cli_check_links_reports_dead_links() -> None:
    assert invoke(str(LINT_FIXTURES / "PIT015")).exit_code == 0
    result = invoke("--check-links", str(LINT_FIXTURES / "PIT015"))
    assert result.exit_code == 1
    assert "PIT015" in result.stdout


@pytest.mark.parametrize("bad", ["does-not-exist", "empty"])
def test_cli_bad_path_is_a_one_line_usage_error(tmp_path: Path, bad: str) -> None:
    (tmp_path / "empty").mkdir()
    result = invoke(str(tmp_path / bad))
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output


def test_help_lists_every_code() -> None:
    result = CliRunner().invoke(app, ["lint", "--help"], env={"COLUMNS": "120"})
    assert result.exit_code == 0
    for code in CODES:
        assert code in result.stdout


def test_the_builtin_catalogue_passes_lint() -> None:
    findings, count = lint_paths([builtin_dir()])
    errors = [str(f) for f in findings if f.severity == "error"]
    assert count > 0
    assert errors == []


# --- the prose reader behind PIT008-PIT010 ------------------------------------------------


def test_headings_inside_code_blocks_are_not_sections() -> None:
    headings, blocks = parse("## Symptom\n\n```text\n## not a heading\n```\n\n## Why\n")
    assert [h.text for h in headings] == ["Symptom", "Why"]
    assert blocks[0].body == "## not a heading" and blocks[0].line == 3


def test_exec_blocks_are_recognised() -> None:
    blocks = code_blocks("```python exec\nprint(1)\n```\n````python\nx\n````\n")
    assert [(b.language, b.is_exec) for b in blocks] == [("python", True), ("python", False)]


def test_an_excerpt_may_drop_indentation_and_blank_lines_but_not_code() -> None:
    source = "def f():\n    a = 1\n\n    b = 2\n    c = 3\n"
    assert is_excerpt("a = 1\nb = 2", source)
    assert not is_excerpt("a = 1\nc = 3", source)
