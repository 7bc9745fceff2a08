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
from pitfalls.catalogue.rule_table import RULES, resolve_selection
from pitfalls.check.driver import Settings, check_text

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


@pytest.mark.parametrize("name", ["api.py", "tensor.py", "numeric.py", "loop.py", "deprecated.py"])
def test_fixture_reports_exactly_the_marked_lines(name: str) -> None:
    source = (CHECK / name).read_text(encoding="utf-8")
    ast.parse(source)
    found = sorted(codes(source, ["ALL"]))
    found = [(line, code) for line, code in found if code != "PFL105"]
    if name != "deprecated.py":  # the opt-in performance rules have their own fixture
        found = [(line, code) for line, code in found if not code.startswith("PFL4")]
    assert found == expected(source)


def test_every_default_rule_has_a_true_case_in_the_fixtures() -> None:
    marked = set()
    for path in CHECK.glob("*.py"):
        marked |= {code for _, code in expected(path.read_text(encoding="utf-8"))}
    for source in GRADS_AND_DATA_CASES:
        marked |= {code for _, code in expected(source)}
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
    assert [f.message for f in run(source, ["PFL"]).findings] == [
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


# --- Kinds shown by use: `x.backward()` makes a loss, `.parameters()`/`.eval()` a module.


def test_a_backpropagated_value_is_a_loss_whatever_computed_it() -> None:
    source = (
        "import torch\n"
        "def train(model, criterion, loader, optimizer):\n"
        "    running, losses = 0.0, []\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        loss = criterion(model(x), y)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "        running += loss\n"
        "        losses.append(loss)\n"
        "    return running\n"
    )
    assert codes(source) == [(9, "PFL301"), (10, "PFL301")]


def test_backward_evidence_holds_only_for_the_binding_it_follows() -> None:
    # `loss` is reused for a number after the training loop, or turned into one.
    source = (
        "import torch\n"
        "def fit(model, loader, opt, evaluate, epochs):\n"
        "    history, logs = [], []\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in loader:\n"
        "            loss = model.compute_loss(x, y)\n"
        "            opt.zero_grad()\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "            loss = loss.item()\n"
        "            logs.append(loss)\n"
        "        loss = evaluate(model)\n"
        "        history.append(loss)\n"
        "    return history, logs\n"
    )
    assert codes(source) == []


def test_accelerate_and_lightning_backward_calls_show_a_loss() -> None:
    source = (
        "import torch\n"
        "def train(model, loader, opt, accelerator):\n"
        "    total = 0\n"
        "    for batch in loader:\n"
        "        loss = model(**batch).loss_value\n"
        "        accelerator.backward(loss)\n"
        "        opt.step()\n"
        "        opt.zero_grad()\n"
        "        total += loss\n"
        "    return total\n"
    )
    assert codes(source) == [(9, "PFL301")]
    assert codes(source.replace("total += loss", "total += loss.item()")) == []


def test_module_evidence_follows_attribute_chains_and_bindings() -> None:
    source = (
        "import torchvision\nfrom torch import nn\n"
        "model = torchvision.models.resnet18()\n"
        "model.head = nn.Linear(512, 2)\n"
        "for p in model.fc.parameters():\n"
        "    p.requires_grad = True\n"
        "model.fc.requires_grad = False\n"
        "model.head.requires_grad = False\n"
        "model.pos_embed.requires_grad = False\n"
    )
    assert codes(source) == [(7, "PFL013"), (8, "PFL013")]


def test_eval_with_an_argument_is_not_module_evidence() -> None:
    source = (
        "import torch\n"
        "def f(df, model, x):\n"
        "    df.eval('c = a + b')\n"
        "    model.eval()\n"
        "    df.requires_grad = False\n"
        "    model.requires_grad = False\n"
    )
    assert codes(source) == [(6, "PFL013")]


def test_self_attributes_used_as_modules_in_any_method_are_modules() -> None:
    source = (
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "        self.other = model\n"
        "    def evaluate(self, x):\n"
        "        self.model.eval()\n"
        "        out = self.model(x)\n"
        "        print(out.data)\n"
        "        print(self.other(x).data)\n"
    )
    assert codes(source) == [(9, "PFL102")]


def test_walrus_binds_its_name() -> None:
    source = (
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt):\n"
        "    total = 0\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        (loss := F.cross_entropy(model(x), y)).backward()\n"
        "        opt.step()\n"
        "        total += loss\n"
        "    return total\n"
    )
    assert codes(source) == [(8, "PFL301")]
    assert codes(source.replace("total += loss", "total += loss.item()")) == []


# --- PFL301: where a total lives and whether a graph is recorded.


def test_loss_totals_at_module_level_as_in_notebooks() -> None:
    source = (
        "import torch\nimport torch.nn as nn\n"
        "model = nn.Linear(4, 2)\n"
        "criterion = nn.CrossEntropyLoss()\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "history = []\n"
        "for epoch in range(3):\n"
        "    epoch_loss = 0\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        loss = criterion(model(x), y)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "        epoch_loss += loss\n"
        "    history.append(epoch_loss / 10)\n"
    )
    assert codes(source) == [(14, "PFL301"), (15, "PFL301")]
    fixed = source.replace("epoch_loss += loss", "epoch_loss += loss.item()")
    assert codes(fixed) == []


