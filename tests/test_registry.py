"""Loading, validation and resolving words, with built-ins, PITFALLS_PATH and bad folders."""

from __future__ import annotations

import pytest

from conftest import MALFORMED, ROBUST
from pitfalls.catalogue.registry import Registry, ResolveError, Source, builtin_dir, path_sources
from pitfalls.i18n import choose_language

SEED_IDS = {
    "focal-loss": ["clamp", "clamp-before-log"],
    "scatter-one-hot": ["scatter", "one-hot"],
    "detach": ["detach-vs-data"],
    "gradient-reversal": ["grl", "register-hook"],
    "narrow": [],
    "dataloader-len": ["loader-len", "ceil"],
    "parameter-vs-buffer": ["register-buffer", "buffer", "register-parameter"],
    "dataloader-worker-killed": ["worker-killed", "worker-oom"],
    "train-eval": ["eval", "model-eval", "train-mode"],
}


@pytest.fixture(scope="module")
def builtins() -> Registry:
    return Registry.load([Source(builtin_dir(), "built-in")])


def test_builtins_load_without_problems(builtins: Registry) -> None:
    assert builtins.problems == []
    assert set(SEED_IDS) <= set(builtins.recipes)


@pytest.mark.parametrize(("recipe_id", "aliases"), SEED_IDS.items())
def test_every_seed_id_and_alias_resolves(builtins: Registry, recipe_id, aliases) -> None:
    assert builtins.resolve(recipe_id).id == recipe_id
    for alias in aliases:
        assert builtins.resolve(alias).id == recipe_id
        assert builtins.resolve(alias.upper()).id == recipe_id  # aliases are case-insensitive


def test_unspecific_words_are_not_aliases(builtins: Registry) -> None:
    for word in ("data", "oom", "hook"):
        with pytest.raises(ResolveError):
            builtins.resolve(word)


def test_unique_prefix_resolves_and_ambiguous_prefix_lists_candidates(builtins) -> None:
    assert builtins.resolve("foc").id == "focal-loss"
    with pytest.raises(ResolveError) as info:
        builtins.resolve("dataloader")
    assert info.value.kind == "ambiguous"
    assert info.value.candidates == [
        "dataloader-len",
        "dataloader-options-without-workers",
        "dataloader-throughput",
        "dataloader-too-many-open-files",
        "dataloader-worker-killed",
    ]


def test_typo_suggests_close_names(builtins: Registry) -> None:
    with pytest.raises(ResolveError) as info:
        builtins.resolve("detatch")
    assert info.value.kind == "unknown"
    assert "detach" in info.value.candidates


def test_loading_never_imports_snippets(builtins: Registry) -> None:
    # A snippet that would fail on import must still load as metadata.
    registry = Registry.load([Source(ROBUST, "PITFALLS_PATH")])
    assert "t-segfault" in registry.recipes and "t-no-fix" in registry.recipes


def test_malformed_folders_are_skipped_with_reasons() -> None:
    registry = Registry.load(
        [Source(builtin_dir(), "built-in"), Source(MALFORMED, "PITFALLS_PATH")]
    )
    reasons = {p.path.rsplit("/", 1)[-1]: p.reason for p in registry.problems}
    assert "no prose" in reasons["m-no-prose"]
    assert "not valid TOML" in reasons["m-bad-toml"]
    assert "no snippet.py" in reasons["m-no-snippet"]
    assert "already taken" in reasons["m-dup-b"]
    assert "already taken by built-in" in reasons["m-builtin-clash"]
    assert "alias 'clamp'" in reasons["m-alias-clash"]
    # The good ones still load; the built-in keeps its id and alias.
    assert registry.resolve("m-dup").path.name == "m-dup-a"
    assert registry.resolve("detach").source == "built-in"
    assert registry.resolve("clamp").id == "focal-loss"
    assert registry.resolve("m-alias-own").id == "m-alias-clash"
    assert registry.resolve("m-only-en").languages() == ("en",)


def test_missing_prose_falls_back_to_the_other_language() -> None:
    registry = Registry.load([Source(MALFORMED, "PITFALLS_PATH")])
    used, text = registry.resolve("m-only-en").prose_with_fallback("zh")
    assert used == "en" and "## Symptom" in text


def test_pitfalls_path_splits_on_pathsep(tmp_path) -> None:
    import os

    sources = path_sources(f"{tmp_path}{os.pathsep}{ROBUST}")
    assert [s.folder for s in sources] == [tmp_path, ROBUST]
    registry = Registry.load([*sources])
    assert "t-ok" in registry.recipes


def test_a_missing_path_entry_is_reported() -> None:
    registry = Registry.load([Source(ROBUST / "nope", "PITFALLS_PATH")])
    assert registry.problems and "is not a folder" in registry.problems[0].reason


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, "en"),
        ({"LANG": "zh_CN.UTF-8"}, "zh"),
        ({"LANG": "en_US.UTF-8", "LC_ALL": "zh_TW.UTF-8"}, "zh"),
        ({"LANGUAGE": "zh_CN:en_US", "LANG": "en_US.UTF-8"}, "zh"),
        ({"LANGUAGE": "fr:zh", "LANG": "zh_CN.UTF-8"}, "en"),
        ({"PITFALLS_LANG": "zh", "LANG": "en_US.UTF-8"}, "zh"),
        ({"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, "zh"),
        ({"LC_MESSAGES": "zh_CN.UTF-8"}, "zh"),
    ],
)
def test_language_is_chosen_from_the_environment(env, expected) -> None:
    assert choose_language(None, env) == expected
    assert choose_language("en", env) == "en"
