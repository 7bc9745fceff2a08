"""softmax without dim on a 3-D input normalises over dim 0, the batch, with only a warning."""

import torch
import torch.nn.functional as F
from torch import nn


def problem(device: str) -> dict:
    torch.manual_seed(0)
    # Attention scores or per-token logits: (batch, seq, classes).
    scores = torch.randn(2, 3, 4, device=device)
    probs = F.softmax(scores)  # no dim: for 3-D input torch picks dim 0
    layer_probs = nn.Softmax()(scores)  # the module without dim does the same
    log_probs = F.log_softmax(scores)  # and so does log_softmax

    flat = torch.randn(2, 4, device=device)  # 2-D input: dim 1 is picked, by luck right
    return {
        "last_dim_sums_to_one": bool(
            torch.allclose(probs.sum(-1), torch.ones(2, 3, device=device))
        ),
        "batch_dim_sums_to_one": bool(
            torch.allclose(probs.sum(0), torch.ones(3, 4, device=device))
        ),
        "module_matches_function": torch.allclose(layer_probs, probs),
        "log_softmax_over_batch_dim": bool(torch.allclose(log_probs.exp(), probs)),
        "two_d_rows_sum_to_one": bool(
            torch.allclose(F.softmax(flat).sum(-1), torch.ones(2, device=device))
        ),
    }


def fix(device: str) -> dict:
    torch.manual_seed(0)
    scores = torch.randn(2, 3, 4, device=device)
    probs = F.softmax(scores, dim=-1)  # always name the dimension
    layer_probs = nn.Softmax(dim=-1)(scores)
    return {
        "last_dim_sums_to_one": bool(
            torch.allclose(probs.sum(-1), torch.ones(2, 3, device=device))
        ),
        "module_matches_function": torch.allclose(layer_probs, probs),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
