"""A plain tensor attribute or a Python list of layers is invisible to nn.Module."""

import torch
from torch import nn


def target_dtype(device: str) -> torch.dtype:
    # A dtype that `.to()` has to convert to; mps has no float64, so use float16 there.
    return torch.float16 if device.startswith("mps") else torch.float64


class Standardize(nn.Module):
    """Subtracts the training set's mean, stored as a plain tensor attribute."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 1)
        self.mean = torch.tensor([1.0, 2.0, 3.0])  # nn.Module never sees this tensor

    def forward(self, x):
        return self.fc(x - self.mean)


class Tower(nn.Module):
    """Hidden layers kept in a plain Python list."""

    def __init__(self):
        super().__init__()
        self.blocks = [nn.Linear(3, 3) for _ in range(2)]  # invisible to nn.Module
        self.head = nn.Linear(3, 1)

    def forward(self, x):
        for block in self.blocks:
            x = torch.relu(block(x))
        return self.head(x)


class StandardizeFixed(nn.Module):
    """The same statistics as a buffer, a cache as a non-persistent buffer, a learned scale."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 1)
        # Saved in state_dict and moved by .to(), but not in parameters(): never optimised.
        self.register_buffer("mean", torch.tensor([1.0, 2.0, 3.0]))
        # Moved by .to() but not saved: a cache that can be rebuilt at any time.
        self.register_buffer("cache", torch.zeros(3), persistent=False)
        # Learned: in parameters(), so the optimizer updates it; also saved and moved.
        self.scale = nn.Parameter(torch.ones(3))

    def forward(self, x):
        return self.fc((x - self.mean) * self.scale)


class TowerFixed(nn.Module):
    """The same layers in an nn.ModuleList, which registers each of them."""

    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(3, 3) for _ in range(2)])
        self.head = nn.Linear(3, 1)

    def forward(self, x):
        for block in self.blocks:
            x = torch.relu(block(x))
        return self.head(x)


def _run(model, x):
    try:
        model(x)
        return "ok"
    except RuntimeError as err:
        return f"{type(err).__name__}: {err}".splitlines()[0]


def _sgd_step(model, x):
    # One optimizer step on whatever model.parameters() reports.
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model(x).pow(2).mean().backward()
    opt.step()
    return opt


def problem(device: str) -> dict:
    torch.manual_seed(0)
    dtype = target_dtype(device)
    x = torch.randn(4, 3).to(device=device, dtype=dtype)  # same values on every device

    model = Standardize().to(device=device, dtype=dtype)
    tower = Tower().to(device=device, dtype=dtype)
    opt = torch.optim.SGD(tower.parameters(), lr=0.1)
    block_weight = tower.blocks[0].weight

    return {
        "mean_follows_dtype": model.mean.dtype == model.fc.weight.dtype,
        "mean_follows_device": model.mean.device == model.fc.weight.device,
        "mean_in_state_dict": "mean" in model.state_dict(),
        "forward": _run(model, x),
        "tower_param_tensors": len(list(tower.parameters())),
        "tower_state_dict_keys": sorted(tower.state_dict()),
        "blocks_in_optimizer": any(p is block_weight for p in opt.param_groups[0]["params"]),
        "blocks_follow_dtype": block_weight.dtype == tower.head.weight.dtype,
        "tower_forward": _run(tower, x),
    }


def fix(device: str) -> dict:
    torch.manual_seed(0)
    dtype = target_dtype(device)
    x = torch.randn(4, 3).to(device=device, dtype=dtype)  # same values on every device

    model = StandardizeFixed().to(device=device, dtype=dtype)
    mean_before, scale_before = model.mean.clone(), model.scale.detach().clone()
    forward = _run(model, x)
    state_keys = list(model.state_dict())
    _sgd_step(model, x)

    tower = TowerFixed().to(device=device, dtype=dtype)
    block_weight = tower.blocks[0].weight
    block_before = block_weight.detach().clone()
    tower_forward = _run(tower, x)
    opt = _sgd_step(tower, x)

    return {
        "mean_follows_dtype": model.mean.dtype == model.fc.weight.dtype,
        "mean_follows_device": model.mean.device == model.fc.weight.device,
        "mean_in_state_dict": "mean" in state_keys,
        "mean_in_parameters": any(p is model.mean for p in model.parameters()),
        "mean_changed_by_step": not torch.equal(model.mean, mean_before),
        "cache_follows_dtype": model.cache.dtype == model.fc.weight.dtype,
        "cache_in_state_dict": "cache" in state_keys,
        "scale_in_state_dict": "scale" in state_keys,
        "scale_changed_by_step": not torch.equal(model.scale.detach(), scale_before),
        "forward": forward,
        "tower_param_tensors": len(list(tower.parameters())),
        "tower_state_dict_keys": sorted(tower.state_dict()),
        "blocks_in_optimizer": any(p is block_weight for p in opt.param_groups[0]["params"]),
        "blocks_follow_dtype": block_weight.dtype == tower.head.weight.dtype,
        "tower_forward": tower_forward,
        "blocks_changed_by_step": not torch.equal(block_weight.detach(), block_before),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
