"""The rules for the new recipes (issue #30, section 2): each on its recipe's own problem and
fix code, on the fixture of true cases and tempting non-cases, and quiet on correct code."""

from __future__ import annotations

import ast
import json
import re
import textwrap
from pathlib import Path

import pytest

from conftest import FIXTURES
from pitfalls.catalogue.rule_table import RULES, resolve_selection
from pitfalls.check.driver import Settings, check_text

REPO = Path(__file__).resolve().parent.parent
RECIPES = REPO / "recipes"
FIXTURE = FIXTURES / "check" / "recipe_rules.py"
EXPECT = re.compile(r"#\s*expect:\s*((?:PFL\d+\s*)+)")
NEW = (
    "PFL110 PFL111 PFL112 PFL113 PFL206 PFL207 PFL208 PFL209 PFL308 PFL309 PFL310 "
    "PFL501 PFL502 PFL503 PFL504 PFL505 PFL506 PFL507"
).split()


def findings(source: str, select: list[str] | None = None, path: str = "x.py"):
    enabled = resolve_selection(select, [], [])
    settings = Settings(enabled=enabled, root=Path("."))
    return check_text(source, Path(path), path, settings).findings


def expected(source: str) -> list[tuple[int, str]]:
    marks = []
    for number, line in enumerate(source.splitlines(), start=1):
        match = EXPECT.search(line)
        if match:
            marks += [(number, code) for code in match.group(1).split()]
    return sorted(marks)


def test_fixture_reports_exactly_the_marked_lines_with_the_default_rules() -> None:
    source = FIXTURE.read_text(encoding="utf-8")
    ast.parse(source)
    found = sorted((f.line, f.code) for f in findings(source))
    assert found == expected(source)
    assert {code for _, code in expected(source)} >= set(NEW)


def test_new_rules_are_on_by_default_each_link_its_own_recipe_and_reach_45() -> None:
    for code in NEW:
        rule = RULES[code]
        assert rule.default, code
        assert (RECIPES / rule.recipe / "recipe.toml").is_file(), rule.recipe
    assert len({RULES[code].recipe for code in NEW}) == len(NEW)
    assert len({rule.recipe for rule in RULES.values()}) >= 45


def _functions(tree: ast.Module) -> dict[str, tuple[int, int]]:
    """Top-level functions and classes: name -> (first line, last line)."""
    return {
        node.name: (node.lineno, node.end_lineno or node.lineno)
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.ClassDef))
    }


# recipe -> (code, the function or class of the problem side holding the pitfall, the fix
# side's counterpart that must stay quiet). Each snippet's own code, as the recipe runs it.
ON_SNIPPETS = {
    "zero-dim-index": ("PFL110", "problem", "fix"),
    "rnn-pack-lengths": ("PFL113", "problem", "fix"),
    "loss-reduction-scale": ("PFL208", "problem", "fix"),
    "attention-mask-polarity": ("PFL207", "problem", "fix"),
    "jit-trace-control-flow": ("PFL507", "PostprocessAsWritten", "PostprocessFixed"),
}


@pytest.mark.parametrize("recipe", sorted(ON_SNIPPETS))
def test_rule_flags_the_recipes_problem_code_and_not_its_fix(recipe: str) -> None:
    code, problem, fix = ON_SNIPPETS[recipe]
    assert RULES[code].recipe == recipe
    source = (RECIPES / recipe / "snippet.py").read_text(encoding="utf-8")
    spans = _functions(ast.parse(source))
    lines = [f.line for f in findings(source, [code])]
    first, last = spans[problem]
    assert any(first <= line <= last for line in lines), (recipe, lines)
    first, last = spans[fix]
    assert not any(first <= line <= last for line in lines), (recipe, lines)


def _snippet_string(recipe: str, name: str) -> str:
    """A module-level string constant of a recipe's snippet (a script it runs)."""
    tree = ast.parse((RECIPES / recipe / "snippet.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [
            name
        ]:
            call = node.value
            assert isinstance(call, ast.Call) and isinstance(call.args[0], ast.Constant)
            return textwrap.dedent(call.args[0].value)
    raise AssertionError(f"{recipe}: no {name}")


def test_main_guard_rule_on_the_recipes_unguarded_and_guarded_scripts() -> None:
    # The recipe's scripts leave torch out to start fast; `check` reads only files that
    # mention torch, as a training script does.
    unguarded = "import torch" + _snippet_string("main-guard-spawn", "UNGUARDED")
    guarded = "import torch" + _snippet_string("main-guard-spawn", "GUARDED")
    found = [(f.line, f.code) for f in findings(unguarded, ["PFL310"])]
    start = next(n for n, line in enumerate(unguarded.splitlines(), 1) if "worker.start()" in line)
    assert found == [(start, "PFL310")]
    assert findings(guarded, ["PFL310"]) == []


def test_main_guard_rule_is_quiet_in_notebooks(tmp_path: Path) -> None:
    cell = (
        "from torch.utils.data import DataLoader\n"
        "for b in DataLoader(ds, num_workers=2):\n    pass\n"
    )
    assert [f.code for f in findings(cell, ["PFL310"])] == ["PFL310"]
    notebook = {
        "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": cell}],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    assert findings(path.read_text(encoding="utf-8"), ["PFL310"], str(path)) == []


