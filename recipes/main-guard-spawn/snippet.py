"""Under spawn, each DataLoader worker re-imports the main script: guard it with __main__."""

import multiprocessing
import os
import subprocess
import sys
import tempfile
import textwrap

from torch.utils.data import DataLoader

# A training script as it is often written: everything at the top level. A DataLoader starts
# each worker with `multiprocessing_context.Process(...).start()`; the script calls the same
# start itself, so its worker needs no torch and the demonstration costs two small interpreters
# instead of four torch imports. The error below is raised by multiprocessing, as it is for a
# DataLoader worker.
UNGUARDED = textwrap.dedent(
    """
    import multiprocessing


    def load_batches(queue):  # what a DataLoader worker does: load batches, send them back
        data = list(range(4))
        queue.put([data[i : i + 2] for i in range(0, len(data), 2)])


    print("training starts", flush=True)
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    worker = context.Process(target=load_batches, args=(queue,))
    worker.start()
    worker.join(60)
    if worker.exitcode != 0:
        raise RuntimeError(f"worker (pid {worker.pid}) exited unexpectedly")
    print("batches", queue.get(timeout=60), flush=True)
    """
)

# The same script with its work behind the guard: a worker that imports it runs nothing.
GUARDED = textwrap.dedent(
    """
    import multiprocessing


    def load_batches(queue):  # what a DataLoader worker does: load batches, send them back
        data = list(range(4))
        queue.put([data[i : i + 2] for i in range(0, len(data), 2)])


    def main():
        print("training starts", flush=True)
        context = multiprocessing.get_context("spawn")
        queue = context.Queue()
        worker = context.Process(target=load_batches, args=(queue,))
        worker.start()
        worker.join(60)
        if worker.exitcode != 0:
            raise RuntimeError(f"worker (pid {worker.pid}) exited unexpectedly")
        print("batches", queue.get(timeout=60), flush=True)


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


def dataloader_uses_multiprocessing() -> bool:
    """A DataLoader's spawn workers come from Python's own spawn context (not started here)."""
    loader = DataLoader(list(range(4)), num_workers=1, multiprocessing_context="spawn")
    return loader.multiprocessing_context is multiprocessing.get_context("spawn")


def problem(device: str) -> dict:
    # Workers are host processes; the device plays no part.
    return {**run_script(UNGUARDED), "dataloader_spawn_context": dataloader_uses_multiprocessing()}


def fix(device: str) -> dict:
    return {**run_script(GUARDED), "dataloader_spawn_context": dataloader_uses_multiprocessing()}


if __name__ == "__main__":
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
