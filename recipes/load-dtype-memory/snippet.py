"""A float32 model holds a bfloat16 checkpoint at twice its size: build it in bf16 or on meta."""

import io

import torch
from torch import nn

MIB = 2**20


def build() -> nn.Module:
    """A stand-in for a large model: 4 layers, about 1M parameters."""
    return nn.Sequential(*[nn.Linear(512, 512) for _ in range(4)])


def bf16_checkpoint() -> bytes:
    """What a hub download is: weights saved in bfloat16."""
    torch.manual_seed(0)
    buffer = io.BytesIO()
    torch.save(build().to(torch.bfloat16).state_dict(), buffer)
    return buffer.getvalue()


def live_bytes(*tensor_groups) -> int:
    """Bytes held by the distinct storages of these tensors (shared storage counted once)."""
    seen, total = set(), 0
    for group in tensor_groups:
        for t in group:
            storage = t.untyped_storage()
            if storage.data_ptr() not in seen:
                seen.add(storage.data_ptr())
                total += storage.nbytes()
    return total


def report(model, state_dict, checkpoint: bytes) -> dict:
    params = list(model.parameters())
    return {
        "param_dtype": str(params[0].dtype),
        "checkpoint_mib": round(len(checkpoint) / MIB, 2),
        "param_mib": round(live_bytes(params) / MIB, 2),
        # Parameters relative to the checkpoint's tensors: 2.0 means float32 copies of bf16 data.
        "param_bytes_over_checkpoint": round(
            live_bytes(params) / live_bytes(state_dict.values()), 2
        ),
        # At the end of loading both are alive: the model and the loaded state_dict.
        "peak_bytes_over_checkpoint": round(
            live_bytes(params, state_dict.values()) / live_bytes(state_dict.values()), 2
        ),
    }


def problem(device: str) -> dict:
    checkpoint = bf16_checkpoint()
    model = build().to(device)  # float32, the default dtype: 4 bytes per parameter
    state_dict = torch.load(io.BytesIO(checkpoint), map_location=device, weights_only=True)
    model.load_state_dict(state_dict)  # copies each bf16 tensor into the float32 parameter
    return report(model, state_dict, checkpoint)


def fix(device: str) -> dict:
    checkpoint = bf16_checkpoint()
    state_dict = torch.load(io.BytesIO(checkpoint), map_location=device, weights_only=True)
    with torch.device("meta"):
        model = build()  # no memory at all: shapes and dtypes only
    model.load_state_dict(state_dict, assign=True)  # the parameters become the loaded tensors
    result = report(model, state_dict, checkpoint)

    # Or build directly in bfloat16 (then load normally): set the default dtype around it.
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.bfloat16)
    try:
        bf16_model = build().to(device)
    finally:
        torch.set_default_dtype(previous)
    result["default_dtype_param_dtype"] = str(next(bf16_model.parameters()).dtype)
    return result


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
