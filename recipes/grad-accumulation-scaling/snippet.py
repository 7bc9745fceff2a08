"""Gradient accumulation: undivided losses give k times the gradient; the last window is lost."""

import torch
import torch.nn.functional as F
from torch import nn

ACCUM = 4  # micro-batches per optimizer step
MICRO = 2  # samples per micro-batch: 10 samples make 5 micro-batches, windows of 4 and 1


def setup(device: str):
    torch.manual_seed(0)
    model = nn.Linear(3, 1).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(10, 3, device=device)
    y = torch.randn(10, 1, device=device)
    micro_batches = list(zip(x.split(MICRO), y.split(MICRO)))
    return model, optimizer, micro_batches


def flat(tensors) -> torch.Tensor:
    return torch.cat([t.flatten() for t in tensors])


def compare_with_big_batch(model, window) -> tuple:
    """Accumulated .grad against the gradient of ONE batch holding the window's samples."""
    xs, ys = zip(*window)
    big_loss = F.mse_loss(model(torch.cat(xs)), torch.cat(ys))
    big = flat(torch.autograd.grad(big_loss, list(model.parameters())))  # leaves .grad alone
    accumulated = flat(p.grad for p in model.parameters())
    ratio = round((accumulated.norm() / big.norm()).item(), 4)
    return ratio, torch.allclose(accumulated, big, atol=1e-6)


def grad_left_over(model) -> bool:
    return any(p.grad is not None and bool(p.grad.abs().sum() > 0) for p in model.parameters())


def problem(device: str) -> dict:
    # 1) The loop as usually written: mean loss per micro-batch, step every ACCUM batches.
    model, optimizer, micro_batches = setup(device)
    ratios, steps = [], 0
    for i, (x, y) in enumerate(micro_batches):
        loss = F.mse_loss(model(x), y)  # BUG: a mean per micro-batch, never divided by ACCUM
        loss.backward()  # gradients add up across micro-batches
        if (i + 1) % ACCUM == 0:  # BUG: the last, incomplete window never gets a step
            ratios.append(compare_with_big_batch(model, micro_batches[i + 1 - ACCUM : i + 1])[0])
            optimizer.step()
            optimizer.zero_grad()
            steps += 1
    left_over = grad_left_over(model)  # leaks into the first step of the next epoch

    # 2) Half fixed: divide by ACCUM and flush at the end, but the last window has 1 batch.
    model, optimizer, micro_batches = setup(device)
    last_ratios = []
    for i, (x, y) in enumerate(micro_batches):
        (F.mse_loss(model(x), y) / ACCUM).backward()
        if (i + 1) % ACCUM == 0 or i + 1 == len(micro_batches):
            start = i // ACCUM * ACCUM
            last_ratios.append(compare_with_big_batch(model, micro_batches[start : i + 1])[0])
            optimizer.step()
            optimizer.zero_grad()

    return {
        "grad_vs_big_batch_ratio": ratios[0],
        "optimizer_steps_per_epoch": steps,
        "grad_left_over_after_epoch": left_over,
        "divide_by_accum_window_ratios": last_ratios,
    }


def fix(device: str) -> dict:
    model, optimizer, micro_batches = setup(device)
    ratios, matches, steps = [], [], 0
    for i, (x, y) in enumerate(micro_batches):
        start = i // ACCUM * ACCUM
        window = micro_batches[start : start + ACCUM]  # this micro-batch's window (maybe short)
        window_samples = sum(len(xb) for xb, _ in window)
        # Sum over the samples, divide by the samples in the WHOLE window: exact, even when
        # the last window (or the last micro-batch) is smaller.
        loss = F.mse_loss(model(x), y, reduction="sum") / window_samples
        loss.backward()
        if (i + 1) % ACCUM == 0 or i + 1 == len(micro_batches):  # flush the last window too
            ratio, match = compare_with_big_batch(model, window)
            ratios.append(ratio)
            matches.append(match)
            optimizer.step()
            optimizer.zero_grad()
            steps += 1

    return {
        "window_ratios": ratios,
        "windows_match_big_batch": matches,
        "optimizer_steps_per_epoch": steps,
        "grad_left_over_after_epoch": grad_left_over(model),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