def test_totals_under_no_grad_record_no_graph() -> None:
    source = (
        "import torch\nfrom torch import no_grad\nimport torch.nn as nn\n"
        "criterion = nn.MSELoss()\n"
        "def val(model, loader, training):\n"
        "    total = 0\n"
        "    with no_grad():\n"
        "        for x, y in loader:\n"
        "            total += criterion(model(x), y)\n"
        "    with torch.set_grad_enabled(training):\n"
        "        for x, y in loader:\n"
        "            total += criterion(model(x), y)\n"
        "    print(total)\n"
        "@torch.inference_mode()\n"
        "def val2(model, loader):\n"
        "    losses = []\n"
        "    for x, y in loader:\n"
        "        losses.append(criterion(model(x), y))\n"
        "    print(losses)\n"
        "def val3(model, loader):\n"
        "    total = 0\n"
        "    with torch.enable_grad():\n"
        "        for x, y in loader:\n"
        "            total += criterion(model(x), y)\n"
        "    print(total)\n"
    )
    assert codes(source) == [(24, "PFL301")]


def test_a_periodic_reset_still_lets_graphs_pile_up() -> None:
    source = (
        "import torch.nn as nn\n"
        "criterion = nn.CrossEntropyLoss()\n"
        "def train(net, loader, optimizer):\n"
        "    running = 0.0\n"
        "    for i, (x, y) in enumerate(loader):\n"
        "        optimizer.zero_grad()\n"
        "        loss = criterion(net(x), y)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "        running += loss\n"
        "        if i % 100 == 99:\n"
        "            running = 0.0\n"
    )
    assert codes(source) == [(10, "PFL301")]
    per_iteration = source.replace(
        "        if i % 100 == 99:\n            running = 0.0\n", "        running = 0.0\n"
    )
    assert codes(per_iteration) == []


def test_a_loss_summed_for_the_caller_is_not_a_leak() -> None:
    source = (
        "import torch.nn as nn\nimport torch.nn.functional as F\n"
        "class DeepSupervision(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.criterion = nn.CrossEntropyLoss()\n"
        "    def forward(self, outputs, target):\n"
        "        loss = 0\n"
        "        for out in outputs:\n"
        "            loss += self.criterion(out, target)\n"
        "        return loss\n"
        "def evaluate(model, loader):\n"
        "    model.eval()\n"
        "    total = 0\n"
        "    for x, y in loader:\n"
        "        total += F.mse_loss(model(x), y)\n"
        "    return total\n"
        "def train(model, loader, opt):\n"
        "    total = 0\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        loss = F.mse_loss(model(x), y)\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        total += loss\n"
        "    return total\n"
    )
    assert codes(source) == [(16, "PFL301"), (25, "PFL301")]


def test_running_totals_on_self() -> None:
    source = (
        "import torch.nn.functional as F\n"
        "class Trainer:\n"
        "    def fit(self, loader):\n"
        "        for x, y in loader:\n"
        "            self.opt.zero_grad()\n"
        "            loss = F.cross_entropy(self.model(x), y)\n"
        "            loss.backward()\n"
        "            self.opt.step()\n"
        "            self.history.append(loss)\n"
        "            self.total += loss\n"
        "            self.logged.append(loss.item())\n"
    )
    assert codes(source) == [(9, "PFL301"), (10, "PFL301")]


# --- Probabilities: methods on unknown tensors, reshaped and selected probabilities.


def test_softmax_and_sigmoid_methods_on_any_tensor() -> None:
    source = (
        "import torch\nimport torch.nn as nn\n"
        "def step(model, x, y, student, teacher, T):\n"
        "    probs = model(x).softmax(dim=1)\n"
        "    a = nn.functional.cross_entropy(probs, y)\n"
        "    b = nn.BCELoss()(model(x).sigmoid(), y)\n"
        "    p = (teacher / T).softmax(-1)\n"
        "    q = (student / T).log_softmax(-1)\n"
        "    c = nn.functional.kl_div(q, p, reduction='batchmean')\n"
        "    d = nn.functional.cross_entropy(model(x), y)\n"
        "    return a, b, c, d\n"
    )
    assert codes(source) == [(5, "PFL201"), (6, "PFL203")]


def test_a_softmax_method_of_an_imported_module_is_not_a_tensor_method() -> None:
    source = (
        "import torch\nimport scipy.special as sp\n"
        "def f(x, y):\n"
        "    return torch.log(sp.softmax(x)), torch.log(x.softmax(-1))\n"
    )
    assert codes(source) == [(4, "PFL202")]


def test_reshaped_or_selected_probabilities_stay_probabilities() -> None:
    source = (
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
        "def focal(logits, target, model, x, y):\n"
        "    prob = F.softmax(logits, dim=1)\n"
        "    pt = prob.gather(1, target.view(-1, 1)).squeeze(1)\n"
        "    a = pt.log()\n"
        "    b = torch.log(prob[:, 1])\n"
        "    c = torch.log(pt.clamp(min=1e-6))\n"
        "    out = torch.sigmoid(model(x)).squeeze()\n"
        "    d = nn.BCELoss()(out, y)\n"
        "    e = nn.BCELoss()(out.clamp(1e-6, 1 - 1e-6), y)\n"
        "    return a, b, c, d, e\n"
    )
    assert codes(source) == [(7, "PFL202"), (8, "PFL202"), (11, "PFL203")]


# --- Models from other packages.


def test_transformers_timm_and_lightning_models_are_modules() -> None:
    source = (
        "import timm\nimport torch\nimport lightning.pytorch as pl\nfrom torch import nn\n"
        "from transformers import AutoModelForSequenceClassification, AutoTokenizer\n"
        "from transformers import DataCollatorForLanguageModeling, TFAutoModel\n"
        "model = AutoModelForSequenceClassification.from_pretrained('bert')\n"
        "model.requires_grad = False\n"
        "tokenizer = AutoTokenizer.from_pretrained('bert')\n"
        "tokenizer.requires_grad = False\n"
        "collator = DataCollatorForLanguageModeling(tokenizer)\n"
        "collator.requires_grad = False\n"
        "tf_model = TFAutoModel.from_pretrained('bert')\n"
        "tf_model.requires_grad = False\n"
        "backbone = timm.create_model('resnet50')\n"
        "backbone.requires_grad = False\n"
        "class Lit(pl.LightningModule):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.layers = [nn.Linear(2, 2)]\n"
    )
    assert codes(source) == [(8, "PFL013"), (16, "PFL013"), (20, "PFL104")]


