"""`.cuda()` fails where no GPU is visible; pick the device at run time instead."""

import json
import os
import subprocess
import sys

# Hide every GPU from a fresh Python: the same situation as a laptop, a CPU-only server,
# a CPU-only wheel, or a container started without `--gpus`.
NO_GPU = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}

# A script copied from a GPU tutorial.
HARD_CODED = """
import json, torch
try:
    x = torch.randn(2, 3).cuda()
    error = "no error"
except Exception as err:
    error = f"{type(err).__name__}: {err}"[:2000]
print(json.dumps({"cuda_call": error, "torch_version_cuda": torch.version.cuda}))
"""

# The same script, device-agnostic: ask torch where it can run, then use that device.
DEVICE_AGNOSTIC = """
import json, torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(3, 1).to(device)
x = torch.randn(2, 3, device=device)
loss = model(x).pow(2).mean()
loss.backward()
print(json.dumps({
    "cuda_is_available": torch.cuda.is_available(),
    "cuda_device_count": torch.cuda.device_count(),
    "ran_on": loss.device.type,
    "loss_is_finite": bool(torch.isfinite(loss)),
}))
"""


def run_without_gpu(code: str) -> dict:
    # A fresh interpreter: CUDA_VISIBLE_DEVICES is read once, when CUDA starts up.
    out = subprocess.run(
        [sys.executable, "-c", code], env=NO_GPU, capture_output=True, text=True, timeout=120
    )
    if out.returncode != 0:
        return {"child_failed": out.stderr[-2000:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def problem(device: str) -> dict:
    # `device` is not used: the point is a machine where there is no GPU to pick.
    return run_without_gpu(HARD_CODED)


def fix(device: str) -> dict:
    return run_without_gpu(DEVICE_AGNOSTIC)


if __name__ == "__main__":
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
