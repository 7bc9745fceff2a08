"""The record of torch versions each claim was run on (recipes/checked.json): it agrees with
the declared ranges, the reader sees it, and tools/torch-matrix writes it without touching the
machine's pip or uv settings. No test here installs a torch: CI never runs the matrix."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import shutil
import stat
import sys
from pathlib import Path
from types import ModuleType

import pytest

from conftest import FIXTURES, REPO, run_cli
from pitfalls.catalogue.checked import (
    STATUSES,
    disagreements,
    load_record,
    record_path,
    revision,
    summarise,
    summary,
    summary_line,
)
from pitfalls.catalogue.loader import load_recipe
from pitfalls.catalogue.registry import Registry, Source, builtin_dir

CATALOGUE = Registry.load([Source(builtin_dir(), "built-in")], packs=False)
RECORD = load_record(record_path(builtin_dir()))
TOOL = REPO / "tools" / "torch-matrix"
TUI_RECIPES = FIXTURES / "tui_recipes"


# -- the shipped record ---------------------------------------------------------------------


def test_record_agrees_with_the_declared_ranges() -> None:
    """No row of a recipe's current revision, inside its torch range and NumPy/Python gates,
    says the claim failed or the snippet failed to run. Fix the range, gate the expectation
    on the version, or fix the snippet; then run tools/torch-matrix again."""
    found = []
    for recipe in CATALOGUE:
        rows = RECORD["recipes"].get(recipe.id)
        if not rows:
            continue
        for row in disagreements(recipe, rows, revision(recipe)):
            found.append(
                f"{recipe.id} (torch {recipe.torch!r}): {row['status']} on torch {row['torch']} "
                f"({row['device']}): {row.get('failed') or row.get('error')}"
            )
    assert found == []


def test_record_is_well_formed() -> None:
    assert RECORD.get("schema") == 1
    for recipe_id, rows in RECORD["recipes"].items():
        assert recipe_id in CATALOGUE.recipes, f"rows of {recipe_id!r}, not in the catalogue"
        keys = set()
        for row in rows:
            assert row["status"] in STATUSES, row
            names = ("torch", "device", "revision", "date")
            if row["status"] != "skipped":  # a recipe skipped for its devices saw no Python
                names += ("python", "platform")
            for name in names:
                assert isinstance(row.get(name), str) and row[name], (recipe_id, name, row)
            key = (row["device"], row.get("device_name"), row["torch"])
            assert key not in keys, f"{recipe_id}: two rows for {key}"
            keys.add(key)


def test_one_recipes_rows_parse_alone_as_in_the_whole_record() -> None:
    """`show` parses only its recipe's lines of the record: the same rows as a full parse."""
    from pitfalls.catalogue.checked import _rows_of_one

    path = record_path(builtin_dir())
    if not path.is_file():
        pytest.skip("no record yet")
    for recipe_id, rows in RECORD["recipes"].items():
        assert _rows_of_one(path, recipe_id) == rows, recipe_id
    assert _rows_of_one(path, "no-such-recipe") == []


def test_record_ships_in_the_wheel() -> None:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert '"checked.json"' in text


# -- revisions and summaries ----------------------------------------------------------------


def _copy_fixture(tmp_path: Path, name: str = "half-overflow") -> Path:
    folder = tmp_path / "recipes" / name
    shutil.copytree(TUI_RECIPES / name, folder)
    return folder


def test_revision_follows_the_snippet_and_expectations_only(tmp_path: Path) -> None:
    folder = _copy_fixture(tmp_path)
    before = revision(load_recipe(folder))
    toml = folder / "recipe.toml"
    text = toml.read_text(encoding="utf-8")
    # Titles, prose and the torch range are not what ran: they leave the revision alone.
    toml.write_text(text.replace('torch = ">=1.13"', 'torch = ">=2.0"'), encoding="utf-8")
    (folder / "en.md").write_text("changed", encoding="utf-8")
    assert revision(load_recipe(folder)) == before
    toml.write_text(text.replace("equals = false", "equals = true", 1), encoding="utf-8")
    assert revision(load_recipe(folder)) != before
    toml.write_text(text, encoding="utf-8")
    (folder / "snippet.py").write_text("# edited\n" + (folder / "snippet.py").read_text())
    assert revision(load_recipe(folder)) != before


def _row(version: str, status: str = "held", rev: str = "r1", **extra: str) -> dict:
    return {"torch": version, "device": "cpu", "device_name": "x86_64", "status": status,
            "revision": rev, "date": "2026-12-01", "python": "3.11.7", **extra}  # fmt: skip


