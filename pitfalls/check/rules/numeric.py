"""PFL2xx: numerics (probabilities fed to losses that want logits, unstable log/exp)."""

from __future__ import annotations

import ast

from pitfalls.check.checker import Checker, check, documents
from pitfalls.check.kinds import BCE_LOSS, CE_LOSS, NLL_LOSS, SIGMOID, SOFTMAX

CE_FUNCTIONS = {
    "torch.nn.functional.cross_entropy": "cross_entropy",
    "torch.nn.functional.nll_loss": "nll_loss",
}
BCE_FUNCTIONS = {"torch.nn.functional.binary_cross_entropy"}
SOFTMAX_FUNCTIONS = {
    "torch.nn.functional.softmax": 2,
    "torch.nn.functional.log_softmax": 2,
    "torch.nn.functional.softmin": 2,
}
SOFTMAX_MODULES = {"torch.nn.Softmax", "torch.nn.LogSoftmax", "torch.nn.Softmin"}
LOGS = {"torch.log", "numpy.log"}
EXPS = {"torch.exp", "numpy.exp"}
SUMS = {"torch.sum"}


def _loss_input(node: ast.Call) -> ast.AST | None:
    if node.args:
        return node.args[0]
    for keyword in node.keywords:
        if keyword.arg == "input":
            return keyword.value
    return None


@check(("PFL201", "PFL203"), ast.Call)
@documents("PFL201")
def probabilities_into_loss(checker: Checker, node: ast.Call) -> None:
    """## What it does
    Finds softmax output fed to `cross_entropy`, `CrossEntropyLoss` or `nll_loss` (PFL201),
    directly or through a name bound in the same function; also the output of a model whose
    `forward` always returns a softmax, or of an `nn.Sequential` ending in `nn.Softmax`.

    ## Why is this bad?
    `cross_entropy` applies `log_softmax` itself: on probabilities it computes a softmax of a
    softmax, which squashes the loss into a narrow band and slows or stalls training.
    `nll_loss` expects log-probabilities, not probabilities.

    ## Example
    `loss = F.cross_entropy(F.softmax(logits, dim=1), target)`

    Use instead: `loss = F.cross_entropy(logits, target)`
    """
    model = checker.model
    name = checker.callee(node)
    callee = None if name is not None and name.startswith("torch.") else model.kind_of(node.func)
    ce = CE_FUNCTIONS.get(name or "")
    if ce is None and callee in (CE_LOSS, NLL_LOSS):
        ce = "CrossEntropyLoss" if callee == CE_LOSS else "NLLLoss"
    bce = name in BCE_FUNCTIONS or callee == BCE_LOSS
    if ce is None and not bce:
        return
    value = _loss_input(node)
    if value is None:
        return
    kind = model.kind_of(value)
    if ce is not None and kind == SOFTMAX:
        if ce in ("cross_entropy", "CrossEntropyLoss"):
            why = f"`{ce}`, which applies log-softmax itself: pass the logits"
        else:
            why = f"`{ce}`, which expects log-probabilities: pass `log_softmax(...)`"
        checker.report("PFL201", value, f"softmax output fed to {why}")
    elif bce and kind == SIGMOID:
        checker.report(
            "PFL203",
            value,
            "sigmoid output fed to `BCELoss`/`binary_cross_entropy`: pass the logits to "
            "`BCEWithLogitsLoss`/`binary_cross_entropy_with_logits`, which is stable",
        )


@documents("PFL203")
def _bce_doc() -> None:
    """## What it does
    Finds `sigmoid` output fed to `BCELoss` or `F.binary_cross_entropy`.

    ## Why is this bad?
    For confident predictions the sigmoid rounds to exactly 0 or 1 in float32 (and earlier in
    float16); `BCELoss` then clamps the log at -100, so the loss saturates and the gradient
    vanishes. `BCEWithLogitsLoss` works on logits with the log-sum-exp trick.

    ## Example
    `loss = nn.BCELoss()(torch.sigmoid(logits), y)`

    Use instead: `loss = nn.BCEWithLogitsLoss()(logits, y)`
    """


@check(("PFL202", "PFL204", "PFL205"), ast.Call)
@documents("PFL202")
def log_of_probabilities(checker: Checker, node: ast.Call) -> None:
    """## What it does
    Finds `torch.log(softmax(x))` and `softmax(x).log()` (also for `sigmoid`).

    ## Why is this bad?
    A probability that underflows to 0 gives `log(0) = -inf`, and the loss and gradients turn
    into NaN. `log_softmax` (and `logsigmoid`) compute the same value without the underflow.

    ## Example
    `logp = torch.log(F.softmax(logits, dim=1))`

    Use instead: `logp = F.log_softmax(logits, dim=1)`
    """
    model = checker.model
    func = node.func
    name = checker.callee(node)
    if name in SOFTMAX_FUNCTIONS:
        _implicit_dim(checker, node, name)
        return
    if name in SOFTMAX_MODULES:
        if not node.args and not any(k.arg == "dim" for k in node.keywords):
            short = name.rsplit(".", 1)[-1]
            checker.report("PFL204", node, f"`nn.{short}()` without `dim`: pass `dim=`")
        return
    argument: ast.AST | None = None
    if name in LOGS and len(node.args) == 1:
        argument = node.args[0]
    elif isinstance(func, ast.Attribute) and func.attr == "log" and not node.args and name is None:
        argument = func.value
    if argument is None:
        return
    kind = model.kind_of(argument)
    if kind in (SOFTMAX, SIGMOID) and (name != "numpy.log"):
        better = "log_softmax" if kind == SOFTMAX else "F.logsigmoid"
        what = "softmax" if kind == SOFTMAX else "sigmoid"
        checker.report(
            "PFL202",
            node,
            f"log of {what} underflows to -inf (then NaN gradients): use `{better}`",
        )
        return
    _log_one_plus(checker, node, argument, name)


