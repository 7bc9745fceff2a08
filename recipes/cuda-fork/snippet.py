"""CUDA in a forked DataLoader worker fails; keep workers on the CPU, or start them with spawn."""

import torch
from torch.utils.data import DataLoader, Dataset


class OnDeviceDataset(Dataset):
    """Builds each sample straight on the GPU: the worker process has to start CUDA."""

    def __init__(self, device: str):
        self.device = device

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.full((3,), float(i), device=self.device)


class CpuDataset(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.full((3,), float(i))


def load_all(loader, device: str) -> dict:
    try:
        total = sum(batch.to(device).sum() for batch in loader)
        return {"error": "no error", "total": float(total)}
    except RuntimeError as err:
        return {"error": f"{type(err).__name__}: {err}"[:2000]}


def problem(device: str) -> dict:
    model = torch.nn.Linear(3, 1).to(device)  # CUDA is now initialised in this process
    # Linux before Python 3.14: workers are forked from this process.
    loader = DataLoader(OnDeviceDataset(device), batch_size=2, num_workers=1)
    result = load_all(loader, device)
    result["cuda_initialised_before_fork"] = torch.cuda.is_initialized()
    del model
    return result


def fix(device: str) -> dict:
    model = torch.nn.Linear(3, 1).to(device)
    # 1) Workers only read and collate on the CPU; the main process moves each batch.
    cpu_workers = DataLoader(CpuDataset(), batch_size=2, num_workers=1)
    # 2) Or start workers with spawn: a fresh interpreter that may start CUDA itself.
    spawned = DataLoader(
        OnDeviceDataset(device), batch_size=2, num_workers=1, multiprocessing_context="spawn"
    )
    result = {
        "cpu_workers": load_all(cpu_workers, device)["error"],
        "spawn_workers": load_all(spawned, device)["error"],
        "cuda_initialised_before_fork": torch.cuda.is_initialized(),
    }
    del model
    return result


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else ("cuda" if torch.cuda.is_available() else "cpu")
    print("problem:", problem(device))
    print("fix:", fix(device))
