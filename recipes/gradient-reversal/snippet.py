"""Gradient reversal (DANN/CDAN): flip and scale the gradient that reaches the feature extractor."""

import math
import warnings
from functools import partial

import numpy as np
import torch
from torch import nn

ALPHA = 10.0  # steepness of the schedule, as in DANN
P = 0.1  # training progress in [0, 1] at this step
CHARTED = ("hooks_fired_per_step", "gradient_sign_per_step")  # series observations, per step


def grl_coeff(p: float, alpha: float = ALPHA) -> float:
    # Ramps from 0 (start) to almost 1 (end), so the domain loss starts gently.
    return 2.0 / (1.0 + math.exp(-alpha * p)) - 1.0


class DomainHead(nn.Module):
    """Domain classifier; its forward runs two autograd ops (linear, then sigmoid)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 1)

    def forward(self, features):
        return torch.sigmoid(self.fc(features))


class GradReverse(torch.autograd.Function):
    """Identity in the forward pass, `-coeff * grad` in the backward pass."""

    @staticmethod
    def forward(ctx, x, coeff):
        ctx.coeff = coeff
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return -ctx.coeff * grad_output, None  # no gradient for `coeff`


def reverse_with_hook(features, coeff, calls):
    # The hook sits on this forward pass's activation and is dropped along with it.
    def flip(grad):
        calls.append(1)
        return -coeff * grad

    features.register_hook(flip)
    return features


def _setup(device):
    torch.manual_seed(0)
    extractor = nn.Linear(5, 3).to(device)
    head = DomainHead().to(device)
    x = torch.randn(4, 5, device=device)
    domain = torch.tensor([[0.0], [0.0], [1.0], [1.0]], device=device)  # source 0, target 1
    return extractor, head, x, domain


def _grads(extractor, head, x, domain, reverse=None):
    # One domain-loss backward; `reverse` turns the features into reversed features.
    extractor.zero_grad(set_to_none=True)
    head.zero_grad(set_to_none=True)
    features = extractor(x)
    if reverse is not None:
        features = reverse(features)
    loss = nn.functional.binary_cross_entropy(head(features), domain)
    loss.backward()
    return extractor.weight.grad.clone(), head.fc.weight.grad.clone()


def _ratio(grad, plain):
    # How the gradient compares with the plain one: -coeff when reversed and scaled.
    return float((grad * plain).sum() / (plain * plain).sum())


def hooks_per_step(device, on_module: bool, steps: int = 8) -> tuple:
    """Two series for charts, over `steps` training steps: how many reversal hooks fire in
    each backward pass, and the sign of the extractor's gradient against the plain one (-1 is
    reversed, as wanted). Both are read from what autograd did, not from the schedule."""
    extractor, head, x, domain = _setup(device)
    plain, _ = _grads(extractor, head, x, domain)
    calls, fired, sign = [], [], []
    for step in range(1, steps + 1):
        coeff = grl_coeff(step / 10)
        calls.clear()
        if on_module:

            def reverse_hook(module, grad_input, grad_output, coeff=coeff):
                calls.append(1)
                return tuple(-coeff * g for g in grad_input)

            head.register_full_backward_hook(reverse_hook)  # every step, never removed
            grad, _ = _grads(extractor, head, x, domain)
        else:
            reverse = partial(reverse_with_hook, coeff=coeff, calls=calls)
            grad, _ = _grads(extractor, head, x, domain, reverse)
        fired.append(len(calls))
        sign.append(1 if _ratio(grad, plain) > 0 else -1)
    steps_x = list(range(1, steps + 1))
    return {"x": steps_x, "y": {"hooks": fired}}, {"x": steps_x, "y": {"sign": sign}}


def problem(device: str) -> dict:
    extractor, head, x, domain = _setup(device)
    plain, _ = _grads(extractor, head, x, domain)

    # 1. The schedule as the 2022 field note wrote it.
    try:
        coeff = np.float(2.0 / (1.0 + np.exp(-ALPHA * P)) - 1.0)
        np_float = "ok"
    except AttributeError as err:
        np_float = f"{type(err).__name__}: {err}".splitlines()[0]

    # 2. The old module hook reports the gradient of the *last* op's inputs only.
    seen = {}
    old = DomainHead().to(device)
    old.register_backward_hook(lambda mod, grad_in, grad_out: seen.update(grad_in=grad_in[0]))
    features = torch.randn(4, 3, device=device, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = old(features)  # the deprecation warning is raised during forward
    out.sum().backward()
    old_hook_grad = seen["grad_in"]
    hook_warnings = [str(w.message) for w in caught if "backward hook" in str(w.message)]

    # 3. A module hook registered every step, because the coefficient changes every step.
    calls = []  # counts the hooks that fire in one backward pass
    calls_per_step, reversed_per_step, scaled_once = [], [], []
    for p in (0.1, 0.2, 0.3):
        coeff = grl_coeff(p)

        def reverse_hook(module, grad_input, grad_output, coeff=coeff):
            calls.append(1)
            return tuple(-coeff * g for g in grad_input)

        head.register_full_backward_hook(reverse_hook)  # handle dropped: never removed
        calls.clear()
        grad, _ = _grads(extractor, head, x, domain)
        calls_per_step.append(len(calls))
        reversed_per_step.append(_ratio(grad, plain) < 0)
        scaled_once.append(math.isclose(_ratio(grad, plain), -coeff, rel_tol=1e-3))

    return {
        "np_float": np_float,
        "numpy_has_float": hasattr(np, "float"),
        "old_hook_grad_shape": list(old_hook_grad.shape),
        "old_hook_matches_input_grad": old_hook_grad.shape == features.grad.shape
        and bool(torch.allclose(old_hook_grad, features.grad)),
        "old_hook_warning": hook_warnings[0].split(". ")[0] if hook_warnings else "none",
        "hook_calls_per_step": calls_per_step,
        "grad_reversed_per_step": reversed_per_step,
        "scaled_once_per_step": scaled_once,
        **dict(zip(CHARTED, hooks_per_step(device, on_module=True))),
    }


def fix(device: str) -> dict:
    extractor, head, x, domain = _setup(device)
    plain, plain_head = _grads(extractor, head, x, domain)
    coeff = grl_coeff(P)  # a plain Python float: no np.float needed

    # A hook on the fresh activation: a new tensor every forward pass, so one hook per step.
    hook_grad, hook_head = _grads(
        extractor, head, x, domain, partial(reverse_with_hook, coeff=coeff, calls=[])
    )

    # The same layer as an autograd.Function: explicit, no hook state to manage.
    fn_grad, _ = _grads(extractor, head, x, domain, lambda f: GradReverse.apply(f, coeff))

    # The full module hook sees the gradient w.r.t. the module's real input.
    seen = {}
    new = DomainHead().to(device)
    new.register_full_backward_hook(lambda mod, grad_in, grad_out: seen.update(grad_in=grad_in[0]))
    features = torch.randn(4, 3, device=device, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = new(features)
    out.sum().backward()
    full_hook_grad = seen["grad_in"]
    hook_warnings = [str(w.message) for w in caught if "backward hook" in str(w.message)]

    # Per-step hooks on the fresh activation never pile up.
    calls_per_step, reversed_per_step, scaled_once = [], [], []
    for p in (0.1, 0.2, 0.3):
        calls = []
        reverse = partial(reverse_with_hook, coeff=grl_coeff(p), calls=calls)
        grad, _ = _grads(extractor, head, x, domain, reverse)
        calls_per_step.append(len(calls))
        reversed_per_step.append(_ratio(grad, plain) < 0)
        scaled_once.append(math.isclose(_ratio(grad, plain), -grl_coeff(p), rel_tol=1e-3))

    return {
        "coeff": round(coeff, 4),
        "coeff_at_start": grl_coeff(0.0),
        "coeff_at_end": round(grl_coeff(1.0), 4),
        "feature_grad_ratio": round(_ratio(hook_grad, plain), 4),
        "head_grad_unchanged": bool(torch.allclose(hook_head, plain_head)),
        "function_matches_hook": bool(torch.allclose(fn_grad, hook_grad)),
        "full_hook_grad_shape": list(full_hook_grad.shape),
        "full_hook_matches_input_grad": bool(torch.allclose(full_hook_grad, features.grad)),
        "full_hook_warnings": len(hook_warnings),
        "hook_calls_per_step": calls_per_step,
        "grad_reversed_per_step": reversed_per_step,
        "scaled_once_per_step": scaled_once,
        **dict(zip(CHARTED, hooks_per_step(device, on_module=False))),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
