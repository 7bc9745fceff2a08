"""masked_fill(mask, -1e9) on float16 scores overflows: float16 stops at -65504."""

import torch

L, D = 4, 8


def scores_and_mask(device: str):
    """Attention scores computed under float16 autocast, and a padding mask (True = hide)."""
    torch.manual_seed(0)
    q, k = torch.randn(2, L, D, device=device), torch.randn(2, L, D, device=device)
    with torch.autocast(torch.device(device).type, dtype=torch.float16):
        scores = q @ k.transpose(-2, -1)  # float16 under autocast
    hide = torch.zeros(2, 1, L, dtype=torch.bool, device=device)
    hide[0, :, 2:] = True  # sample 0: the last two keys are padding
    hide[1] = True  # sample 1: every key is padding
    return scores, hide


def fill(scores, hide, value) -> str:
    try:
        scores.masked_fill(hide, value)
        return "no error"
    except RuntimeError as err:
        return f"{type(err).__name__}: {err}"[:2000]


def bf16_accepts_minus_1e9(device: str) -> str:
    """bfloat16 has float32's range: -1e9 fits (as -998244352)."""
    scores, hide = scores_and_mask(device)
    return fill(scores.bfloat16(), hide, -1e9)


def problem(device: str) -> dict:
    scores, hide = scores_and_mask(device)
    # Attention code written for float32, running under autocast:
    fill_error = fill(scores, hide, -1e9)
    # The additive form overflows silently instead: -1e9 becomes -inf in float16.
    additive = hide.to(scores.dtype) * -1e9
    # The usual workaround, -inf, is accepted, but a row with nothing left turns into NaN.
    probs = scores.masked_fill(hide, float("-inf")).softmax(dim=-1)
    return {
        "scores_dtype": str(scores.dtype),
        "fill_error": fill_error,
        "additive_mask_is_finite": bool(additive.isfinite().all()),
        "fully_masked_row_has_nan": bool(probs.isnan().any()),
        "bf16_accepts_minus_1e9": bf16_accepts_minus_1e9(device),
    }


def fix(device: str) -> dict:
    scores, hide = scores_and_mask(device)
    # The most negative value the scores' own dtype can hold: -65504 for float16.
    neg = torch.finfo(scores.dtype).min
    fill_error = fill(scores, hide, neg)
    additive = hide.to(scores.dtype) * neg
    probs = scores.masked_fill(hide, neg).softmax(dim=-1)
    # Or do the masked softmax in float32 and cast back.
    probs32 = scores.float().masked_fill(hide, -1e9).softmax(dim=-1).to(scores.dtype)
    return {
        "scores_dtype": str(scores.dtype),
        "fill_value": neg,
        "fill_error": fill_error,
        "additive_mask_is_finite": bool(additive.isfinite().all()),
        "fully_masked_row_has_nan": bool(probs.isnan().any()),
        "float32_softmax_has_nan": bool(probs32.isnan().any()),
        "bf16_accepts_minus_1e9": bf16_accepts_minus_1e9(device),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
