"""BCELoss(sigmoid(z)) saturates and loses the gradient; BCEWithLogitsLoss(z) does not."""

import torch
import torch.nn.functional as F


def make_batch(device: str):
    # Three confident predictions: wrong (z = -30 for a positive), wrong (z = 30 for a
    # negative), and very wrong (z = -200 for a positive).
    z = torch.tensor([-30.0, 30.0, -200.0], device=device, requires_grad=True)
    y = torch.tensor([1.0, 0.0, 1.0], device=device)
    return z, y


def with_logits(device: str, squash_first: bool) -> dict:
    """BCEWithLogitsLoss on the logits, or on sigmoid(logits): the opposite mistake."""
    z, y = make_batch(device)
    inputs = torch.sigmoid(z) if squash_first else z  # BUG when True: a second sigmoid inside
    loss = torch.nn.BCEWithLogitsLoss(reduction="none")(inputs, y)
    loss.sum().backward()
    return {
        "with_logits_max_loss": round(loss.max().item(), 3),
        "with_logits_max_abs_grad": z.grad.abs().max().item(),
    }


def problem(device: str) -> dict:
    z, y = make_batch(device)
    p = torch.sigmoid(z)  # float32: exactly 1.0 for z = 30, exactly 0.0 for z = -200
    loss = F.binary_cross_entropy(p, y, reduction="none")
    loss.sum().backward()

    kind = torch.device(device).type
    # Logits fed to BCELoss by mistake. On CUDA this is a device-side assert: CPU only.
    if kind == "cpu":
        try:
            F.binary_cross_entropy(z.detach(), y)
            logits_into_bce = "no error"
        except RuntimeError as err:
            logits_into_bce = f"{type(err).__name__}: {err}"[:2000]
        # The same message for a NaN probability, after training diverged.
        try:
            F.binary_cross_entropy(torch.tensor([float("nan")]), torch.tensor([1.0]))
            nan_into_bce = "no error"
        except RuntimeError as err:
            nan_into_bce = f"{type(err).__name__}: {err}"[:2000]
    else:
        nan_into_bce = "not run: a device-side assert on this device"
        logits_into_bce = "not run: a device-side assert on this device"

    # Mixed precision on CUDA refuses BCELoss altogether.
    if kind == "cuda":
        try:
            with torch.autocast("cuda"):
                F.binary_cross_entropy(torch.sigmoid(z), y)
            autocast_bce = "no error"
        except RuntimeError as err:
            autocast_bce = f"{type(err).__name__}: {err}"[:2000]
    else:
        autocast_bce = "not run: the refusal is CUDA-only"
    return {
        "sigmoid_is_exactly_0_or_1": ((p == 0) | (p == 1)).tolist(),
        "loss": [round(v, 3) for v in loss.tolist()],
        "grad": [round(v, 4) for v in z.grad.tolist()],
        "grad_is_zero": (z.grad == 0).tolist(),
        "logits_into_bce": logits_into_bce,
        "nan_into_bce": nan_into_bce,
        "autocast_bce": autocast_bce,
        **with_logits(device, squash_first=True),
    }


def fix(device: str) -> dict:
    z, y = make_batch(device)
    loss = F.binary_cross_entropy_with_logits(z, y, reduction="none")
    loss.sum().backward()

    autocast_ok = None
    if torch.device(device).type == "cuda":
        with torch.autocast("cuda"):
            autocast_loss = F.binary_cross_entropy_with_logits(z, y)
        autocast_ok = bool(torch.isfinite(autocast_loss))
    return {
        "loss": [round(v, 3) for v in loss.tolist()],
        "grad": [round(v, 4) for v in z.grad.tolist()],
        "grad_is_zero": (z.grad == 0).tolist(),
        "autocast_loss_is_finite": autocast_ok,
        **with_logits(device, squash_first=False),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
