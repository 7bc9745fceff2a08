"""`loss.data[0]` is the torch <= 0.3 idiom: since 0.4 a loss is 0-dim; read it with `.item()`."""

import torch
from torch import nn


def one_batch(device: str):
    torch.manual_seed(0)
    model = nn.Linear(4, 3).to(device)
    x = torch.randn(8, 4, device=device)
    y = torch.randint(0, 3, (8,), device=device)
    logits = model(x)
    loss = nn.functional.cross_entropy(logits, y)  # a 0-dim tensor: shape ()
    correct = (logits.argmax(dim=1) == y).sum()  # 0-dim as well
    per_sample = nn.functional.cross_entropy(logits, y, reduction="none")  # shape (8,)
    return loss, correct, per_sample


def read(fn):
    try:
        return fn()
    except (IndexError, RuntimeError) as err:
        return f"{type(err).__name__}: {err}"[:2000]


def problem(device: str) -> dict:
    loss, correct, per_sample = one_batch(device)
    # The logging lines of a 2017 training loop.
    loss_value = read(lambda: loss.data[0])
    correct_value = read(lambda: correct.data[0])
    # The reflex fix, applied to a loss that is not a scalar.
    per_sample_value = read(lambda: per_sample.item())
    # `.data` without the index: still a tensor, on the device, not a number.
    running_loss = 0.0
    running_loss += loss.data
    return {
        "loss_shape": list(loss.shape),
        "loss_value": loss_value,
        "correct_value": correct_value,
        "per_sample_value": per_sample_value,
        "running_loss_type": type(running_loss).__name__,
    }


def fix(device: str) -> dict:
    loss, correct, per_sample = one_batch(device)
    loss_value = loss.item()  # a Python float; the graph is not kept
    correct_value = correct.item()  # a Python int
    values = per_sample.tolist()  # one Python float per sample
    running_loss = 0.0
    running_loss += loss.item()
    return {
        "loss_shape": list(loss.shape),
        "loss_value": type(loss_value).__name__,
        "correct_value": type(correct_value).__name__,
        "per_sample_value": abs(sum(values) / len(values) - loss_value) < 1e-6,
        "running_loss_type": type(running_loss).__name__,
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