def test_a_model_output_carries_its_loss() -> None:
    source = (
        "import torch\nfrom transformers import AutoModelForCausalLM\n"
        "model = AutoModelForCausalLM.from_pretrained('gpt2')\n"
        "def train(loader, optimizer):\n"
        "    total = 0\n"
        "    for batch in loader:\n"
        "        outputs = model(**batch)\n"
        "        outputs.loss.backward()\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n"
        "        total += outputs.loss\n"
        "    return total\n"
    )
    assert codes(source) == [(11, "PFL301")]
    assert codes(source.replace("total += outputs.loss", "total += outputs.loss.item()")) == []


# --- Loops over zip(), module lists filled by append, state_dict copies.


def test_zip_binds_each_loop_name_from_its_own_iterable() -> None:
    source = (
        "import torch\n"
        "def ema(model, ema_model, decay, xs, ys):\n"
        "    for p, q in zip(model.parameters(), ema_model.parameters()):\n"
        "        q.data.mul_(decay)\n"
        "    for a, b in zip(xs, ys):\n"
        "        a.data = b\n"
    )
    assert codes(source) == [(4, "PFL101")]


def test_modules_appended_to_a_plain_list_in_init() -> None:
    source = (
        "import torch.nn as nn\n"
        "class Encoder(nn.Module):\n"
        "    def __init__(self, depth):\n"
        "        super().__init__()\n"
        "        self.blocks = []\n"
        "        self.norms = nn.ModuleList()\n"
        "        self.tmp = []\n"
        "        self.dims = []\n"
        "        for _ in range(depth):\n"
        "            self.blocks.append(nn.Linear(4, 4))\n"
        "            self.norms.append(nn.LayerNorm(4))\n"
        "            self.tmp.append(nn.ReLU())\n"
        "            self.dims.append(4)\n"
        "        self.tmp = nn.ModuleList(self.tmp)\n"
    )
    assert codes(source) == [(10, "PFL104")]


def test_shallow_copies_of_a_state_dict_still_alias_the_weights() -> None:
    source = (
        "import copy\nimport torch\n"
        "def fit(model, optimizer, epochs, validate):\n"
        "    best = 1e9\n"
        "    for epoch in range(epochs):\n"
        "        loss = validate(model)\n"
        "        if loss < best:\n"
        "            a = model.state_dict().copy()\n"
        "            b = dict(optimizer.state_dict())\n"
        "            c = {k: v for k, v in model.state_dict().items()}\n"
        "            d = {k: v.clone() for k, v in model.state_dict().items()}\n"
        "            e = copy.deepcopy(model.state_dict())\n"
        "    return a, b, c, d, e\n"
    )
    assert codes(source) == [(8, "PFL106"), (9, "PFL106"), (10, "PFL106")]


def test_a_best_state_restored_inside_an_outer_loop() -> None:
    source = (
        "import torch\n"
        "for fold in folds:\n"
        "    best = 0\n"
        "    for epoch in range(30):\n"
        "        train(model)\n"
        "        acc = score(model)\n"
        "        if acc > best:\n"
        "            best_state = model.state_dict()\n"
        "    model.load_state_dict(best_state)\n"
        "for epoch in range(3):\n"
        "    for batch in loader:\n"
        "        last = model.state_dict()\n"
        "    torch.save(last, 'last.pt')\n"
    )
    assert codes(source) == [(8, "PFL106")]


# --- The rest: dropout in module helpers, bare amp decorators, int(), manual_backward.


def test_functional_dropout_in_any_method_of_a_module() -> None:
    source = (
        "import torch.nn as nn\nimport torch.nn.functional as F\n"
        "class Attention(nn.Module):\n"
        "    def attend(self, a):\n"
        "        return F.dropout(a, p=0.1)\n"
        "    def forward(self, x):\n"
        "        def inner(h):\n"
        "            return F.dropout(h, 0.1)\n"
        "        return inner(self.attend(x))\n"
        "    def sample(self, x):\n"
        "        return F.dropout(x, 0.2, True)\n"
        "    @staticmethod\n"
        "    def noisy(x):\n"
        "        return F.dropout(x, 0.5)\n"
        "class Plain:\n"
        "    def helper(self, x):\n"
        "        return F.dropout(x, 0.1)\n"
    )
    assert codes(source) == [(5, "PFL304"), (8, "PFL304")]


def test_bare_cuda_amp_decorators() -> None:
    source = (
        "import torch\nfrom torch.cuda.amp import custom_fwd\n"
        "class Fn(torch.autograd.Function):\n"
        "    @staticmethod\n    @custom_fwd\n    def forward(ctx, x):\n        return x\n"
        "    @staticmethod\n    @torch.amp.custom_bwd(device_type='cuda')\n"
        "    def backward(ctx, g):\n        return g\n"
    )
    assert codes(source) == [(5, "PFL009")]


def test_int_calls_are_ints_for_legacy_constructors() -> None:
    source = (
        "import torch\n"
        "def item(labels, i):\n"
        "    label = int(labels[i])\n"
        "    return torch.LongTensor(label), torch.LongTensor([label])\n"
    )
    assert codes(source) == [(4, "PFL011")]


def test_lightning_manual_backward_counts_as_backward() -> None:
    source = (
        "import torch\n"
        "def training_step(self, batch):\n"
        "    opt = self.optimizers()\n"
        "    for _ in range(3):\n"
        "        self.manual_backward(self.compute(batch))\n"
        "        opt.step()\n"
    )
    assert codes(source) == [(6, "PFL303")]
    zeroed = source.replace("        opt.step()\n", "        opt.step()\n        opt.zero_grad()\n")
    assert codes(zeroed) == []


