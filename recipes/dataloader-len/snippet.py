"""len(loader) counts batches (rounded up); zip() over two loaders silently stops at the
shorter one; iterator.next() is gone; itertools.cycle() replays one shuffled order forever."""

import itertools
import math

import torch
from torch.utils.data import DataLoader, TensorDataset

BATCH = 3
SOURCE = TensorDataset(torch.arange(10))  # 10 samples: 3 full batches and one of size 1
TARGET = TensorDataset(torch.arange(100, 106))  # 6 samples: 2 batches


def target_loader():
    # A seeded generator makes the shuffled order reproducible from run to run.
    return DataLoader(
        TARGET, batch_size=BATCH, shuffle=True, generator=torch.Generator().manual_seed(0)
    )


def one_pass(batches, n):
    """The sample ids of the next n batches, flattened."""
    return [int(i) for (ids,) in itertools.islice(batches, n) for i in ids]


def problem(device: str) -> dict:
    source_loader = DataLoader(SOURCE, batch_size=BATCH)
    last_batch = list(source_loader)[-1][0]

    # Two loaders of different lengths in one loop: zip() ends with the shorter one.
    seen = 0
    steps = 0
    for (x_src,), (x_tgt,) in zip(source_loader, target_loader()):
        x = torch.cat([x_src, x_tgt]).to(device)  # one training step on source + target
        seen += int((x < 100).sum())  # source ids are below 100
        steps += 1

    # The Python 2 spelling from old tutorials.
    it = iter(target_loader())
    try:
        it.next()
        next_error = "no error"
    except AttributeError as err:
        next_error = f"{type(err).__name__}: {err}".splitlines()[0]

    # itertools.cycle() stores the batches of its first pass and replays them.
    loader = target_loader()
    cycled = itertools.cycle(loader)
    first = one_pass(cycled, len(loader))
    second = one_pass(cycled, len(loader))
    return {
        "len_loader": len(source_loader),
        "n_over_batch_size": len(SOURCE) // BATCH,
        "last_batch_size": len(last_batch),
        "zip_steps": steps,
        "source_samples_seen": seen,
        "next_error": next_error,
        "cycle_first_pass": first,
        "cycle_second_pass": second,
        "second_pass_reshuffled": first != second,
    }


def fix(device: str) -> dict:
    source_loader = DataLoader(SOURCE, batch_size=BATCH)
    full_batches = DataLoader(SOURCE, batch_size=BATCH, drop_last=True)

    # Loop over the loader that defines the epoch; restart the other one when it runs out.
    loader = target_loader()
    target_iter = iter(loader)
    seen = 0
    restarts = 0
    for (x_src,) in source_loader:
        try:
            (x_tgt,) = next(target_iter)
        except StopIteration:
            target_iter = iter(loader)  # a fresh iterator: a new, reshuffled epoch
            (x_tgt,) = next(target_iter)
            restarts += 1
        x = torch.cat([x_src, x_tgt]).to(device)  # one training step on source + target
        seen += int((x < 100).sum())

    # The builtin next() works on any iterator.
    try:
        batch = next(iter(target_loader()))
        next_error = "no error"
    except AttributeError as err:
        next_error, batch = f"{type(err).__name__}: {err}".splitlines()[0], [[]]

    # Each `for` over the loader (each iter()) draws a new permutation.
    loader = target_loader()
    first = one_pass(iter(loader), len(loader))
    second = one_pass(iter(loader), len(loader))
    return {
        "len_loader": len(source_loader),
        "len_is_ceil": len(source_loader) == math.ceil(len(SOURCE) / BATCH),
        "len_drop_last": len(full_batches),
        "len_drop_last_is_floor": len(full_batches) == len(SOURCE) // BATCH,
        "samples_per_epoch_drop_last": sum(len(ids) for (ids,) in full_batches),
        "source_samples_seen": seen,
        "target_restarts": restarts,
        "next_error": next_error,
        "next_builtin_batch": len(batch[0]),
        "epoch_1_order": first,
        "epoch_2_order": second,
        "second_pass_reshuffled": first != second,
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
