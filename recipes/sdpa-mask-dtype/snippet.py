"""SDPA takes a bool mask or a float mask; a tokenizer's int64 attention_mask is refused."""

import torch
import torch.nn.functional as F

B, H, L, D = 2, 2, 16, 16  # batch, heads, sequence length, head size


def attend(device: str, dtype: torch.dtype, attn_mask, efficient_kernel: bool = False) -> str:
    """Run SDPA with this mask; "no error" or the exception as "Type: message"."""
    torch.manual_seed(0)
    q, k, v = (torch.randn(B, H, L, D, device=device, dtype=dtype) for _ in range(3))
    try:
        if efficient_kernel:  # CUDA's memory-efficient kernel, the usual one for masked fp16/bf16
            try:
                from torch.nn.attention import SDPBackend, sdpa_kernel  # torch >= 2.3
            except ImportError:
                return "not run: torch.nn.attention.sdpa_kernel needs torch >= 2.3"
            with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
                F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)
        else:
            F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)
        return "no error"
    except RuntimeError as err:
        return f"{type(err).__name__}: {err}"[:2000]


def padding_mask(device: str) -> torch.Tensor:
    """A tokenizer's attention_mask: int64, 1 = real token, 0 = padding (here: 4 pads)."""
    mask = torch.ones(B, L, dtype=torch.long, device=device)
    mask[1, -4:] = 0
    return mask


def on_cuda(device: str) -> bool:
    return torch.device(device).type == "cuda"


def problem(device: str) -> dict:
    attention_mask = padding_mask(device)
    as_4d = attention_mask[:, None, None, :]  # (B, 1, 1, L): broadcasts over heads and queries
    cuda_only = "not run: needs CUDA"
    return {
        "int64_mask": attend(device, torch.float32, as_4d),
        "uint8_mask": attend(device, torch.float32, as_4d.to(torch.uint8)),
        # Floating masks of another precision are refused too (float32 is the exception).
        "float64_mask_float32_query": attend(device, torch.float32, as_4d.double()),
        "float16_mask_bfloat16_query": attend(device, torch.bfloat16, as_4d.half()),
        # Accepted on CPU since 2.1-2.4 (refused on 2.0): float32 is allowed with any query dtype.
        "float32_mask_bfloat16_query": attend(device, torch.bfloat16, as_4d.float()),
        # On CUDA the memory-efficient kernel wants the additive mask in the query's dtype.
        "efficient_kernel_float32_mask_float16_query": (
            attend(device, torch.float16, as_4d.float(), efficient_kernel=True)
            if on_cuda(device)
            else cuda_only
        ),
    }


def fix(device: str) -> dict:
    attention_mask = padding_mask(device)
    # Either a bool mask (True = may attend, so a 1/0 attention_mask converts directly)...
    keep = attention_mask[:, None, None, :].bool()
    # ...or an additive mask built in the query's dtype: 0 to keep, the dtype's minimum to drop.
    dtype = torch.float16 if on_cuda(device) else torch.bfloat16
    additive = torch.zeros(keep.shape, dtype=dtype, device=device)
    additive = additive.masked_fill(~keep, torch.finfo(dtype).min)
    cuda_only = "not run: needs CUDA"
    return {
        "int64_mask": attend(device, torch.float32, keep),
        "uint8_mask": attend(device, torch.float32, keep),
        "float64_mask_float32_query": attend(device, torch.float32, keep),
        "float16_mask_bfloat16_query": attend(device, torch.bfloat16, keep),
        # A float32 additive mask with bfloat16 queries: CPU takes it, CUDA's efficient kernel not.
        "float32_mask_bfloat16_query": attend(device, torch.bfloat16, additive.float()),
        "additive_mask_in_query_dtype": attend(device, dtype, additive),
        "efficient_kernel_float32_mask_float16_query": (
            attend(device, torch.float16, additive, efficient_kernel=True)
            if on_cuda(device)
            else cuda_only
        ),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
