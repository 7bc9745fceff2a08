"""`best = model.state_dict()` holds references to the live weights, not a snapshot."""

import copy

import torch
from torch import nn


def make_data(device: str):
    # Training data follow y = 3x, validation data y = 2x: as the weight climbs from 0
    # towards 3 the validation loss falls, bottoms out near w = 2, then rises again.
    torch.manual_seed(0)
    x = torch.randn(64, 1, device=device)
    return x, 3 * x, x, 2 * x


def train(model: nn.Module, device: str, take_copy: bool) -> dict:
    x_train, y_train, x_val, y_val = make_data(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    best_loss, best_state, best_epoch = float("inf"), {}, -1
    for epoch in range(20):
        opt.zero_grad()
        nn.functional.mse_loss(model(x_train), y_train).backward()
        opt.step()
        with torch.no_grad():
            val_loss = nn.functional.mse_loss(model(x_val), y_val).item()
        if val_loss < best_loss:
            best_loss, best_epoch = val_loss, epoch
            if take_copy:
                best_state = copy.deepcopy(model.state_dict())  # a snapshot of this moment
            else:
                best_state = model.state_dict()  # BUG: references to the live weights
    final_weight = model.weight.item()
    model.load_state_dict(best_state)  # "restore the best model" after training
    with torch.no_grad():
        restored_loss = nn.functional.mse_loss(model(x_val), y_val).item()
    return {
        "best_epoch": best_epoch,
        "best_val_loss": round(best_loss, 4),
        "restored_val_loss": round(restored_loss, 4),
        "restored_is_best": abs(restored_loss - best_loss) < 1e-6,
        "restored_weight_is_final": model.weight.item() == final_weight,
        "snapshot_shares_memory": best_state["weight"].data_ptr() == model.weight.data_ptr(),
    }


def problem(device: str) -> dict:
    model = nn.Linear(1, 1, bias=False).to(device)
    with torch.no_grad():
        model.weight.zero_()
    obs = train(model, device, take_copy=False)

    # A shallow copy of the dict is no better: the values are still the live tensors.
    shallow = model.state_dict().copy()
    with torch.no_grad():
        model.weight.add_(1.0)
    obs["shallow_copy_follows_model"] = shallow["weight"].item() == model.weight.item()
    return obs


def fix(device: str) -> dict:
    model = nn.Linear(1, 1, bias=False).to(device)
    with torch.no_grad():
        model.weight.zero_()
    obs = train(model, device, take_copy=True)

    # The same snapshot without deepcopy, kept on the CPU to spare accelerator memory.
    cpu_copy = {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}
    with torch.no_grad():
        model.weight.add_(1.0)
    obs["cpu_copy_follows_model"] = cpu_copy["weight"].item() == model.weight.item()
    return obs


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
