"""Every tensor a worker sends is a file descriptor in the main process while you keep it."""

import os
import resource

import torch
from torch.utils.data import DataLoader, Dataset

EXTRA_FDS = 40  # the lowered limit: what is open now, plus room for 40 more descriptors


class Features(Dataset):
    """Each sample is a dict of 8 small tensors, so each batch is 8 tensors."""

    def __len__(self):
        return 64

    def __getitem__(self, index):
        return {f"feature_{k}": torch.full((4,), float(index)) for k in range(8)}


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))  # Linux: one entry per open descriptor


def keep_all_batches(copy: bool, lower_limit: bool) -> dict:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    loader = DataLoader(Features(), batch_size=4, num_workers=2, timeout=30)
    batches = iter(loader)  # the workers start here, with the normal limit
    before = open_fds()
    if lower_limit:
        # Stand-in for a machine whose `ulimit -n` is small for what this loop keeps. Lower it
        # in this process only, after the workers started (before, they would hang instead).
        resource.setrlimit(resource.RLIMIT_NOFILE, (before + EXTRA_FDS, hard))
    kept, held, error = [], 0, "no error"
    try:
        for batch in batches:
            if copy:
                batch = {name: t.clone() for name, t in batch.items()}  # out of shared memory
            kept.append(batch)  # kept for later: an evaluation pass, a cache, a plot
            held = open_fds() - before
    except RuntimeError as err:
        error = f"{type(err).__name__}: {err}"[:2000]
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        del batches  # shuts the workers down
    return {"batches_kept": len(kept), "fds_held": held, "error": error}


def problem(device: str) -> dict:
    # Host-side file descriptors: the device plays no part.
    torch.manual_seed(0)
    unlimited = keep_all_batches(copy=False, lower_limit=False)
    limited = keep_all_batches(copy=False, lower_limit=True)
    return {
        "fds_held_per_kept_batch": unlimited["fds_held"] / unlimited["batches_kept"],
        "batches_kept_under_low_limit": limited["batches_kept"],
        "error": limited["error"],
    }


def fix(device: str) -> dict:
    torch.manual_seed(0)
    limited = keep_all_batches(copy=True, lower_limit=True)
    return {
        "fds_held_after_copying": limited["fds_held"],
        "batches_kept_under_low_limit": limited["batches_kept"],
        "error": limited["error"],
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
