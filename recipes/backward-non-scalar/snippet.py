"""`backward()` needs a scalar: reduce the per-sample losses, or pass `gradient=` knowingly."""

import torch
import torch.nn.functional as F
from torch import nn

BATCH = 8


def make(device: str):
    torch.manual_seed(0)
    model = nn.Linear(3, 1).to(device)
    x = torch.randn(BATCH, 3, device=device)
    y = torch.randn(BATCH, 1, device=device)
    return model, x, y


def attempt(fn) -> str:
    try:
        fn()
        return "no error"
    except RuntimeError as err:
        return f"{type(err).__name__}: {err}"[:2000]


def problem(device: str) -> dict:
    model, x, y = make(device)
    # Per-sample losses, kept to log or weight them later.
    per_sample = F.mse_loss(model(x), y, reduction="none")
    try:
        per_sample.backward()
        backward_error = "no error"
    except RuntimeError as err:
        backward_error = f"{type(err).__name__}: {err}"[:2000]

    # The workaround that silences the error: a vector of ones as the `gradient`.
    per_sample.backward(torch.ones_like(per_sample))
    ones_grad = model.weight.grad.clone()

    # What the built-in loss (reduction="mean") would have given.
    model.zero_grad()
    F.mse_loss(model(x), y).backward()
    mean_grad = model.weight.grad

    # torch.autograd.grad builds the same implicit gradient, and refuses the same way.
    per_sample = F.mse_loss(model(x), y, reduction="none")
    return {
        "backward_error": backward_error,
        "autograd_grad_error": attempt(lambda: torch.autograd.grad(per_sample, model.weight)),
        "grad_scale_vs_mean": round(float(ones_grad.norm() / mean_grad.norm()), 4),
    }


def fix(device: str) -> dict:
    model, x, y = make(device)
    per_sample = F.mse_loss(model(x), y, reduction="none")
    loss = per_sample.mean()  # reduce to the scalar you actually minimise
    loss.backward()
    reduced_grad = model.weight.grad.clone()

    # `gradient=` is the weight of each output in a weighted sum: 1/N per sample is the mean.
    model.zero_grad()
    per_sample = F.mse_loss(model(x), y, reduction="none")
    per_sample.backward(gradient=torch.full_like(per_sample, 1 / BATCH))
    weighted_grad = model.weight.grad.clone()

    model.zero_grad()
    F.mse_loss(model(x), y).backward()
    builtin_grad = model.weight.grad.clone()

    loss = F.mse_loss(model(x), y, reduction="none").mean()
    return {
        "backward_error": attempt(lambda: loss.backward(retain_graph=True)),
        "autograd_grad_error": attempt(lambda: torch.autograd.grad(loss, model.weight)),
        "grad_scale_vs_mean": round(float(reduced_grad.norm() / builtin_grad.norm()), 4),
        "gradient_arg_matches_mean": torch.allclose(weighted_grad, builtin_grad),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
