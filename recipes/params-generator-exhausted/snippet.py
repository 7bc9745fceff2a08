"""`model.parameters()` is a generator: used twice, the second user gets nothing."""

import torch
from torch import nn


def make_model(device: str) -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)).to(device)


def big_gradients(model: nn.Module, device: str) -> None:
    x = torch.randn(16, 4, device=device)
    (model(x) * 100).pow(2).mean().backward()  # a loss spike: the reason to clip at all


def grad_norm(model: nn.Module) -> float:
    return float(torch.linalg.vector_norm(torch.stack([p.grad.norm() for p in model.parameters()])))


def problem(device: str) -> dict:
    model = make_model(device)
    params = model.parameters()
    n_params = sum(p.numel() for p in params)  # logging the model size uses the generator up
    try:
        torch.optim.SGD(params, lr=0.1)
        optimizer_error = "no error"
    except ValueError as err:
        optimizer_error = f"{type(err).__name__}: {err}"[:2000]

    # The same trap, silent: one generator for the optimizer, then for clipping.
    model = make_model(device)
    params = model.parameters()
    opt = torch.optim.SGD(params, lr=0.1)
    big_gradients(model, device)
    returned = torch.nn.utils.clip_grad_norm_(params, max_norm=1.0)  # clips nothing
    norm_after = grad_norm(model)
    opt.step()
    return {
        "n_params": n_params,
        "optimizer_error": optimizer_error,
        "clip_returned_norm": float(returned),
        "grad_norm_after_clip": round(norm_after, 2),
    }


def fix(device: str) -> dict:
    model = make_model(device)
    params = list(model.parameters())  # a list can be iterated as often as you like
    n_params = sum(p.numel() for p in params)
    opt = torch.optim.SGD(params, lr=0.1)
    big_gradients(model, device)
    # Or simply call model.parameters() again at each use: it returns a fresh generator.
    returned = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    norm_after = grad_norm(model)
    opt.step()
    return {
        "n_params": n_params,
        "optimizer_param_tensors": sum(len(g["params"]) for g in opt.param_groups),
        "clip_returned_norm": round(float(returned), 2),
        "grad_norm_after_clip": round(norm_after, 4),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
