"""A second job on the same node asks for the port the first job's store already listens on."""

import sys
import tempfile
from datetime import timedelta

import torch.distributed as dist
import torch.distributed.run as run


def start_store(port: int) -> dist.TCPStore:
    """What rank 0 (or torchrun's agent) does first: listen on MASTER_PORT for the others."""
    return dist.TCPStore(
        "127.0.0.1", port, world_size=1, is_master=True, timeout=timedelta(seconds=2),
        wait_for_workers=False,
    )  # fmt: skip


def torchrun_endpoint() -> str:
    """Where `torchrun --nproc-per-node=1 train.py` (no port given) would hold its rendezvous."""
    endpoints = []

    def launch_nothing(config, entrypoint):  # stands in for elastic_launch: note, start nothing
        endpoints.append(config.rdzv_endpoint)
        return lambda *args: None

    saved = run.elastic_launch, tempfile.tempdir
    with tempfile.TemporaryDirectory() as tmp:  # torchrun's log folder goes here
        run.elastic_launch, tempfile.tempdir = launch_nothing, tmp
        try:
            run.run(run.parse_args(["--nproc-per-node=1", "train.py"]))
        finally:
            run.elastic_launch, tempfile.tempdir = saved
    return endpoints[0]


def problem(device: str) -> dict:
    first_job = start_store(0)  # job 1 holds a port (29500 in real life; a free one here)
    port = first_job.port
    try:
        second_job = start_store(port)  # job 2: the same MASTER_PORT on the same node
        error = "no error"
        del second_job
    except RuntimeError as err:  # DistNetworkError subclasses RuntimeError
        error = f"{type(err).__name__}: {err}"[:2000]
    finally:
        del first_job
    return {"error": error, "torchrun_endpoint": torchrun_endpoint()}


def fix(device: str) -> dict:
    first_job = start_store(0)
    try:
        # Port 0: the OS picks a free port (torchrun --standalone, --rdzv-endpoint=localhost:0).
        second_job = start_store(0)
        error = "no error"
        ports_differ = second_job.port != first_job.port
        del second_job
    except RuntimeError as err:
        error, ports_differ = f"{type(err).__name__}: {err}"[:2000], None
    finally:
        del first_job
    return {
        "error": error,
        "ports_differ": ports_differ,
        "torchrun_endpoint": torchrun_endpoint(),
    }


if __name__ == "__main__":
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
