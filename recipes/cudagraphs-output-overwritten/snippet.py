"""`mode="reduce-overhead"` (CUDA graphs) reuses output memory: an output kept across steps is
overwritten by the next run, and reading it raises.

CUDA only: on other devices inductor does not use CUDA graphs, so there is nothing to overwrite
and the snippet does not compile anything (it reports that the device has no CUDA graphs).
"""

import torch
import torch._dynamo


def predict(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return torch.relu(x @ w).sum(dim=1)


def inputs(device: str):
    torch.manual_seed(0)
    w = torch.randn(64, 64, device=device)
    return w, [torch.randn(16, 64, device=device) for _ in range(4)]


def read_all(outputs) -> str:
    try:
        for out in outputs:
            out.sum().item()
        return "no error"
    except RuntimeError as err:
        return f"{type(err).__name__}: {err}"[:2000]


def run(device: str, keep) -> dict:
    if torch.device(device).type != "cuda":
        return {"cuda_graphs": False}
    w, batches = inputs(device)
    torch._dynamo.reset()
    model = torch.compile(predict, mode="reduce-overhead")
    outputs = []
    with torch.no_grad():
        for x in batches:  # warm-up, recording, then replays of one CUDA graph
            outputs.append(keep(model(x, w)))
        expected = [predict(x, w) for x in batches]
    observations = {
        "cuda_graphs": True,
        "read_kept_outputs": read_all(outputs),
    }
    if observations["read_kept_outputs"] == "no error":
        # inductor's fused kernels may sum in another order than eager: compare with a tolerance
        observations["match_eager"] = all(
            torch.allclose(out, ref, rtol=1e-4, atol=1e-4) for out, ref in zip(outputs, expected)
        )
    del outputs
    torch._dynamo.reset()  # nothing compiled (and no CUDA graph pool) outlives this side
    return observations


def problem(device: str) -> dict:
    return run(device, lambda out: out)  # keep the graph's own output tensor


def fix(device: str) -> dict:
    return run(device, lambda out: out.clone())  # copy out of the graph's memory pool


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