# --- PFL106 outside loops: early-stopping hooks, states taken before training.


def test_an_early_stopping_hook_keeps_an_aliased_best_state() -> None:
    source = (
        "import copy\nimport torch\n"
        "class EarlyStopping:\n"
        "    def __call__(self, val_loss, model, optimizer):\n"
        "        if val_loss < self.best:\n"
        "            self.best = val_loss\n"
        "            self.state = model.state_dict()\n"
        "            self.weights = model.state_dict().copy()\n"
        "            self.opt = copy.copy(optimizer.state_dict())\n"
        "            self.deep = copy.deepcopy(model.state_dict())\n"
        "            self.cpu = {k: v.cpu().clone() for k, v in model.state_dict().items()}\n"
        "        self.last = model.state_dict()\n"
        "    def restore(self, model):\n"
        "        model.load_state_dict(self.state)\n"
    )
    assert codes(source) == [(7, "PFL106"), (8, "PFL106"), (9, "PFL106")]


def test_a_best_state_only_saved_at_once_is_not_kept() -> None:
    source = (
        "import torch\n"
        "class SaveBest:\n"
        "    def __call__(self, loss, model):\n"
        "        if loss < self.best:\n"
        "            self.state = model.state_dict()\n"
        "            torch.save(self.state, self.path)\n"
    )
    assert codes(source) == []
    restored = source + "    def restore(self, model):\n        model.load_state_dict(self.state)\n"
    assert codes(restored) == [(5, "PFL106")]


def test_a_state_dict_taken_before_training_and_restored_later() -> None:
    source = (
        "import torch\nimport torch.nn.functional as F\n"
        "def folds(model, splits, make_opt):\n"
        "    init = model.state_dict()\n"
        "    for loader in splits:\n"
        "        model.load_state_dict(init)\n"
        "        opt = make_opt(model)\n"
        "        for x, y in loader:\n"
        "            opt.zero_grad()\n"
        "            F.mse_loss(model(x), y).backward()\n"
        "            opt.step()\n"
        "def probe(model, loader, path):\n"
        "    init = model.state_dict()\n"
        "    torch.save(init, path)\n"
        "    for x, y in loader:\n"
        "        print(model(x).sum().item())\n"
        "    model.load_state_dict(init)\n"
    )
    assert codes(source) == [(4, "PFL106")]


def test_a_loop_that_rebuilds_the_model_keeps_finished_weights() -> None:
    source = (
        "import torch\nimport torch.nn.functional as F\n"
        "def search(make_model, loader, lrs, score):\n"
        "    best, best_state = 0, None\n"
        "    for lr in lrs:\n"
        "        model = make_model()\n"
        "        opt = torch.optim.SGD(model.parameters(), lr=lr)\n"
        "        for x, y in loader:\n"
        "            opt.zero_grad()\n"
        "            F.mse_loss(model(x), y).backward()\n"
        "            opt.step()\n"
        "        if score(model) > best:\n"
        "            best_state = model.state_dict()\n"
        "    return best_state\n"
    )
    assert codes(source) == []
    shared = source.replace("        model = make_model()\n", "")
    assert codes(shared.replace("(make_model,", "(model,")) == [(12, "PFL106")]


def test_a_checkpoint_dict_holding_a_state_dict_aliases_it() -> None:
    source = (
        "import torch\n"
        "def fit(model, train, evaluate, epochs, path):\n"
        "    best, best_ckpt = 1e9, None\n"
        "    for epoch in range(epochs):\n"
        "        train(model)\n"
        "        loss = evaluate(model)\n"
        "        if loss < best:\n"
        "            best_ckpt = {'epoch': epoch, 'model': model.state_dict()}\n"
        "        ckpt = {'epoch': epoch, 'model': model.state_dict()}\n"
        "        torch.save(ckpt, path)\n"
        "    torch.save(best_ckpt, path)\n"
    )
    assert codes(source) == [(8, "PFL106")]


# --- PFL104: local lists, plain dicts, list(...), registered modules.


def test_a_local_list_of_modules_stored_on_self() -> None:
    source = (
        "import torch.nn as nn\n"
        "class MLP(nn.Module):\n"
        "    def __init__(self, dims):\n"
        "        super().__init__()\n"
        "        layers = []\n"
        "        for a, b in zip(dims[:-1], dims[1:]):\n"
        "            layers.append(nn.Linear(a, b))\n"
        "        self.layers = layers\n"
        "        convs = [nn.Conv2d(3, 8, 3)]\n"
        "        convs += [nn.Conv2d(8, 8, 3)]\n"
        "        self.convs = convs\n"
        "        seq = []\n"
        "        for a in dims:\n"
        "            seq.append(nn.Linear(a, a))\n"
        "        self.net = nn.Sequential(*seq)\n"
        "        self.seq = seq\n"
        "        listed = []\n"
        "        listed.append(nn.Linear(2, 2))\n"
        "        listed = nn.ModuleList(listed)\n"
        "        self.listed = listed\n"
        "        dims_out = []\n"
        "        dims_out.append(4)\n"
        "        self.dims_out = dims_out\n"
    )
    assert codes(source) == [(8, "PFL104"), (11, "PFL104")]


def test_modules_stored_in_a_plain_dict_or_built_by_list() -> None:
    source = (
        "import torch.nn as nn\n"
        "class MultiTask(nn.Module):\n"
        "    def __init__(self, tasks, n):\n"
        "        super().__init__()\n"
        "        self.heads = {}\n"
        "        self.good = nn.ModuleDict()\n"
        "        self.sizes = {}\n"
        "        for name, k in tasks.items():\n"
        "            self.heads[name] = nn.Linear(8, k)\n"
        "            self.good[name] = nn.Linear(8, k)\n"
        "            self.sizes[name] = k\n"
        "        self.blocks = list(nn.Linear(8, 8) for _ in range(n))\n"
        "        self.named = dict(enc=nn.Linear(8, 8), dec=nn.Linear(8, 8))\n"
    )
    assert codes(source) == [(9, "PFL104"), (12, "PFL104"), (13, "PFL104")]


