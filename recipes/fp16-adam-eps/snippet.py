"""Adam on float16 weights: eps=1e-8 rounds to 0, so zero or tiny gradients give NaN and inf."""

import torch
import torch.nn.functional as F
from torch import nn

VOCAB, DIM = 16, 8


def model_and_batch(device: str):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Embedding(VOCAB, DIM), nn.Linear(DIM, 1)).to(device)
    tokens = torch.randint(0, VOCAB // 2, (32,), device=device)  # half the vocabulary is unused
    target = torch.randn(32, 1, device=device)
    return model, tokens, target


def count(model, test) -> int:
    return sum(int(test(p.detach()).sum()) for p in model.parameters())


def problem(device: str) -> dict:
    model, tokens, target = model_and_batch(device)
    model.half()  # pure float16 training: weights, gradients and Adam's state all float16
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)  # eps=1e-8 by default
    loss = F.mse_loss(model(tokens).float(), target)
    loss.backward()
    opt.step()
    state = opt.state[model[0].weight]
    return {
        "param_dtype": str(model[0].weight.dtype),
        "eps_as_float16": torch.tensor(opt.defaults["eps"], dtype=torch.float16).item(),
        # Unused embedding rows have gradient 0: m = v = 0 and the update is 0 / (0 + 0).
        "nan_weights": count(model, torch.isnan),
        # Small gradients: v = 0.001 * g**2 underflows to 0 and the update is m / (0 + 0).
        "inf_weights": count(model, torch.isinf),
        "exp_avg_sq_zeros": int((state["exp_avg_sq"] == 0).sum()),
    }


def fix(device: str) -> dict:
    model, tokens, target = model_and_batch(device)
    # float32 master weights: Adam's state and eps stay float32; autocast runs the forward in fp16.
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    with torch.autocast(torch.device(device).type, dtype=torch.float16):
        out = model(tokens)
    loss = F.mse_loss(out.float(), target)
    loss.backward()  # with small losses, add torch.amp.GradScaler (see fp16-overflow-gradscaler)
    before = [p.detach().clone() for p in model.parameters()]
    opt.step()
    biggest_update = max(
        float((p.detach() - b).abs().max()) for p, b in zip(model.parameters(), before)
    )
    state = opt.state[model[0].weight]
    return {
        "param_dtype": str(model[0].weight.dtype),
        "nan_weights": count(model, torch.isnan),
        "inf_weights": count(model, torch.isinf),
        "exp_avg_sq_zeros": int((state["exp_avg_sq"] == 0).sum()),
        # Adam's first step moves each weight by about lr (or 0 where the gradient is 0).
        "biggest_update_over_lr": round(biggest_update / 1e-3, 3),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
