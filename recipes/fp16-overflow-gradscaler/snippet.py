"""float16 overflows past 65504 and flushes small gradients to 0; GradScaler keeps them."""

import torch
from torch import nn

LOSS_WEIGHTS = [10.0**k for k in range(-10, 1)]  # shrink the loss, and every gradient with it


def grads_after_backward(device: str, loss_weight: float, scaler=None):
    """One mixed-precision backward pass; returns (weight gradient, the same in float32)."""
    device_type = torch.device(device).type
    torch.manual_seed(0)
    model = nn.Linear(64, 64).to(device)  # parameters stay float32
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(32, 64, device=device)
    y = torch.randn(32, 64, device=device)
    with torch.autocast(device_type, dtype=torch.float16):
        out = model(x)  # the matmul runs in float16, and so does its backward
        loss = nn.functional.mse_loss(out.float(), y) * loss_weight
    if scaler is None:
        loss.backward()
    else:
        scaler.scale(loss).backward()  # backward of loss * 65536: small gradients survive
        scaler.unscale_(opt)  # divide by the scale again, in float32
    grad = model.weight.grad.clone()

    model.zero_grad()  # the reference: the same step without autocast
    loss = nn.functional.mse_loss(model(x), y) * loss_weight
    loss.backward()
    return grad, model.weight.grad


def sweep(device: str, use_scaler: bool, name: str) -> dict:
    device_type = torch.device(device).type
    x, zero_fraction = [], []
    for w in LOSS_WEIGHTS:
        scaler = torch.amp.GradScaler(device_type) if use_scaler else None
        grad, true_grad = grads_after_backward(device, w, scaler)
        x.append(float(f"{true_grad.abs().median().item():.3g}"))  # typical gradient size
        zero_fraction.append(round(float((grad == 0).float().mean()), 4))
    return {"x": x, "y": {name: zero_fraction}}


def problem(device: str) -> dict:
    device_type = torch.device(device).type
    # float16's range: the largest finite value is 65504, the smallest subnormal about 6e-8.
    values = torch.tensor([70000.0, 65504.0, 1e-3, 1e-5, 1e-8], device=device)
    as_half = values.half()

    # Activations overflow: 300 * 300 = 90000 does not fit in float16.
    a = torch.full((1, 1), 300.0, device=device)
    with torch.autocast(device_type, dtype=torch.float16):
        product = a @ a

    # Small gradients underflow: no scaler, so the float16 backward flushes them to zero.
    grad, true_grad = grads_after_backward(device, 1e-5)

    # Parameters cast to float16 as well (model.half()): GradScaler refuses to unscale them.
    model = nn.Linear(4, 4).to(device).half()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler(device_type)
    scaler.scale(model(torch.randn(2, 4, device=device).half()).float().sum()).backward()
    try:
        scaler.unscale_(opt)
        half_params_error = "no error"
    except ValueError as err:
        half_params_error = f"{type(err).__name__}: {err}"[:2000]

    # Porting `torch.cuda.amp` code to `torch.amp`: the arguments differ.
    old_scaler = torch.cuda.amp.GradScaler()  # FutureWarning since 2.4
    old_autocast = torch.cuda.amp.autocast()  # FutureWarning since 2.4
    del old_scaler, old_autocast
    ported = {}
    for name, make in [
        ("autocast_without_device_type", lambda: torch.amp.autocast(dtype=torch.float16)),
        ("autocast_enabled_positional", lambda: torch.amp.autocast(True)),  # cuda.amp's 1st arg
        ("gradscaler_device_type_kwarg", lambda: torch.amp.GradScaler(device_type=device_type)),
    ]:
        try:
            make()
            ported[name] = "no error"
        except (TypeError, ValueError) as err:
            ported[name] = f"{type(err).__name__}: {err}"[:2000]

    return {
        "as_half": as_half.tolist(),
        "product_300x300": product.item(),
        "zero_grad_fraction": round(float((grad == 0).float().mean()), 4),
        "max_rel_error": round(float((grad - true_grad).abs().max() / true_grad.abs().max()), 4),
        "half_params_error": half_params_error,
        **ported,
        "zero_grads_vs_size": sweep(device, use_scaler=False, name="float16, no scaler"),
    }


def fix(device: str) -> dict:
    device_type = torch.device(device).type
    # Activations that can exceed 65504: bfloat16 has float32's range (at lower precision).
    a = torch.full((1, 1), 300.0, device=device)
    with torch.autocast(device_type, dtype=torch.bfloat16):
        product = a @ a

    # Scale the loss, backward, unscale in float32: the same small gradients survive.
    scaler = torch.amp.GradScaler(device_type)  # device first; it is `device`, not `device_type`
    grad, true_grad = grads_after_backward(device, 1e-5, scaler)

    # Gradients that overflow even so: the scaler skips the step and halves its scale.
    torch.manual_seed(0)
    model = nn.Linear(4, 4).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    before = model.weight.detach().clone()
    with torch.autocast(device_type, dtype=torch.float16):
        loss = model(torch.randn(2, 4, device=device)).float().sum() * 1e4
    scaler = torch.amp.GradScaler(device_type)
    scaler.scale(loss).backward()  # 1e4 * 65536 overflows float16: the gradients are inf
    scaler.step(opt)  # skipped: found inf
    scaler.update()  # 65536 -> 32768

    return {
        "product_300x300": product.item(),
        "zero_grad_fraction": round(float((grad == 0).float().mean()), 4),
        "max_rel_error": round(float((grad - true_grad).abs().max() / true_grad.abs().max()), 4),
        "overflow_step_skipped": bool(torch.equal(model.weight.detach(), before)),
        "scale_after_overflow": scaler.get_scale(),
        "zero_grads_vs_size": sweep(device, use_scaler=True, name="float16 + GradScaler"),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
