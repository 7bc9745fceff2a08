"""The semantic model's mechanism (issue #30, section 3), on realistic code.

Four properties, each of the model rather than of one rule:
- what a name can hold comes from the bindings that *reach* the use over the function's
  control flow (`flow.Reaching`: branches joined, a loop's back edge, `try`/`except`);
- a wrapper (`nn.DataParallel`, DDP, `torch.compile`) is followed across rebinding and
  unwrapping to the save that writes its prefixed keys, "may be wrapped" on one path;
- `.data` gets one answer wherever it stands (a notebook cell or a function, a subscript, an
  argument, under `no_grad`), and an instance of a class of the file is known by its class;
- a per-module summary of what functions and methods return lets rules see one call deep.

The fixtures under tests/fixtures/check/mech are training scripts and a notebook written the
way such code is written, with the lines that must be reported marked `# expect: CODE`.
"""

from __future__ import annotations

import ast
import json

import pytest
from test_check_rules import codes, expected, run

from conftest import FIXTURES
from pitfalls.catalogue.rule_table import RULES
from pitfalls.check.flow import Reaching

MECH = FIXTURES / "check" / "mech"


def default_codes(source: str, path: str = "x.py") -> list[tuple[int, str]]:
    """Findings of the rules on by default, as (line, code)."""
    found = [(f.line, f.code) for f in run(source, ["ALL"], path=path).findings]
    return sorted((line, code) for line, code in found if RULES[code].default)


@pytest.mark.parametrize("name", sorted(p.name for p in MECH.glob("*.py")))
def test_mechanism_fixture_reports_exactly_the_marked_lines(name: str) -> None:
    source = (MECH / name).read_text(encoding="utf-8")
    ast.parse(source)
    assert default_codes(source) == expected(source)


def test_notebook_reports_the_same_data_line_in_every_cell_and_not_on_a_value_class() -> None:
    path = MECH / "makemore.ipynb"
    raw = path.read_text(encoding="utf-8")
    marks = []
    for index, cell in enumerate(json.loads(raw)["cells"], start=1):
        marks += [(index, line, code) for line, code in expected("".join(cell["source"]))]
    findings = run(raw, ["ALL"], path=str(path)).findings
    found = sorted((f.cell, f.line, f.code) for f in findings if RULES[f.code].default)
    assert found == sorted(marks)
    assert len(marks) == 3  # W.data in one cell, p.data over a list of tensors in another


# -- 1. bindings that reach a use --------------------------------------------------------------
def _reaching(source: str, line: int, name: str) -> list[str | None]:
    function = ast.parse(source).body[0]
    reaching = Reaching(function)
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id == name and node.lineno == line:
            if isinstance(node.ctx, ast.Load):
                found = reaching.at(node) or frozenset()
                return sorted(
                    (ast.unparse(v) if v is not None else None for _, v in found),
                    key=str,
                )
    raise AssertionError(f"no read of {name} on line {line}")


def test_a_binding_later_in_a_loop_reaches_the_top_of_its_body() -> None:
    source = (
        "def f(loader):\n"
        "    for step in range(10):\n"
        "        try:\n"
        "            batch = it.next()\n"
        "        except StopIteration:\n"
        "            it = iter(loader)\n"
        "            batch = it.next()\n"
    )
    assert _reaching(source, 4, "it") == ["iter(loader)"]
    assert _reaching(source, 7, "it") == ["iter(loader)"]


def test_a_binding_in_one_branch_joins_the_other_path() -> None:
    source = (
        "def f(model, dp):\n"
        "    if dp:\n"
        "        model = DP(model)\n"
        "    save(model)\n"
        "    model = model.module\n"
        "    save(model)\n"
    )
    assert _reaching(source, 4, "model") == ["DP(model)", None]  # the parameter: None
    assert _reaching(source, 6, "model") == ["model.module"]  # not every binding in scope


