"""Is the GPU waiting for data? Time the loader against the step, then add workers."""

import time

import torch
from torch.utils.data import DataLoader, Dataset

LOAD_S = 0.008  # reading and decoding one sample (a JPEG, an audio clip)
STEP_S = 0.02  # one training step on the accelerator


class SlowDataset(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        time.sleep(LOAD_S)  # stands for the decoding work done in __getitem__
        return torch.full((3,), float(i)), torch.get_num_threads()


def train_step(batch):
    time.sleep(STEP_S)  # stands for forward, backward and optimizer step


def measure(loader) -> dict:
    """Split the loop's time into waiting for the next batch and running the step."""
    waits, steps, threads = [], [], set()
    t0 = time.perf_counter()
    for batch, worker_threads in loader:
        t1 = time.perf_counter()
        waits.append(t1 - t0)
        train_step(batch)
        threads.update(worker_threads.tolist())
        t0 = time.perf_counter()
        steps.append(t0 - t1)
    # The first batch also pays for starting the workers; the rest is the steady state.
    return {
        "first_batch_s": round(waits[0], 3),
        "data_fraction": sum(waits[1:]) / (sum(waits[1:]) + sum(steps[1:])),
        "torch_threads_where_loaded": sorted(threads),
    }


def problem(device: str) -> dict:
    # Loading runs on the host; the step stands for work on `device`.
    torch.manual_seed(0)
    # The default: every sample is loaded in the training process, between two steps.
    return measure(DataLoader(SlowDataset(), batch_size=4, num_workers=0))


def fix(device: str) -> dict:
    torch.manual_seed(0)
    # Two workers load the next batches while the step runs: 4 samples take 32 ms in one
    # worker, so two of them deliver a batch every ~16 ms, under the 20 ms step.
    loader = DataLoader(SlowDataset(), batch_size=4, num_workers=2, persistent_workers=True)
    result = measure(loader)
    del loader  # persistent workers stop with their loader
    return result


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
