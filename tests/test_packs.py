"""Installable recipe packs: found through entry points, listed without importing their code,
reported when broken, and never allowed to override a built-in.

Packs are put on a temporary path with their own `*.dist-info/entry_points.txt`; nothing is
pip-installed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pitfalls.catalogue.registry import Registry, Source, builtin_dir

PACKS = Path(__file__).resolve().parent / "fixtures" / "packs"
EXAMPLE = PACKS / "pitfalls_examplepack" / "recipes" / "example-clamp"


def pitfalls(*args: str, path: list[Path], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the real CLI with `path` prepended to PYTHONPATH, in English, output piped."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, path)), "LANG": "en_US.UTF-8"}
    for name in ("PITFALLS_PATH", "PITFALLS_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        env.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "pitfalls", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=300,
        cwd=cwd,
    )


def make_pack(root: Path, name: str, recipes: dict[str, dict[str, str]] | None = None) -> Path:
    """A pack `name` under `root`: dist-info with an entry point to `name.recipes`, and (unless
    `recipes` is None, which makes the pack broken) that package with the given recipes,
    each a copy of the example recipe with its recipe.toml lines replaced."""
    dist = root / f"{name}-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(f"[pitfalls.recipes]\n{name} = {name}.recipes\n")
    if recipes is None:
        return root
    package = root / name / "recipes"
    package.mkdir(parents=True)
    (root / name / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    for folder, replacements in recipes.items():
        shutil.copytree(EXAMPLE, package / folder)
        toml = package / folder / "recipe.toml"
        text = toml.read_text(encoding="utf-8")
        for old, new in replacements.items():
            text = text.replace(old, new)
        toml.write_text(text, encoding="utf-8")
    return root


def builtin_id_and_alias() -> tuple[str, str]:
    catalogue = Registry.load([Source(builtin_dir(), "built-in")])
    with_alias = [r for r in catalogue if r.aliases]
    if not with_alias:
        pytest.skip("no built-in recipe with an alias to clash with")
    return with_alias[0].id, with_alias[0].aliases[0]


def test_pack_recipes_are_listed_with_the_pack_as_source(tmp_path: Path) -> None:
    done = pitfalls("list", path=[PACKS], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    row = next(r for r in rows if r[0] == "example-clamp")
    assert row[-1] == "pack:example"
    assert all(r[-1] == "built-in" for r in rows if r[0] != "example-clamp")


def test_packs_are_listed_without_importing_their_code(tmp_path: Path) -> None:
    probe = (
        "import os, sys\n"
        "from pitfalls.catalogue.registry import Registry\n"
        "registry = Registry.load()\n"
        "print(registry.resolve('example-clamp').source)\n"
        "print(sorted(m for m in ('torch', 'pitfalls_examplepack') if m in sys.modules))\n"
        "print(os.environ.get('PITFALLS_EXAMPLEPACK_IMPORTED', 'not imported'))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(PACKS)}
    env.pop("PITFALLS_EXAMPLEPACK_IMPORTED", None)
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["pack:example", "[]", "not imported"]


def test_the_example_pack_passes_lint(tmp_path: Path) -> None:
    done = pitfalls("lint", str(EXAMPLE.parent), path=[PACKS], cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_broken_pack_is_reported_and_the_others_still_load(tmp_path: Path) -> None:
    broken = make_pack(tmp_path / "site", "pitfalls_brokenpack", recipes=None)
    listed = pitfalls("list", path=[broken, PACKS], cwd=tmp_path)
    assert listed.returncode == 0
    assert "pitfalls_brokenpack" in listed.stderr
    assert "Traceback" not in listed.stderr
    assert "example-clamp" in listed.stdout
    doctor = pitfalls("doctor", "--json", path=[broken, PACKS], cwd=tmp_path)
    assert doctor.returncode == 1, doctor.stderr
    problems = json.loads(doctor.stdout)["problems"]
    assert any("pitfalls_brokenpack" in p["reason"] and p["severity"] == "error" for p in problems)


def test_a_pack_cannot_take_a_built_in_id_or_alias(tmp_path: Path) -> None:
    taken_id, taken_alias = builtin_id_and_alias()
    site = make_pack(
        tmp_path / "site",
        "pitfalls_clashpack",
        {
            "same-id": {'id = "example-clamp"': f'id = "{taken_id}"'},
            "own-id": {
                'id = "example-clamp"': 'id = "clashpack-own-id"',
                '"example-clamp-alias"': f'"{taken_alias}", "clashpack-alias"',
            },
        },
    )
    listed = pitfalls("list", path=[site], cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    rows = {r.split("\t")[0]: r.split("\t")[-1] for r in listed.stdout.splitlines()}
    assert rows[taken_id] == "built-in"  # the id clash is an error for the pack's recipe
    assert f"id {taken_id!r} is already taken" in listed.stderr
    assert rows["clashpack-own-id"] == "pack:pitfalls_clashpack"  # an alias clash only warns
    assert "warning: " in listed.stderr and repr(taken_alias) in listed.stderr
    shown = pitfalls("show", taken_alias, "--json", path=[site], cwd=tmp_path)
    assert json.loads(shown.stdout)["id"] == taken_id  # the built-in keeps its alias
    assert pitfalls("show", "clashpack-alias", "--json", path=[site], cwd=tmp_path).returncode == 0
