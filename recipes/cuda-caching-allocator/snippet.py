"""`del` frees a tensor into PyTorch's cache, not back to the driver: nvidia-smi still shows it."""

import torch

MIB = 2**20
SIZE_MIB = 256


def mib(n_bytes: int) -> float:
    return round(n_bytes / MIB, 1)


def problem(device: str) -> dict:
    if torch.device(device).type != "cuda":
        return {"skipped": "the caching allocator is CUDA's"}
    torch.cuda.empty_cache()
    reserved_before = torch.cuda.memory_reserved(device)

    x = torch.empty(SIZE_MIB * MIB // 4, device=device)  # 256 MiB of float32
    allocated_with_x = torch.cuda.memory_allocated(device)
    del x  # the tensor is gone...

    return {
        "allocated_freed_mib": mib(allocated_with_x - torch.cuda.memory_allocated(device)),
        # ...but its block stays reserved by the cache, and that is what nvidia-smi counts.
        "still_reserved_mib": mib(torch.cuda.memory_reserved(device) - reserved_before),
    }


def fix(device: str) -> dict:
    if torch.device(device).type != "cuda":
        return {"skipped": "the caching allocator is CUDA's"}
    torch.cuda.empty_cache()
    reserved_before = torch.cuda.memory_reserved(device)

    # 1) The cache is the point: a new tensor of the same size reuses the freed block.
    x = torch.empty(SIZE_MIB * MIB // 4, device=device)
    del x
    reserved_after_del = torch.cuda.memory_reserved(device)
    y = torch.empty(SIZE_MIB * MIB // 4, device=device)
    reuse_growth = torch.cuda.memory_reserved(device) - reserved_after_del
    del y

    # 2) empty_cache() hands unused cached blocks back to the driver...
    torch.cuda.empty_cache()
    returned = reserved_after_del - torch.cuda.memory_reserved(device)

    # 3) ...but never memory a live tensor still uses, e.g. one kept in a list.
    history = [torch.empty(SIZE_MIB * MIB // 4, device=device)]
    torch.cuda.empty_cache()
    kept = torch.cuda.memory_reserved(device) - reserved_before
    history.clear()
    torch.cuda.empty_cache()

    return {
        "reserved_growth_on_reuse_mib": mib(reuse_growth),
        "returned_by_empty_cache_mib": mib(returned),
        "kept_for_live_tensor_mib": mib(kept),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else ("cuda" if torch.cuda.is_available() else "cpu")
    print("problem:", problem(device))
    print("fix:", fix(device))