def test_return_break_and_continue_end_their_paths() -> None:
    source = (
        "def f(xs):\n"
        "    y = 0\n"
        "    for x in xs:\n"
        "        if x:\n"
        "            y = 1\n"
        "            break\n"
        "        if x is None:\n"
        "            y = 2\n"
        "            continue\n"
        "        if x == 3:\n"
        "            y = 3\n"
        "            return y\n"
        "        use(y)\n"
        "    use(y)\n"
    )
    assert _reaching(source, 13, "y") == ["0", "2"]  # 1 left the loop, 3 returned
    assert _reaching(source, 14, "y") == ["0", "1", "2"]


def test_an_exception_handler_sees_bindings_from_anywhere_in_its_try() -> None:
    source = (
        "def f():\n"
        "    x = 0\n"
        "    try:\n"
        "        x = 1\n"
        "        risky()\n"
        "    except ValueError:\n"
        "        use(x)\n"
    )
    assert _reaching(source, 7, "x") == ["0", "1"]


def test_next_method_found_before_its_binding_in_a_while_loop_too() -> None:
    source = (
        "import torch\n"
        "from torch.utils.data import DataLoader\n"
        "loader = DataLoader(torch.arange(10))\n"
        "step = 0\n"
        "while step < 20:\n"
        "    try:\n"
        "        x = batches.next()\n"
        "    except (NameError, StopIteration):\n"
        "        batches = iter(loader)\n"
        "    step += 1\n"
    )
    assert codes(source, ["PFL003"]) == [(7, "PFL003")]


def test_a_kind_the_name_had_before_the_loop_is_kept() -> None:
    # `it` is an iterator before the loop; the body's `it = None` (no kind) does not erase
    # that on the way round: the back edge only adds a kind where there was none.
    source = (
        "import torch\n"
        "def f(loader, model):\n"
        "    it = iter(loader)\n"
        "    for _ in range(3):\n"
        "        x = it.next()\n"
        "        it = None\n"
    )
    assert codes(source, ["PFL003"]) == [(5, "PFL003")]


# -- 2. wrappers across rebinding ---------------------------------------------------------------
def _pfl109(source: str) -> list[tuple[int, str]]:
    return [(f.line, f.message) for f in run(source, ["PFL109"]).findings]


def test_a_wrapper_on_one_path_may_reach_the_save() -> None:
    source = (
        "import torch\nimport torch.nn as nn\n"
        "def main(args, net):\n"
        "    if args.dp:\n"
        "        net = nn.DataParallel(net)\n"
        "    torch.save(net.state_dict(), 'net.pt')\n"
    )
    [(line, message)] = _pfl109(source)
    assert line == 6
    assert "may be wrapped" in message and "`module.`" in message


def test_a_compiled_model_is_still_wrapped_after_a_guarded_unwrap() -> None:
    source = (
        "import torch\n"
        "def save(model, ddp):\n"
        "    model = torch.compile(model)\n"
        "    raw = model.module if ddp else model\n"
        "    torch.save(raw.state_dict(), 'raw.pt')\n"
    )
    [(line, message)] = _pfl109(source)
    assert line == 5
    assert "`raw` is wrapped" in message and "`_orig_mod.`" in message


def test_ddp_of_a_compiled_model_names_both_prefixes() -> None:
    source = (
        "import torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n"
        "def save(model):\n"
        "    model = DDP(torch.compile(model))\n"
        "    inner = model.module\n"
        "    torch.save(inner.state_dict(), 'a.pt')\n"
        "    torch.save(inner._orig_mod.state_dict(), 'b.pt')\n"
    )
    [(line, message)] = _pfl109(source)
    assert line == 6 and "`_orig_mod.`" in message


def test_an_unwrapped_model_saves_bare_keys() -> None:
    source = (
        "import torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n"
        "def save(model, rank, distributed):\n"
        "    if distributed:\n"
        "        model = DDP(model, device_ids=[rank])\n"
        "    torch.save(getattr(model, 'module', model).state_dict(), 'a.pt')\n"
        "    bare = model.module if hasattr(model, 'module') else model\n"
        "    torch.save(bare.state_dict(), 'b.pt')\n"
        "    model = model.module\n"
        "    torch.save(model.state_dict(), 'c.pt')\n"
    )
    assert _pfl109(source) == []


# -- 3. `.data` everywhere the same --------------------------------------------------------------
SGD_LINE = "p.data += -lr * p.grad"


