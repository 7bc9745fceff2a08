"""Per-rule true cases and tempting non-cases for `pitfalls check`.

Each fixture under tests/fixtures/check marks the lines that must be reported with a trailing
`# expect: CODE ...`; every other line must stay silent (bugbear's eval-file style).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from conftest import FIXTURES
from pitfalls.check.driver import Settings, check_text
from pitfalls.check.rules import RULES, resolve_selection

CHECK = FIXTURES / "check"
EXPECT = re.compile(r"#\s*expect:\s*((?:PFL\d+\s*)+)")


def run(source: str, select: list[str] | None = None, path: str = "x.py", **options):
    enabled = resolve_selection(select or ["ALL"], [], [])
    settings = Settings(enabled=enabled, root=Path("."), **options)
    return check_text(source, Path(path), path, settings)


def codes(source: str, select: list[str] | None = None, **options) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in run(source, select, **options).findings]


def expected(source: str) -> list[tuple[int, str]]:
    marks = []
    for number, line in enumerate(source.splitlines(), start=1):
        match = EXPECT.search(line)
        if match:
            marks += [(number, code) for code in match.group(1).split()]
    return sorted(marks)


@pytest.mark.parametrize("name", ["api.py", "tensor.py", "numeric.py", "loop.py"])
def test_fixture_reports_exactly_the_marked_lines(name: str) -> None:
    source = (CHECK / name).read_text(encoding="utf-8")
    ast.parse(source)
    found = sorted(codes(source, ["ALL"]))
    found = [(line, code) for line, code in found if code != "PFL105"]
    assert found == expected(source)


def test_every_default_rule_has_a_true_case_in_the_fixtures() -> None:
    marked = set()
    for path in CHECK.glob("*.py"):
        marked |= {code for _, code in expected(path.read_text(encoding="utf-8"))}
    missing = {code for code, rule in RULES.items() if rule.default} - marked
    assert not missing - {"PFL002"}


def test_numpy_bool_and_long_only_where_numpy_is_pinned_below_2() -> None:
    source = "import numpy as np\nx = np.bool(1)\ny = np.long(2)\nz = np.bool_(1)\n"
    assert codes(source) == []
    assert codes(source, numpy_below_2=True) == [(2, "PFL002"), (3, "PFL002")]


def test_aliases_are_followed() -> None:
    source = (
        "import torch as tr\nimport numpy as numpy\nfrom torch import load\n"
        "from torch.autograd import Variable\nimport torch.nn.functional as fn\n"
        "a = tr.load('x')\nb = numpy.float\nc = load('y')\nd = Variable(a)\n"
        "e = fn.softmax(a)\n"
    )
    assert codes(source) == [
        (6, "PFL005"),
        (7, "PFL001"),
        (8, "PFL005"),
        (9, "PFL006"),
        (10, "PFL204"),
    ]


def test_a_local_name_shadowing_an_import_is_not_the_import() -> None:
    source = (
        "import torch\nfrom torch import load\n"
        "def f(load):\n    return load('x')\n"
        "def g():\n    torch = Loader()\n    return torch.load('x')\n"
    )
    assert codes(source) == []


def test_module_names_defined_after_a_function_are_seen_inside_it() -> None:
    source = (
        "import torch\n"
        "def draw():\n    return iter(loader).next()\n"
        "loader = torch.utils.data.DataLoader(ds)\n"
    )
    assert [f.message for f in run(source).findings] == [
        "`.next()` on a DataLoader iterator fails in Python 3: use `next(iter(loader))`"
    ]


def test_module_subclass_through_another_class_of_the_file() -> None:
    source = (
        "import torch.nn as nn\nclass Base(nn.Module):\n    pass\n"
        "class Head(Base):\n    def __init__(self):\n"
        "        self.layers = [nn.Linear(2, 2)]\n"
    )
    assert codes(source) == [(6, "PFL104")]


def test_data_write_and_read_are_named_in_the_message() -> None:
    source = "import torch\nw = torch.zeros(3)\nw.data.mul_(2)\nprint(w.data)\n"
    messages = [f.message for f in run(source).findings]
    assert "in-place `mul_`" in messages[0] and messages[0].startswith("write through")
    assert "use `w.detach()`" in messages[1]


def test_cuda_amp_message_gives_the_exact_replacement() -> None:
    source = (
        "import torch\n"
        "scaler = torch.cuda.amp.GradScaler(2.0**16, enabled=use_amp)\n"
        "ctx = torch.cuda.amp.autocast(True, torch.float16)\n"
    )
    first, second = (f.message for f in run(source).findings)
    assert 'torch.amp.GradScaler("cuda", init_scale=2.0**16, enabled=use_amp)' in first
    assert 'torch.amp.autocast("cuda", enabled=True, dtype=torch.float16)' in second


def test_off_by_default_rule_runs_only_when_selected_by_code() -> None:
    source = (
        "import torch\nimport torch.nn as nn\nclass M(nn.Module):\n"
        "    def __init__(self):\n        self.mean = torch.zeros(3)\n"
    )
    assert codes(source, select=["PFL"]) == []
    assert codes(source, select=["PFL105"]) == [(5, "PFL105")]


def test_files_without_torch_or_numpy_are_skipped_unparsed() -> None:
    assert run("def broken(:\n").findings == []
    assert [f.code for f in run("import torch\ndef broken(:\n").findings] == ["PFL000"]


def test_columns_count_characters_not_bytes() -> None:
    source = "import torch\ns = '数据'; t = torch.load('x')\n"
    (finding,) = run(source).findings
    assert finding.col == len("s = '数据'; t = ") + 1