def test_summary_line_in_both_languages() -> None:
    rows = [_row(v) for v in ("1.13.1", "2.0.1", "2.6.0")]
    rows.append(_row("2.13.0", device="cuda", device_name="NVIDIA H200"))
    data = summarise(rows, "r1", ("cpu", "cuda"), "2.6.0+cpu")
    assert summary_line(data, "en") == (
        "Checked on torch 1.13.1–2.6.0 (CPU, 3 versions), 2.13.0 (CUDA, H200)."
    )
    assert (
        summary_line(data, "zh")
        == "已在 torch 1.13.1–2.6.0（CPU，3 个版本），2.13.0（CUDA，H200）上检验。"
    )


def test_summary_says_where_the_claim_stops_holding_and_what_is_missing() -> None:
    rows = [_row("1.13.1", "claim_failed"), _row("2.0.1"), _row("2.6.0"), _row("2.7.1", rev="r0")]
    data = summarise(rows, "r1", ("cpu", "cuda"), "2.15.0")
    line = summary_line(data, "en")
    assert line.startswith("Checked on torch 2.0.1–2.6.0 (CPU, 2 versions)")
    assert "the claim does not hold on 1.13.1 (CPU)" in line
    assert "1 more rows recorded for an earlier revision" in line
    assert "not yet checked on a GPU" in line
    assert "your torch 2.15.0 is outside every checked version" in line
    inside = summarise(rows, "r1", ("cpu",), "2.4.0")
    assert "outside" not in summary_line(inside, "en") and not inside["gpu_missing"]


def test_summary_of_an_earlier_revision_claims_nothing() -> None:
    data = summarise([_row("2.0.1", rev="old")], "new", ("cpu",), None)
    assert data["state"] == "stale" and data["groups"] == []
    assert summary_line(data, "en") == (
        "Checked on torch 2.0.1 (CPU), but recorded for an earlier revision of this recipe."
    )
    assert summary_line(summarise([], "new", ("cpu",), None), "en") == (
        "Not yet checked across torch versions."
    )
    assert summary_line(summarise(None, "new", ("cpu",), None), "en") == ""


def test_disagreements_respect_the_range_and_gates(tmp_path: Path) -> None:
    recipe = load_recipe(_copy_fixture(tmp_path))  # torch >= 1.13
    rows = [
        _row("1.12.1", "claim_failed"),
        _row("2.0.1", "error"),
        _row("2.1.2", "claim_failed", rev="x"),
    ]
    assert [r["torch"] for r in disagreements(recipe, rows, "r1")] == ["2.0.1"]


# -- what the reader sees -------------------------------------------------------------------


def _recorded_folder(tmp_path: Path, rows: list[dict]) -> Path:
    folder = _copy_fixture(tmp_path)
    current = revision(load_recipe(folder))
    for row in rows:
        row["revision"] = current if row["revision"] == "r1" else row["revision"]
    record = {"schema": 1, "recipes": {"half-overflow": rows}}
    record_path(folder.parent).write_text(json.dumps(record), encoding="utf-8")
    return folder.parent


def test_show_prints_the_line_under_the_title(tmp_path: Path) -> None:
    path = _recorded_folder(tmp_path, [_row("1.13.1"), _row("2.15.0")])
    for lang, wanted in (("en", "Checked on torch 1.13.1–2.15.0 (CPU, 2 versions)"),
                         ("zh", "已在 torch 1.13.1–2.15.0（CPU，2 个版本）上检验")):  # fmt: skip
        result = run_cli("show", "half-overflow", "--lang", lang, env={"PITFALLS_PATH": str(path)})
        assert result.returncode == 0, result.stderr
        lines = result.stdout.splitlines()
        assert lines[0].startswith("# ") and lines[2].startswith(wanted), lines[:3]


def test_show_and_list_json_carry_the_record(tmp_path: Path) -> None:
    path = _recorded_folder(tmp_path, [_row("2.0.1"), _row("2.1.2", "claim_failed")])
    env = {"PITFALLS_PATH": str(path)}
    shown = json.loads(run_cli("show", "half-overflow", "--json", env=env).stdout)
    assert shown["checked"]["state"] == "current"
    assert [r["torch"] for r in shown["checked"]["rows"]] == ["2.0.1", "2.1.2"]
    assert "does not hold on 2.1.2" in shown["checked"]["text"]
    listed = json.loads(run_cli("list", "--json", env=env).stdout)
    entry = next(r for r in listed if r["id"] == "half-overflow")
    assert entry["checked"]["groups"][0]["held"] == [["2.0.1", "2.0.1"]]
    assert "rows" not in entry["checked"]