@pytest.mark.parametrize(
    "source",
    [
        "import torch.nn as nn\nmodel = nn.Linear(2, 2)\nlr = 0.1\n"
        f"for p in model.parameters():\n    {SGD_LINE}\n",
        f"import torch.nn as nn\ndef sgd(model: nn.Module, lr):\n"
        f"    for p in model.parameters():\n        {SGD_LINE}\n",
        f"import torch\nimport torch.nn as nn\n@torch.no_grad()\ndef sgd(model: nn.Module, lr):\n"
        f"    for p in model.parameters():\n        {SGD_LINE}\n",
        f"import torch\nW = torch.randn(3, requires_grad=True)\nb = torch.zeros(3)\nlr = 0.1\n"
        f"for p in [W, b]:\n    {SGD_LINE}\n",
        "import torch\nw1 = torch.randn(3, requires_grad=True)\nparams = (w1, w1 * 2)\n"
        f"lr = 0.1\nfor p in params:\n    {SGD_LINE}\n",
    ],
    ids=["module-level", "function", "no-grad", "list-literal", "tuple-name"],
)
def test_the_same_data_write_is_found_wherever_it_stands(source: str) -> None:
    line = next(n for n, text in enumerate(source.splitlines(), 1) if SGD_LINE in text)
    assert codes(source, ["PFL101", "PFL102"]) == [(line, "PFL101")]


def test_data_on_a_subscript_and_as_an_argument() -> None:
    source = (
        "import torch\n"
        "def f(attn: torch.Tensor, buf: torch.Tensor, p: torch.Tensor, h):\n"
        "    head = attn[0, h].data\n"
        "    buf.add_(p.data, alpha=0.1)\n"
    )
    assert codes(source, ["PFL101", "PFL102"]) == [(3, "PFL102"), (4, "PFL102")]


def test_a_class_of_the_file_with_data_is_not_a_tensor() -> None:
    source = (
        "import torch\n"
        "class Value:\n"
        "    def __init__(self, data):\n"
        "        self.data = data\n"
        "        self.grad = 0.0\n"
        "class MLP:\n"
        "    def __init__(self):\n"
        "        self.ps = [Value(1.0)]\n"
        "    def parameters(self):\n"
        "        return self.ps\n"
        "def train(lr):\n"
        "    model = MLP()\n"
        "    model.eval = None\n"
        "    for p in model.parameters():\n"
        "        p.data += -lr * p.grad\n"
        "    v = Value(2.0)\n"
        "    v.data = 3.0\n"
        "    print(v.data)\n"
    )
    assert codes(source, ["PFL101", "PFL102"]) == []


def test_a_name_shadowing_a_class_of_the_file_is_not_its_instance() -> None:
    source = (
        "import torch\nimport torch.nn as nn\n"
        "class Value:\n"
        "    data = 0\n"
        "def sgd(lr):\n"
        "    Value = nn.Linear\n"
        "    model = Value(2, 2)\n"
        "    for p in model.parameters():\n"
        f"        {SGD_LINE}\n"
    )
    assert codes(source, ["PFL101"]) == [(9, "PFL101")]


# -- 4. across a function boundary ---------------------------------------------------------------
def test_probabilities_from_a_helper_are_seen_in_the_caller() -> None:
    source = (
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
        "def predict(model, x):\n"
        "    return F.softmax(model(x), dim=-1)\n"
        "def evaluate(model, x, y):\n"
        "    probs = predict(model, x)\n"
        "    a = torch.log(probs[:, 0])\n"
        "    b = nn.CrossEntropyLoss()(probs, y)\n"
    )
    assert codes(source, ["PFL201", "PFL202"]) == [(8, "PFL202"), (9, "PFL201")]


def test_a_helper_with_mixed_returns_or_logits_is_unknown() -> None:
    source = (
        "import torch\nimport torch.nn.functional as F\n"
        "def head(model, x, probs):\n"
        "    if probs:\n"
        "        return F.softmax(model(x), dim=-1)\n"
        "    return model(x)\n"
        "def logits(model, x):\n"
        "    return model(x)\n"
        "def recurse(x):\n"
        "    return recurse(x)\n"
        "def evaluate(model, x, y):\n"
        "    a = F.cross_entropy(head(model, x, False), y)\n"
        "    b = F.cross_entropy(logits(model, x), y)\n"
        "    c = F.cross_entropy(recurse(x), y)\n"
    )
    assert codes(source, ["PFL201"]) == []