@documents("PFL204")
def _implicit_dim(checker: Checker, node: ast.Call, name: str | None) -> None:
    """## What it does
    Finds `F.softmax(x)`, `F.log_softmax(x)` and `nn.Softmax()` without `dim`.

    ## Why is this bad?
    Without `dim`, torch guesses: dimension 0 for 0-, 1- and 3-dimensional input, else 1. For
    a batch of sequences or a single sample this normalises across the batch, not across the
    classes, and torch only warns.

    ## Example
    `probs = F.softmax(logits)`

    Use instead: `probs = F.softmax(logits, dim=-1)`
    """
    if len(node.args) >= 2 or any(k.arg in ("dim", None) for k in node.keywords):
        return
    short = (name or "softmax").rsplit(".", 1)[-1]
    checker.report("PFL204", node, f"`{short}` without `dim` guesses the dimension: pass `dim=`")


def _is_one(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float) and node.value == 1


@documents("PFL205")
def _log_one_plus(checker: Checker, node: ast.Call, argument: ast.AST, name: str | None) -> None:
    """## What it does
    Finds `log(1 + x)`, `exp(x) - 1` and `log(sum(exp(x)))` written out with torch (or NumPy).

    ## Why is this bad?
    For small `x`, `1 + x` rounds `x` away before the log sees it; `exp(x) - 1` cancels the
    same digits; and `exp(x)` overflows to inf for x above 88 in float32. `log1p`, `expm1`
    and `logsumexp` compute the same values accurately.

    ## Example
    `torch.log(1 + torch.exp(x))`

    Use instead: `torch.log1p(torch.exp(x))` (or `F.softplus(x)`); `torch.logsumexp(x, dim)`.
    """
    module = "np" if name == "numpy.log" else "torch"
    if isinstance(argument, ast.BinOp) and isinstance(argument.op, ast.Add):
        left, right = argument.left, argument.right
        other = right if _is_one(left) else left if _is_one(right) else None
        if other is not None and not isinstance(other, ast.Constant):
            checker.report(
                "PFL205",
                node,
                f"`log(1 + x)` loses precision for small x: use `{module}.log1p(x)`",
            )
        return
    if module == "torch" and _is_sum_of_exp(checker, argument) and not _shifted(checker):
        checker.report(
            "PFL205",
            node,
            "`log(sum(exp(x)))` overflows for large x: use `torch.logsumexp(x, dim)`",
        )


def _shifted(checker: Checker) -> bool:
    """Whether the function subtracts a maximum first (a hand-written stable logsumexp)."""
    function = checker.function
    return function is not None and "max" in checker.source_lines(function)


def _is_exp(checker: Checker, node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "exp" and not node.args:
        name = checker.model.resolve(func.value) if isinstance(func.value, ast.Name) else None
        return name is None or name not in checker.model.imports.values()
    if isinstance(func, (ast.Name, ast.Attribute)):
        return checker.model.resolve(func) in EXPS
    return False


def _is_sum_of_exp(checker: Checker, node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "sum" and _is_exp(checker, func.value):
        return True
    name = checker.model.resolve(func) if isinstance(func, (ast.Name, ast.Attribute)) else None
    return name in SUMS and bool(node.args) and _is_exp(checker, node.args[0])


def _exp_argument_is_constant(node: ast.AST) -> bool:
    call = node if isinstance(node, ast.Call) else None
    if call is None or len(call.args) != 1:
        return False
    argument = call.args[0]
    if isinstance(argument, ast.UnaryOp):
        argument = argument.operand
    return isinstance(argument, ast.Constant)


@check("PFL205", ast.BinOp)
def exp_minus_one(checker: Checker, node: ast.BinOp) -> None:
    """`exp(x) - 1`: see PFL205."""
    if isinstance(node.op, ast.Sub) and _is_one(node.right) and _is_exp(checker, node.left):
        if _exp_argument_is_constant(node.left):
            return  # `exp(2) - 1`: a number, not a small x (as `log(1 + 2)` is not reported)
        checker.report("PFL205", node, "`exp(x) - 1` loses precision for small x: use `expm1(x)`")
