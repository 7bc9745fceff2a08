"""Namespaces, config objects and NumPy values in a checkpoint: refused by weights_only=True."""

import argparse
import dataclasses
import importlib
import io

import numpy as np
import torch
from torch import nn


@dataclasses.dataclass
class TrainConfig:
    lr: float = 0.1
    epochs: int = 3


def save(obj) -> io.BytesIO:
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return buf


def load(buf: io.BytesIO, allow=None) -> str:
    """torch.load with the default weights_only (True since 2.6), optionally allow-listing."""
    buf.seek(0)
    try:
        if allow is None:
            torch.load(buf)
        else:
            with torch.serialization.safe_globals(allow):
                torch.load(buf)
        return "no error"
    except Exception as err:  # _pickle.UnpicklingError
        return f"{type(err).__name__}: {err}"[:2000]


def train_state(device: str):
    torch.manual_seed(0)
    model = nn.Linear(4, 2).to(device)
    args = argparse.Namespace(lr=0.1, epochs=3)  # from parser.parse_args()
    config = TrainConfig()
    best_acc = np.mean(np.array([0.875, 0.9375]))  # np.float64, not float
    history = np.array([1.25, 0.75, 0.5])  # losses kept in a NumPy array
    return model, args, config, best_acc, history


def resolve(dotted: str):
    """The object behind a dotted name such as "numpy.dtype"."""
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def problem(device: str) -> dict:
    model, args, config, best_acc, history = train_state(device)
    weights = model.state_dict()
    numpy_ckpt = save({"model": weights, "best_acc": best_acc, "history": history})
    # The reflex: allow-list exactly what the message names, then everything a scan reports.
    named = np.float64(0).__reduce__()[0]  # the function NumPy pickles scalars with
    scanned = torch.serialization.get_unsafe_globals_in_checkpoint(numpy_ckpt)
    scanned_objects = [resolve(name) for name in scanned]
    return {
        "namespace": load(save({"model": weights, "args": args})),
        "config_object": load(save({"model": weights, "config": config})),
        "numpy_scalar": load(save({"model": weights, "best_acc": best_acc})),
        "numpy_array": load(save({"model": weights, "history": history})),
        "allow_list_numpy": load(save({"best_acc": best_acc}), allow=[named]),
        "allow_list_scanned": load(numpy_ckpt, allow=scanned_objects),
        "scanned_globals": sorted(scanned),
    }


def fix(device: str) -> dict:
    model, args, config, best_acc, history = train_state(device)
    weights = model.state_dict()
    # Plain Python types only: the weights-only unpickler accepts them without a list.
    plain = save(
        {
            "model": weights,
            "args": vars(args),
            "config": dataclasses.asdict(config),
            "best_acc": best_acc.item(),
            "history": history.tolist(),
        }
    )
    # For an old file you trust: allow-list NumPy's pieces, taken from NumPy itself.
    numpy_ckpt = save({"model": weights, "best_acc": best_acc, "history": history})
    numpy_globals = [
        np.float64(0).__reduce__()[0],  # scalar reconstructor: numpy._core... or numpy.core...
        np.zeros(1).__reduce__()[0],  # array reconstructor
        np.ndarray,
        np.dtype,
        type(np.dtype(np.float64)),  # the dtype's class, which no scan lists
    ]
    restored = torch.load(save({"args": vars(args)}))["args"]
    return {
        "namespace": load(plain),
        "config_object": load(plain),
        "numpy_scalar": load(plain),
        "numpy_array": load(plain),
        "allow_list_numpy": load(numpy_ckpt, allow=numpy_globals),
        "allow_list_scanned": load(numpy_ckpt, allow=numpy_globals),
        "namespace_round_trip": argparse.Namespace(**restored) == args,
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
