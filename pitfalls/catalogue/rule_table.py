"""The static checker's rule table: one `Rule` record per code, the single source for docs,
help and output.

Like ruff's `codes.rs`, this table is the only place a code is declared. Codes are stable: a
retired rule keeps its number forever and a renamed one is listed in `REDIRECTS`. The prefix
`PFL` is ours (PT, PTH, PIE and TOR belong to flake8 plugins, PIT to `pitfalls lint`). The
checks themselves live in the family modules of `pitfalls.check.rules` (`api_changes`,
`deprecated`, `tensor`, `registration`, `snapshot`, `numeric`, `loop`, `steps`, `grads`,
`data`, `perf`, `checkpoints`, `idioms`, `attention`, `precision`, `modes`, `scripts`,
`distributed`, `compiling`); rules name recipes by id, and recipes know nothing of rules.
PFL0xx: APIs that changed or went away; PFL1xx: tensors, autograd and modules; PFL2xx:
numerics and precision; PFL3xx: the training loop and data loading; PFL4xx: performance
(opt-in); PFL5xx: distributed training and the compilers. It is data, below both the checker and the
recipe pages and linter that name rules, so that none of them imports another.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PREFIX = "PFL"
# What a rule code looks like, ours or another linter's: 1-3 letters, then digits. A word of
# this shape given to `show` is looked up as a code first, so recipe aliases may not take it.
CODE_SHAPE = re.compile(r"^[A-Za-z]{1,3}[0-9]{3,4}$")
# Reported for a file that does not parse; not a rule, so it cannot be deselected.
SYNTAX_ERROR = "PFL000"
REDIRECTS: dict[str, str] = {}


@dataclass(frozen=True)
class Rule:
    """One rule: its stable code, kebab-case name, one-line message and the recipe it teaches.

    `fix` is "always" when `--fix` can rewrite every finding, "sometimes" when only some, and
    "never" otherwise. A rule that is not precise enough to be on by default has
    `default=False` and runs only when selected by its exact code (or `ALL`).
    """

    code: str
    name: str
    summary: str
    recipe: str
    fix: str = "never"
    default: bool = True
    since: str = "0.1.0"

    @property
    def fixable(self) -> bool:
        return self.fix != "never"


def _rules(*rules: Rule) -> dict[str, Rule]:
    return {r.code: r for r in rules}


RULES: dict[str, Rule] = _rules(
    # PFL0xx: APIs that changed meaning or went away.
    Rule(
        "PFL001",
        "numpy-removed-alias",
        "`np.float` and friends were removed in NumPy 1.24",
        "numpy-aliases-removed",
        fix="always",
    ),
    Rule(
        "PFL002",
        "numpy-bool-long-alias",
        "`np.bool`/`np.long` do not exist in the NumPy 1.x this project pins",
        "numpy-aliases-removed",
        fix="never",
    ),
    Rule(
        "PFL003",
        "iterator-next-method",
        "Python 3 iterators have no `.next()`: use `next(it)`",
        "dataloader-len",
        fix="sometimes",
    ),
    Rule(
        "PFL004",
        "cycle-dataloader",
        "`itertools.cycle` replays the first epoch's batches and keeps them all in memory",
        "dataloader-len",
    ),
    Rule(
        "PFL005",
        "torch-load-without-weights-only",
        "`torch.load` without `weights_only` unpickles arbitrary code (and its default changed "
        "in torch 2.6)",
        "torch-load-weights-only",
    ),
    Rule(
        "PFL006",
        "autograd-variable",
        "`Variable` is a no-op wrapper since torch 0.4",
        "variable-volatile",
    ),
    Rule(
        "PFL007", "volatile-flag", "`volatile=True` is ignored since torch 0.4", "variable-volatile"
    ),
    Rule(
        "PFL008",
        "register-backward-hook",
        "`register_backward_hook` sees only the last operation's gradients",
        "gradient-reversal",
    ),
    Rule(
        "PFL009",
        "torch-cuda-amp",
        "`torch.cuda.amp` is deprecated in favour of `torch.amp`",
        "fp16-overflow-gradscaler",
    ),
    Rule(
        "PFL010",
        "checkpoint-without-use-reentrant",
        "`checkpoint` without `use_reentrant` warns, and the reentrant default drops gradients "
        "of inputs that do not require grad",
        "checkpoint-use-reentrant",
    ),
    Rule(
        "PFL011",
        "tensor-constructor-size",
        "`torch.Tensor(n)` makes an uninitialised tensor of size n, not a tensor holding n",
        "tensor-constructor",
    ),
    Rule(
        "PFL012",
        "require-grad-typo",
        "`require_grad` is a typo: the attribute is "
        "`requires_grad`, and setting the wrong one does nothing",
        "require-grad-typo",
    ),
    Rule(
        "PFL013",
        "module-requires-grad-attribute",
        "setting `requires_grad` on a module does not freeze its parameters",
        "require-grad-typo",
    ),
    Rule(
        "PFL014",
        "removed-torch-function",
        "this torch function was removed: calling it raises",
        "deprecated-apis",
    ),
    Rule(
        "PFL015",
        "deprecated-torch-function",
        "this torch function is deprecated and warns when called",
        "deprecated-apis",
        fix="sometimes",
    ),
    Rule(
        "PFL016",
        "documented-deprecated-function",
        "torch's documentation marks this function as deprecated",
        "deprecated-apis",
        fix="sometimes",
    ),
    Rule(
        "PFL017",
        "functorch-transform",
        "functorch's transforms moved to `torch.func` in torch 2.0",
        "deprecated-apis",
        fix="sometimes",
    ),
    Rule(
        "PFL018",
        "torch-has-flag",
        "`torch.has_cuda` and friends are deprecated: use `torch.backends.*`",
        "deprecated-apis",
        fix="always",
    ),
    Rule(
        "PFL019",
        "scheduler-step-epoch",
        "`scheduler.step(epoch)` is deprecated: call `scheduler.step()` once per epoch",
        "lr-scheduler-order",
    ),
    Rule(
        "PFL020",
        "torchvision-pretrained",
        "torchvision's `pretrained=` is deprecated: pass `weights=`",
        "deprecated-apis",
    ),
    Rule(
        "PFL021",
        "transforms-v2-to-tensor",
        "`transforms.v2.ToTensor` is deprecated: `ToImage()` then `ToDtype(..., scale=True)`",
        "image-tensor-scale",
    ),
    Rule(
        "PFL022",
        "torch-cpu-amp",
        "`torch.cpu.amp` is deprecated in favour of `torch.amp`",
        "deprecated-apis",
        fix="sometimes",
    ),
    # PFL1xx: tensors, autograd and modules.
    Rule(
        "PFL101",
        "data-attribute-write",
        "writing through `.data` bypasses autograd and can corrupt gradients silently",
        "detach",
    ),
    Rule("PFL102", "data-attribute-read", "`.data` bypasses autograd: use `.detach()`", "detach"),
    Rule(
        "PFL103",
        "discarded-out-of-place-result",
        "the result of an out-of-place tensor method is discarded",
        "to-is-not-inplace",
    ),
    Rule(
        "PFL104",
        "module-container-attribute",
        "a plain list or dict of modules or tensors on `self` is invisible to `.parameters()`, "
        "`.to()` and `state_dict()`",
        "parameter-vs-buffer",
    ),
    Rule(
        "PFL105",
        "tensor-attribute-not-buffer",
        "a tensor stored on `self` in `__init__` does not follow `.to()` or `state_dict()`",
        "parameter-vs-buffer",
        default=False,
    ),
    Rule(
        "PFL106",
        "state-dict-alias",
        "`state_dict()` returns references that keep changing while training continues",
        "state-dict-alias",
    ),
    Rule(
        "PFL107",
        "parameters-generator-reused",
        "`model.parameters()` is a generator: a second use of the same name sees nothing",
        "params-generator-exhausted",
    ),
    Rule(
        "PFL108",
        "requires-grad-then-convert",
        "`.to()`/`.cuda()` after `requires_grad=True` leaves a non-leaf copy whose `.grad` "
        "stays None",
        "nonleaf-grad",
    ),
    Rule(
        "PFL109",
        "wrapped-model-state-dict",
        "the `state_dict()` of a DataParallel, DDP or compiled model has prefixed keys",
        "dataparallel-module-prefix",
    ),
    Rule(
        "PFL110",
        "zero-dim-index",
        "`loss.data[0]` indexes a 0-dim tensor (IndexError since torch 0.4): use `.item()`",
        "zero-dim-index",
    ),
    Rule(
        "PFL111",
        "whole-model-pickle",
        "`torch.save(model)` pickles the class by name: it loads only where that class is "
        "importable unchanged",
        "whole-model-pickle",
    ),
    Rule(
        "PFL112",
        "checkpoint-objects",
        "a Namespace, config object or NumPy value in a checkpoint is refused by "
        "`weights_only=True` loading",
        "checkpoint-objects-weights-only",
    ),
    Rule(
        "PFL113",
        "pack-lengths-on-device",
        "`pack_padded_sequence` needs its lengths on the CPU",
        "rnn-pack-lengths",
    ),
    # PFL2xx: numerics.
    Rule(
        "PFL201",
        "softmax-into-cross-entropy",
        "cross-entropy already applies log-softmax: feed it logits, not probabilities",
        "softmax-into-cross-entropy",
    ),
    Rule(
        "PFL202",
        "log-of-softmax",
        "`log(softmax(x))` underflows to -inf: use `log_softmax`",
        "focal-loss",
    ),
    Rule(
        "PFL203",
        "bce-on-sigmoid",
        "`BCELoss` after `sigmoid` loses precision: use `BCEWithLogitsLoss` on logits",
        "bce-with-logits",
    ),
    Rule(
        "PFL204",
        "softmax-implicit-dim",
        "softmax without `dim` guesses the dimension",
        "softmax-implicit-dim",
    ),
    Rule(
        "PFL205",
        "unstable-log-exp",
        "`log(1 + x)`, `exp(x) - 1` and `log(sum(exp(x)))` lose precision or overflow",
        "stable-log-exp",
    ),
    Rule(
        "PFL206",
        "fp16-fill-overflow",
        "a `masked_fill` value beyond float16's range raises under fp16 autocast",
        "fp16-fill-overflow",
    ),
    Rule(
        "PFL207",
        "attention-mask-polarity",
        "a boolean mask with the other attention API's meaning of True",
        "attention-mask-polarity",
    ),
    Rule(
        "PFL208",
        "masked-mean",
        "`(x * mask).mean()` divides by the padding too",
        "loss-reduction-scale",
    ),
    Rule(
        "PFL209",
        "scaler-without-float16-autocast",
        "a GradScaler on a bfloat16-autocast loss or a `.half()` model: unneeded or refused",
        "gradscaler-bf16",
    ),
    # PFL3xx: the training loop.
    Rule(
        "PFL301",
        "loss-accumulated-with-graph",
        "a running loss total keeps every iteration's graph alive: add `loss.item()`",
        "loss-history-leak",
    ),
    Rule(
        "PFL302",
        "scheduler-before-optimizer",
        "`scheduler.step()` runs before `optimizer.step()`: the first learning rate is skipped",
        "lr-scheduler-order",
    ),
    Rule(
        "PFL303",
        "missing-zero-grad",
        "`backward()` and `step()` in a loop without `zero_grad()`: gradients accumulate",
        "zero-grad-missing",
    ),
    Rule(
        "PFL304",
        "functional-dropout-in-eval",
        "`F.dropout` in `forward` without `training=self.training` stays on in eval mode",
        "train-eval",
    ),
    Rule(
        "PFL305",
        "clip-grad-misplaced",
        "gradient clipping after `optimizer.step()` or before `backward()` clips nothing",
        "clip-grad-placement",
    ),
    Rule(
        "PFL306",
        "dataset-rng-copied-to-workers",
        "a random generator made in a Dataset's `__init__` repeats its draws in every worker",
        "worker-rng-duplicates",
    ),
    Rule(
        "PFL307",
        "unpicklable-worker-function",
        "a lambda or nested `collate_fn`/`worker_init_fn` fails under spawn and forkserver",
        "spawn-pickle-lambda",
    ),
    Rule(
        "PFL308",
        "worker-options-without-workers",
        "worker-only DataLoader options with `num_workers=0` raise",
        "dataloader-options-without-workers",
    ),
    Rule(
        "PFL309",
        "layer-drop-in-eval",
        "a layer-drop or stochastic-depth draw in `forward` that ignores `self.training`",
        "train-eval",
    ),
    Rule(
        "PFL310",
        "workers-outside-main-guard",
        "worker processes started by a script's top-level code, outside the `__main__` guard",
        "main-guard-spawn",
    ),
    # PFL4xx: performance, off by default.
    Rule(
        "PFL401",
        "dataloader-without-workers",
        "a `DataLoader` without workers loads every batch in the training process",
        "dataloader-throughput",
        default=False,
    ),
    Rule(
        "PFL402",
        "gradients-zeroed-in-place",
        "zeroing gradients in place costs a pass per parameter: `zero_grad()` sets None",
        "zero-grad-missing",
        default=False,
    ),
    # PFL5xx: distributed training and compilers.
    Rule(
        "PFL501",
        "device-from-global-rank",
        "the GPU index comes from the global `RANK`, not `LOCAL_RANK`",
        "torchrun-local-rank",
    ),
    Rule(
        "PFL502",
        "collective-under-rank-test",
        "a collective that only some ranks call hangs the job",
        "ddp-uneven-inputs-hang",
    ),
    Rule(
        "PFL503",
        "ddp-wrapper-attribute",
        "the DDP/DataParallel wrapper does not forward the model's attributes",
        "ddp-module-attributes",
    ),
    Rule(
        "PFL504",
        "load-before-rank-zero-saved",
        "other ranks load a checkpoint rank 0 may not have written yet (no barrier)",
        "distributed-save-every-rank",
    ),
    Rule(
        "PFL505",
        "sampler-without-set-epoch",
        "a `DistributedSampler` never given `set_epoch` shuffles every epoch the same way",
        "distributed-sampler-set-epoch",
    ),
    Rule(
        "PFL506",
        "compile-graph-break",
        "`.item()`, `.numpy()`, `.tolist()` or `print` inside a compiled function breaks the graph",
        "compile-graph-breaks",
    ),
    Rule(
        "PFL507",
        "traced-tensor-branch",
        "a Python branch on a tensor value is frozen by `torch.jit.trace`",
        "jit-trace-control-flow",
    ),
)


def lookup(word: str) -> Rule | None:
    """The rule whose code is `word` (any case, following redirects), if any."""
    code = word.strip().upper()
    code = REDIRECTS.get(code, code)
    return RULES.get(code)


def rules_for_recipe(recipe_id: str) -> list[Rule]:
    """The rules that point at `recipe_id`, in code order."""
    return [r for r in RULES.values() if r.recipe == recipe_id]


def matches(selector: str, code: str) -> bool:
    """Whether `selector` (a code, a prefix such as `PFL1`, or `ALL`) names `code`."""
    selector = selector.strip().upper()
    return selector == "ALL" or code.startswith(selector)


def known_selector(selector: str) -> bool:
    """Whether `selector` names at least one rule (so that typos are reported, not ignored)."""
    return any(matches(selector, code) for code in RULES)


def resolve_selection(
    select: list[str] | None, extend_select: list[str], ignore: list[str]
) -> frozenset[str]:
    """The enabled codes, with ruff's precedence: the more specific selector wins, a tie goes
    to `ignore`. A prefix enables only default-on rules; an exact code or `ALL` enables any."""
    chosen = list(select) if select is not None else []
    chosen += extend_select
    enabled = set()
    for rule in RULES.values():
        picked = -1
        if select is None and rule.default:
            picked = 0
        for selector in chosen:
            s = selector.strip().upper()
            if not matches(s, rule.code):
                continue
            if not rule.default and s not in (rule.code, "ALL"):
                continue
            picked = max(picked, _specificity(s))
        dropped = max((_specificity(s) for s in ignore if matches(s, rule.code)), default=-1)
        if picked >= 0 and picked > dropped:
            enabled.add(rule.code)
    return frozenset(enabled)


def _specificity(selector: str) -> int:
    selector = selector.strip().upper()
    return 0 if selector == "ALL" else len(selector)


RULES_LABEL = {"en": "Found by `pitfalls check`", "zh": "`pitfalls check` 规则"}


def rules_line(recipe_id: str) -> str:
    """`PFL101 data-attribute-write, PFL102 data-attribute-read`, or "" when none."""
    return ", ".join(f"{r.code} {r.name}" for r in rules_for_recipe(recipe_id))


def rules_table() -> str:
    """The README's rule table, generated from RULES (a test keeps the two in step)."""
    rows = [
        "| code | name | what it finds | recipe | fix | default |",
        "|---|---|---|---|---|---|",
    ]
    for rule in RULES.values():
        fix = {"always": "safe", "sometimes": "some"}.get(rule.fix, "")
        default = "on" if rule.default else "off"
        summary = rule.summary.replace("|", "\\|")
        rows.append(
            f"| {rule.code} | {rule.name} | {summary} | `{rule.recipe}` | {fix} | {default} |"
        )
    return "\n".join(rows) + "\n"
