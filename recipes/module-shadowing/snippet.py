"""A file named torch.py beside your script is imported instead of the real torch."""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

# A training script, as people write it.
TRAIN = """\
import torch
print(torch.__file__)
x = torch.tensor([1.0, 2.0])
print(x.sum().item())
"""

# The user's own helpers, saved under the name of the library they help with.
HELPERS = """\
def count_params(model):
    return sum(p.numel() for p in model.parameters())
"""


def run_script(folder: Path, script: str) -> dict:
    """Start a fresh `python script` in `folder`, as a user would from a terminal."""
    # This process has imported the real torch already, so only a new interpreter shows
    # what `import torch` finds from that folder.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSAFEPATH")}
    done = subprocess.run(
        [sys.executable, script],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = done.stderr.strip().splitlines()
    error = lines[-1][:2000] if done.returncode != 0 and lines else "no error"
    printed = done.stdout.splitlines()
    torch_file = printed[0] if printed else ""
    return {
        "error": error,
        "torch_loaded_from_script_folder": Path(torch_file).parent == folder.resolve(),
    }


def problem(device: str) -> dict:
    # `device` is not used: the mistake is in the file names, before any tensor exists.
    with tempfile.TemporaryDirectory() as tmp:
        beside = Path(tmp, "beside").resolve()
        beside.mkdir()
        (beside / "train.py").write_text(TRAIN)
        (beside / "torch.py").write_text(HELPERS)  # a helper file named torch.py
        result = run_script(beside, "train.py")

        itself = Path(tmp, "itself").resolve()
        itself.mkdir()
        (itself / "torch.py").write_text(TRAIN)  # the script itself is named torch.py
        result["error_script_named_torch"] = run_script(itself, "torch.py")["error"]
    return result


def fix(device: str) -> dict:
    # Rename both files: the helper to torch_utils.py, the script to torch_demo.py.
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp).resolve()
        (folder / "torch_utils.py").write_text(HELPERS)
        (folder / "torch_demo.py").write_text("import torch_utils\n" + TRAIN)
        result = run_script(folder, "torch_demo.py")
        result["error_script_named_torch"] = result["error"]
    return result


if __name__ == "__main__":
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