def test_a_loss_returned_under_no_grad_is_a_number_not_a_graph() -> None:
    source = (
        "import torch\nimport torch.nn.functional as F\n"
        "def val_loss(model, x, y):\n"
        "    with torch.no_grad():\n"
        "        return F.cross_entropy(model(x), y)\n"
        "def train_loss(model, x, y):\n"
        "    return F.cross_entropy(model(x), y)\n"
        "def run(model, loader, opt):\n"
        "    total, seen = 0, 0\n"
        "    for x, y in loader:\n"
        "        loss = train_loss(model, x, y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        seen += val_loss(model, x, y)\n"
        "        total += loss\n"
    )
    assert codes(source, ["PFL301"]) == [(16, "PFL301")]


def test_a_method_summary_through_self_and_through_an_instance() -> None:
    source = (
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
        "class Clf(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Linear(4, 3)\n"
        "    def forward(self, x):\n"
        "        return self.fc(x)\n"
        "    def proba(self, x):\n"
        "        return torch.sigmoid(self.fc(x))\n"
        "    @property\n"
        "    def scores(self):\n"
        "        return torch.sigmoid(self.fc.weight)\n"
        "    def loss(self, x, y):\n"
        "        return F.binary_cross_entropy(self.proba(x), y)\n"
        "def evaluate(x, y):\n"
        "    clf = Clf()\n"
        "    bad = nn.BCELoss()(clf.proba(x), y)\n"
        "    fine = nn.BCEWithLogitsLoss()(clf(x), y)\n"
        "    clf = make()\n"
        "    unknown = nn.BCELoss()(clf.proba(x), y)\n"
    )
    assert codes(source, ["PFL203"]) == [(16, "PFL203"), (19, "PFL203")]


def test_no_fix_for_next_on_a_name_bound_only_further_down_the_loop() -> None:
    # On the first iteration `it` is None: `it.next()` raises the AttributeError the handler
    # catches, `next(it)` a TypeError it does not. The binding above the loop is fixed.
    source = (
        "import torch\n"
        "def f(loader, other, steps):\n"
        "    it, fixed = None, iter(other)\n"
        "    for _ in range(steps):\n"
        "        try:\n"
        "            x = it.next()\n"
        "        except (AttributeError, StopIteration):\n"
        "            it = iter(loader)\n"
        "        y = fixed.next()\n"
    )
    findings = run(source, ["PFL003"]).findings
    assert [(f.line, bool(f.edits)) for f in findings] == [(6, False), (9, True)]
    assert "further down the loop" in findings[0].message


def test_fixing_the_mechanism_fixtures_keeps_them_parsing() -> None:
    changed = 0
    for path in sorted(MECH.glob("*.py")):
        fixed = run(path.read_text(encoding="utf-8"), ["ALL"], fix=True).fixed
        if fixed is not None:
            changed += 1
            ast.parse(fixed)
            again = run(fixed, ["ALL"]).findings
            assert not [f for f in again if f.edits]  # converged in one round
            carried = [f for f in again if f.code == "PFL003"]
            assert all("further down the loop" in f.message for f in carried)
    assert changed >= 1


def test_a_parameter_subclass_is_a_tensor_not_a_module() -> None:
    # Made by a method (summarised one call deep), a FlatParameter-style subclass of
    # nn.Parameter must not become a module: `.requires_grad = ...` on it is right.
    source = (
        "import torch\nimport torch.nn as nn\n"
        "class FlatParameter(nn.Parameter):\n"
        "    pass\n"
        "class Handle:\n"
        "    def __init__(self, t):\n"
        "        self.flat = self.make(t)\n"
        "    def make(self, t):\n"
        "        return FlatParameter(t)\n"
        "    def reset(self, flag):\n"
        "        flat = self.flat\n"
        "        flat.requires_grad = flag\n"
        "        g = flat.grad.data\n"
    )
    assert codes(source, ["PFL013", "PFL102"]) == [(13, "PFL102")]
