"""`.numpy()` refuses tensors that require grad (and tensors off the CPU); detach, then move."""

import numpy as np
import torch
from torch import nn


def _error(call) -> str:
    try:
        call()
        return "no error"
    except (RuntimeError, TypeError) as err:
        return f"{type(err).__name__}: {err}"[:2000]


def problem(device: str) -> dict:
    torch.manual_seed(0)
    model = nn.Linear(3, 2).to(device)
    x = torch.randn(4, 3, device=device)
    pred = model(x)  # a model output: part of the graph, requires_grad=True

    return {
        # Hand the predictions to NumPy, to plot them or compute a metric.
        "numpy_error": _error(lambda: pred.numpy()),
        # np.asarray (what matplotlib and scikit-learn call) goes through the same check.
        "asarray_error": _error(lambda: np.asarray(pred)),
        # Half a fix: detach() is enough on the CPU, not on a GPU.
        "detach_numpy_error": _error(lambda: pred.detach().numpy()),
    }


def fix(device: str) -> dict:
    torch.manual_seed(0)
    model = nn.Linear(3, 2).to(device)
    x = torch.randn(4, 3, device=device)
    pred = model(x)

    arr = pred.detach().cpu().numpy()  # leave the graph, then copy to host memory
    forced = pred.numpy(force=True)  # the same in one call (PyTorch 1.13+)

    # Evaluation code needs no graph at all: under no_grad the output does not require grad.
    with torch.no_grad():
        eval_pred = model(x)

    # The cost on the CPU: detach().cpu().numpy() copies nothing, so the array IS the tensor.
    weights = model.weight.detach().cpu().numpy()
    weights *= 0.0  # meant as a scratch edit of a copy

    return {
        # The problem's two calls, after leaving the graph and the device: no error.
        "numpy_error": _error(lambda: pred.detach().cpu().numpy()),
        "asarray_error": _error(lambda: np.asarray(pred.detach().cpu())),
        "matches_tensor": bool(np.allclose(arr, pred.tolist())),
        "force_matches": bool(np.array_equal(arr, forced)),
        "no_grad_output_requires_grad": eval_pred.requires_grad,
        "edit_reaches_model": bool((model.weight == 0).all()),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
