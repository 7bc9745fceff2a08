"""An op with no MPS kernel: PYTORCH_ENABLE_MPS_FALLBACK=1 works only if set before import."""

import json
import os
import subprocess
import sys
import warnings

import torch

FALLBACK = "PYTORCH_ENABLE_MPS_FALLBACK"


def register_cpu_only_op():
    """An operator with a CPU kernel and no MPS kernel, like the aten and torchvision ops that
    users meet (`aten::grid_sampler_3d`, `torchvision::nms`). Torch's MPS fallback treats every
    operator the same way, whatever its namespace."""
    lib = torch.library.Library("pitfalls_mps_demo", "DEF")
    lib.define("running_max(Tensor x) -> Tensor")
    lib.impl("running_max", lambda x: torch.cummax(x, dim=-1).values, "CPU")
    return lib  # the registration lives as long as this object


def child(device: str) -> None:
    """Runs in a fresh interpreter: `import torch` above has already run when this starts."""
    if os.environ.get("PITFALLS_SET_AFTER_IMPORT"):
        os.environ[FALLBACK] = "1"  # a notebook cell after `import torch`: too late
    lib = register_cpu_only_op()  # noqa: F841 (kept alive until the process ends)
    x = torch.tensor([[3.0, 1.0, 4.0, 1.0, 5.0]])
    result = {"error": "no error", "fallback_warning": "", "result_device": "", "matches_cpu": None}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            y = torch.ops.pitfalls_mps_demo.running_max(x.to(device))
            result["result_device"] = y.device.type
            result["matches_cpu"] = torch.equal(y.cpu(), torch.cummax(x, dim=-1).values)
        except NotImplementedError as err:
            result["error"] = f"{type(err).__name__}: {err}"[:2000]
    for w in caught:
        if "fall back to run on the CPU" in str(w.message):
            result["fallback_warning"] = f"{w.category.__name__}: {w.message}"[:2000]
    print(json.dumps(result))


def run_fresh_python(device: str, env: dict) -> dict:
    # A new interpreter: torch reads PYTORCH_ENABLE_MPS_FALLBACK once, when it loads, and this
    # process (the runner's, or your notebook's) loaded it long ago.
    done = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--child", device],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return {"error": f"child failed ({done.returncode}): {done.stderr[-500:]}"}
    return json.loads(lines[-1])


def problem(device: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != FALLBACK}
    env["PITFALLS_SET_AFTER_IMPORT"] = "1"
    return run_fresh_python(device, env)


def fix(device: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PITFALLS_SET_AFTER_IMPORT"}
    env[FALLBACK] = "1"  # in the environment the process starts with
    return run_fresh_python(device, env)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2])
    else:
        device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
        print("problem:", problem(device))
        print("fix:", fix(device))