def test_modules_registered_another_way_or_without_state_are_not_reported() -> None:
    source = (
        "import torch.nn as nn\n"
        "class Net(nn.Module):\n"
        "    def __init__(self, backbone, n):\n"
        "        super().__init__()\n"
        "        self.conv1 = nn.Conv2d(1, 8, 3)\n"
        "        self.conv2 = nn.Conv2d(8, 8, 3)\n"
        "        self.convs = [self.conv1, self.conv2]\n"
        "        self.layers = []\n"
        "        for i in range(n):\n"
        "            layer = nn.Linear(8, 8)\n"
        "            setattr(self, f'fc{i}', layer)\n"
        "            self.layers.append(layer)\n"
        "        self.acts = [nn.ReLU(), nn.Tanh(), nn.MaxPool2d(2)]\n"
        "        self.backbone = backbone\n"
        "        self.stages = [m for m in backbone.children()]\n"
    )
    assert codes(source) == []


# --- PFL301: a loss added before its backward, AverageMeter-style totals.


def test_a_loss_added_to_a_total_before_its_backward() -> None:
    source = (
        "import torch\n"
        "def train(model, loader, opt, criterion, steps):\n"
        "    running, history = 0.0, []\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        loss = criterion(model(x), y)\n"
        "        running += loss\n"
        "        history.append(loss * x.size(0))\n"
        "        loss = loss / steps\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "    return running, history\n"
    )
    assert codes(source) == [(7, "PFL301"), (8, "PFL301")]
    assert codes(source.replace("loss = loss / steps", "loss = criterion(x, y)")) == []
    fixed = source.replace("running += loss", "running += loss.item()")
    assert codes(fixed.replace("append(loss * x.size(0))", "append(loss.item())")) == []


def test_a_meter_of_the_file_that_sums_what_it_is_given() -> None:
    source = (
        "import torch\n"
        "class AverageMeter:\n"
        "    def __init__(self):\n"
        "        self.sum, self.count = 0, 0\n"
        "    def update(self, val, n=1):\n"
        "        self.sum += val * n\n"
        "        self.count += n\n"
        "class SafeMeter:\n"
        "    def update(self, val, n=1):\n"
        "        val = float(val)\n"
        "        self.sum += val * n\n"
        "def train(model, loader, opt, criterion):\n"
        "    losses, safe = AverageMeter(), SafeMeter()\n"
        "    for x, y in loader:\n"
        "        loss = criterion(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        losses.update(loss, x.size(0))\n"
        "        safe.update(loss, x.size(0))\n"
        "        losses.update(loss.item(), x.size(0))\n"
    )
    assert codes(source) == [(19, "PFL301")]


# --- PFL102: model outputs read for predictions, names passed to a loss.


def test_data_of_a_model_output_read_for_its_predictions() -> None:
    source = (
        "import torch\nfrom sklearn.datasets import load_digits\n"
        "def get_batch():\n    return torch.zeros(2, 2)\n"
        "def accuracy(net, loader, tokenizer):\n"
        "    for images, labels in loader:\n"
        "        outputs = net(images)\n"
        "        _, predicted = torch.max(outputs.data, 1)\n"
        "        pred = outputs.data.max(1, keepdim=True)[1]\n"
        "        raw = outputs.data.float()\n"
        "    batch = get_batch()\n"
        "    a = torch.max(batch.data, 1)\n"
        "    b = torch.tensor(load_digits().data)\n"
        "    enc = tokenizer(['a'])\n"
        "    return len(enc.data), a, b\n"
    )
    assert codes(source) == [(8, "PFL102"), (9, "PFL102")]


def test_a_name_passed_to_a_loss_holds_a_tensor() -> None:
    source = (
        "import torch\nimport torch.nn as nn\n"
        "criterion = nn.CrossEntropyLoss()\n"
        "for inputs, labels in dataloaders['train']:\n"
        "    outputs = model(inputs)\n"
        "    before = labels.data\n"
        "    loss = criterion(outputs, labels)\n"
        "    corrects = torch.sum(outputs.argmax(1) == labels.data)\n"
        "    labels = labels.tolist()\n"
        "    after = labels.data\n"
    )
    assert codes(source) == [(8, "PFL102")]


# --- PFL201/PFL203: models whose forward returns probabilities.


def test_a_model_whose_forward_returns_softmax_fed_to_cross_entropy() -> None:
    source = (
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
        "class Net(nn.Module):\n"
        "    def forward(self, x):\n"
        "        x = self.fc(x)\n"
        "        x = F.softmax(x, dim=1)\n"
        "        return x\n"
        "class EvalOnly(nn.Module):\n"
        "    def forward(self, x):\n"
        "        x = self.fc(x)\n"
        "        if not self.training:\n"
        "            x = F.softmax(x, dim=1)\n"
        "        return x\n"
        "class Sub(Net):\n"
        "    pass\n"
        "net = nn.DataParallel(Net())\n"
        "ce = nn.CrossEntropyLoss()\n"
        "def step(x, y):\n"
        "    return ce(net(x), y), ce(EvalOnly()(x), y), ce(Sub()(x), y), net(x).argmax(1)\n"
    )
    assert codes(source) == [(20, "PFL201"), (20, "PFL201")]