def test_the_page_cache_follows_the_record(tmp_path: Path, monkeypatch) -> None:
    """A rendered page is cached by file signatures: the record must be one of them."""
    from pitfalls.cli.browse import rendered_page
    from pitfalls.render.page import page_markdown

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = _recorded_folder(tmp_path, [_row("2.0.1")])
    recipe = load_recipe(path / "half-overflow")
    first = rendered_page(recipe, "en", page_markdown(recipe, "en", "prose"))
    assert "2.0.1 (CPU)" in first
    record = record_path(path)
    data = json.loads(record.read_text())
    data["recipes"]["half-overflow"].append(
        {**data["recipes"]["half-overflow"][0], "torch": "2.6.0"}
    )
    record.write_text(json.dumps(data))
    os.utime(record, ns=(1, 1))  # a different mtime even on coarse clocks
    second = rendered_page(recipe, "en", page_markdown(recipe, "en", "prose"))
    assert "2.0.1–2.6.0 (CPU, 2 versions)" in second


def test_summary_reads_torch_version_without_importing_it(tmp_path: Path) -> None:
    code = (
        "import sys\nfrom pitfalls.catalogue.checked import installed_torch\n"
        "print(installed_torch())\n"
        "assert 'torch' not in sys.modules\n"
    )
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    from importlib import metadata

    try:
        expected = metadata.version("torch")
    except metadata.PackageNotFoundError:
        expected = None
    assert out.stdout.strip() == str(expected)


def test_tui_info_shows_the_record() -> None:
    from rich.console import Console

    from pitfalls.tui.widgets.info_view import info_renderable

    recipe = Registry.load([Source(TUI_RECIPES, "fixtures")]).resolve("half-overflow")
    console = Console(width=200, record=True)
    console.print(info_renderable(recipe, "en"))
    text = console.export_text()
    assert "Checked on torch" in text and "not yet checked on a GPU" in text
    assert summary(recipe)["state"] == "current", "regenerate the fixture record (see below)"


# -- tools/torch-matrix ---------------------------------------------------------------------


