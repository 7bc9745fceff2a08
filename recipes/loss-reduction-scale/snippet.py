"""reduction="sum" makes the step size grow with the batch; padded tokens skew a plain .mean()."""

import torch
import torch.nn.functional as F
from torch import nn


def data(device: str, copies: int):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(8, 4, generator=g)
    y = torch.randn(8, 1, generator=g)
    # A batch of 64 made of 8 copies of the batch of 8: the same data, only more of it.
    return x.repeat(copies, 1).to(device), y.repeat(copies, 1).to(device)


def step_size(device: str, reduction: str, copies: int, optimizer: str, steps: int) -> float:
    """How far the optimizer moves the weights in `steps` steps."""
    torch.manual_seed(0)
    model = nn.Linear(4, 1).to(device)
    before = model.weight.detach().clone()
    opt = (torch.optim.SGD if optimizer == "sgd" else torch.optim.Adam)(model.parameters(), lr=0.01)
    x, y = data(device, copies)
    for _ in range(steps):
        opt.zero_grad()
        loss = F.mse_loss(model(x), y, reduction=reduction)
        loss.backward()
        opt.step()
    return (model.weight.detach() - before).norm().item()


def tokens(device: str):
    g = torch.Generator().manual_seed(1)
    logits = torch.randn(2, 6, 5, generator=g).to(device)  # (batch, time, vocabulary)
    targets = torch.randint(0, 5, (2, 6), generator=g).to(device)
    mask = torch.tensor([[1, 1, 1, 1, 1, 1], [1, 1, 0, 0, 0, 0]], device=device).bool()
    # The loss over the real tokens only, as if there were no padding.
    reference = F.cross_entropy(logits[mask], targets[mask])
    per_token = F.cross_entropy(logits.transpose(1, 2), targets, reduction="none")  # (2, 6)
    return per_token, mask, reference


def problem(device: str) -> dict:
    sgd_ratio = step_size(device, "sum", 8, "sgd", 1) / step_size(device, "sum", 1, "sgd", 1)
    adam_ratio = step_size(device, "sum", 8, "adam", 3) / step_size(device, "sum", 1, "adam", 3)
    per_token, mask, reference = tokens(device)
    masked_mean = (per_token * mask).mean()  # BUG: divides by all 12 positions, pads included
    return {
        "sgd_step_ratio_64_vs_8": sgd_ratio,
        "adam_step_ratio_64_vs_8": adam_ratio,
        "per_token_loss_matches": torch.allclose(masked_mean, reference),
    }


def fix(device: str) -> dict:
    sgd_ratio = step_size(device, "mean", 8, "sgd", 1) / step_size(device, "mean", 1, "sgd", 1)
    adam_ratio = step_size(device, "mean", 8, "adam", 3) / step_size(device, "mean", 1, "adam", 3)
    per_token, mask, reference = tokens(device)
    token_mean = (per_token * mask).sum() / mask.sum()  # divide by the real tokens only
    return {
        "sgd_step_ratio_64_vs_8": sgd_ratio,
        "adam_step_ratio_64_vs_8": adam_ratio,
        "per_token_loss_matches": torch.allclose(token_mean, reference),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
