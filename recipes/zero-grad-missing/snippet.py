"""Without zero_grad(), .grad accumulates over steps and the update uses every past gradient."""

import torch
from torch import nn

STEPS = 30


def make_task(device: str):
    # Fit y = 3x + 0.5 with one Linear layer and full-batch SGD.
    torch.manual_seed(0)
    x = torch.randn(32, 1, device=device)
    y = 3 * x + 0.5 + 0.1 * torch.randn(32, 1, device=device)
    model = nn.Linear(1, 1).to(device)
    return x, y, model


def grads_of_three_backwards(device: str, zero: bool) -> list:
    # The same loss, backpropagated three times into the same weight.
    w = torch.tensor([1.0], device=device, requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.0)  # lr=0: the weight never moves
    seen = []
    for _ in range(3):
        if zero:
            opt.zero_grad()
        (2.0 * w).sum().backward()
        seen.append(w.grad.item())
    return seen


def problem(device: str) -> dict:
    x, y, model = make_task(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(STEPS):
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()  # adds this step's gradient to .grad: nothing cleared it
        opt.step()
        losses.append(round(loss.item(), 4))

    # Hand-written zeroing next to the optimizer's zero_grad(), as pre-2.0 code did it.
    w = torch.zeros(3, device=device, requires_grad=True)
    w_opt = torch.optim.SGD([w], lr=0.1)
    w.sum().backward()
    w_opt.zero_grad()  # since 2.0: sets w.grad to None
    try:
        w.grad.zero_()  # BUG since 2.0: there is no tensor left to zero
        manual_zero = "no error"
    except AttributeError as err:
        manual_zero = f"{type(err).__name__}: {err}"[:2000]

    return {
        "grad_after_each_backward": grads_of_three_backwards(device, zero=False),
        "max_loss_last_10_steps": max(losses[-10:]),
        "loss_per_step": {"x": list(range(1, STEPS + 1)), "y": {"no zero_grad": losses}},
        "manual_zero_after_zero_grad": manual_zero,
    }


def fix(device: str) -> dict:
    x, y, model = make_task(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(STEPS):
        opt.zero_grad()  # clear last step's gradient before this backward
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 4))

    # Since torch 2.0, zero_grad() sets .grad to None instead of filling it with zeros.
    opt.zero_grad()
    grad_is_none = model.weight.grad is None
    # Code that needs a zero tensor there asks for the old behaviour explicitly.
    nn.functional.mse_loss(model(x), y).backward()
    opt.zero_grad(set_to_none=False)
    kept_grad = model.weight.grad

    # A hand-written zeroing that survives a missing gradient.
    w = torch.zeros(3, device=device, requires_grad=True)
    w_opt = torch.optim.SGD([w], lr=0.1)
    w.sum().backward()
    w_opt.zero_grad()
    try:
        if w.grad is not None:
            w.grad.zero_()
        manual_zero = "no error"
    except AttributeError as err:
        manual_zero = f"{type(err).__name__}: {err}"[:2000]

    return {
        "grad_after_each_backward": grads_of_three_backwards(device, zero=True),
        "max_loss_last_10_steps": max(losses[-10:]),
        "loss_per_step": {"x": list(range(1, STEPS + 1)), "y": {"zero_grad() each step": losses}},
        "grad_is_none_after_zero_grad": grad_is_none,
        "manual_zero_after_zero_grad": manual_zero,
        "set_to_none_false_grad_sum": None if kept_grad is None else kept_grad.abs().sum().item(),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
