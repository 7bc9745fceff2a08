"""DataLoader workers hold copies of the dataset: later changes in the main process never arrive."""

import torch
from torch.utils.data import DataLoader, Dataset

EPOCHS = 3


class Curriculum(Dataset):
    """Returns the difficulty it currently sees; remembers what it loaded in a cache."""

    def __init__(self, shared=False):
        if shared:  # one int64 in shared memory: every process maps the same bytes
            self.difficulty = torch.zeros((), dtype=torch.int64).share_memory_()
        else:
            self.difficulty = 0  # a plain attribute: each worker gets its own copy
        self.cache = {}

    def __len__(self):
        return 4

    def __getitem__(self, index):
        self.cache[index] = "decoded sample"  # stored in the worker's copy, not in yours
        return int(self.difficulty)


def problem(device: str) -> dict:
    # Workers load on the host, whatever device the model is on.
    dataset = Curriculum()
    loader = DataLoader(
        dataset, batch_size=None, num_workers=2, persistent_workers=True, timeout=30
    )
    seen = []
    for epoch in range(EPOCHS):
        dataset.difficulty = epoch  # BUG: the workers were started with a copy at epoch 0
        seen.append(list(loader))
    del loader  # shuts the persistent workers down
    return {
        "seen_per_epoch": seen,
        "cache_entries_in_main_process": len(dataset.cache),
    }


def fix(device: str) -> dict:
    # 1) Workers that start afresh every epoch copy the dataset as it is when iter() runs.
    dataset = Curriculum()
    loader = DataLoader(dataset, batch_size=None, num_workers=2, timeout=30)
    fresh = []
    for epoch in range(EPOCHS):
        dataset.difficulty = epoch  # set BEFORE the loop creates the workers
        fresh.append(list(loader))

    # 2) Persistent workers: keep the changing state in shared memory and update it in place.
    dataset = Curriculum(shared=True)
    loader = DataLoader(
        dataset, batch_size=None, num_workers=2, persistent_workers=True, timeout=30
    )
    shared = []
    for epoch in range(EPOCHS):
        dataset.difficulty.fill_(epoch)  # in place: the workers read the same memory
        shared.append(list(loader))
    del loader

    # The cache works only where __getitem__ runs in this process.
    dataset = Curriculum()
    list(DataLoader(dataset, batch_size=None, num_workers=0))
    return {
        "seen_per_epoch": shared,  # the problem's persistent workers, with shared memory
        "cache_entries_in_main_process": len(dataset.cache),  # with num_workers=0
        "seen_per_epoch_fresh_workers": fresh,
        "seen_per_epoch_shared_memory": shared,
        "cache_entries_with_num_workers_0": len(dataset.cache),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
