"""A boolean mask means "attend" to SDPA and "masked out" to nn.MultiheadAttention."""

import torch
import torch.nn.functional as F
from torch import nn

L, E = 5, 8  # sequence length, embedding size


def inputs(device: str):
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 1, L, E, device=device) for _ in range(3))
    return q, k, v


def sdpa_future_leaks(device: str, **mask_kwargs) -> bool:
    """Does changing the last token change the output at position 0?"""
    q, k, v = inputs(device)
    before = F.scaled_dot_product_attention(q, k, v, **mask_kwargs)
    k2, v2 = k.clone(), v.clone()
    k2[..., -1, :] += 1.0
    v2[..., -1, :] += 1.0  # only the future (the last position) changes
    after = F.scaled_dot_product_attention(q, k2, v2, **mask_kwargs)
    return not torch.allclose(before[..., 0, :], after[..., 0, :])


def mha_and_input(device: str):
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(E, num_heads=2, batch_first=True).to(device).eval()
    x = torch.randn(1, L, E, device=device)
    return mha, x


def mha_future_leaks(device: str, attn_mask) -> bool:
    mha, x = mha_and_input(device)
    with torch.no_grad():
        before = mha(x, x, x, attn_mask=attn_mask)[0]
        x2 = x.clone()
        x2[:, -1] += 1.0
        after = mha(x2, x2, x2, attn_mask=attn_mask)[0]
    return not torch.allclose(before[:, 0], after[:, 0])


def mha_padding_attended(device: str, key_padding_mask) -> bool:
    """Does changing the padding token change the output of a real token?"""
    mha, x = mha_and_input(device)
    with torch.no_grad():
        before = mha(x, x, x, key_padding_mask=key_padding_mask)[0]
        x2 = x.clone()
        x2[:, -1] += 1.0  # the last position is padding
        after = mha(x2, x2, x2, key_padding_mask=key_padding_mask)[0]
    return not torch.allclose(before[:, 0], after[:, 0])


def problem(device: str) -> dict:
    # The "mask out the future" mask, as nn.Transformer code builds it: True above the diagonal.
    future = torch.triu(torch.ones(L, L, device=device), diagonal=1).bool()
    # SDPA reads True as "may attend": every position now sees only the future.
    sdpa_leaks = sdpa_future_leaks(device, attn_mask=future)

    # The other way round: SDPA's causal mask (True on and below the diagonal) given to MHA.
    allowed = torch.tril(torch.ones(L, L, device=device)).bool()
    mha_leaks = mha_future_leaks(device, allowed)

    # A Hugging Face attention_mask (1 = real token, 0 = padding) given to MHA.
    attention_mask = torch.tensor([[1, 1, 1, 1, 0]], device=device)
    mha, x = mha_and_input(device)
    try:
        with torch.no_grad():
            mha(x, x, x, key_padding_mask=attention_mask)  # int64 straight from the tokenizer
        int_mask_error = "no error"
    except AssertionError as err:
        int_mask_error = f"{type(err).__name__}: {err}"[:2000]
    # "Fixed" with .bool(): now True marks the real tokens, which MHA masks out.
    padding_attended = mha_padding_attended(device, attention_mask.bool())

    return {
        "sdpa_future_leaks": sdpa_leaks,
        "mha_future_leaks": mha_leaks,
        "mha_int_padding_mask_error": int_mask_error,
        "mha_padding_attended": padding_attended,
    }


def fix(device: str) -> dict:
    # SDPA: True = attend. Let it build the mask, or pass the lower triangle.
    sdpa_causal_leaks = sdpa_future_leaks(device, is_causal=True)
    future = torch.triu(torch.ones(L, L, device=device), diagonal=1).bool()
    sdpa_leaks = sdpa_future_leaks(device, attn_mask=~future)  # invert the MHA-style mask
    q, k, v = inputs(device)
    same = torch.allclose(
        F.scaled_dot_product_attention(q, k, v, is_causal=True),
        F.scaled_dot_product_attention(q, k, v, attn_mask=~future),
    )

    # MHA: True = masked. Pass the upper triangle (what nn.Transformer builds for you).
    mha_leaks = mha_future_leaks(
        device, nn.Transformer.generate_square_subsequent_mask(L, device=device)
    )
    mha_bool_leaks = mha_future_leaks(device, future)

    # Hugging Face attention_mask -> key_padding_mask: True where it is 0 (padding).
    attention_mask = torch.tensor([[1, 1, 1, 1, 0]], device=device)
    key_padding_mask = attention_mask == 0
    mha, x = mha_and_input(device)
    try:
        with torch.no_grad():
            mha(x, x, x, key_padding_mask=key_padding_mask)
        int_mask_error = "no error"
    except AssertionError as err:
        int_mask_error = f"{type(err).__name__}: {err}"[:2000]
    padding_attended = mha_padding_attended(device, key_padding_mask)

    return {
        "sdpa_future_leaks": sdpa_leaks or sdpa_causal_leaks,
        "is_causal_equals_tril_mask": same,
        "mha_future_leaks": mha_leaks or mha_bool_leaks,
        "mha_int_padding_mask_error": int_mask_error,
        "mha_padding_attended": padding_attended,
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
