"""BatchNorm's running statistics decide eval-mode outputs: keep them true to the data."""

import torch
from torch import nn


def dataset(device: str):
    g = torch.Generator().manual_seed(0)
    # Three classes whose feature means are -3, 0 and 3, stored class after class.
    x = torch.cat([torch.randn(60, 4, generator=g) + m for m in (-3.0, 0.0, 3.0)])
    return x.to(device)


def batches(x, shuffle: bool):
    g = torch.Generator().manual_seed(1)
    order = torch.randperm(len(x), generator=g) if shuffle else torch.arange(len(x))
    return [x[order[i : i + 10]] for i in range(0, len(x), 10)]


def pretrained(device: str) -> nn.Sequential:
    torch.manual_seed(0)
    backbone = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4), nn.ReLU())
    return nn.Sequential(backbone, nn.Linear(4, 3)).to(device)


def stats_error(bn: nn.BatchNorm1d, feats) -> float:
    """How far the running mean is from the mean of the features it should describe."""
    return (bn.running_mean - feats.mean(0)).abs().max().item()


def eval_gap(model, x) -> float:
    """Eval-mode outputs against those with the statistics of the whole data set."""
    with torch.no_grad():
        model.eval()
        with_running = model(x)
        model.train()
        with_population = model(x)  # one batch of everything: BatchNorm uses its true statistics
    return (with_running - with_population).abs().max().item()


def sgd_step(params, lr: float = 0.1):
    """What torch.optim.SGD's step and zero_grad do, written out: constructing an optimizer
    imports torch._dynamo on recent releases, seconds that have nothing to do with BatchNorm."""
    with torch.no_grad():
        for p in params:
            p -= lr * p.grad
            p.grad = None


def problem(device: str) -> dict:
    x = dataset(device)
    # 1. A pass over data that is not shuffled, with the default momentum of 0.1.
    model = pretrained(device)
    model.train()
    with torch.no_grad():
        for xb in batches(x, shuffle=False):
            model(xb)
        feats = model[0][0](x)  # what BatchNorm sees: the first Linear's outputs
    sorted_error = stats_error(model[0][1], feats)
    sorted_gap = eval_gap(model, x)

    # 2. Fine-tuning the head of a "frozen" backbone: requires_grad=False, then model.train().
    model = pretrained(device)
    for p in model[0].parameters():
        p.requires_grad_(False)
    before = model[0][1].running_mean.clone()
    model.train()
    for xb in batches(x, shuffle=True):
        model(xb).logsumexp(1).mean().backward()
        sgd_step(model[1].parameters())
    return {
        "running_mean_error": sorted_error,
        "eval_output_gap": sorted_gap,
        "frozen_bn_stats_changed": not torch.equal(model[0][1].running_mean, before),
    }


def fix(device: str) -> dict:
    x = dataset(device)
    # 1. Recalibrate: reset the statistics and average them over shuffled batches, no training.
    model = pretrained(device)
    bn = model[0][1]
    bn.reset_running_stats()
    bn.momentum = None  # None: a plain average over all batches instead of an EMA
    model.train()
    with torch.no_grad():
        for xb in batches(x, shuffle=True):
            model(xb)
        feats = model[0][0](x)
    recalibrated_error = stats_error(bn, feats)
    recalibrated_gap = eval_gap(model, x)

    # 2. Freeze BatchNorm too: eval() on the frozen part after every model.train().
    model = pretrained(device)
    for p in model[0].parameters():
        p.requires_grad_(False)
    before = model[0][1].running_mean.clone()
    model.train()
    model[0].eval()  # the backbone's BatchNorm uses and keeps its running statistics
    for xb in batches(x, shuffle=True):
        model(xb).logsumexp(1).mean().backward()
        sgd_step(model[1].parameters())
    return {
        "running_mean_error": recalibrated_error,
        "eval_output_gap": recalibrated_gap,
        "frozen_bn_stats_changed": not torch.equal(model[0][1].running_mean, before),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
