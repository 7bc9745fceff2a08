"""Collecting outputs across an evaluation loop keeps every batch's graph and activations alive."""

import weakref

import torch
from torch import nn

BATCHES, BATCH, HIDDEN, CLASSES = 20, 32, 256, 10


def setup(device: str):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, CLASSES)).to(device)
    model.eval()
    batches = [torch.randn(BATCH, 64, device=device) for _ in range(BATCHES)]
    # Watch the hidden activations without keeping them alive ourselves.
    hidden = []
    model[1].register_forward_hook(lambda mod, inp, out: hidden.append(weakref.ref(out)))
    return model, batches, hidden


def kib(tensors) -> float:
    return sum(t.numel() * t.element_size() for t in tensors if t is not None) / 1024


def measure(hidden, kept, device: str) -> dict:
    return {
        "activation_kib_alive": kib(ref() for ref in hidden),
        "kept_requires_grad": any(t.requires_grad for t in kept),
        "kept_kib_on_device": kib(t for t in kept if t.device == torch.device(device)),
    }


def problem(device: str) -> dict:
    model, batches, hidden = setup(device)
    all_logits, curve = [], []
    for x in batches:  # model.eval() alone does not turn autograd off
        logits = model(x)
        all_logits.append(logits)  # BUG: each one holds its graph, and the graph its activations
        curve.append(kib(ref() for ref in hidden))
    preds = torch.cat(all_logits).argmax(dim=1)
    return {
        **measure(hidden, all_logits, device),
        "predictions": int(preds.numel()),
        "activation_kib_per_batch": {
            "x": list(range(1, BATCHES + 1)),
            "y": {"append(logits)": curve},
        },
    }


def fix(device: str) -> dict:
    model, batches, hidden = setup(device)
    all_logits, curve = [], []
    with torch.inference_mode():  # or torch.no_grad(): no graph, no saved activations
        for x in batches:
            logits = model(x)
            all_logits.append(logits.detach().cpu())  # off the device, out of any graph
            curve.append(kib(ref() for ref in hidden))
    preds = torch.cat(all_logits).argmax(dim=1)
    return {
        **measure(hidden, all_logits, device),
        "predictions": int(preds.numel()),
        "activation_kib_per_batch": {
            "x": list(range(1, BATCHES + 1)),
            "y": {"inference_mode + detach().cpu()": curve},
        },
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
