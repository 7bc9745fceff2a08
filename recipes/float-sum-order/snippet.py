"""Float addition is not associative: the order of a sum changes it, so compare with tolerances."""

import torch

MARKS = [round(10 ** (k / 8)) for k in range(8, 33)]  # 10 ... 10000 terms, log-spaced


def per_sample_losses(device: str) -> torch.Tensor:
    # 100,000 float32 values spanning several orders of magnitude, like per-sample losses.
    torch.manual_seed(0)
    return torch.randn(100_000, device=device).exp() * 10


def problem(device: str) -> dict:
    big = torch.tensor(1e8, device=device)
    one = torch.tensor(1.0, device=device)

    losses = per_sample_losses(device)
    whole = losses.sum()  # one reduction
    by_batch_32 = losses.view(-1, 32).sum(dim=1).sum()  # batch sums, then their sum
    by_batch_100 = losses.view(-1, 100).sum(dim=1).sum()
    reversed_order = losses.flip(0).sum()
    results = [whole.item(), by_batch_32.item(), by_batch_100.item(), reversed_order.item()]

    # A running total kept in float32, one term at a time, as in `running += loss.detach()`.
    term = torch.tensor(0.1, device=device)
    running = torch.zeros((), device=device)
    rel_error = []
    for n in range(1, MARKS[-1] + 1):
        running += term  # rounded to float32 after every addition
        if n in MARKS:
            exact = n * term.item()  # the true sum of n copies, in float64
            rel_error.append(abs(running.item() - exact) / exact)
    return {
        "left_to_right": ((big + one) - big).item(),  # 1e8 + 1 rounds to 1e8 in float32
        "right_to_left": ((big - big) + one).item(),
        "sums_by_order": results,
        "distinct_sums": len(set(results)),
        "whole_equals_batched": bool(whole == by_batch_32),
        "running_total_rel_error": round(rel_error[-1], 6),
        "error_vs_terms": {"x": MARKS, "y": {"float32 running total": rel_error}},
    }


def fix(device: str) -> dict:
    losses = per_sample_losses(device)
    whole = losses.sum()
    by_batch_32 = losses.view(-1, 32).sum(dim=1).sum()

    # Compare floats with a tolerance scaled to the dtype, never with ==.
    close = torch.allclose(whole, by_batch_32, rtol=1e-5, atol=1e-8)
    isclose = torch.isclose(whole, by_batch_32, rtol=1e-5).item()

    # Accumulate long sums in float64 (or a Python float): the error stays at float64's level.
    whole64 = losses.double().sum()
    term = torch.tensor(0.1, device=device)
    running = torch.zeros((), dtype=torch.float64, device=device)
    rel_error = []
    for n in range(1, MARKS[-1] + 1):
        running += term.double()
        if n in MARKS:
            exact = n * term.item()
            rel_error.append(abs(running.item() - exact) / exact)
    return {
        "allclose": close,
        "isclose": isclose,
        "float64_agrees_with_float32": torch.allclose(whole.double(), whole64, rtol=1e-5),
        "running_total_rel_error": rel_error[-1],
        "error_vs_terms": {"x": MARKS, "y": {"float64 running total": rel_error}},
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
