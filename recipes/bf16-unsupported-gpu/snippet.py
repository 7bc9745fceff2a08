"""torch.cuda.is_bf16_supported() says True even where bfloat16 is only emulated (pre-Ampere)."""

import inspect

import torch


def run(check) -> str:
    try:
        check()
        return "no error"
    except (RuntimeError, AssertionError) as err:
        return f"{type(err).__name__}: {err}"[:2000]


def native_bf16(device: str) -> bool:
    """bfloat16 in hardware: CUDA compute capability 8.0 (Ampere) or newer; CPU always runs it."""
    dev = torch.device(device)
    if dev.type == "cuda":
        return torch.cuda.get_device_capability(dev) >= (8, 0)
    return dev.type == "cpu"  # correct on every CPU; fast where it has AVX512-BF16 or AMX


def bf16_autocast_step(device: str, dtype: torch.dtype) -> str:
    torch.manual_seed(0)
    model = torch.nn.Linear(16, 16).to(device)
    x = torch.randn(4, 16, device=device)

    def step():
        with torch.autocast(torch.device(device).type, dtype=dtype):
            model(x).float().sum().backward()

    return run(step)


def counts_emulation() -> bool:
    """Does is_bf16_supported() count emulated bfloat16 by default? (True since 2.3/2.4)"""
    param = inspect.signature(torch.cuda.is_bf16_supported).parameters.get("including_emulation")
    return param is not None and param.default is True


def problem(device: str) -> dict:
    # The check copied from training scripts: "bf16 if the GPU supports it".
    naive = {}
    detect_error = run(lambda: naive.setdefault("bf16", torch.cuda.is_bf16_supported()))
    dtype = None
    if "bf16" in naive:
        dtype = torch.bfloat16 if naive["bf16"] else torch.float16
    return {
        "detect_error": detect_error,  # before 2.6 it raises where there is no CUDA at all
        # It answers for CUDA whatever the device, and counts emulation as support.
        "chosen_dtype": str(dtype),
        "default_includes_emulation": counts_emulation(),
    }


def fix(device: str) -> dict:
    # Ask for hardware support, and only of CUDA when CUDA is what you use.
    dev = torch.device(device)
    found = {}
    detect_error = run(lambda: found.setdefault("native", native_bf16(device)))
    native = found.get("native", False)
    dtype = torch.bfloat16 if native else torch.float16  # float16 needs a GradScaler
    result = {
        "detect_error": detect_error,
        "chosen_dtype": str(dtype),
        "autocast_step": bf16_autocast_step(device, dtype),
        "default_includes_emulation": counts_emulation(),
    }
    if dev.type == "cuda":
        # The same answer from torch, without emulation.
        result["matches_torch_without_emulation"] = native == torch.cuda.is_bf16_supported(
            including_emulation=False
        )
    return result


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
