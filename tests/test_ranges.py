"""The loader's fast check of version ranges agrees with `packaging` on every string."""

from __future__ import annotations

import random

import pytest
from packaging.specifiers import InvalidSpecifier, SpecifierSet

from pitfalls.catalogue.loader import _PLAIN_RANGE, RecipeError, check_specifier
from pitfalls.catalogue.registry import Registry

HAND_PICKED = [
    ">=2.1",
    "!=2.4.*",
    ">=1.13,<2.0",
    "~=2.6",
    "~=2",
    ">=2.*",
    "==2.4.*",
    "<2",
    " >= 2.0 ",
    ">=2.0,",
    ",>=2.0",
    "",
    "2.0",
    "=>2.0",
    ">=2.0rc1",
    ">=2.0.post1",
    "==2.0+cu121",
    "!=2.4.*,!=2.5.*",
    ">=\u0662.0",
    ">=2.0\u00a0",
    "===weird",
    ">=1!2.0",
    "> =2",
    "<=2..0",
]


def packaging_accepts(text: str) -> bool:
    try:
        SpecifierSet(text)
    except InvalidSpecifier:
        return False
    return True


def loader_accepts(text: str) -> bool:
    try:
        check_specifier(text, "test")
    except RecipeError:
        return False
    return True


def random_ranges(count: int) -> list[str]:
    """Strings shaped like ranges, valid or nearly so: operators, numbers, dots, stars, spaces,
    suffixes and commas in random order and number."""
    rng = random.Random(20261201)
    ops = [">=", "<=", "<", ">", "==", "!=", "~=", "=", "===", ""]
    bits = ["2", "13", "0", ".", ".", "*", " ", "rc1", "+cu1", "!", "a", "-"]

    def clause() -> str:
        version = "".join(rng.choice(bits) for _ in range(rng.randint(1, 6)))
        return rng.choice(["", " "]) + rng.choice(ops) + rng.choice(["", " "]) + version

    return [",".join(clause() for _ in range(rng.randint(1, 3))) for _ in range(count)]


@pytest.mark.parametrize("text", HAND_PICKED)
def test_hand_picked_ranges_are_judged_as_packaging_judges_them(text: str) -> None:
    assert loader_accepts(text) == packaging_accepts(text)


def test_the_fast_path_never_accepts_what_packaging_refuses() -> None:
    fast = [text for text in random_ranges(20000) if _PLAIN_RANGE.match(text)]
    assert len(fast) > 200  # the generator does reach the fast path, in many shapes
    assert [text for text in fast if not packaging_accepts(text)] == []


def test_every_range_in_the_catalogue_takes_the_fast_path() -> None:
    ranges = []
    for recipe in Registry.load().with_tag(None):
        ranges.append(recipe.torch)
        ranges.extend(e.torch for e in recipe.expectations if e.torch)
    assert ranges and all(_PLAIN_RANGE.match(text) for text in ranges), [
        text for text in ranges if not _PLAIN_RANGE.match(text)
    ]
