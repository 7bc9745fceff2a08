"""Tensors made inside autocast (or by a .half() model) meet float32 weights outside it."""

import torch
from torch import nn


def attempt(fn) -> str:
    try:
        fn()
        return "no error"
    except RuntimeError as err:
        return f"{type(err).__name__}: {err}"[:2000]


def parts(device: str):
    torch.manual_seed(0)
    body = nn.Sequential(nn.Linear(16, 16), nn.ReLU()).to(device)
    head = nn.Linear(16, 4).to(device)
    proj = torch.randn(16, 4, device=device)  # a float32 tensor used in a hand-written matmul
    conv = nn.Conv2d(3, 4, 3).to(device)
    x = torch.randn(8, 16, device=device)
    image = torch.randn(1, 3, 8, 8, device=device)
    return body, head, proj, conv, x, image


def problem(device: str) -> dict:
    device_type = torch.device(device).type
    body, head, proj, conv, x, image = parts(device)

    # 1) autocast covers only part of the forward; its bfloat16 output meets a float32 layer.
    with torch.autocast(device_type, dtype=torch.bfloat16):
        hidden = body(x)
    head_outside = attempt(lambda: head(hidden))

    # 2) A model cast with .half() instead of autocast, fed the usual float32 batch...
    half_body = parts(device)[0].half()
    float32_batch_into_model = attempt(lambda: half_body(x))
    # 3) ...and its float16 output in a matmul with a float32 tensor.
    half_out = half_body(x.half())
    matmul_outside = attempt(lambda: half_out @ proj)
    # 4) A float16 image (cast by hand, or saved under autocast) into a float32 conv.
    conv_on_low_precision_image = attempt(lambda: conv(image.half()))

    return {
        "hidden_dtype": str(hidden.dtype),
        "head_on_hidden": head_outside,
        "float32_batch_into_model": float32_batch_into_model,
        "matmul_with_float32": matmul_outside,
        "conv_on_low_precision_image": conv_on_low_precision_image,
    }


def fix(device: str) -> dict:
    device_type = torch.device(device).type
    body, head, proj, conv, x, image = parts(device)

    # 1) One autocast region around the whole forward: it casts each op's inputs itself.
    with torch.autocast(device_type, dtype=torch.bfloat16):
        hidden = body(x)
        head_inside = attempt(lambda: head(hidden))
        matmul_inside = attempt(lambda: hidden @ proj)
        conv_inside = attempt(lambda: conv(image.bfloat16()))
        # A part that must run in float32: switch autocast off and cast its inputs yourself.
        with torch.autocast(device_type, enabled=False):
            precise = head(hidden.float())

    # 2) Keep the model float32 and let autocast choose; no .half() on top of autocast.
    with torch.autocast(device_type, dtype=torch.bfloat16):
        model_float_input = attempt(lambda: body(x))

    return {
        "hidden_dtype": str(hidden.dtype),
        "head_on_hidden": head_inside,
        "float32_batch_into_model": model_float_input,
        "matmul_with_float32": matmul_inside,
        "conv_on_low_precision_image": conv_inside,
        "disabled_region_dtype": str(precise.dtype),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
