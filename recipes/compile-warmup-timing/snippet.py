"""Timing the first call of a compiled function measures the compiler, not the model.

The snippet compiles with a counting backend that runs the captured graph as is (no inductor):
dynamo's tracing alone already makes the first call far slower than the next ones, and the
count shows how many compilations fell inside the timed region. Inductor adds seconds more.
"""

import statistics
import time

import torch
import torch._dynamo


def sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()  # GPU work is asynchronous: wait before reading the clock
    elif device.startswith("mps"):
        torch.mps.synchronize()


def block(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    for _ in range(4):
        x = torch.nn.functional.gelu(x @ w) + x
    return x.softmax(dim=-1)


def timed_ms(fn, inputs, w, device: str) -> float:
    """Median milliseconds per call, each call synchronised (the median ignores stray spikes)."""
    times = []
    for x in inputs:
        sync(device)
        start = time.perf_counter()
        fn(x, w)
        sync(device)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def compiled_block():
    graphs = []

    def counting_backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch._dynamo.reset()
    return torch.compile(block, backend=counting_backend), graphs


def problem(device: str) -> dict:
    torch.manual_seed(0)
    w = torch.randn(64, 64, device=device) / 8
    batches = [torch.randn(b, 64, device=device) for b in (32, 48, 64)]
    fn, graphs = compiled_block()
    # As often written: time the first call, then a call on a new batch size.
    first_ms = timed_ms(fn, batches[:1], w, device)
    new_shape_ms = timed_ms(fn, batches[1:2], w, device)
    compiles_timed = len(graphs)
    steady_ms = timed_ms(fn, batches * 20, w, device)  # for comparison: nothing left to compile
    torch._dynamo.reset()  # nothing compiled outlives this side
    return {
        "compiles_inside_timing": compiles_timed,
        "measured_ms": round(first_ms, 3),
        "measured_over_steady": round(first_ms / steady_ms, 1),
        "new_shape_over_steady": round(new_shape_ms / steady_ms, 1),
    }


def fix(device: str) -> dict:
    torch.manual_seed(0)
    w = torch.randn(64, 64, device=device) / 8
    batches = [torch.randn(b, 64, device=device) for b in (32, 48, 64)]
    fn, graphs = compiled_block()
    for x in batches:  # warm up on every shape the timed loop will see
        fn(x, w)
    compiles_warmup = len(graphs)
    measured_ms = timed_ms(fn, batches * 20, w, device)  # synchronised, many calls
    compiles_timed = len(graphs) - compiles_warmup
    steady_ms = timed_ms(fn, batches * 20, w, device)  # the same measurement, once more
    torch._dynamo.reset()
    return {
        "compiles_inside_timing": compiles_timed,
        "measured_ms": round(measured_ms, 3),
        "measured_over_steady": round(measured_ms / steady_ms, 1),
        "compiles_during_warmup": compiles_warmup,
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
