"""CUDA out of memory from evaluating without no_grad, shown under a 512 MiB cap, not a full GPU."""

import torch
from torch import nn

MIB = 2**20
CAP_MIB = 512  # this process may use 512 MiB of the GPU, whatever its size


def make_model(device: str) -> nn.Module:
    torch.manual_seed(0)
    layers = []
    for _ in range(12):
        layers += [nn.Linear(1024, 1024), nn.ReLU()]
    return nn.Sequential(*layers).to(device).eval()  # 48 MiB of weights


def evaluate(model, device: str, no_grad: bool) -> dict:
    """Run one evaluation batch of 16384 x 1024 (64 MiB per activation) under the cap."""
    total = torch.cuda.get_device_properties(device).total_memory
    torch.cuda.empty_cache()
    torch.cuda.set_per_process_memory_fraction(CAP_MIB * MIB / total, device)
    torch.cuda.reset_peak_memory_stats(device)
    result = {}
    try:
        x = torch.randn(16384, 1024, device=device)
        if no_grad:
            with torch.no_grad():
                out = model(x)
        else:
            out = model(x)  # autograd keeps every ReLU output for a backward that never comes
        result["error"] = "no error"
        del out
    except torch.cuda.OutOfMemoryError as err:
        result["error"] = f"{type(err).__name__}: {err}"[:2000]
    finally:
        result["peak_allocated_mib"] = round(torch.cuda.max_memory_allocated(device) / MIB)
        torch.cuda.set_per_process_memory_fraction(1.0, device)  # lift the cap again
        torch.cuda.empty_cache()
    return result


def problem(device: str) -> dict:
    if torch.device(device).type != "cuda":
        return {"skipped": "needs a CUDA device"}
    return evaluate(make_model(device), device, no_grad=False)


def fix(device: str) -> dict:
    if torch.device(device).type != "cuda":
        return {"skipped": "needs a CUDA device"}
    return evaluate(make_model(device), device, no_grad=True)


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else ("cuda" if torch.cuda.is_available() else "cpu")
    print("problem:", problem(device))
    print("fix:", fix(device))
