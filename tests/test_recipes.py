"""The built-in catalogue, recipe by recipe: each claim holds on CPU, each snippet runs on its
own, and English and Chinese carry the same sections and the same code."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time

import pytest

from conftest import listening_socket_owners, marked_processes, needs_torch, run_cli, shm_files
from pitfalls.authoring.prose import code_blocks, is_excerpt, parse
from pitfalls.catalogue.model import SECTIONS
from pitfalls.catalogue.registry import Registry, Source, builtin_dir

CATALOGUE = Registry.load([Source(builtin_dir(), "built-in")])
IDS = sorted(CATALOGUE.recipes)


@pytest.fixture(scope="module")
def verified() -> dict[str, dict]:
    """One real `pitfalls verify --device cpu --json` over the whole catalogue: torch is
    imported once, as a user's verify does. Afterwards nothing it started may be left: no
    process, no file in /dev/shm, no listening socket."""
    marker = f"pitfalls-catalogue-{os.getpid()}"
    shm_before = shm_files()
    sockets_before = set(listening_socket_owners())
    result = run_cli(
        "verify", "--device", "cpu", "--json", env={"PITFALLS_TEST_MARKER": marker}, timeout=1800
    )
    assert result.stdout.strip(), result.stderr[-3000:]
    runs = {run["id"]: run for run in json.loads(result.stdout)}
    leftovers = marked_processes(marker)
    deadline = time.monotonic() + 5
    while leftovers and time.monotonic() < deadline:
        time.sleep(0.1)
        leftovers = marked_processes(marker)
    assert leftovers == [], "verify left processes behind"
    new_shm = {name for name in shm_files() - shm_before if name.startswith(("torch", "__KMP"))}
    assert new_shm == set(), f"verify left files in /dev/shm: {sorted(new_shm)}"
    marked = set(marked_processes(marker))
    new_sockets = {
        inode: pids
        for inode, pids in listening_socket_owners().items()
        if inode not in sockets_before and (not pids or marked & set(pids))
    }
    assert new_sockets == {}, "verify left listening sockets open"
    return runs


@needs_torch
@pytest.mark.parametrize("recipe_id", IDS)
def test_recipe_reproduces_and_fixes_on_cpu(verified: dict[str, dict], recipe_id: str) -> None:
    run = verified[recipe_id]
    recipe = CATALOGUE.resolve(recipe_id)
    if "cpu" not in recipe.devices:
        assert run["status"] == "skipped", "a recipe without a CPU side must be skipped"
        return
    missing = [m for m in recipe.requires if importlib.util.find_spec(m) is None]
    if missing:
        # A module the snippet needs is not installed here: verify must say so and skip it
        # (CI runs such recipes in an environment that has them, see .ci/run).
        assert run["status"] == "skipped" and missing[0] in (run.get("skipped") or ""), run
        pytest.skip(f"needs {', '.join(missing)}")
    assert run.get("error") is None, run.get("error")
    failed = [e["description"] for e in run["expectations"] if e["applies"] and not e["holds"]]
    assert failed == []
    assert run["reproduced"] and run["fixed"]
    assert run["status"] == "held"
    assert run["torch_in_range"] is not False
    unproven = [e["text"] for e in run["errors"] if e["status"] == "failed"]
    assert unproven == [], "errors entries that the run contradicted"


@needs_torch
@pytest.mark.parametrize("recipe_id", IDS)
def test_claims_tell_problem_from_fix_on_cpu(verified: dict[str, dict], recipe_id: str) -> None:
    """verify's discrimination check (pitfalls.runner.discriminate): no claim that also holds on the
    other side's observation, no side without a claim that the other side fails."""
    run = verified[recipe_id]
    found = [f"{f['side']}: {f['message']}" for f in run.get("findings", [])]
    assert found == []


@pytest.fixture(scope="module")
def standalone() -> dict[str, subprocess.CompletedProcess[str]]:
    """Every snippet run as `python snippet.py`, as a reader runs it: a fresh interpreter each,
    as many at once as there are cores."""
    from concurrent.futures import ThreadPoolExecutor

    def run(recipe_id: str) -> subprocess.CompletedProcess[str]:
        snippet = CATALOGUE.resolve(recipe_id).snippet_path
        return subprocess.run(
            [sys.executable, str(snippet)], capture_output=True, text=True, timeout=300
        )

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return dict(zip(IDS, pool.map(run, IDS)))


@needs_torch
@pytest.mark.parametrize("recipe_id", IDS)
def test_snippet_runs_standalone(standalone, recipe_id: str) -> None:
    result = standalone[recipe_id]
    missing = [
        m for m in CATALOGUE.resolve(recipe_id).requires if importlib.util.find_spec(m) is None
    ]
    if missing:
        # Without the module the snippet must fail on that import, and nothing else.
        assert f"No module named '{missing[0]}'" in result.stderr, result.stderr[-2000:]
        pytest.skip(f"needs {', '.join(missing)}")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "problem:" in result.stdout and "fix:" in result.stdout


@pytest.mark.parametrize("recipe_id", IDS)
def test_languages_have_the_same_sections_and_code(recipe_id: str) -> None:
    recipe = CATALOGUE.resolve(recipe_id)
    english, chinese = recipe.prose("en"), recipe.prose("zh")
    assert english and chinese, "both languages are required for built-in recipes"
    en_headings = [h.text for h in parse(english)[0] if h.level == 2]
    zh_headings = [h.text for h in parse(chinese)[0] if h.level == 2]
    assert en_headings == list(SECTIONS["en"])
    assert zh_headings == list(SECTIONS["zh"])
    en_code = [(b.info, b.body) for b in code_blocks(english)]
    zh_code = [(b.info, b.body) for b in code_blocks(chinese)]
    assert en_code == zh_code
    source = recipe.snippet()
    for info, body in en_code:
        if info == "python":
            assert is_excerpt(body, source), body


@pytest.mark.parametrize("recipe_id", IDS)
def test_recipe_metadata_is_complete(recipe_id: str) -> None:
    recipe = CATALOGUE.resolve(recipe_id)
    assert recipe.title.get("en") and recipe.title.get("zh")
    assert recipe.summary.get("en") and recipe.summary.get("zh")
    assert recipe.torch and recipe.references and recipe.tags
    assert all(ref.startswith("https://") for ref in recipe.references)
    assert recipe.theme, "every built-in recipe has a theme"
    sides = {e.side for e in recipe.expectations if not e.is_invariant}
    assert sides == {"problem", "fix"}, "each side needs a claim; an invariant is not one"
