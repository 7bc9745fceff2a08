"""A query row whose keys are all masked gives NaN, and its NaN gradients reach every weight."""

import torch
import torch.nn.functional as F
from torch import nn

B, L, E = 2, 4, 8  # batch, sequence length, embedding size


def batch(device: str):
    """Sample 1 is all padding: an empty sequence that made it into the batch."""
    torch.manual_seed(0)
    x = torch.randn(B, L, E, device=device)
    padding = torch.zeros(B, L, dtype=torch.bool, device=device)  # True = padding
    padding[1] = True
    return x, padding


def handwritten(device: str, fill: float, zero_padded_rows: bool) -> dict:
    """softmax(q k^T + mask) v written out, as in many attention modules."""
    x, padding = batch(device)
    proj = nn.Linear(E, 3 * E).to(device)
    q, k, v = proj(x).chunk(3, dim=-1)
    scores = q @ k.transpose(-2, -1) / E**0.5  # (B, L, L)
    scores = scores.masked_fill(padding[:, None, :], fill)  # hide padded keys
    out = scores.softmax(dim=-1) @ v
    if zero_padded_rows:
        out = out.masked_fill(padding[:, :, None], 0.0)
    out[0].sum().backward()  # the loss uses sample 0 only
    return {
        "output_has_nan": bool(out.isnan().any()),
        "grad_has_nan": bool(proj.weight.grad.isnan().any()),
    }


def mha(device: str, key_padding_mask, training: bool) -> dict:
    x, padding = batch(device)
    torch.manual_seed(0)
    layer = nn.MultiheadAttention(E, num_heads=2, batch_first=True).to(device)
    if training:
        out = layer(x, x, x, key_padding_mask=key_padding_mask)[0]
        output_has_nan = bool(out.isnan().any())
        out = out.masked_fill(padding[:, :, None], 0.0)  # zeroing padded rows: too late
        out.sum().backward()
        # need_weights=False sends the same call through SDPA instead of its own softmax.
        no_weights = layer(x, x, x, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return {
            "output_has_nan": output_has_nan,
            "grad_has_nan": bool(layer.in_proj_weight.grad.isnan().any()),
            "no_weights_output_has_nan": bool(no_weights.isnan().any()),
        }
    layer.eval()
    with torch.no_grad():  # the inference fast path
        out = layer(x, x, x, key_padding_mask=key_padding_mask, need_weights=False)[0]
    return {"output_has_nan": bool(out.isnan().any())}


def sdpa_fully_masked_row_is_zero(device: str) -> bool:
    """Recent SDPA returns zeros, not NaN, for a row with no key to attend to (on CPU)."""
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 1, L, E, device=device) for _ in range(3))
    allowed = torch.ones(L, L, dtype=torch.bool, device=device)
    allowed[0] = False  # query 0 may attend to nothing
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return bool((out[..., 0, :] == 0).all())


def problem(device: str) -> dict:
    hand = handwritten(device, fill=float("-inf"), zero_padded_rows=False)
    x, padding = batch(device)
    train = mha(device, padding, training=True)
    evaluation = mha(device, padding, training=False)
    return {
        "handwritten_output_has_nan": hand["output_has_nan"],
        "handwritten_grad_has_nan": hand["grad_has_nan"],
        "mha_train_output_has_nan": train["output_has_nan"],
        "mha_grad_has_nan": train["grad_has_nan"],
        "mha_eval_output_has_nan": evaluation["output_has_nan"],
        "mha_need_weights_false_has_nan": train["no_weights_output_has_nan"],
        "sdpa_fully_masked_row_is_zero": sdpa_fully_masked_row_is_zero(device),
    }


def fix(device: str) -> dict:
    # Hand-written: a finite fill keeps softmax defined; then zero the padded rows' outputs.
    hand = handwritten(device, fill=torch.finfo(torch.float32).min, zero_padded_rows=True)

    # MultiheadAttention: leave every row at least one key (here the first), zero it afterwards.
    x, padding = batch(device)
    key_padding_mask = padding.clone()
    key_padding_mask[key_padding_mask.all(dim=1), 0] = False
    train = mha(device, key_padding_mask, training=True)
    evaluation = mha(device, key_padding_mask, training=False)
    return {
        "handwritten_output_has_nan": hand["output_has_nan"],
        "handwritten_grad_has_nan": hand["grad_has_nan"],
        "mha_train_output_has_nan": train["output_has_nan"],
        "mha_grad_has_nan": train["grad_has_nan"],
        "mha_eval_output_has_nan": evaluation["output_has_nan"],
        "mha_need_weights_false_has_nan": train["no_weights_output_has_nan"],
        "sdpa_fully_masked_row_is_zero": sdpa_fully_masked_row_is_zero(device),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