def load_tool() -> ModuleType:
    """tools/torch-matrix as a module (it has no .py suffix: it is a command)."""
    if "torch_matrix" in sys.modules:
        return sys.modules["torch_matrix"]
    loader = importlib.machinery.SourceFileLoader("torch_matrix", str(TOOL))
    spec = importlib.util.spec_from_loader("torch_matrix", loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules["torch_matrix"] = module  # dataclasses look their module up there
    loader.exec_module(module)
    return module


def test_versions_file_lists_every_minor_release_from_1_13() -> None:
    tool = load_tool()
    specs = tool.read_versions()
    versions = [s.version for s in specs]
    assert versions[0] == "1.13.1" and len(versions) >= 12
    assert versions == sorted(versions, key=tool.version_key)
    assert specs[0].python == "3.10"  # torch 1.13 has no wheels for 3.11
    assert specs[0].numpy_requirement() == "numpy<2"
    assert [s for s in specs if s.version == "2.3.1"][0].numpy_requirement() == "numpy"


def _fake_uv(tmp_path: Path, torch: str) -> Path:
    """A uv that logs its arguments and environment, and makes an env whose python reports
    `torch` installed."""
    log = tmp_path / "uv-calls.jsonl"
    script = tmp_path / "uv"
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys, pathlib\n"
        f"log = pathlib.Path({str(log)!r})\n"
        "with log.open('a') as f:\n"
        "    f.write(json.dumps({'argv': sys.argv[1:], 'env': dict(os.environ)}) + '\\n')\n"
        "if sys.argv[1] == 'venv':\n"
        "    bin = pathlib.Path(sys.argv[-1]) / 'bin'\n"
        "    bin.mkdir(parents=True, exist_ok=True)\n"
        "    python = bin / 'python'\n"
        f'    python.write_text(\'#!/bin/sh\\necho \\\'{{"torch": "{torch}", '
        '"numpy": "1.26.4", "python": "3.10.13"}\\\'\\n\')\n'
        "    python.chmod(0o755)\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def _args(tool: ModuleType, tmp_path: Path, **extra):
    import argparse

    values = {"work": tmp_path / "work", "keep": False, "min_free_gb": 0.0, "index_url": None,
              "python_for": {"3.10": sys.executable, "3.11": sys.executable}, **extra}  # fmt: skip
    args = argparse.Namespace(**values)
    for sub in ("envs", "cache", "logs", "constraints"):
        (args.work / sub).mkdir(parents=True, exist_ok=True)
    return args


def test_install_uses_its_own_constraints_not_the_machines(tmp_path: Path, monkeypatch) -> None:
    tool = load_tool()
    monkeypatch.setenv("PIP_CONSTRAINT", "/etc/xdg/pip/constraints.txt")
    monkeypatch.setenv("UV_CONSTRAINT", "/etc/xdg/pip/constraints.txt")
    monkeypatch.setenv("UV_INDEX_URL", "https://example.invalid/simple")
    uv = _fake_uv(tmp_path, "1.13.1")
    args = _args(tool, tmp_path)
    env = tool.prepare(tool.VersionSpec("1.13.1", python="3.10"), args, str(uv))
    assert env.error == "" and env.versions["torch"] == "1.13.1"
    calls = [json.loads(line) for line in (tmp_path / "uv-calls.jsonl").read_text().splitlines()]
    install = next(c for c in calls if c["argv"][:2] == ["pip", "install"])
    assert "--no-config" in install["argv"] and "torch==1.13.1" in install["argv"]
    constraints = Path(install["argv"][install["argv"].index("--constraint") + 1])
    assert constraints.read_text().split() == ["torch==1.13.1", "numpy<2"]
    for call in calls:
        assert not {k for k in call["env"] if k.startswith(("PIP_", "UV_CONSTRAINT", "UV_INDEX"))}
        assert call["env"]["UV_CACHE_DIR"] == str(args.work / "cache" / "torch-1.13.1")


def test_install_that_got_another_torch_is_a_failure(tmp_path: Path) -> None:
    tool = load_tool()
    env = tool.prepare(
        tool.VersionSpec("2.15.0"), _args(tool, tmp_path), str(_fake_uv(tmp_path, "2.14.1"))
    )
    assert "asked for torch 2.15.0" in env.error and "capped" in env.error


def test_low_disk_space_stops_before_installing(tmp_path: Path) -> None:
    tool = load_tool()
    args = _args(tool, tmp_path, min_free_gb=1e12)
    with pytest.raises(tool.Stop, match="GB free"):
        tool.prepare(tool.VersionSpec("2.6.0"), args, str(_fake_uv(tmp_path, "2.6.0")))
    assert not (tmp_path / "uv-calls.jsonl").exists()


def _verify_json(
    recipe_id: str, rev: str, status: str = "held", torch: str = "2.13.0+cu130"
) -> dict:
    return {
        "id": recipe_id, "status": status, "device": "cuda:0", "revision": rev,
        "environment": {"torch": torch, "python": "3.12.3", "numpy": "2.3.5",
                        "platform": "Linux-6.8-x86_64", "device_name": "NVIDIA H200"},
        "expectations": [{"side": "fix", "description": "is_finite == true", "applies": True,
                          "holds": status == "held", "actual": False}],
        "reproduced": True, "fixed": status == "held",
    }  # fmt: skip


def test_import_records_a_gpu_run_as_rows_of_its_own(tmp_path: Path) -> None:
    recipe = load_recipe(_copy_fixture(tmp_path))  # the record's folder is the catalogue
    record = record_path(recipe.path.parent)
    results = [_verify_json("half-overflow", revision(recipe)), _verify_json("no-such", "x")]
    (tmp_path / "gpu.json").write_text(json.dumps(results))
    cli = [sys.executable, str(TOOL), "--record", str(record), "import", str(tmp_path / "gpu.json")]
    import subprocess

    out = subprocess.run([*cli, "--device-name", "H200"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "no-such" in out.stdout
    rows = json.loads(record.read_text())["recipes"]["half-overflow"]
    assert rows == [
        {
            "torch": "2.13.0", "device": "cuda", "device_name": "H200", "status": "held",
            "revision": revision(recipe), "date": rows[0]["date"], "python": "3.12.3",
            "numpy": "2.3.5", "platform": "Linux-6.8-x86_64", "torch_build": "2.13.0+cu130",
            "source": "import",
        }
    ]  # fmt: skip
    # Importing again replaces the row of the same version and device; a failed claim says
    # which expectation and what it saw.
    results = [_verify_json("half-overflow", revision(recipe), "claim_failed")]
    (tmp_path / "gpu.json").write_text(json.dumps(results))
    out = subprocess.run([*cli, "--device-name", "H200"], capture_output=True, text=True)
    rows = json.loads(record.read_text())["recipes"]["half-overflow"]
    assert len(rows) == 1 and rows[0]["status"] == "claim_failed"
    assert rows[0]["failed"] == [
        {"side": "fix", "expectation": "is_finite == true", "actual": False}
    ]
    # The tool writes one row a line, so that a new run reads as a small diff.
    assert record.read_text().count("\n") == 9


def test_resume_skips_what_is_recorded_for_the_current_revision() -> None:
    tool = load_tool()
    record = {
        "schema": 1,
        "recipes": {"a": [_row("2.6.0", rev="A")], "b": [_row("2.6.0", rev="old")]},
    }
    assert tool.needed("2.6.0", ["a", "b", "c"], {"a": "A", "b": "B", "c": "C"}, record, False) == [
        "b",
        "c",
    ]
    assert tool.needed("2.7.1", ["a"], {"a": "A"}, record, False) == ["a"]
    assert tool.needed("2.6.0", ["a"], {"a": "A"}, record, True) == ["a"]
