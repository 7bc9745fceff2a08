"""Worker-only DataLoader options (prefetch_factor, persistent_workers, ...) with num_workers=0."""

import torch
from torch.utils.data import DataLoader

DATA = list(range(8))


def build(**kwargs) -> str:
    try:
        loader = DataLoader(DATA, batch_size=2, **kwargs)
        return f"no error: {len(list(loader))} batches"
    except (ValueError, AssertionError) as err:
        return f"{type(err).__name__}: {err}"[:2000]


def loader_options(num_workers: int) -> dict:
    """Worker-only options, added only when there are workers."""
    options = {"num_workers": num_workers}
    if num_workers > 0:
        options.update(
            prefetch_factor=4, persistent_workers=True, multiprocessing_context="spawn", timeout=60
        )
    return options


def problem(device: str) -> dict:
    # Data loading runs on the host; the device plays no part.
    torch.manual_seed(0)
    # A config tuned for training, run with num_workers=0 to debug, on Windows, or in CI.
    num_workers = 0
    return {
        "tuned_config": build(num_workers=num_workers, prefetch_factor=4, persistent_workers=True),
        # Removing prefetch_factor only uncovers the next one.
        "persistent_workers": build(num_workers=num_workers, persistent_workers=True),
        "multiprocessing_context": build(num_workers=num_workers, multiprocessing_context="spawn"),
        # 2, the value the docs give as the default, spelled out: refused since 2.0.
        "explicit_default_prefetch": build(num_workers=num_workers, prefetch_factor=2),
        # Accepted by the constructor, refused by an assert when the first batch is read.
        "timeout": build(num_workers=num_workers, timeout=60),
    }


def fix(device: str) -> dict:
    torch.manual_seed(0)
    num_workers = 0
    return {
        "tuned_config": build(**loader_options(num_workers)),
        "persistent_workers": build(**loader_options(num_workers)),
        "multiprocessing_context": build(**loader_options(num_workers)),
        # Or pass None, which since 2.0 means "no prefetching" with num_workers=0.
        "explicit_default_prefetch": build(num_workers=num_workers, prefetch_factor=None),
        "timeout": build(**loader_options(num_workers)),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
