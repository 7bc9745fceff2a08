"""torch.Tensor(3) is three uninitialised floats; torch.tensor(3) is the number 3."""

import contextlib

import torch


@contextlib.contextmanager
def nan_for_uninitialised_memory():
    # Uninitialised memory holds whatever was there before: often zeros, sometimes huge
    # numbers, different on every run. In deterministic mode (torch >= 2.1) torch fills it
    # with NaN instead, so the snippet can show it. The previous mode is restored afterwards.
    was_enabled = torch.are_deterministic_algorithms_enabled()
    warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(was_enabled, warn_only=warn_only)


def problem(device: str) -> dict:
    """The capital-T constructor and torch.empty, used as if they held values."""
    with nan_for_uninitialised_memory():
        label = 3
        target = torch.Tensor(label).to(device)  # meant: the class index 3
        ids = torch.Tensor([1, 2]).to(device)  # meant: two integer ids
        total = torch.empty(3, device=device)  # an accumulator that was never zeroed
        for _ in range(2):
            total += torch.ones(3, device=device)

    try:
        torch.Tensor(0.5)  # meant: the number 0.5
        float_error = "no error"
    except TypeError as err:
        float_error = f"{type(err).__name__}: {err}"[:2000]

    return {
        "target_shape": list(target.shape),
        "target_dtype": str(target.dtype),
        "target_is_uninitialised_nan": bool(target.isnan().all()),
        "ids_dtype": str(ids.dtype),
        "float_argument_error": float_error,
        "accumulator_has_nan": bool(total.isnan().any()),
    }


def fix(device: str) -> dict:
    """Lower-case torch.tensor for data; torch.zeros (or full, ones) for a start value."""
    with nan_for_uninitialised_memory():
        label = 3
        target = torch.tensor(label, device=device)  # a 0-d int64 tensor holding 3
        ids = torch.tensor([1, 2], device=device)  # int64, like the Python ints
        half = torch.tensor(0.5, device=device)  # a 0-d float32 tensor
        total = torch.zeros(3, device=device)  # a defined start value
        for _ in range(2):
            total += torch.ones(3, device=device)

    return {
        "target_shape": list(target.shape),
        "target_dtype": str(target.dtype),
        "ids_dtype": str(ids.dtype),
        "float_scalar_dtype": str(half.dtype),
        "accumulator_has_nan": bool(total.isnan().any()),
        "accumulator": total.tolist(),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
