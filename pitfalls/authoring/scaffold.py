"""`pitfalls new`: the files of a fresh recipe folder.

Every place the author must fill in carries a `TODO` marker, which `pitfalls lint` reports as
PIT019; apart from those, a fresh scaffold is clean. Its snippet returns `None` observations,
which match no expectation, so `pitfalls run` fails (exit 1) until the demonstration is written.
"""

from __future__ import annotations

from pathlib import Path

from pitfalls.catalogue.model import SECTIONS

RECIPE_TOML = """\
id = "{id}"
aliases = []  # specific words only: never `data`, `oom`, `hook`
theme = "tensors"  # TODO: one of the themes listed in recipes/README.md
tags = ["TODO"]
devices = ["cpu", "cuda", "mps"]  # where the demonstration is meaningful
torch = ">=1.13"  # the PEP 440 range in which the claim holds
references = [
  "https://docs.pytorch.org/docs/stable/index.html",  # TODO: the API's own page
]
# TODO: the message fragments the pitfall raises or warns, each also the `match` of an
# expectation (see recipes/README.md); remove `errors` if it never raises or warns.
errors = []
related = ["detach"]  # TODO: the recipes a reader should see next

[title]
en = "TODO: what goes wrong, in a few words"
zh = "TODO：用一句话说出哪里出错"

[summary]
en = "TODO: one line that says what goes wrong and what to do."
zh = "TODO：一句话：哪里出错，怎么做。"

# The claim, as data: `reproduced` when every problem claim holds, `fixed` when every fix
# claim holds, each on a key both sides return (see recipes/README.md: claims, invariants
# with side = "both", context, and the comparisons: equals, lt, raises, ...).
[[expect]]
side = "problem"
key = "pitfall_observed"  # TODO: name the observation problem() returns
equals = true

[[expect]]
side = "fix"
key = "pitfall_observed"
equals = false

# Three to six ways users describe the problem in their own words, written natively.
[questions]
en = ["TODO: a user's words", "TODO: another phrasing", "TODO: a third one"]
zh = ["TODO：用户的说法", "TODO：另一种说法", "TODO：第三种说法"]
"""

SNIPPET = '''\
"""TODO: one line: what this snippet demonstrates."""

import torch


def problem(device: str) -> dict:
    """Do the wrong thing the way people really write it; return observations."""
    torch.manual_seed(0)
    # TODO: demonstrate the pitfall on `device` with small tensors. None matches no
    # expectation, so `pitfalls run` reports a failure until this is written.
    return {"pitfall_observed": None}


def fix(device: str) -> dict:
    """Do the right thing; return the same kind of observations."""
    torch.manual_seed(0)
    # TODO: the corrected code, observed the same way.
    return {"pitfall_observed": None}


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
'''

# What each section should say, per language, as TODO prompts.
PROMPTS = {
    "en": (
        "TODO: what the reader sees: the error message, the wrong number, the NaN.",
        "TODO: why it happens.",
        "TODO: what to do instead. A `python` block here must be copied from snippet.py.",
        None,  # Try it: filled with commands, the same in both languages
        "- TODO: the pages linked in recipe.toml, with a few words on each.",
    ),
    "zh": (
        "TODO：读者看到了什么：报错信息、错误的数值、NaN。",
        "TODO：为什么会这样。",
        "TODO：应该怎么做。这里的 `python` 代码块必须摘自 snippet.py。",
        None,
        "- TODO：recipe.toml 中列出的参考链接，各附一句说明。",
    ),
}


def prose(recipe_id: str, lang: str) -> str:
    """The Markdown for `lang`: every required section, each with a TODO prompt."""
    parts = []
    for title, prompt in zip(SECTIONS[lang], PROMPTS[lang]):
        body = prompt or f"```console\n$ pitfalls run {recipe_id}\n$ pitfalls show {recipe_id}\n```"
        parts.append(f"## {title}\n\n{body}\n")
    return "\n".join(parts)


def scaffold_files(recipe_id: str) -> dict[str, str]:
    """File name → content of a new recipe folder for `recipe_id` (assumed valid)."""
    return {
        "recipe.toml": RECIPE_TOML.format(id=recipe_id),
        "en.md": prose(recipe_id, "en"),
        "zh.md": prose(recipe_id, "zh"),
        "snippet.py": SNIPPET,
    }


def write_scaffold(parent: Path, recipe_id: str) -> Path:
    """Create `parent/recipe_id/` with the scaffold; raises FileExistsError if it exists."""
    folder = parent / recipe_id
    parent.mkdir(parents=True, exist_ok=True)
    folder.mkdir()  # not exist_ok: never overwrite someone's recipe
    for name, content in scaffold_files(recipe_id).items():
        (folder / name).write_text(content, encoding="utf-8")
    return folder
