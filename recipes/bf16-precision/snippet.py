"""bfloat16 keeps 8 significant bits: 256 + 1 == 256, so running sums and small updates stall."""

import torch

STEPS = 600
EVERY = 10  # record the running sum every 10 steps (60 points)


def losses(device: str, dtype: torch.dtype) -> torch.Tensor:
    # Per-step losses of about 1.0 in bfloat16, as a model cast with .bfloat16() returns them
    # (so does a hand-written loss on autocast outputs; autocast's built-in losses are float32).
    torch.manual_seed(0)
    return (1.0 + 0.1 * torch.randn(STEPS, device=device)).to(dtype)


def problem(device: str) -> dict:
    step_losses = losses(device, torch.bfloat16)

    # A running total and a step counter kept in the loss's own dtype.
    total = torch.zeros((), dtype=torch.bfloat16, device=device)
    count = torch.zeros((), dtype=torch.bfloat16, device=device)
    total_curve, count_curve = [], []
    for step, loss in enumerate(step_losses, start=1):
        total += loss  # bfloat16 + bfloat16: rounded to 8 significant bits every step
        count += 1  # 256 + 1 rounds back to 256
        if step % EVERY == 0:
            total_curve.append(total.item())
            count_curve.append(count.item())

    # A bfloat16 weight nudged by a small update, as in pure-bf16 training.
    w = torch.ones((), dtype=torch.bfloat16, device=device)
    for _ in range(100):
        w -= 1e-3  # lr * grad: 1 - 0.001 rounds back to 1.0 (the bf16 spacing below 1 is 2**-8)

    one = torch.ones((), dtype=torch.bfloat16, device=device)
    return {
        "256_plus_1": (one * 256 + one).item(),
        "running_total": total.item(),
        "running_total_error": round(step_losses.double().sum().item() - total.item(), 2),
        "step_count": count.item(),
        "weight_after_100_updates": w.item(),
        "sum_reduction": step_losses.sum().item(),  # torch.sum accumulates in float32 inside
        "running_sum": {
            "x": list(range(EVERY, STEPS + 1, EVERY)),
            "y": {"bfloat16 loss sum": total_curve, "bfloat16 step count": count_curve},
        },
    }


def fix(device: str) -> dict:
    step_losses = losses(device, torch.bfloat16)

    # Accumulate in float32 (or a Python float via .item()): 24 significant bits.
    total = torch.zeros((), dtype=torch.float32, device=device)
    count = 0  # counters are integers: keep them in Python (or int64)
    total_curve, count_curve = [], []
    for step, loss in enumerate(step_losses, start=1):
        total += loss.float()
        count += 1
        if step % EVERY == 0:
            total_curve.append(total.item())
            count_curve.append(count)

    # Keep the weights (the master copy the optimizer updates) in float32.
    w = torch.ones((), dtype=torch.float32, device=device)
    for _ in range(100):
        w -= 1e-3

    one = torch.ones((), dtype=torch.float32, device=device)
    return {
        "256_plus_1": (one * 256 + one).item(),
        "running_total": total.item(),
        "running_total_error": round(step_losses.double().sum().item() - total.item(), 2),
        "step_count": count,
        "weight_after_100_updates": round(w.item(), 4),
        "sum_reduction": step_losses.sum().item(),  # the same bf16 losses, the same reduction
        "running_sum": {
            "x": list(range(EVERY, STEPS + 1, EVERY)),
            "y": {"float32 loss sum": total_curve, "int step count": count_curve},
        },
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
