"""Under spawn, each DataLoader worker re-imports the main script: guard it with __main__."""

import os
import subprocess
import sys
import tempfile
import textwrap

# A training script as it is often written: everything at the top level.
UNGUARDED = textwrap.dedent(
    """
    import torch
    from torch.utils.data import DataLoader

    print("training starts", flush=True)
    loader = DataLoader(list(range(4)), batch_size=2, num_workers=1,
                        multiprocessing_context="spawn", timeout=60)
    print("batches", [batch.tolist() for batch in loader], flush=True)
    """
)

# The same script with its work behind the guard: a worker that imports it runs nothing.
GUARDED = textwrap.dedent(
    """
    import torch
    from torch.utils.data import DataLoader


    def main():
        print("training starts", flush=True)
        loader = DataLoader(list(range(4)), batch_size=2, num_workers=1,
                            multiprocessing_context="spawn", timeout=60)
        print("batches", [batch.tolist() for batch in loader], flush=True)


    if __name__ == "__main__":
        main()
    """
)


def run_script(source: str) -> dict:
    """Run `source` as `python train.py` in a fresh interpreter; report what happened."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "train.py")
        with open(path, "w") as f:
            f.write(source)
        done = subprocess.run(
            [sys.executable, path], capture_output=True, text=True, timeout=120, cwd=folder
        )
    stderr = " ".join(done.stderr.split())  # multiprocessing wraps its message over lines
    start = stderr.find("An attempt has been made")
    end = stderr.find("bootstrapping phase.", start)
    return {
        "bootstrapping_error": stderr[start : end + 20] if start >= 0 else "no error",
        "training_runs": done.stdout.count("training starts"),
        "exit_code": done.returncode,
        "batches_read": "batches [[0, 1], [2, 3]]" in done.stdout,
    }


def problem(device: str) -> dict:
    # Workers are host processes; the device plays no part.
    return run_script(UNGUARDED)


def fix(device: str) -> dict:
    return run_script(GUARDED)


if __name__ == "__main__":
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
