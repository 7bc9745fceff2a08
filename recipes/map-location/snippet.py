"""A GPU checkpoint loads back onto that GPU, or fails without one: pass `map_location`."""

import io

import torch
import torch.serialization
from torch import nn


def save_from_gpu_machine(obj) -> io.BytesIO:
    """Save `obj` as the training machine did: every storage recorded as living on cuda:0.

    Runs without a GPU by having torch.save's (private) `location_tag` report "cuda:0",
    which is exactly what it writes for a tensor that really is on the first GPU.
    """
    real_location_tag = torch.serialization.location_tag
    torch.serialization.location_tag = lambda storage: "cuda:0"
    try:
        buf = io.BytesIO()
        torch.save(obj, buf)
    finally:
        torch.serialization.location_tag = real_location_tag
    buf.seek(0)
    return buf


def problem(device: str) -> dict:
    torch.manual_seed(0)
    trained = nn.Linear(4, 2)
    ckpt = save_from_gpu_machine(trained.state_dict())

    model = nn.Linear(4, 2).to(device)  # the laptop, the CI runner, the CPU inference server
    try:
        state = torch.load(ckpt)  # no map_location: storages go back where they came from
        model.load_state_dict(state)
        load_error, loaded_on = "no error", str(state["weight"].device)
    except RuntimeError as err:
        load_error, loaded_on = f"{type(err).__name__}: {err}"[:2000], None
    return {"load_error": load_error, "default_load_device": loaded_on}


def fix(device: str) -> dict:
    torch.manual_seed(0)
    trained = nn.Linear(4, 2)
    ckpt = save_from_gpu_machine(trained.state_dict())

    model = nn.Linear(4, 2).to(device)
    try:
        state = torch.load(ckpt, map_location=device)  # put every storage where *this* run wants it
        model.load_state_dict(state)
        load_error = "no error"
    except RuntimeError as err:
        return {"load_error": f"{type(err).__name__}: {err}"[:2000]}

    # Other forms: a plain "cpu" (then model.to(device)), or a dict from saved to wanted device.
    ckpt.seek(0)
    on_cpu = torch.load(ckpt, map_location="cpu")
    ckpt.seek(0)
    remapped = torch.load(ckpt, map_location={"cuda:0": "cpu"})
    return {
        "load_error": load_error,
        "state_on_requested_device": state["weight"].device.type == torch.device(device).type,
        "weights_match": bool(torch.equal(model.weight.cpu(), trained.weight)),
        "map_location_cpu_device": str(on_cpu["weight"].device),
        "dict_map_location_device": str(remapped["weight"].device),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
