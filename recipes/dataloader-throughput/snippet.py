"""Is the GPU waiting for data? Time the loader against the step, then add workers."""

import time

import torch
from torch.utils.data import DataLoader, Dataset

LOAD_S = 0.01  # reading and decoding one sample (a JPEG, an audio clip)
STEP_S = 0.04  # one training step on the accelerator
# Without workers a batch of 4 costs 40 ms of loading per 40 ms step: half the loop waits.
# Two workers deliver a batch every 20 ms, twice as fast as the step consumes them, so the
# split stays clear even when a loaded machine stretches every sleep.


class SlowDataset(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        time.sleep(LOAD_S)  # stands for the decoding work done in __getitem__
        # When the sample finished loading, on the system-wide clock the training loop reads.
        return torch.full((3,), float(i)), torch.get_num_threads(), time.perf_counter()


def train_step(batch):
    time.sleep(STEP_S)  # stands for forward, backward and optimizer step


def measure(loader) -> dict:
    """Split the loop's time into waiting for the next batch and running the step."""
    waits, steps, ready, threads = [], [], [], set()
    t0 = time.perf_counter()
    for batch, worker_threads, loaded_at in loader:
        t1 = time.perf_counter()
        waits.append(t1 - t0)
        train_step(batch)
        # Was every sample of this batch loaded before the loop asked for it (at t0)?
        ready.append(loaded_at.max().item() <= t0)
        threads.update(worker_threads.tolist())
        t0 = time.perf_counter()
        steps.append(t0 - t1)
    # The first batch also pays for starting the workers; the rest is the steady state.
    return {
        "first_batch_s": round(waits[0], 3),
        "data_fraction": round(sum(waits[1:]) / (sum(waits[1:]) + sum(steps[1:])), 3),
        "ready_when_asked": round(sum(ready[1:]) / len(ready[1:]), 3),
        "torch_threads_where_loaded": sorted(threads),
    }


def problem(device: str) -> dict:
    # Loading runs on the host; the step stands for work on `device`.
    torch.manual_seed(0)
    # The default: every sample is loaded in the training process, between two steps.
    return measure(DataLoader(SlowDataset(), batch_size=4, num_workers=0))


def fix(device: str) -> dict:
    torch.manual_seed(0)
    # Two workers load the next batches while the step runs: 4 samples take 40 ms in one
    # worker, so two of them deliver a batch every ~20 ms, half the 40 ms step.
    loader = DataLoader(SlowDataset(), batch_size=4, num_workers=2, persistent_workers=True)
    result = measure(loader)
    del loader  # persistent workers stop with their loader
    return result


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
