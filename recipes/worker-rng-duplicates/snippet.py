"""RNG objects made in `Dataset.__init__` repeat the same draws in every worker and every epoch."""

import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info


class Augmented(Dataset):
    """Four samples; each returns the random numbers its "augmentation" drew."""

    def __init__(self):
        # One generator object per library, created once, in the main process.
        self.np_rng = np.random.default_rng()  # unseeded, yet still copied into every worker
        self.torch_gen = torch.Generator().manual_seed(0)
        self.py_rng = random.Random(0)

    def __len__(self):
        return 4

    def __getitem__(self, index):
        return {
            "np_rng": int(self.np_rng.integers(1_000_000)),
            "torch_gen": int(torch.randint(1_000_000, (1,), generator=self.torch_gen)),
            "py_rng": self.py_rng.randrange(1_000_000),
            # The global generators: each worker reseeds these itself (NumPy's since 1.9).
            "np_global": int(np.random.randint(1_000_000)),
            "torch_global": int(torch.randint(1_000_000, (1,))),
        }


def seed_worker(worker_id):
    """Give this worker's copies of the generators a seed of their own."""
    info = get_worker_info()  # info.seed = the loader's base seed + worker_id
    info.dataset.np_rng = np.random.default_rng(info.seed)
    info.dataset.torch_gen.manual_seed(info.seed)
    info.dataset.py_rng.seed(info.seed)


def two_epochs(loader) -> list:
    # Two workers share out the 4 indices round-robin: samples 0, 2 -> worker 0; 1, 3 -> worker 1.
    return [list(loader) for _ in range(2)]


def summarise(epochs: list) -> dict:
    out = {}
    for name in epochs[0][0]:
        first, second = ([s[name] for s in epoch] for epoch in epochs)
        out[f"{name}_same_in_both_workers"] = first[0] == first[1] and first[2] == first[3]
        out[f"{name}_same_every_epoch"] = first == second
    return out


def problem(device: str) -> dict:
    # The data stays on the CPU: workers load it, whatever device the model is on.
    torch.manual_seed(0)
    loader = DataLoader(Augmented(), batch_size=None, num_workers=2, timeout=30)
    epochs = two_epochs(loader)
    return {"epoch_0_np_rng": [s["np_rng"] for s in epochs[0]], **summarise(epochs)}


def seeded_loader() -> DataLoader:
    return DataLoader(
        Augmented(),
        batch_size=None,
        num_workers=2,
        timeout=30,
        worker_init_fn=seed_worker,
        generator=torch.Generator().manual_seed(0),  # the base seed: reproducible run after run
    )


def fix(device: str) -> dict:
    torch.manual_seed(0)
    epochs = two_epochs(seeded_loader())
    rerun = two_epochs(seeded_loader())
    return {
        "epoch_0_np_rng": [s["np_rng"] for s in epochs[0]],
        **summarise(epochs),
        "same_draws_with_same_generator_seed": epochs == rerun,
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
