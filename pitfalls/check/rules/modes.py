"""PFL309: a stochastic branch in `forward` (layer drop, stochastic depth, drop path) that
does not look at `self.training`, so it keeps dropping layers in eval mode."""

from __future__ import annotations

import ast
import re

from pitfalls.check.checker import Checker, check, documents

RANDOM_CALLS = frozenset(
    {
        "random.random",
        "random.uniform",
        "numpy.random.rand",
        "numpy.random.random",
        "numpy.random.uniform",
        "torch.rand",
        "torch.empty.uniform_",
        "torch.bernoulli",
    }
)
DROP_NAME = re.compile(r"drop|surviv|stochastic|layer_?skip", re.I)


def _random_draw(checker: Checker, test: ast.AST) -> bool:
    for inner in ast.walk(test):
        if isinstance(inner, ast.Call) and isinstance(inner.func, (ast.Name, ast.Attribute)):
            name = checker.model.resolve(inner.func) or ""
            if name in RANDOM_CALLS:
                return True
            if isinstance(inner.func, ast.Attribute) and inner.func.attr in ("uniform_", "random"):
                if name.startswith(("torch.", "random.", "numpy.")):
                    return True
    return False


def _drop_rate(test: ast.AST, self_name: str) -> str | None:
    for inner in ast.walk(test):
        if (
            isinstance(inner, ast.Attribute)
            and isinstance(inner.value, ast.Name)
            and inner.value.id == self_name
            and DROP_NAME.search(inner.attr)
        ):
            return inner.attr
    return None


def _reads_training(node: ast.AST) -> bool:
    return any(
        isinstance(inner, ast.Attribute) and inner.attr == "training" for inner in ast.walk(node)
    )


@check("PFL309", ast.If, ast.IfExp)
@documents("PFL309")
def layer_drop_in_eval(checker: Checker, node: ast.If | ast.IfExp) -> None:
    """## What it does
    In the `forward` of an `nn.Module` class, finds an `if` (or conditional expression) whose
    test draws a random number (`random.random()`, `torch.rand(1)`, `np.random.rand()`) and
    compares it with a drop rate of `self` (`self.layerdrop`, `self.drop_prob`,
    `self.survival_prob`), in a `forward` that never reads `self.training`.

    ## Why is this bad?
    `model.eval()` only sets `training = False` on every module; a module's own code has to
    read it. Layer drop and stochastic depth written without it keep skipping layers at
    evaluation and inference, so the outputs are random and worse than the trained model.

    ## Example
    `if random.random() < self.layerdrop:\\n    continue`

    Use instead: `if self.training and random.random() < self.layerdrop:`
    """
    function = checker.function
    cls = checker.cls
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return
    if function.name != "forward" or not function.args.args:
        return
    self_name = function.args.args[0].arg
    scope = checker.model.scope
    info = getattr(scope, "cls", None) or cls
    if info is None or not getattr(info, "is_module", False):
        return
    rate = _drop_rate(node.test, self_name)
    if rate is None or not _random_draw(checker, node.test) or _reads_training(node.test):
        return
    if checker.cached(function, "reads-training", lambda: _reads_training(function)):
        return  # `if not self.training: return x` above, or a test around this one
    checker.report(
        "PFL309",
        node.test,
        f"a random draw against `{self_name}.{rate}` that ignores `{self_name}.training`: the "
        f"layers keep being dropped in eval mode; test `{self_name}.training and ...` first",
    )
