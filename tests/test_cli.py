"""The CLI through typer's CliRunner, plus real subprocess runs of the entry point."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from conftest import ROBUST, assert_no_traceback, needs_torch, run_cli
from pitfalls._version import __version__
from pitfalls.cli import app

runner = CliRunner()


def invoke(*args: str, env: dict[str, str] | None = None, input: str | None = None):
    result = runner.invoke(app, list(args), env=env, input=input)
    assert_no_traceback(result.output)
    return result


def test_version() -> None:
    result = invoke("--version")
    assert result.exit_code == 0 and __version__ in result.output


def test_bare_command_prints_help_when_not_interactive() -> None:
    result = invoke()
    assert result.exit_code == 0
    assert "list" in result.output and "run" in result.output


def test_help_documents_exit_codes() -> None:
    result = invoke("run", "--help")
    assert result.exit_code == 0
    assert "3 device or torch not available" in " ".join(result.output.split())


def test_list_is_plain_and_tab_separated_when_piped() -> None:
    result = invoke("list")
    assert result.exit_code == 0
    lines = result.output.strip().splitlines()
    rows = {line.split("\t")[0]: line.split("\t") for line in lines}
    assert "detach" in rows and len(rows["detach"]) == 5
    assert rows["detach"][4] == "built-in"
    assert rows["detach"][3] in ("in", "out", "unknown")


def test_list_in_chinese_uses_chinese_titles() -> None:
    english = invoke("list").output
    chinese = invoke("--lang", "zh", "list").output
    assert english != chinese
    assert any("\u4e00" <= ch <= "\u9fff" for ch in chinese)


def test_list_json_and_tag_filter() -> None:
    data = json.loads(invoke("list", "--json").stdout)
    assert {"id", "title", "tags", "torch", "source", "torch_holds"} <= set(data[0])
    tag = data[0]["tags"][0]
    tagged = json.loads(invoke("list", "--tag", tag, "--json").stdout)
    assert tagged and all(tag in r["tags"] for r in tagged)
    assert invoke("list", "--tag", "no-such-tag").exit_code == 1


def _groups_on_a_terminal(output: str, headings: dict[str, str], ids: set[str]) -> dict:
    """Theme id -> the recipe ids listed under its heading, read off a terminal listing."""
    groups: dict[str, list[str]] = {}
    current = None
    for line in output.splitlines():
        if line.strip() in headings:
            current = headings[line.strip()]
            groups[current] = []
        elif line.split(" ", 1)[0] in ids:
            assert current is not None, f"{line!r} comes before any theme heading"
            groups[current].append(line.split(" ", 1)[0])
    return groups


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_list_on_a_terminal_groups_by_theme_with_counts(monkeypatch, lang: str) -> None:
    from pitfalls.catalogue.model import THEMES
    from pitfalls.catalogue.registry import Registry
    from pitfalls.cli import browse
    from pitfalls.i18n import t

    monkeypatch.setattr(browse, "plain_output", lambda: False)
    recipes = list(Registry.load())
    expected = {
        theme: [r.id for r in recipes if r.theme == theme]
        for theme in THEMES
        if any(r.theme == theme for r in recipes)
    }
    headings = {
        t("list.theme_heading", lang, theme=t(f"theme.{theme}", lang), n=len(members)): theme
        for theme, members in expected.items()
    }
    result = invoke("--lang", lang, "list")
    assert result.exit_code == 0
    groups = _groups_on_a_terminal(result.stdout, headings, {r.id for r in recipes})
    assert groups == expected
    assert list(groups) == [theme for theme in THEMES if theme in expected]  # THEMES order


def test_list_theme_filters_and_a_bad_theme_is_a_usage_error(monkeypatch) -> None:
    from pitfalls.catalogue.model import THEMES
    from pitfalls.catalogue.registry import Registry

    autograd = [r.id for r in Registry.load() if r.theme == "autograd"]
    assert autograd  # the filter below must have something to keep
    piped = invoke("list", "--theme", "autograd").stdout.strip().splitlines()
    assert [line.split("\t")[0] for line in piped] == autograd
    assert all(len(line.split("\t")) == 5 for line in piped)  # the piped columns as before
    data = json.loads(invoke("list", "--theme", "autograd", "--json").stdout)
    assert [r["id"] for r in data] == autograd and {r["theme"] for r in data} == {"autograd"}
    bad = invoke("list", "--theme", "autograds")
    assert bad.exit_code == 2
    assert len(bad.stderr.strip().splitlines()) == 1
    assert "autograds" in bad.stderr and all(theme in bad.stderr for theme in THEMES)
    assert "没有名为" in invoke("--lang", "zh", "list", "--theme", "x").stderr


def test_list_theme_without_recipes_exits_1(monkeypatch) -> None:
    from pitfalls.cli import browse

    class OneTheme:
        def with_tag(self, tag):
            from pitfalls.catalogue.registry import Registry

            return [r for r in Registry.load() if r.theme == "autograd"]

    monkeypatch.setattr(browse, "registry", lambda: OneTheme())
    result = invoke("list", "--theme", "memory")
    assert result.exit_code == 1 and "memory" in result.stderr


@pytest.mark.parametrize(("lang", "label"), [("en", "theme"), ("zh", "主题")])
def test_show_names_the_theme(lang: str, label: str) -> None:
    from pitfalls.catalogue.registry import Registry
    from pitfalls.i18n import t

    recipe = Registry.load().resolve("detach")
    assert recipe.theme
    result = invoke("show", "detach", "--lang", lang)
    assert f"**{label}**: {t(f'theme.{recipe.theme}', lang)}" in result.stdout


def test_show_renders_prose_and_snippet() -> None:
    result = invoke("show", "detach")
    assert result.exit_code == 0
    assert "## Symptom" in result.output and "def problem(" in result.output


def test_show_in_chinese_and_by_alias() -> None:
    result = invoke("show", "detach-vs-data", "--lang", "zh")
    assert result.exit_code == 0 and "## 现象" in result.output


def test_show_code_is_exactly_the_snippet() -> None:
    from pitfalls.catalogue.registry import Registry

    result = invoke("show", "focal-loss", "--code")
    assert result.stdout == Registry.load().resolve("focal-loss").snippet()


def test_show_json_carries_prose_and_snippet() -> None:
    data = json.loads(invoke("show", "narrow", "--json").stdout)
    assert data["id"] == "narrow" and data["prose"]["zh"] and "def fix(" in data["snippet"]


def test_show_falls_back_with_a_notice() -> None:
    from conftest import MALFORMED

    result = runner.invoke(
        app, ["show", "m-only-en", "--lang", "zh"], env={"PITFALLS_PATH": str(MALFORMED)}
    )
    assert result.exit_code == 0
    assert "## Symptom" in result.stdout
    assert "英文" in result.stderr


def test_unknown_recipe_suggests() -> None:
    result = invoke("show", "detatch")
    assert result.exit_code == 2
    assert "Did you mean: detach" in result.output


def test_ambiguous_prefix_lists_candidates() -> None:
    result = invoke("show", "dataloader")
    assert result.exit_code == 2
    assert "dataloader-len" in result.output and "dataloader-worker-killed" in result.output


def test_errors_follow_the_language() -> None:
    result = invoke("--lang", "zh", "show", "detatch")
    assert result.exit_code == 2 and "没有名为" in result.output


def test_bad_language_is_a_usage_error() -> None:
    assert invoke("--lang", "fr", "list").exit_code == 2


def test_search_finds_by_chinese_and_by_pasted_error() -> None:
    result = invoke("search", "验证集结果每次都不一样")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0].split("\t")[0] == "train-eval"
    pasted = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/train.py", line 42, in <module>\n'
        "RuntimeError: DataLoader worker (pid 4242) is killed by signal: Killed.\n"
    )
    result = runner.invoke(app, ["search", "-"], input=pasted)
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0].split("\t")[0] == "dataloader-worker-killed"
    other_pid = pasted.replace("4242", "99")
    again = runner.invoke(app, ["search", "-"], input=other_pid)
    assert again.stdout == result.stdout  # pids do not change the ranking


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (
            "one of the variables needed for gradient computation has been modified by an "
            "inplace operation",
            "inplace-autograd",
        ),
        ("loss is nan focal", "focal-loss"),
        ("scatter_ one_hot index", "scatter-one-hot"),
        ("register_buffer state_dict", "parameter-vs-buffer"),
    ],
)
def test_search_ranks_the_right_recipe_first(query: str, expected: str) -> None:
    result = invoke("search", *query.split())
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0].split("\t")[0] == expected


def test_search_without_match_exits_1() -> None:
    result = invoke("search", "zzzqqq")
    assert result.exit_code == 1


def test_search_that_is_not_confident_says_so_on_stderr_only() -> None:
    result = invoke("search", "how", "do", "I", "install", "pytorch", "on", "windows")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "no recipe explains this yet" in result.stderr
    data = json.loads(invoke("search", "how to install pytorch on windows", "--json").stdout)
    assert data and not any(hit["confident"] for hit in data)


def test_search_json() -> None:
    data = json.loads(invoke("search", "clamp", "--json").stdout)
    assert data[0]["id"] == "focal-loss" and data[0]["score"] > 0


def test_doctor_json_reports_recipes_and_problems() -> None:
    from conftest import MALFORMED

    result = runner.invoke(app, ["doctor", "--json"], env={"PITFALLS_PATH": str(MALFORMED)})
    data = json.loads(result.stdout)
    assert data["recipes"] >= 9
    paths = " ".join(p["path"] for p in data["problems"])
    assert "m-bad-toml" in paths
    assert result.exit_code == 1


def test_doctor_flags_a_snippet_without_fix() -> None:
    result = runner.invoke(app, ["doctor", "--json"], env={"PITFALLS_PATH": str(ROBUST)})
    data = json.loads(result.stdout)
    reasons = [p["reason"] for p in data["problems"] if "t-no-fix" in p["path"]]
    assert reasons == ["snippet.py defines no fix(device)"]


@needs_torch
def test_run_json_is_strict_and_complete() -> None:
    result = run_cli("run", "focal-loss", "--device", "cpu", "--json")
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "NaN" not in text and "Infinity" not in text
    data = json.loads(text)
    for key in (
        "schema_version",
        "id",
        "device",
        "environment",
        "problem",
        "fix",
        "expectations",
        "reproduced",
        "fixed",
    ):
        assert key in data
    assert data["reproduced"] is True and data["fixed"] is True
    assert {"python", "torch", "numpy", "cuda", "device_name"} <= set(data["environment"])
    assert all("holds" in e for e in data["expectations"])


@needs_torch
def test_run_prints_both_sides_and_the_verdict() -> None:
    result = run_cli("run", "detach", "--device", "cpu")
    assert result.returncode == 0, result.stderr
    assert "✓" in result.stdout and "reproduced\tyes" in result.stdout


@needs_torch
def test_run_a_failing_claim_exits_1() -> None:
    result = run_cli("run", "t-claim-fails", "--device", "cpu", env={"PITFALLS_PATH": str(ROBUST)})
    assert result.returncode == 1
    assert "✗" in result.stdout


def test_entry_point_help_in_a_subprocess() -> None:
    result = run_cli("--help")
    assert result.returncode == 0 and "Exit codes" in result.stdout
