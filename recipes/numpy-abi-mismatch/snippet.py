"""A module compiled for NumPy 1.x cannot load under NumPy 2: the C-API lookup it makes fails."""

import contextlib
import importlib
import io
import sys

import numpy as np
import torch


def import_array(module_name: str) -> dict:
    """What a compiled extension's `import_array()` does when it loads: fetch NumPy's C-API table.

    Headers from NumPy 1.x look it up in `numpy.core._multiarray_umath`; headers from NumPy 2
    look in `numpy._core._multiarray_umath` first. Under NumPy 2 the old path is a shim that
    refuses, prints its explanation on stderr and raises ImportError.
    """
    printed = io.StringIO()
    with contextlib.redirect_stderr(printed):
        try:
            module = importlib.import_module(module_name)
            c_api = module._ARRAY_API
            error = "no error"
        except Exception as err:
            c_api = None
            error = f"{type(err).__name__}: {err}"[:2000]
    return {
        "c_api_lookup": error,
        "c_api_type": type(c_api).__name__,
        "printed_on_stderr": printed.getvalue().strip().splitlines()[:2],
    }


def torch_converts_arrays() -> str:
    """Does this torch, built for some NumPy, exchange arrays with the NumPy installed?"""
    try:
        torch.from_numpy(np.arange(3.0)).sum().item()
        return "no error"
    except Exception as err:  # torch <= 2.2 under NumPy 2: "Numpy is not available"
        return f"{type(err).__name__}: {err}"[:2000]


def problem(device: str) -> dict:
    # `device` is not used: the failure happens when a module loads, before any tensor exists.
    result = import_array("numpy.core._multiarray_umath")  # how a NumPy 1.x build looks
    result["numpy_version"] = np.__version__
    result["torch_from_numpy"] = torch_converts_arrays()
    return result


def fix(device: str) -> dict:
    # A module built against NumPy 2.0 or newer (torch >= 2.3, current wheels of the rest)
    # finds the table where NumPy 2 keeps it. Built with NumPy 2, it also runs on NumPy 1.x.
    result = import_array("numpy._core._multiarray_umath")
    result["numpy_version"] = np.__version__
    result["torch_from_numpy"] = torch_converts_arrays()
    return result


if __name__ == "__main__":
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