def test_a_sequential_ending_in_softmax_or_sigmoid() -> None:
    source = (
        "import torch.nn as nn\n"
        "model = nn.Sequential(nn.Linear(4, 1), nn.Sigmoid())\n"
        "clf = nn.Sequential(nn.Linear(4, 3), nn.Softmax(dim=1))\n"
        "logits = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 3))\n"
        "a = nn.BCELoss()(model(x).squeeze(1), y)\n"
        "b = nn.CrossEntropyLoss()(clf(x), z)\n"
        "c = nn.CrossEntropyLoss()(logits(x), z)\n"
        "gated = x * model(x)\n"
    )
    assert codes(source) == [(5, "PFL203"), (6, "PFL201")]


def test_a_total_on_self_in_a_lightning_training_step() -> None:
    source = (
        "import lightning.pytorch as pl\nimport torch.nn.functional as F\n"
        "class Lit(pl.LightningModule):\n"
        "    def training_step(self, batch, batch_idx):\n"
        "        x, y = batch\n"
        "        loss = F.cross_entropy(self(x), y)\n"
        "        self.losses.append(loss)\n"
        "        self.kept.append(loss.detach())\n"
        "        return loss\n"
        "    def validation_step(self, batch, batch_idx):\n"
        "        loss = F.cross_entropy(self(batch[0]), batch[1])\n"
        "        self.val_losses.append(loss)\n"
    )
    assert codes(source) == [(7, "PFL301")]
    assert codes(source.replace("pl.LightningModule", "object")) == []


def test_a_loss_moved_to_the_cpu_keeps_its_graph() -> None:
    source = (
        "import torch.nn as nn\n"
        "criterion = nn.MSELoss()\n"
        "def train(model, loader, opt, history):\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        loss = criterion(model(x), y)\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        history.append(loss.cpu())\n"
        "        history.append(loss.detach().cpu())\n"
    )
    assert codes(source) == [(9, "PFL301")]


# -- precision: correct research code that must stay clean ----------------------------------


def test_a_diffusion_sampler_step_is_not_an_lr_scheduler_step() -> None:
    source = (
        "import torch\nimport torch.nn.functional as F\n"
        "from diffusers import DDPMScheduler\n"
        "def train(model, loader, optimizer, lr_scheduler, epochs):\n"
        "    noise_scheduler = DDPMScheduler(num_train_timesteps=1000)\n"
        "    for epoch in range(epochs):\n"
        "        sample = torch.randn(4, 3, 32, 32)\n"
        "        for t in noise_scheduler.timesteps:\n"
        "            with torch.no_grad():\n"
        "                pred = model(sample, t)\n"
        "            sample = noise_scheduler.step(pred, t, sample).prev_sample\n"
        "        for x in loader:\n"
        "            optimizer.zero_grad()\n"
        "            F.mse_loss(model(x, 0), x).backward()\n"
        "            optimizer.step()\n"
        "            lr_scheduler.step()\n"
    )
    assert codes(source) == []
    swapped = source.replace("step(pred, t, sample)", "step()")
    assert codes(swapped) == [(11, "PFL302")]


def test_a_list_of_head_losses_summed_and_backpropagated_each_batch() -> None:
    source = (
        "import torch.nn.functional as F\n"
        "def train(model, loader, optimizer):\n"
        "    for x, y in loader:\n"
        "        losses = []\n"
        "        for head in model.heads:\n"
        "            losses.append(F.cross_entropy(head(x), y))\n"
        "        loss = sum(losses) / len(losses)\n"
        "        optimizer.zero_grad()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
    )
    assert codes(source) == []
    unused = source.replace("sum(losses) / len(losses)", "model.penalty()")
    assert codes(unused) == [(6, "PFL301")]


def test_state_dicts_of_schedulers_and_scalers_are_not_aliases() -> None:
    source = (
        "import copy\nimport torch.nn.functional as F\n"
        "def keep(model, loader, optimizer, scheduler, scaler, evaluate):\n"
        "    best, ckpt = 0.0, None\n"
        "    for epoch in range(10):\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            F.cross_entropy(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "        scheduler.step()\n"
        "        if evaluate(model) > best:\n"
        "            ckpt = {'model': copy.deepcopy(model.state_dict()),\n"
        "                    'scheduler': scheduler.state_dict(), 'scaler': scaler.state_dict()}\n"
        "    return ckpt\n"
        "class Keeper:\n"
        "    def __call__(self, score, scheduler):\n"
        "        if score > self.best:\n"
        "            self.sched_state = scheduler.state_dict()\n"
    )
    assert codes(source) == []
    live = source.replace("copy.deepcopy(model.state_dict())", "model.state_dict()")
    assert codes(live) == [(12, "PFL106")]


def test_the_state_dict_of_a_deep_copy_is_not_an_alias() -> None:
    source = (
        "import copy\nimport torch.nn.functional as F\n"
        "def keep(model, loader, optimizer, evaluate):\n"
        "    best, frozen = 0.0, None\n"
        "    for epoch in range(10):\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            F.cross_entropy(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "        if evaluate(model) > best:\n"
        "            frozen = copy.deepcopy(model).state_dict()\n"
        "    return frozen\n"
    )
    assert codes(source) == []
    assert codes(source.replace("copy.deepcopy(model)", "model")) == [(11, "PFL106")]


def test_a_state_dict_taken_just_before_leaving_the_loop() -> None:
    source = (
        "import torch\nimport torch.nn.functional as F\n"
        "def converge(model, loader, optimizer):\n"
        "    prev, final = float('inf'), None\n"
        "    for epoch in range(1000):\n"
        "        total = 0.0\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            loss = F.mse_loss(model(x), y)\n"
        "            loss.backward()\n"
        "            optimizer.step()\n"
        "            total += loss.item()\n"
        "        if abs(prev - total) < 1e-4:\n"
        "            final = model.state_dict()\n"
        "            break\n"
        "        prev = total\n"
        "    torch.save(final, 'final.pt')\n"
    )
    assert codes(source) == []
    assert codes(source.replace("            break\n", "")) == [(14, "PFL106")]


