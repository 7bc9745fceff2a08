"""Growing tensor sizes strand cached blocks ("reserved but unallocated"); expandable segments."""

import json
import os
import subprocess
import sys

import torch

MIB = 2**20
# Each step needs a slightly larger buffer, as when the sequence length keeps growing.
SIZES_MIB = list(range(20, 40, 2))

# The fix runs this in a fresh process that starts with the allocator setting.
MEASURE = """
import json, sys, torch
device, sizes = sys.argv[1], [int(s) for s in sys.argv[2:]]
torch.cuda.empty_cache()
base = torch.cuda.memory_reserved(device)
for mib in sizes:
    x = torch.empty(mib * 2**20, dtype=torch.uint8, device=device)  # one step's activations
    del x  # freed into the cache, not returned to the driver
reserved = torch.cuda.memory_reserved(device) - base
allocated = torch.cuda.memory_allocated(device)
print(json.dumps({"reserved_mib": reserved / 2**20, "allocated_mib": allocated / 2**20}))
"""


def summarize(m: dict) -> dict:
    return {
        "reserved_mib": round(m["reserved_mib"], 1),
        "reserved_unallocated_mib": round(m["reserved_mib"] - m["allocated_mib"], 1),
        # How much the cache holds relative to the largest single request.
        "reserved_over_largest": round(m["reserved_mib"] / max(SIZES_MIB), 2),
    }


def problem(device: str) -> dict:
    if torch.device(device).type != "cuda":
        return {"skipped": "the caching allocator and its settings are CUDA's"}
    weights = torch.zeros(MIB, device=device)  # CUDA is up and allocating (the model is on it)...
    before = os.environ.get("PYTORCH_CUDA_ALLOC_CONF")  # what the allocator really started with
    os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"  # ...so this is too late
    try:
        torch.cuda.empty_cache()
        base = torch.cuda.memory_reserved(device)
        for mib in SIZES_MIB:
            x = torch.empty(mib * MIB, dtype=torch.uint8, device=device)
            del x
        late = {
            "reserved_mib": (torch.cuda.memory_reserved(device) - base) / MIB,
            "allocated_mib": torch.cuda.memory_allocated(device) / MIB,
        }
    finally:
        if before is None:
            os.environ.pop("PYTORCH_CUDA_ALLOC_CONF")
        else:
            os.environ["PYTORCH_CUDA_ALLOC_CONF"] = before
        del weights
        torch.cuda.empty_cache()
    # What the OOM message suggests (a request no GPU can serve: nothing is allocated).
    too_big = 2 * torch.cuda.get_device_properties(device).total_memory
    try:
        torch.empty(too_big, dtype=torch.uint8, device=device)
        oom_message = "no error"
    except torch.cuda.OutOfMemoryError as err:
        oom_message = f"{type(err).__name__}: {err}"[:2000]
    return {**summarize(late), "oom_message": oom_message, "alloc_conf_at_start": str(before)}


def fix(device: str) -> dict:
    if torch.device(device).type != "cuda":
        return {"skipped": "the caching allocator and its settings are CUDA's"}
    # Set it before the process initialises CUDA: in the shell, or first thing in the script.
    env = {**os.environ, "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, device, *map(str, SIZES_MIB)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return summarize(json.loads(out.stdout))


if __name__ == "__main__":
    device = sys.argv[1] if len(sys.argv) > 1 else ("cuda" if torch.cuda.is_available() else "cpu")
    print("problem:", problem(device))
    print("fix:", fix(device))
