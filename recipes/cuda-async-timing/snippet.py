"""Timing GPU work with time.perf_counter() measures the launch; synchronize or use CUDA events."""

import time

import torch

REPEATS = 20


def make_inputs(device: str):
    torch.manual_seed(0)
    n = 4096 if torch.device(device).type == "cuda" else 256  # keep a CPU run short
    a = torch.randn(n, n, device=device)
    b = torch.randn(n, n, device=device)
    return a, b


def wait_for_gpu(device: str) -> None:
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize(device)


def warm_up(a, b, device: str) -> None:
    # The first matmul also loads cuBLAS and its kernels: never time it.
    for _ in range(3):
        a @ b
    wait_for_gpu(device)


def problem(device: str) -> dict:
    a, b = make_inputs(device)
    warm_up(a, b, device)

    start = time.perf_counter()
    for _ in range(REPEATS):
        c = a @ b  # queued on the GPU; Python moves on at once
    launch_s = time.perf_counter() - start  # what the loop "took"

    start = time.perf_counter()
    c.sum().item()  # .item() waits for every queued matmul, then copies one number
    item_s = time.perf_counter() - start

    return {
        "loop_ms": round(launch_s * 1e3, 3),
        "item_ms": round(item_s * 1e3, 3),
        "item_share": round(item_s / (launch_s + item_s), 3),
    }


def fix(device: str) -> dict:
    a, b = make_inputs(device)
    warm_up(a, b, device)

    # 1) Synchronize before reading the clock, at the start and at the end.
    wait_for_gpu(device)
    start = time.perf_counter()
    for _ in range(REPEATS):
        c = a @ b
    wait_for_gpu(device)
    synced_s = time.perf_counter() - start

    start = time.perf_counter()
    c.sum().item()  # nothing left to wait for
    item_s = time.perf_counter() - start

    result = {
        "synced_ms": round(synced_s * 1e3, 3),
        "item_ms": round(item_s * 1e3, 3),
        "item_share": round(item_s / (synced_s + item_s), 3),
    }
    if torch.device(device).type == "cuda":
        # 2) CUDA events: timestamps recorded on the GPU's own stream (the current stream of
        # `device`, also when it is not the default GPU).
        with torch.cuda.device(device):
            begin = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            begin.record()
            for _ in range(REPEATS):
                c = a @ b
            end.record()
            end.synchronize()
            events_ms = begin.elapsed_time(end)
        result["events_ms"] = round(events_ms, 3)
        result["events_over_synced"] = round(events_ms / (synced_s * 1e3), 3)
    return result


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else ("cuda" if torch.cuda.is_available() else "cpu")
    print("problem:", problem(device))
    print("fix:", fix(device))