def test_a_module_argument_hidden_alone_in_a_list_on_purpose() -> None:
    source = (
        "import torch.nn as nn\n"
        "class Distiller(nn.Module):\n"
        "    def __init__(self, student, teacher):\n"
        "        super().__init__()\n"
        "        self.student = student\n"
        "        teacher.eval()\n"
        "        self._teacher = [teacher]\n"
    )
    assert codes(source) == []
    built = source.replace("[teacher]", "[nn.Linear(2, 2)]")
    assert codes(built) == [(7, "PFL104")]


def test_exp_of_a_number_minus_one_is_not_a_small_x() -> None:
    source = (
        "import numpy as np\nimport torch\n"
        "table = (np.exp(2) - 1, np.exp(-3.0) - 1, torch.exp(torch.tensor(1.0)) - 1)\n"
    )
    assert codes(source) == [(3, "PFL205")]


# --- PFL107-PFL109, PFL305-PFL307: each source marks what must be reported.

GRADS_AND_DATA_CASES = [
    # PFL305: clip after step, clip before backward (loop and loop-free step function).
    "import torch\nfrom torch.nn.utils import clip_grad_norm_\n"
    "def train(model, loader, optimizer):\n"
    "    for x in loader:\n"
    "        optimizer.zero_grad()\n"
    "        model(x).sum().backward()\n"
    "        optimizer.step()\n"
    "        clip_grad_norm_(model.parameters(), 1.0)  # expect: PFL305\n"
    "def step(model, x, optimizer, scaler):\n"
    "    optimizer.zero_grad()\n"
    "    torch.nn.utils.clip_grad_value_(model.parameters(), 1.0)  # expect: PFL305\n"
    "    scaler.scale(model(x).sum()).backward()\n"
    "    scaler.step(optimizer)\n",
    # PFL305 near misses: the right order, and a step deferred to the next iteration.
    "import torch\nfrom torch.nn.utils import clip_grad_norm_\n"
    "def train(model, loader, optimizer):\n"
    "    for x in loader:\n"
    "        optimizer.zero_grad()\n"
    "        model(x).sum().backward()\n"
    "        clip_grad_norm_(model.parameters(), 1.0)\n"
    "        optimizer.step()\n"
    "    for i, x in enumerate(loader):\n"
    "        if i:\n"
    "            clip_grad_norm_(model.parameters(), 1.0)\n"
    "            optimizer.step()\n"
    "            optimizer.zero_grad()\n"
    "        model(x).sum().backward()\n",
    # PFL107: optimizer then clip; a filter consumed in a loop; a count then an optimizer.
    "import torch\n"
    "def fit(model, loader):\n"
    "    params = model.parameters()\n"
    "    opt = torch.optim.SGD(params, lr=0.1)\n"
    "    torch.nn.utils.clip_grad_norm_(params, 1.0)  # expect: PFL107\n"
    "    trainable = filter(lambda p: p.requires_grad, model.parameters())\n"
    "    for x in loader:\n"
    "        torch.nn.utils.clip_grad_norm_(trainable, 1.0)  # expect: PFL107\n"
    "    named = model.named_parameters()\n"
    "    n = sum(p.numel() for _, p in named)\n"
    "    return opt, n, torch.optim.Adam(p for _, p in named)  # expect: PFL107\n",
    # PFL107 near misses: list(), uses in exclusive branches, rebinding, next(), a list.
    "import torch\n"
    "def fit(model, flag, bucket):\n"
    "    params = list(model.parameters())\n"
    "    opt = torch.optim.SGD(params, lr=0.1)\n"
    "    torch.nn.utils.clip_grad_norm_(params, 1.0)\n"
    "    gen = model.parameters()\n"
    "    if flag:\n"
    "        opt = torch.optim.SGD(gen, lr=0.1)\n"
    "    else:\n"
    "        opt = torch.optim.Adam(gen)\n"
    "    gen = model.parameters()\n"
    "    first = next(gen)\n"
    "    ps = bucket.parameters()\n"
    "    if len(ps) > 0:\n"
    "        opt = torch.optim.SGD(ps)\n"
    "        torch.nn.utils.clip_grad_norm_(ps, 1.0)\n"
    "    return opt, first\n",
    # PFL108: `.to(device)` and `.cuda()` after requires_grad=True, then trained.
    "import torch\n"
    "def fit(device):\n"
    "    w = torch.randn(3, requires_grad=True).to(device)  # expect: PFL108\n"
    "    b = torch.zeros(3, requires_grad=True).cuda().requires_grad_()  # expect: PFL108\n"
    "    opt = torch.optim.SGD([w], lr=0.1)\n"
    "    (w * 2 + b).sum().backward()\n"
    "    return opt, b.grad\n",
    # PFL108 near misses: device= in the factory, requires_grad_ after the move, an input
    # that only has to require grad, a float32 no-op, a new Parameter.
    "import torch\nimport torch.nn as nn\n"
    "def fit(device, model):\n"
    "    w = torch.randn(3, device=device, requires_grad=True)\n"
    "    v = torch.randn(3).to(device).requires_grad_()\n"
    "    x = torch.rand(10, 10, requires_grad=True).cuda()\n"
    "    f = torch.randn(3, requires_grad=True).to(torch.float32)\n"
    "    p = nn.Parameter(torch.randn(3, requires_grad=True).cuda())\n"
    "    model(x).sum().backward()\n"
    "    return torch.optim.SGD([w, v, f, p], lr=0.1), w.grad\n",
    # PFL109: DataParallel and torch.compile, directly and in a checkpoint dict.
    "import torch\nimport torch.nn as nn\n"
    "def save(model, path):\n"
    "    model = nn.DataParallel(model)\n"
    "    torch.save(model.state_dict(), path)  # expect: PFL109\n"
    "def save_compiled(net, path):\n"
    "    net = torch.compile(net)\n"
    "    torch.save({'model': net.state_dict(), 'epoch': 1}, path)  # expect: PFL109\n",
    # PFL109 near misses: saved before wrapping, another model; `.to()` returns the wrapper
    # itself (its keys keep `module.`), so the last save is a true case.
    "import torch\nimport torch.nn as nn\n"
    "def save(model, other, path):\n"
    "    torch.save(model.state_dict(), path)\n"
    "    model = nn.DataParallel(model)\n"
    "    torch.save(other.state_dict(), path)\n"
    "    model = model.to('cuda')\n"
    "    torch.save(model.state_dict(), path)  # expect: PFL109\n",
    # PFL306: NumPy, torch and Python generators made in __init__, drawn in __getitem__.
    "import random\nimport numpy as np\nimport torch\nfrom torch.utils.data import Dataset\n"
    "class Aug(Dataset):\n"
    "    def __init__(self):\n"
    "        self.rng = np.random.default_rng()\n"
    "        self.gen = torch.Generator().manual_seed(0)\n"
    "        self.py = random.Random(0)\n"
    "    def __getitem__(self, i):\n"
    "        a = self.rng.integers(10)  # expect: PFL306\n"
    "        b = torch.rand(1, generator=self.gen)  # expect: PFL306\n"
    "        return a, b, self.py.random()  # expect: PFL306\n",
    # PFL306 near misses: reseeded per item, a generator made per item, not a Dataset.
    "import numpy as np\nfrom torch.utils.data import Dataset\n"
    "class Seeded(Dataset):\n"
    "    def __init__(self):\n"
    "        self.rng = np.random.RandomState(0)\n"
    "    def __getitem__(self, i):\n"
    "        self.rng.seed(i)\n"
    "        return self.rng.rand()\n"
    "class Fresh(Dataset):\n"
    "    def __init__(self):\n"
    "        self.rng = np.random.default_rng()\n"
    "    def __getitem__(self, i):\n"
    "        return np.random.default_rng(i).integers(10)\n"
    "class Table:\n"
    "    def __init__(self):\n"
    "        self.rng = np.random.default_rng()\n"
    "    def __getitem__(self, i):\n"
    "        return self.rng.integers(10)\n",
    # PFL307: an inline lambda, a nested function, a module-level lambda.
    "from torch.utils.data import DataLoader\n"
    "collate = lambda b: b  # noqa: E731\n"
    "def loaders(ds, n):\n"
    "    def init(worker_id):\n"
    "        pass\n"
    "    a = DataLoader(ds, num_workers=4, collate_fn=lambda b: b[0])  # expect: PFL307\n"
    "    b = DataLoader(ds, num_workers=n, worker_init_fn=init)  # expect: PFL307\n"
    "    c = DataLoader(ds, num_workers=2, collate_fn=collate)  # expect: PFL307\n"
    "    return a, b, c\n",
    # PFL307 near misses: no workers, a module-level def, fork, another DataLoader.
    "from torch.utils.data import DataLoader\n"
    "from torch_geometric.loader import DataLoader as GraphLoader\n"
    "def collate(b):\n"
    "    return b\n"
    "def loaders(ds):\n"
    "    def init(worker_id):\n"
    "        pass\n"
    "    a = DataLoader(ds, num_workers=0, collate_fn=lambda b: b)\n"
    "    b = DataLoader(ds, collate_fn=lambda b: b)\n"
    "    c = DataLoader(ds, num_workers=2, collate_fn=collate)\n"
    "    d = DataLoader(ds, num_workers=2, worker_init_fn=init, multiprocessing_context='fork')\n"
    "    e = GraphLoader(ds, num_workers=2, collate_fn=lambda b: b)\n"
    "    return a, b, c, d, e\n",
]


