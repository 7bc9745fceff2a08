"""GradScaler is for float16 autocast over float32 weights: not for .half() weights or bf16."""

import torch
import torch.nn.functional as F
from torch import nn


def setup(device: str, param_dtype=torch.float32):
    torch.manual_seed(0)
    model = nn.Linear(64, 64).to(device=device, dtype=param_dtype)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(32, 64, device=device)
    y = torch.randn(32, 64, device=device)
    return model, opt, x, y


def scaled_step(device: str, param_dtype) -> str:
    """One GradScaler step with the whole model cast to param_dtype; "no error" or the error."""
    model, opt, x, y = setup(device, param_dtype)
    scaler = torch.amp.GradScaler(torch.device(device).type)
    loss = F.mse_loss(model(x.to(param_dtype)).float(), y)
    scaler.scale(loss).backward()
    try:
        scaler.step(opt)  # unscales first: checks and divides the gradients
        scaler.update()
        return "no error"
    except (ValueError, RuntimeError) as err:  # NotImplementedError is a RuntimeError
        return f"{type(err).__name__}: {err}"[:2000]


def zero_grad_fraction(device: str, dtype) -> float:
    """Fraction of weight gradients flushed to 0 by autocast's backward, without a scaler."""
    model, opt, x, y = setup(device)
    with torch.autocast(torch.device(device).type, dtype=dtype):
        out = model(x)
    (F.mse_loss(out.float(), y) * 1e-5).backward()  # a small loss: small gradients
    return round(float((model.weight.grad == 0).float().mean()), 4)


def problem(device: str) -> dict:
    return {
        # model.half() and a scaler: GradScaler refuses to unscale float16 gradients.
        "float16_step": scaled_step(device, torch.float16),
        # model.bfloat16() and a scaler: CUDA has no bfloat16 unscale kernel (CPU has one).
        "bfloat16_step": scaled_step(device, torch.bfloat16),
    }


def fix(device: str) -> dict:
    device_type = torch.device(device).type

    # float16: float32 weights, autocast for the forward, GradScaler for the backward.
    model, opt, x, y = setup(device)
    scaler = torch.amp.GradScaler(device_type)
    with torch.autocast(device_type, dtype=torch.float16):
        loss = F.mse_loss(model(x).float(), y)
    scaler.scale(loss).backward()
    try:
        scaler.step(opt)
        scaler.update()
        float16_step = "no error"
    except (ValueError, RuntimeError) as err:
        float16_step = f"{type(err).__name__}: {err}"[:2000]

    # bfloat16: the same autocast, and no scaler at all.
    model, opt, x, y = setup(device)
    with torch.autocast(device_type, dtype=torch.bfloat16):
        loss = F.mse_loss(model(x).float(), y)
    loss.backward()
    try:
        opt.step()
        bfloat16_step = "no error"
    except RuntimeError as err:
        bfloat16_step = f"{type(err).__name__}: {err}"[:2000]

    return {
        "float16_step": float16_step,
        "bfloat16_step": bfloat16_step,
        # Why bfloat16 needs no scaler: its exponent range is float32's.
        "bfloat16_zero_grad_fraction": zero_grad_fraction(device, torch.bfloat16),
        "float16_zero_grad_fraction": zero_grad_fraction(device, torch.float16),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
