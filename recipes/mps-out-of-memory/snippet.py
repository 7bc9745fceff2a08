"""MPS out of memory under the high-watermark limit: find what holds memory before lifting it."""

import os
import sys

import torch
from torch import nn

CAP_MIB = 128  # a limit far below any Mac's memory: the snippet never strains the machine


def build_model(device: str) -> nn.Module:
    torch.manual_seed(0)
    # Elementwise layers: each keeps a 4 MiB tensor for backward at almost no compute.
    layers = []
    for _ in range(6):
        layers += [nn.Linear(1, 1), nn.Sigmoid()]
    return nn.Sequential(*layers).to(device)


def evaluate(model: nn.Module, device: str, keep_graph: bool) -> dict:
    """Score four batches of 1M values each and keep the outputs, as a validation loop does."""
    saved = {}  # storage address -> bytes: a tensor two layers save is counted once

    def count_saved(t):
        storage = t.untyped_storage()
        saved[storage.data_ptr()] = storage.nbytes()
        return t

    outputs, error = [], "no error"
    with torch.autograd.graph.saved_tensors_hooks(count_saved, lambda t: t):
        for i in range(4):
            x = torch.full((1 << 20, 1), float(i), device=device)
            try:
                if keep_graph:
                    outputs.append(model(x))  # without no_grad: each output keeps its graph
                else:
                    with torch.no_grad():
                        outputs.append(model(x))
            except RuntimeError as err:
                error = f"{type(err).__name__}: {err}"[:2000]
                break
    return {
        "error": error,
        "batches_done": len(outputs),
        "saved_for_backward_mib": round(sum(saved.values()) / 2**20, 1),
        "outputs_keep_graph": any(o.grad_fn is not None for o in outputs),
    }


def with_mps_cap(device: str, body) -> dict:
    """On MPS, cap this process at CAP_MIB, the same limit PYTORCH_MPS_HIGH_WATERMARK_RATIO sets."""
    if not device.startswith("mps"):
        return body()
    fraction = CAP_MIB * 2**20 / torch.mps.recommended_max_memory()
    torch.mps.set_per_process_memory_fraction(fraction)
    try:
        return body()
    finally:
        # Back to the ratio the process started with (1.7 is torch's default).
        default = float(os.environ.get("PYTORCH_MPS_HIGH_WATERMARK_RATIO", "1.7"))
        torch.mps.set_per_process_memory_fraction(default)
        torch.mps.empty_cache()


def problem(device: str) -> dict:
    model = build_model(device)
    return with_mps_cap(device, lambda: evaluate(model, device, keep_graph=True))


def fix(device: str) -> dict:
    model = build_model(device)
    return with_mps_cap(device, lambda: evaluate(model, device, keep_graph=False))


if __name__ == "__main__":
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
