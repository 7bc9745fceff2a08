"""A GPU the wheel has no kernels for: torch warns when CUDA starts, then kernels fail."""

import contextlib
import sys
import warnings
from unittest import mock

import torch

# GPU architectures two published wheels carry kernels for, as their
# torch._C._cuda_getArchFlags() reports them.
CU124_WHEEL = ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]  # torch 2.6.0+cu124
CU128_WHEEL = ["sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]  # 2.9.1+cu128


def checks_at_cuda_start(arch_list, cuda_version, gpu_name, capability) -> list:
    """Run the checks torch itself runs when CUDA starts in a process (in torch.cuda._lazy_init),
    for one GPU of `capability` and a wheel built for `arch_list`; return what they warned."""
    patches = [
        mock.patch.object(torch.version, "cuda", cuda_version),
        mock.patch.object(torch.cuda, "get_arch_list", lambda: list(arch_list)),
        mock.patch.object(torch.cuda, "device_count", lambda: 1),
        mock.patch.object(torch.cuda, "get_device_capability", lambda device=None: capability),
        mock.patch.object(torch.cuda, "get_device_name", lambda device=None: gpu_name),
    ]
    with contextlib.ExitStack() as stack:
        for patch in patches:
            stack.enter_context(patch)
        caught = stack.enter_context(warnings.catch_warnings(record=True))
        warnings.simplefilter("always")
        torch.cuda._check_capability()
        torch.cuda._check_cubins()
    return [str(w.message).strip() for w in caught]


def this_machine(device: str) -> dict:
    """On a CUDA device: torch's own verdict for the real GPU, and the CUDA runtime's text."""
    if not device.startswith("cuda"):
        return {}
    index = torch.device(device).index or 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.cuda._check_capability()
        torch.cuda._check_cubins()
    cudart = torch._C._cudart
    major, minor = torch.cuda.get_device_capability(index)
    return {
        "this_gpu": f"{torch.cuda.get_device_name(index)} sm_{major}{minor}",
        "this_gpu_warned": len(caught) > 0,
        "cuda_error_209": cudart.cudaGetErrorString(cudart.cudaError(209)),
    }


def same_major_warned() -> bool:
    # An sm_86 card on a wheel built only for sm_80: cubins run on any later minor of the
    # same major, so torch does not warn.
    return len(checks_at_cuda_start(["sm_80"], "12.4", "NVIDIA GeForce RTX 3090", (8, 6))) > 0


def problem(device: str) -> dict:
    # An RTX 5090 (compute capability 12.0) with a wheel built before that architecture.
    found = checks_at_cuda_start(CU124_WHEEL, "12.4", "NVIDIA GeForce RTX 5090", (12, 0))
    return {
        "warned": len(found) > 0,
        "warnings_at_cuda_start": "\n---\n".join(found),
        "same_major_warned": same_major_warned(),
        **this_machine(device),
    }


def fix(device: str) -> dict:
    # The same card with a wheel whose kernels include sm_120 (pip's cu128 index or newer).
    found = checks_at_cuda_start(CU128_WHEEL, "12.8", "NVIDIA GeForce RTX 5090", (12, 0))
    return {
        "warned": len(found) > 0,
        "warnings_at_cuda_start": "\n---\n".join(found),
        "same_major_warned": same_major_warned(),
        **this_machine(device),
    }


if __name__ == "__main__":
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
