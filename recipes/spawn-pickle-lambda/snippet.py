"""Under spawn or forkserver, DataLoader workers need picklable functions: no lambdas."""

import functools
import gc
import pickle
from multiprocessing import resource_tracker
from multiprocessing.reduction import ForkingPickler

import torch
from torch.utils.data import DataLoader

DATA = list(range(4))


def pickled(obj) -> str:
    """Pickle `obj` the way multiprocessing sends it to a spawned worker."""
    try:
        ForkingPickler.dumps(obj)
        return "ok"
    except (AttributeError, TypeError, pickle.PicklingError) as err:
        return f"{type(err).__name__}: {err}"[:2000]


def first_of_batch(batch):
    """A collate_fn defined with `def` at module level: workers import it by name."""
    return batch[0]


def scale(batch, factor):
    return [factor * x for x in batch]


# A lambda fails even at module level: it is pickled by its name, and that name is "<lambda>".
MODULE_LAMBDA = lambda batch: batch[0]  # noqa: E731


def stop_resource_tracker():
    # The only process a failed spawn start leaves: multiprocessing's resource tracker,
    # which would otherwise live until this process exits.
    gc.collect()  # free the half-built iterator's queues and semaphores first
    stop = getattr(resource_tracker._resource_tracker, "_stop", None)
    if stop is not None:
        stop()


def problem(device: str) -> dict:
    # The data is loaded on the host; the device plays no part.
    torch.manual_seed(0)
    # Works where workers are forked (Linux up to Python 3.13): nothing is pickled.
    forked = DataLoader(
        DATA,
        batch_size=2,
        num_workers=1,
        collate_fn=lambda batch: batch[0],
        multiprocessing_context="fork",
        timeout=30,
    )
    fork_batches = list(forked)

    # The same loader where workers are spawned (Windows, macOS) or forkserver (Linux 3.14+).
    spawned = DataLoader(
        DATA,
        batch_size=2,
        num_workers=1,
        collate_fn=lambda batch: batch[0],  # BUG: spawn must pickle it, by name
        multiprocessing_context="spawn",
        timeout=30,
    )
    try:
        next(iter(spawned))
        spawn_error = "no error"
    except (AttributeError, TypeError, pickle.PicklingError) as err:
        spawn_error = f"{type(err).__name__}: {err}"[:2000]
    del spawned
    stop_resource_tracker()

    def local_collate(batch):  # a def inside a function is just as local
        return batch[0]

    return {
        "fork_batches": fork_batches,
        "spawn_error": spawn_error,
        "local_function": pickled(local_collate),
        "module_level_lambda": pickled(MODULE_LAMBDA),
    }


def fix(device: str) -> dict:
    torch.manual_seed(0)
    # The problem's spawned loader, with the module-level def: the worker imports it by name.
    spawned = DataLoader(
        DATA,
        batch_size=2,
        num_workers=1,
        collate_fn=first_of_batch,
        multiprocessing_context="spawn",
        timeout=60,
    )
    try:
        spawn_batches = list(spawned)
        spawn_error = "no error"
    except (AttributeError, TypeError, pickle.PicklingError) as err:
        spawn_batches, spawn_error = [], f"{type(err).__name__}: {err}"[:2000]
    del spawned
    stop_resource_tracker()
    return {
        "spawn_error": spawn_error,
        "spawn_batches": spawn_batches,
        "module_level_def": pickled(first_of_batch),
        "round_trip_is_same_function": pickle.loads(ForkingPickler.dumps(first_of_batch))
        is first_of_batch,
        # Arguments for a collate_fn: functools.partial of a module-level def pickles too.
        "partial_of_module_level_def": pickled(functools.partial(scale, factor=2)),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
