"""A loss that left the graph trains nothing: "does not have a grad_fn", or worse, silence."""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


def make(device: str):
    torch.manual_seed(0)
    model = nn.Linear(3, 2).to(device)
    x = torch.randn(8, 3, device=device)
    target = torch.randn(8, 2, device=device)
    labels = torch.randint(0, 2, (8,), device=device)
    return model, x, target, labels


def _backward_error(loss: torch.Tensor) -> str:
    try:
        loss.backward()
        return "no error"
    except RuntimeError as err:
        return f"{type(err).__name__}: {err}"[:2000]


def problem(device: str) -> dict:
    model, x, target, labels = make(device)

    # 1) A loss written in NumPy: the round trip leaves the graph.
    pred = model(x).detach().cpu().numpy()
    numpy_loss = torch.tensor(np.mean((pred - target.cpu().numpy()) ** 2))

    # 2) A loss computed under no_grad (a helper shared with the validation loop).
    with torch.no_grad():
        no_grad_loss = F.mse_loss(model(x), target)

    # 3) Accuracy as the objective: argmax has no gradient, so the graph stops there.
    accuracy = (model(x).argmax(dim=1) == labels).float().mean()
    argmax_loss = 1 - accuracy

    # 4) The "fixes" that silence the error: make the detached number require grad.
    before = model.weight.detach().clone()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with torch.no_grad():
        loss = F.mse_loss(model(x), target)
    loss.requires_grad = True  # allowed: `loss` is a leaf now, cut off from the model
    loss.backward()  # no error, and no gradient reaches the model
    opt.step()
    loss = F.mse_loss(model(x), target)
    loss = torch.tensor(loss.item(), device=device, requires_grad=True)
    loss.backward()  # the same with a number taken out by .item()
    opt.step()

    return {
        "numpy_loss_error": _backward_error(numpy_loss),
        "no_grad_loss_error": _backward_error(no_grad_loss),
        "classification_loss_error": _backward_error(argmax_loss),
        "weight_grad_is_none": model.weight.grad is None,
        "weights_changed": not torch.equal(before, model.weight.detach()),
    }


def fix(device: str) -> dict:
    model, x, target, labels = make(device)
    before = model.weight.detach().clone()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    # Compute the loss with torch operations on the model output, with grad mode on.
    loss = F.mse_loss(model(x), target)
    has_grad_fn = loss.grad_fn is not None  # a cheap guard before backward()
    loss.backward()
    opt.step()

    # For a classification objective, train a differentiable surrogate; keep accuracy as a metric.
    surrogate = F.cross_entropy(model(x), labels)

    return {
        "loss_has_grad_fn": has_grad_fn,
        "weight_grad_is_none": model.weight.grad is None,
        "weights_changed": not torch.equal(before, model.weight.detach()),
        "classification_loss_error": _backward_error(surrogate),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
