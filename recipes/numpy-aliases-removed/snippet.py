"""np.float, np.int, np.object ... are gone since NumPy 1.24; np.bool, np.long are back in 2.0."""

import numpy as np
import torch


def attempt(fn):
    """Run fn; return its result, or the AttributeError it raised as a string."""
    try:
        return fn()
    except AttributeError as err:
        return f"{type(err).__name__}: {err}"[:2000]


def problem(device: str) -> dict:
    targets = torch.tensor([2, 0, 1], device=device)
    step, total = 30, 100

    # Code from before NumPy 1.24, as many 2018-2022 repositories and field notes wrote it.
    return {
        "np_float": attempt(lambda: np.float(step) / total),
        "np_int": attempt(lambda: targets.cpu().numpy().astype(np.int)),
        "np_object": attempt(lambda: np.array([None, "a"], dtype=np.object)),
        "np_str": attempt(lambda: np.str(step)),
        "np_complex": attempt(lambda: np.complex(1, 2)),
        "np_unicode": attempt(lambda: np.unicode(step)),
    }


def fix(device: str) -> dict:
    targets = torch.tensor([2, 0, 1], device=device)
    step, total = 30, 100

    ratio = float(step) / total  # np.float was only ever the builtin float
    labels = targets.cpu().numpy().astype(np.int64)  # say the width you mean
    mask = np.array([1, 0, 2]).astype(np.bool_)  # np.bool_ works on every NumPy version

    # NumPy 2 defines np.bool and np.long again, as NumPy types (not Python's bool and int).
    np_bool = getattr(np, "bool", None)
    np_long = getattr(np, "long", None)
    return {
        # The problem's lines with the replacements: builtins, or NumPy types with a width.
        "np_float": attempt(lambda: float(step) / total),
        "np_int": attempt(lambda: targets.cpu().numpy().astype(np.int64).tolist()),
        "np_object": attempt(lambda: str(np.array([None, "a"], dtype=object).dtype)),
        "np_str": attempt(lambda: str(step)),
        "np_complex": attempt(lambda: str(complex(1, 2))),
        "ratio": ratio,
        "labels_tensor_dtype": str(torch.from_numpy(labels).dtype),
        "mask_tensor_dtype": str(torch.from_numpy(mask).dtype),
        "np_bool_is_bool_": np_bool is np.bool_,
        "np_bool_is_builtin_bool": np_bool is bool,
        "np_long_is_builtin_int": np_long is int,
        "np_long_kind": np.dtype(np_long).kind if np_long is not None else "missing",
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
