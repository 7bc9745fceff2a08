"""`torch.load` unpickles code; since 2.6 `weights_only=True` refuses models and custom classes."""

import argparse
import io

import torch
from torch import nn

PAYLOAD_RUNS = []  # stands in for whatever an attacker's code would do on your machine


def _payload(message: str) -> None:
    PAYLOAD_RUNS.append(message)


class Booby:
    """A pickle that calls a function when loaded; a real one would call os.system."""

    def __reduce__(self):
        return (_payload, ("arbitrary code ran inside torch.load",))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)


def to_bytes(obj) -> io.BytesIO:
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return buf


def load_error(buf: io.BytesIO, **kwargs) -> str:
    buf.seek(0)
    try:
        torch.load(buf, **kwargs)
        return "no error"
    except Exception as err:  # _pickle.UnpicklingError
        return f"{type(err).__name__}: {err}"[:2000]


def problem(device: str) -> dict:
    torch.manual_seed(0)
    model = Net().to(device)
    args = argparse.Namespace(lr=0.1, epochs=3)

    # The tutorial-era habits: pickle the whole model, and the argparse namespace with it.
    whole = to_bytes(model)
    ckpt = to_bytes({"model": model.state_dict(), "args": args})

    # The usual reaction to the error: weights_only=False. It loads, and runs any code in the file.
    whole.seek(0)
    loaded = torch.load(whole, weights_only=False)
    PAYLOAD_RUNS.clear()
    load_error(to_bytes({"model": model.state_dict(), "extra": Booby()}), weights_only=False)
    return {
        "whole_model_error": load_error(whole),  # the default since 2.6: weights_only=True
        "args_ckpt_error": load_error(ckpt),
        "weights_only_false_gives_a_net": type(loaded).__name__,
        "payload_ran": len(PAYLOAD_RUNS) > 0,
    }


def fix(device: str) -> dict:
    torch.manual_seed(0)
    model = Net().to(device)
    args = argparse.Namespace(lr=0.1, epochs=3)

    # Save tensors and plain Python types only: a state_dict, and vars(args) as a dict.
    ckpt = to_bytes({"model": model.state_dict(), "args": vars(args), "epoch": 3})
    state = torch.load(ckpt, weights_only=True)
    fresh = Net().to(device)
    fresh.load_state_dict(state["model"])

    # The booby-trapped file, loaded the safe way: refused before anything runs.
    PAYLOAD_RUNS.clear()
    trap = to_bytes({"model": model.state_dict(), "extra": Booby()})
    trap_error = load_error(trap, weights_only=True)

    # A class you trust, allow-listed for this one load.
    old = to_bytes({"model": model.state_dict(), "args": args})
    with torch.serialization.safe_globals([argparse.Namespace]):
        old_state = torch.load(old, weights_only=True)
    return {
        "state_dict_loaded": torch.equal(fresh.fc.weight, model.fc.weight),
        "args_restored": argparse.Namespace(**state["args"]) == args,
        "trap_error": trap_error,
        "payload_ran": len(PAYLOAD_RUNS) > 0,
        "allow_listed_args": type(old_state["args"]).__name__,
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
