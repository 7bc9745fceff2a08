"""`scheduler.step()` before `optimizer.step()`, or inside the batch loop, shifts the schedule."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.optim.lr_scheduler import OneCycleLR, StepLR

EPOCHS = 8
BATCHES = 4  # batches per epoch


def setup(device: str):
    torch.manual_seed(0)
    model = nn.Linear(4, 1).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = [
        (torch.randn(8, 4, device=device), torch.randn(8, 1, device=device)) for _ in range(BATCHES)
    ]
    return model, optimizer, batches


def train_step(model, optimizer, x, y) -> float:
    """One optimizer step; returns the learning rate that step used."""
    lr = optimizer.param_groups[0]["lr"]
    optimizer.zero_grad()
    F.mse_loss(model(x), y).backward()
    optimizer.step()
    return lr


def problem(device: str) -> dict:
    # 1) The pre-1.1 habit: step the scheduler at the top of every epoch.
    model, optimizer, batches = setup(device)
    scheduler = StepLR(optimizer, step_size=3, gamma=0.5)  # halve the lr every 3 epochs
    first = []
    for _epoch in range(EPOCHS):
        scheduler.step()  # BUG: before any optimizer.step() of this epoch
        used = [train_step(model, optimizer, x, y) for x, y in batches]
        first.append(used[0])

    # 2) The same epoch-based StepLR, stepped after every batch: it counts batches.
    model, optimizer, batches = setup(device)
    scheduler = StepLR(optimizer, step_size=3, gamma=0.5)
    per_batch = []
    for _epoch in range(EPOCHS):
        used = []
        for x, y in batches:
            used.append(train_step(model, optimizer, x, y))
            scheduler.step()  # BUG: this schedule was written in epochs
        per_batch.append(used[0])

    # 3) The other way round: OneCycleLR sized in epochs, stepped after every batch.
    model, optimizer, batches = setup(device)
    scheduler = OneCycleLR(optimizer, max_lr=0.1, epochs=EPOCHS, steps_per_epoch=1)
    try:
        for _epoch in range(EPOCHS):
            for x, y in batches:
                train_step(model, optimizer, x, y)
                scheduler.step()
        onecycle_error = "no error"
    except ValueError as err:
        onecycle_error = f"{type(err).__name__}: {err}"[:2000]

    return {
        "lr_per_epoch": {
            "x": list(range(EPOCHS)),
            "y": {
                "scheduler.step() first": first,
                "StepLR stepped per batch": per_batch,
            },
        },
        "first_decay_epoch": next(e for e, lr in enumerate(first) if lr < first[0]),
        "per_batch_last_epoch_lr": per_batch[-1],
        "onecycle_error": onecycle_error,
    }


def fix(device: str) -> dict:
    # Per-epoch schedule: optimizer.step() for every batch, then scheduler.step() once.
    model, optimizer, batches = setup(device)
    scheduler = StepLR(optimizer, step_size=3, gamma=0.5)
    first = []
    for _epoch in range(EPOCHS):
        used = [train_step(model, optimizer, x, y) for x, y in batches]
        scheduler.step()  # after the epoch's optimizer steps
        first.append(used[0])

    # Per-batch schedule: size it in batches and step it after every optimizer.step().
    model, optimizer, batches = setup(device)
    scheduler = OneCycleLR(optimizer, max_lr=0.1, epochs=EPOCHS, steps_per_epoch=len(batches))
    onecycle = []
    for _epoch in range(EPOCHS):
        for x, y in batches:
            onecycle.append(train_step(model, optimizer, x, y))
            scheduler.step()

    return {
        "lr_per_epoch": {
            "x": list(range(EPOCHS)),
            "y": {"optimizer.step() first": first},
        },
        "first_decay_epoch": next(e for e, lr in enumerate(first) if lr < first[0]),
        "onecycle_steps_taken": len(onecycle),
        "onecycle_peak_lr": max(onecycle),
        "onecycle_last_lr": onecycle[-1],
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
