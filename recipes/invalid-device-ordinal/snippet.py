"""More processes per node than visible GPUs: the extra rank asks CUDA for a GPU it cannot see."""

import os
import sys

import torch


def device_for(local_rank: int) -> torch.device:
    """The GPU of this rank, checked against what this process can see, with a clear message."""
    visible = torch.cuda.device_count()  # after CUDA_VISIBLE_DEVICES: numbered 0 .. visible-1
    if local_rank >= visible:
        raise RuntimeError(
            f"LOCAL_RANK={local_rank}, but this process sees {visible} GPU(s) "
            f"(CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES', '<unset>')}): "
            f"start at most {visible} processes per node (torchrun --nproc-per-node=gpu)"
        )
    torch.cuda.set_device(local_rank)
    return torch.device("cuda", local_rank)


def problem(device: str) -> dict:
    visible = torch.cuda.device_count()  # 0 on a machine without CUDA
    # torchrun --nproc-per-node=<visible + 1>: the last process gets LOCAL_RANK = visible.
    local_rank = visible
    try:
        torch.cuda.set_device(local_rank)  # what the training script does with LOCAL_RANK
        torch.zeros(1, device=f"cuda:{local_rank}")
        error = "no error"
    except (RuntimeError, AttributeError) as err:  # AcceleratorError subclasses RuntimeError;
        error = f"{type(err).__name__}: {err}"[:2000]  # a CPU-only build has no CUDA calls
    return {"visible_gpus": visible, "local_rank": local_rank, "error": error}


def fix(device: str) -> dict:
    visible = torch.cuda.device_count()
    # torchrun --nproc-per-node=gpu starts one process per visible GPU: local ranks 0 .. visible-1.
    try:
        for local_rank in range(visible):
            torch.zeros(1, device=device_for(local_rank))
        error = "no error"
    except RuntimeError as err:
        error = f"{type(err).__name__}: {err}"[:2000]
    try:  # and the check turns an extra process into a message that says what to change
        device_for(visible)
        check = "no error"
    except RuntimeError as err:
        check = f"{type(err).__name__}: {err}"[:2000]
    return {"visible_gpus": visible, "error": error, "check": check}


if __name__ == "__main__":
    device = sys.argv[1] if len(sys.argv) > 1 else "cuda"
    print("problem:", problem(device))
    print("fix:", fix(device))
