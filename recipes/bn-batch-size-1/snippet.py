"""A last batch of one sample breaks BatchNorm in training mode; `drop_last=True` avoids it."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def make_model(device: str) -> nn.Module:
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1)).to(device)


def train_one_epoch(model: nn.Module, loader: DataLoader, device: str) -> dict:
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sizes = []
    try:
        for x, y in loader:
            sizes.append(len(x))
            loss = nn.functional.mse_loss(model(x.to(device)), y.to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
        error = "no error"
    except ValueError as err:
        error = f"{type(err).__name__}: {err}"[:2000]
    return {"batch_sizes": sizes, "error": error}


def problem(device: str) -> dict:
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(9, 4), torch.randn(9, 1))  # 9 = 4 + 4 + 1
    model = make_model(device).train()
    loader = DataLoader(data, batch_size=4, shuffle=True)
    obs = train_one_epoch(model, loader, device)

    # Two samples pass, but BatchNorm squashes each feature to exactly -1 and +1:
    # whatever the inputs were, the batch statistics erase them.
    bn = nn.BatchNorm1d(3).to(device).train()
    with torch.no_grad():
        out = bn(torch.randn(2, 3, device=device) * 10)
    obs["batch_of_two_outputs"] = [round(v, 4) for v in out[:, 0].tolist()]
    obs["batch_of_two_max_dev_from_pm1"] = float((out.abs() - 1).abs().max())

    # BatchNorm2d counts values per channel over N*H*W: one image with a 1x1 map fails too.
    try:
        nn.BatchNorm2d(3).to(device).train()(torch.randn(1, 3, 1, 1, device=device))
        obs["bn2d_1x1_error"] = "no error"
    except ValueError as err:
        obs["bn2d_1x1_error"] = f"{type(err).__name__}: {err}"[:2000]
    return obs


def fix(device: str) -> dict:
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(9, 4), torch.randn(9, 1))
    model = make_model(device).train()
    loader = DataLoader(data, batch_size=4, shuffle=True, drop_last=True)
    obs = train_one_epoch(model, loader, device)

    # In evaluation mode BatchNorm uses its running statistics: one sample is fine.
    model.eval()
    with torch.no_grad():
        single = model(torch.randn(1, 4, device=device))
    obs["eval_single_sample_finite"] = bool(torch.isfinite(single).all())

    # LayerNorm (or GroupNorm) normalises each sample on its own: batch size does not matter.
    ln_model = nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.ReLU(), nn.Linear(8, 1))
    ln_out = ln_model.to(device).train()(torch.randn(1, 4, device=device))
    obs["layernorm_batch_of_one_finite"] = bool(torch.isfinite(ln_out).all())
    return obs


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
