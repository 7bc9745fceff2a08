"""`clip_grad_norm_` clips nothing before `backward()` or after `step()`, or on scaled gradients."""

import torch
from torch import nn
from torch.nn.utils import clip_grad_norm_

MAX_NORM = 1.0
LR = 0.1


def setup(device: str):
    torch.manual_seed(0)
    model = nn.Linear(8, 1).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    x = torch.randn(16, 8, device=device)
    y = 100 * torch.randn(16, 1, device=device)  # far-off targets: a large gradient
    return model, optimizer, x, y


def applied_grad_norm(model, before) -> float:
    """Norm of the gradient the SGD step actually applied: |w_after - w_before| / lr."""
    moved = [p.detach() - b for p, b in zip(model.parameters(), before)]
    norm = torch.linalg.vector_norm(torch.cat([m.flatten() for m in moved])) / LR
    return float(f"{norm.item():.4g}")


def snapshot(model):
    return [p.detach().clone() for p in model.parameters()]


def problem(device: str) -> dict:
    # 1) Clip "early", before the gradients exist.
    model, optimizer, x, y = setup(device)
    before = snapshot(model)
    optimizer.zero_grad()
    norm_before_backward = clip_grad_norm_(model.parameters(), MAX_NORM)  # BUG: no grads yet
    nn.functional.mse_loss(model(x), y).backward()
    optimizer.step()
    clip_first = applied_grad_norm(model, before)

    # 2) Clip "late", after the optimizer has already used the gradients.
    model, optimizer, x, y = setup(device)
    before = snapshot(model)
    optimizer.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    optimizer.step()
    clip_grad_norm_(model.parameters(), MAX_NORM)  # BUG: the step is already taken
    clip_after_step = applied_grad_norm(model, before)

    # 3) Mixed precision: clip the gradients while they are still multiplied by the scale.
    model, optimizer, x, y = setup(device)
    scaler = torch.amp.GradScaler(torch.device(device).type)
    before = snapshot(model)
    optimizer.zero_grad()
    scaler.scale(nn.functional.mse_loss(model(x), y)).backward()
    scaled_norm = clip_grad_norm_(model.parameters(), MAX_NORM)  # BUG: scaled gradients
    scaler.step(optimizer)  # unscales the already clipped gradients: far below MAX_NORM
    scaler.update()
    scaled_clip = applied_grad_norm(model, before)

    return {
        "norm_returned_by_clip": float(norm_before_backward),  # clipped before backward
        "applied_norm": clip_first,
        "applied_norm_clip_after_step": clip_after_step,
        "norm_seen_with_scaler": round(float(scaled_norm), 1),
        "applied_norm_with_scaler": scaled_clip,
    }


def fix(device: str) -> dict:
    # backward() -> clip -> step(): the step uses the clipped gradient.
    model, optimizer, x, y = setup(device)
    before = snapshot(model)
    optimizer.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    total_norm = clip_grad_norm_(model.parameters(), MAX_NORM)  # returns the norm BEFORE clipping
    optimizer.step()
    clipped = applied_grad_norm(model, before)

    # Mixed precision: unscale_ first, then clip, then scaler.step().
    model, optimizer, x, y = setup(device)
    scaler = torch.amp.GradScaler(torch.device(device).type)
    before = snapshot(model)
    optimizer.zero_grad()
    scaler.scale(nn.functional.mse_loss(model(x), y)).backward()
    scaler.unscale_(optimizer)  # gradients back in true units
    unscaled_norm = clip_grad_norm_(model.parameters(), MAX_NORM)
    scaler.step(optimizer)  # knows they are unscaled and does not divide again
    scaler.update()
    scaled_clipped = applied_grad_norm(model, before)

    return {
        "norm_returned_by_clip": round(float(total_norm), 1),
        "applied_norm": clipped,
        "norm_seen_with_scaler": round(float(unscaled_norm), 1),
        "applied_norm_with_scaler": scaled_clipped,
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