def test_ddp_attribute_flags_the_unwrapped_read_and_not_the_module_read() -> None:
    source = (RECIPES / "ddp-module-attributes" / "snippet.py").read_text(encoding="utf-8")
    flagged = {source.splitlines()[f.line - 1].strip() for f in findings(source, ["PFL503"])}
    assert flagged == {"num_classes = model.num_classes  # what worked before wrapping"}


def test_no_new_rule_fires_on_any_recipes_fix_function() -> None:
    for snippet in sorted(RECIPES.glob("*/snippet.py")):
        source = snippet.read_text(encoding="utf-8")
        spans = _functions(ast.parse(source))
        if "fix" not in spans:
            continue
        first, last = spans["fix"]
        hits = [f for f in findings(source, NEW) if first <= f.line <= last]
        assert not hits, (snippet.parent.name, [(f.line, f.code) for f in hits])


# Tempting non-cases beyond the fixture: each must stay silent.
QUIET = {
    "PFL110": "import torch\ndef f(batch, x):\n    return batch.data[0], x.data[1:], x[0]\n",
    "PFL111": (
        "import torch\ndef f(model, opt, path):\n"
        "    torch.save(model.state_dict(), path)\n    torch.save(opt.state_dict(), path)\n"
        "    torch.save([1, 2], path)\n"
    ),
    "PFL112": (
        "import torch\nimport numpy as np\ndef f(model, args, path):\n"
        "    rng = np.random.default_rng(0)\n"
        "    torch.save({'args': args, 'seed': rng, 'acc': float(np.mean([1.0]))}, path)\n"
    ),
    "PFL206": (
        "import torch\ndef f(scores, mask):\n    return scores.masked_fill(mask, -1e9)\n"
    ),  # no float16 anywhere in the file
    "PFL207": (
        "import torch\nimport torch.nn.functional as F\ndef f(q, k, v, L, mha, x, pad):\n"
        "    causal = torch.tril(torch.ones(L, L)).bool()\n"
        "    a = F.scaled_dot_product_attention(q, k, v, attn_mask=causal)\n"
        "    b = mha(x, x, x, key_padding_mask=pad)\n    return a, b\n"
    ),
    "PFL501": (
        "import os\nimport torch\ndef f(rank):\n    torch.cuda.set_device(rank)\n"
        "    local = int(os.environ['LOCAL_RANK'])\n    torch.cuda.set_device(local)\n"
    ),
    "PFL502": (
        "import torch.distributed as dist\ndef f(rank, t):\n    dist.all_reduce(t)\n"
        "    if rank == 0:\n        print(t)\n"
    ),
    "PFL504": (
        "import torch\ndef f(rank, model, path, other):\n    if rank == 0:\n"
        "        torch.save(model.state_dict(), path)\n    return torch.load(other)\n"
    ),
    "PFL505": (
        "from torch.utils.data import DistributedSampler\ndef f(ds, n):\n"
        "    sampler = DistributedSampler(ds)\n    for epoch in range(n):\n"
        "        sampler.set_epoch(epoch)\n"
        "    DistributedSampler(ds, shuffle=False)\n"
    ),
    "PFL506": (
        "import torch\ndef g(x):\n    print(x.item())\n    return x\n"
        "def h(x):\n    return x + 1\nc = torch.compile(h)\n"
    ),
    "PFL507": (
        "import torch\nimport torch.nn as nn\nclass M(nn.Module):\n"
        "    def forward(self, x):\n        if x.sum() > 0:\n            x = -x\n"
        "        return x\n"
    ),  # the file never traces
}


@pytest.mark.parametrize("code", sorted(QUIET))
def test_tempting_non_cases_stay_quiet(code: str) -> None:
    assert [f.code for f in findings(QUIET[code], [code])] == []
    assert code in NEW


def test_sampler_rule_fires_when_set_epoch_is_missing() -> None:
    source = QUIET["PFL505"].replace("        sampler.set_epoch(epoch)\n", "        pass\n")
    assert [(f.line, f.code) for f in findings(source, ["PFL505"])] == [(3, "PFL505")]


def test_torch_nn_optim_and_distributed_sources_stay_quiet() -> None:
    torch_dir = Path(__import__("importlib.util").util.find_spec("torch").origin).parent
    checked = 0
    for folder in ("nn/modules", "optim", "distributed/algorithms", "utils/data"):
        for path in sorted((torch_dir / folder).rglob("*.py")):
            source = path.read_text(encoding="utf-8")
            hits = findings(source, NEW, path.name)
            assert not [(f.line, f.code) for f in hits if f.code != "PFL000"], path
            checked += 1
    assert checked > 50


def test_notebook_cells_share_their_bindings_with_the_new_rules(tmp_path: Path) -> None:
    cells = [
        "import argparse, os\nimport torch\n",
        "%matplotlib inline\nargs = argparse.ArgumentParser().parse_args([])\n",
        "rank = int(os.environ['RANK'])\ntorch.cuda.set_device(rank)\n",
        "def save(model, path):\n"
        "    torch.save({'model': model.state_dict(), 'args': args}, path)\n",
    ]
    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "metadata": {},
                "outputs": [],
                "source": cell,
                "execution_count": None,
            }
            for cell in cells
        ],
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = tmp_path / "train.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    settings = Settings(enabled=resolve_selection(None, [], []), root=tmp_path)
    result = check_text(path.read_text(encoding="utf-8"), path, path.name, settings)
    assert sorted((f.cell, f.line, f.code) for f in result.findings) == [
        (3, 2, "PFL501"),
        (4, 2, "PFL112"),
    ]
