"""Padding labels for cross_entropy: -100 is ignored, -1 errors, 0 trains on padding."""

import torch
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence

NUM_TAGS = 3


def make_batch(device: str):
    # Token tagging: two sentences of 4 and 2 tokens, tags in {0, 1, 2}.
    torch.manual_seed(0)
    logits = torch.randn(2, 4, NUM_TAGS, device=device, requires_grad=True)
    tags = [torch.tensor([0, 2, 1, 2], device=device), torch.tensor([1, 0], device=device)]
    return logits, tags


def problem(device: str) -> dict:
    logits, tags = make_batch(device)
    flat = logits.view(-1, NUM_TAGS)  # (N*T, C): one row per token

    # 1) Pad with -1. On CPU: IndexError. On CUDA it is a device-side assert that
    #    breaks the whole CUDA context, so this part runs on CPU only.
    if torch.device(device).type == "cpu":
        padded = pad_sequence(tags, batch_first=True, padding_value=-1)
        try:
            F.cross_entropy(flat, padded.view(-1))
            minus_one = "no error"
        except IndexError as err:
            minus_one = f"{type(err).__name__}: {err}"[:2000]
    else:
        minus_one = "not run: a device-side assert would break the CUDA context"

    # 2) pad_sequence pads with 0 by default, and 0 is a real tag: padding is trained on.
    padded = pad_sequence(tags, batch_first=True)
    loss = F.cross_entropy(flat, padded.view(-1))
    loss.backward()
    real = torch.cat(tags)
    real_only = F.cross_entropy(torch.cat([logits[0], logits[1, :2]]), real)

    # 3) A batch in which every label is ignored (all padding, or a prompt-only chunk).
    empty = torch.full((8,), -100, device=device)
    empty_loss = F.cross_entropy(flat, empty)  # 0 / 0
    return {
        "minus_one_padding": minus_one,
        "padded_loss_matches_real_tokens": torch.allclose(loss, real_only),
        "grad_on_padding_is_zero": bool((logits.grad[1, 2:] == 0).all()),
        "all_ignored_loss_is_nan": bool(torch.isnan(empty_loss)),
    }


def fix(device: str) -> dict:
    logits, tags = make_batch(device)
    flat = logits.view(-1, NUM_TAGS)

    # Pad with -100, the default ignore_index: padded tokens drop out of the mean.
    padded = pad_sequence(tags, batch_first=True, padding_value=-100)
    loss = F.cross_entropy(flat, padded.view(-1))
    loss.backward()
    real = torch.cat(tags)
    real_only = F.cross_entropy(torch.cat([logits[0], logits[1, :2]]), real)

    # A batch with no label left: sum, and divide by the count of real labels (at least 1).
    empty = torch.full((8,), -100, device=device)
    n_valid = (empty != -100).sum().clamp(min=1)
    empty_loss = F.cross_entropy(flat, empty, reduction="sum") / n_valid
    return {
        "padded_loss_matches_real_tokens": torch.allclose(loss, real_only),
        "grad_on_padding_is_zero": bool((logits.grad[1, 2:] == 0).all()),
        "all_ignored_loss_is_nan": bool(torch.isnan(empty_loss)),
        "all_ignored_loss": empty_loss.item(),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
