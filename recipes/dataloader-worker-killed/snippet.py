"""A DataLoader worker killed by the OS, and why workers over a Python list use up host RAM."""

import os
import signal

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

N_RECORDS = 200_000  # about 5 MB of Python floats: enough to measure, far too small to hurt
NOT_MEASURED = "n/a: needs fork and /proc"


def copy_on_read_measurable():
    """Copy-on-read is a fork effect (the Linux default up to Python 3.13) and needs /proc to be
    seen. Under spawn or forkserver each worker unpickles its own full copy of the dataset
    instead, list or array alike."""
    return private_mb() is not None and torch.multiprocessing.get_start_method() == "fork"


def private_mb():
    """Memory this process has written and shares with no other process, in MB: pages that
    copy-on-write has copied land here. None where there is no /proc (macOS, Windows)."""
    try:
        with open("/proc/self/smaps_rollup") as f:
            fields = [line.split() for line in f]
    except OSError:
        return None
    return sum(int(f[1]) for f in fields if f[0] == "Private_Dirty:") / 1024


class Records(Dataset):
    """Each item reads every record once, as an epoch of random access would, and returns how
    much private memory its worker gained meanwhile. Two items, two workers: one item each."""

    def __init__(self, records, kill_at=None, items=2):
        self.records = records
        self.kill_at = kill_at
        self.items = items

    def __len__(self):
        return self.items

    def __getitem__(self, index):
        if index == self.kill_at:
            # Stand-in for the kernel's OOM killer: SIGKILL cannot be caught, so the worker
            # vanishes without a Python traceback, exactly as when host RAM runs out.
            os.kill(os.getpid(), getattr(signal, "SIGKILL", signal.SIGTERM))
        before = private_mb()
        total = 0.0
        for x in self.records:
            total += float(x)  # we only read, yet a list's objects get their refcounts written
        after = private_mb()
        return 0.0 if before is None else round(after - before, 1)


def memory_by_worker_count(records, name: str) -> tuple:
    """A series for the chart: the private memory all workers together gained reading every
    record, for 1, 2 and 4 workers (one item each; None where it cannot be measured). Also
    the items of the two-worker run: what each of two workers gained."""
    counts = [1, 2, 4]
    measurable = copy_on_read_measurable()
    totals, two_workers = [], []
    for workers in counts:
        loader = DataLoader(Records(records, items=workers), batch_size=None, num_workers=workers)
        items = list(loader)
        if workers == 2:
            two_workers = items
        gained = sum(float(mb) for mb in items)
        totals.append(round(gained, 1) if measurable else None)
    return {"x": counts, "y": {name: totals}}, two_workers


def problem(device: str) -> dict:
    # The usual setup: samples kept as a list of Python objects, read by workers: one, two and
    # four of them for the chart; `growth` is what each of the two gained.
    records = [float(i) for i in range(N_RECORDS)]
    chart, growth = memory_by_worker_count(records, "list of Python floats")

    # Now one worker is killed (SIGKILL) while it loads its first item.
    loader = DataLoader(Records(records, kill_at=0), batch_size=None, num_workers=2)
    loaded = []
    chain = []
    try:
        for mb in loader:
            loaded.append(torch.tensor([mb], device=device))  # the GPU plays no part in this
    except Exception as err:
        # Which check notices the death first depends on timing, so keep the chain of causes.
        cause = err
        while cause is not None:
            chain.append(f"{type(cause).__name__}: {cause}".splitlines()[0].strip())
            cause = cause.__cause__ or cause.__context__
    grows = min(growth) > 2 if copy_on_read_measurable() else NOT_MEASURED
    return {
        "error": chain[0] if chain else "no error",
        "error_chain": chain,
        "worker_death_reported": any("DataLoader worker" in line for line in chain),
        "items_before_error": len(loaded),
        "worker_growth_mb": growth,
        "memory_grows_per_worker": grows,
        "memory_by_worker_count": chart,
    }


def fix(device: str) -> dict:
    # The same records in one NumPy array: reading it writes nothing, so no page gets copied.
    records = np.arange(N_RECORDS, dtype=np.float64)
    chart, items = memory_by_worker_count(records, "NumPy array")
    loaded = [torch.tensor([mb], device=device) for mb in items]  # the two-worker run's items
    growth = [float(t) for t in loaded]
    grows = max(growth) > 2 if copy_on_read_measurable() else NOT_MEASURED
    return {
        "items_loaded": len(loaded),
        "worker_growth_mb": [round(mb, 1) for mb in growth],
        "memory_grows_per_worker": grows,
        "memory_by_worker_count": chart,
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
