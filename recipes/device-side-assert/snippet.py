"""An out-of-range class index: a clear IndexError on CPU, a late device-side assert on CUDA."""

import json
import os
import subprocess
import sys

import torch
import torch.nn.functional as F

NUM_CLASSES = 5
# The dataset numbers its classes 1..5; the model's 5 outputs are classes 0..4.
LABELS = [1, 2, 5, 3]


def train_step(device: str, labels: list) -> dict:
    """One step of a 5-class classifier; says which line raised, and what."""
    torch.manual_seed(0)
    logits = torch.randn(4, NUM_CLASSES, device=device, requires_grad=True)
    target = torch.tensor(labels, device=device)
    line = "F.cross_entropy(logits, target)"
    try:
        loss = F.cross_entropy(logits, target)
        line = "loss.backward()"
        loss.backward()
        line = "loss.item()"
        loss.item()  # the first time the CPU waits for the GPU's result
    except Exception as err:  # IndexError on CPU; AcceleratorError (a RuntimeError) on CUDA
        return {"error": f"{type(err).__name__}: {err}"[:2000], "raised_at": line}
    return {"error": "no error", "loss_is_finite": bool(torch.isfinite(loss))}


def in_own_process(device: str, blocking: bool = False) -> dict:
    # A device-side assert breaks the CUDA context for the rest of the process, so the
    # CUDA run happens in a child that is thrown away afterwards.
    env = {**os.environ, "CUDA_LAUNCH_BLOCKING": "1" if blocking else "0"}
    out = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--cuda-child", device],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = [x for x in out.stdout.splitlines() if x.startswith("{")]
    result = json.loads(lines[-1]) if lines else {"child_failed": out.stderr[-2000:]}
    result["kernel_stderr"] = out.stderr[:2000]  # the kernel prints its assertion here
    return result


def after_the_assert(device: str) -> dict:
    """Runs in the child: the bad step, then one harmless CUDA call."""
    result = train_step(device, LABELS)
    try:
        torch.ones(1, device=device).add(1).item()
        result["next_cuda_call"] = "no error"
    except Exception as err:
        result["next_cuda_call"] = f"{type(err).__name__}: {err}"[:2000]
    return result


def problem(device: str) -> dict:
    if torch.device(device).type == "cuda":
        return in_own_process(device)
    result = train_step(device, LABELS)
    # An embedding lookup with the same off-by-one.
    try:
        torch.nn.Embedding(NUM_CLASSES, 3).to(device)(torch.tensor(LABELS, device=device))
        result["embedding_error"] = "no error"
    except IndexError as err:
        result["embedding_error"] = f"{type(err).__name__}: {err}"[:2000]
    return result


def fix(device: str) -> dict:
    target = torch.tensor(LABELS)
    # Check the labels once, on the CPU, before any kernel indexes with them.
    out_of_range = (target < 0) | (target >= NUM_CLASSES)
    result = {"labels_out_of_range": target[out_of_range].tolist()}
    # The data fix: map classes 1..5 to 0..4.
    result.update(train_step(device, (target - 1).tolist()))
    if torch.device(device).type == "cuda":
        # To find the line on the GPU itself: CUDA_LAUNCH_BLOCKING=1, in a fresh process.
        blocking = in_own_process(device, blocking=True)
        result["blocking_error"] = blocking.get("error")
        result["blocking_raised_at"] = blocking.get("raised_at")
    return result


if __name__ == "__main__":
    if sys.argv[1:2] == ["--cuda-child"]:
        print(json.dumps(after_the_assert(sys.argv[2])), flush=True)
    else:
        device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
        print("problem:", problem(device))
        print("fix:", fix(device))