@pytest.mark.parametrize("source", GRADS_AND_DATA_CASES)
def test_grads_and_data_rules_report_exactly_the_marked_lines(source: str) -> None:
    found = sorted(codes(source, ["ALL"]))
    new = {"PFL107", "PFL108", "PFL109", "PFL305", "PFL306", "PFL307"}
    assert [f for f in found if f[1] in new] == expected(source)


def test_grads_and_data_rules_each_have_two_caught_cases() -> None:
    marked: dict[str, int] = {}
    for source in GRADS_AND_DATA_CASES:
        for _, code in expected(source):
            marked[code] = marked.get(code, 0) + 1
    for code in ("PFL107", "PFL108", "PFL109", "PFL305", "PFL306", "PFL307"):
        assert marked.get(code, 0) >= 2, code


def test_a_prefix_stripping_file_is_not_told_about_the_prefix() -> None:
    source = (
        "import torch\nimport torch.nn as nn\n"
        "def save(model, path):\n"
        "    model = nn.DataParallel(model)\n"
        "    torch.save(model.state_dict(), path)\n"
        "def load(model, path):\n"
        "    state = {k.removeprefix('module.'): v for k, v in torch.load(path).items()}\n"
        "    model.load_state_dict(state)\n"
    )
    assert [c for c in codes(source) if c[1] == "PFL109"] == []


def test_a_worker_init_fn_that_reseeds_silences_the_dataset_rng_rule() -> None:
    source = (
        "import numpy as np\nfrom torch.utils.data import Dataset, get_worker_info\n"
        "class Aug(Dataset):\n"
        "    def __init__(self):\n"
        "        self.rng = np.random.default_rng()\n"
        "    def __getitem__(self, i):\n"
        "        return self.rng.integers(10)\n"
        "def seed_worker(worker_id):\n"
        "    info = get_worker_info()\n"
        "    info.dataset.rng = np.random.default_rng(info.seed)\n"
    )
    assert [c for c in codes(source) if c[1] == "PFL306"] == []
