"""An `IterableDataset` with several workers yields every sample once per worker."""

import itertools
import warnings
from collections import Counter

import torch
from torch.utils.data import DataLoader, IterableDataset, get_worker_info

RECORDS = list(range(6))  # stands in for the lines of a file, the rows of a table, a stream


class Stream(IterableDataset):
    def __init__(self, records):
        self.records = records

    def __len__(self):  # for a progress bar
        return len(self.records)

    def __iter__(self):
        info = get_worker_info()
        worker = info.id if info is not None else -1
        for record in self.records:  # BUG: every worker runs this whole loop
            yield worker, record


class ShardedStream(IterableDataset):
    def __init__(self, records):
        self.records = records

    def __len__(self):  # the total over all workers
        return len(self.records)

    def __iter__(self):
        info = get_worker_info()
        worker = info.id if info is not None else 0
        num_workers = info.num_workers if info is not None else 1
        # Worker k takes records k, k + num_workers, k + 2 * num_workers, ...
        for record in itertools.islice(self.records, worker, None, num_workers):
            yield worker, record


def load(dataset) -> dict:
    loader = DataLoader(dataset, batch_size=None, num_workers=2, timeout=30)
    expected = len(loader)  # what tqdm(loader) would show
    pairs = list(loader)
    seen = Counter(record for _, record in pairs)

    # The same stream with ordinary batching: 2 records per batch.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        batched = DataLoader(dataset, batch_size=2, num_workers=2, timeout=30)
        len(batched)
        records = [int(r) for _, batch in batched for r in batch]
    length_warnings = [w for w in caught if "Length of IterableDataset" in str(w.message)]
    return {
        "batched_samples_per_epoch": len(records),
        "batched_length_warnings": len(length_warnings),
        "len_loader": expected,
        "samples_per_epoch": len(pairs),
        "samples_sorted": sorted(seen.elements()),
        "max_times_a_sample_is_seen": max(seen.values()),
        "workers_used": sorted({int(worker) for worker, _ in pairs}),
    }


def problem(device: str) -> dict:
    # The data stays on the CPU: workers load it, whatever device the model is on.
    torch.manual_seed(0)
    return load(Stream(RECORDS))


def fix(device: str) -> dict:
    torch.manual_seed(0)
    return load(ShardedStream(RECORDS))


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
