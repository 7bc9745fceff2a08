"""RANK is not the GPU index on a node; the launcher passes `--local-rank`, not `--local_rank`."""

import argparse
import contextlib
import io
import multiprocessing as mp
import os
import shutil
import socket
import sys
import tempfile

import torch.distributed.launch as launch
import torch.distributed.run as run
from torch.distributed.elastic.utils import macros
from torch.distributed.launcher.api import LaunchConfig, elastic_launch

NAMES = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "MASTER_ADDR")


def worker() -> dict:
    """What a training script sees in each process that torchrun started."""
    return {name: os.environ.get(name) for name in NAMES}


def node_agent(node_rank: int, port: int, tmp: str, conn) -> None:
    """One node's torchrun: `torchrun --nnodes=2 --nproc-per-node=2 --rdzv-endpoint=...`."""
    tempfile.tempdir = tmp  # the agent's log folders go here, removed afterwards
    config = LaunchConfig(
        min_nodes=2,
        max_nodes=2,
        nproc_per_node=2,  # "two GPUs per node"
        run_id="local-rank-demo",
        rdzv_backend="c10d",
        rdzv_endpoint=f"127.0.0.1:{port}",
        rdzv_configs={"rank": node_rank, "timeout": 20},
        max_restarts=0,
        monitor_interval=0.1,
        start_method="fork",
    )
    try:
        conn.send(elastic_launch(config, worker)())
    except Exception as err:
        conn.send(f"{type(err).__name__}: {err}"[:2000])
    finally:
        conn.close()


def two_nodes_of_two() -> list:
    """The variables of all four processes of a 2-node x 2-process torchrun job, by rank."""
    with socket.socket() as sock:  # a free port: bind port 0, read what the OS gave
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    tmp = tempfile.mkdtemp(prefix="local-rank-demo-")
    ctx = mp.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    procs, conns = [], []
    try:
        for node_rank in range(2):
            receiver, sender = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=node_agent, args=(node_rank, port, tmp, sender))
            proc.start()
            sender.close()
            procs.append(proc)
            conns.append(receiver)
        by_rank = {}
        for conn in conns:
            answer = conn.recv() if conn.poll(30) else "no answer"
            if not isinstance(answer, dict):
                raise RuntimeError(answer)
            by_rank.update(answer)
        return [by_rank[rank] for rank in sorted(by_rank)]
    finally:
        for proc in procs:
            proc.join(5)
            if proc.is_alive():
                proc.kill()
                proc.join()
        shutil.rmtree(tmp, ignore_errors=True)


def launch_argv() -> list:
    """The arguments `python -m torch.distributed.launch train.py --lr=0.1` gives local rank 0."""
    args = launch.parse_args(["--nproc-per-node=1", "train.py", "--lr=0.1"])
    with tempfile.TemporaryDirectory() as tmp:  # config_from_args makes a log folder
        saved, tempfile.tempdir = tempfile.tempdir, tmp
        try:
            _, _, cmd_args = run.config_from_args(args)
        finally:
            tempfile.tempdir = saved
    return macros.substitute(cmd_args[2:], "0")  # after "-u train.py"; ${local_rank} -> 0


def parse(parser: argparse.ArgumentParser, argv: list) -> str:
    """Parse like the script would; argparse prints its error and exits: catch both."""
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr):
            return f"local_rank={parser.parse_args(argv).local_rank}"
    except SystemExit:
        return stderr.getvalue().strip().splitlines()[-1]


def problem(device: str) -> dict:
    processes = two_nodes_of_two()
    # torch.cuda.set_device(int(os.environ["RANK"])): the global rank as the GPU index.
    gpu_index = [int(env["RANK"]) for env in processes]
    gpus_per_node = int(processes[0]["LOCAL_WORLD_SIZE"])
    # A parser written for the old `--local_rank` argument.
    parser = argparse.ArgumentParser(prog="train.py")
    parser.add_argument("--local_rank", type=int, default=0)
    parser.add_argument("--lr", type=float)
    argv = launch_argv()
    return {
        "gpu_index": gpu_index,
        "gpu_index_out_of_range": [index >= gpus_per_node for index in gpu_index],
        "launch_argv": argv,
        "parsed": parse(parser, argv),
    }


def fix(device: str) -> dict:
    processes = two_nodes_of_two()
    # torch.cuda.set_device(int(os.environ["LOCAL_RANK"])): the process's index on its node.
    gpu_index = [int(env["LOCAL_RANK"]) for env in processes]
    gpus_per_node = int(processes[0]["LOCAL_WORLD_SIZE"])
    # Accept both spellings; under torchrun (no argument) fall back to LOCAL_RANK.
    parser = argparse.ArgumentParser(prog="train.py")
    parser.add_argument(
        "--local-rank", "--local_rank", type=int, default=int(os.environ.get("LOCAL_RANK", 0))
    )
    parser.add_argument("--lr", type=float)
    argv = launch_argv()
    return {
        "gpu_index": gpu_index,
        "gpu_index_out_of_range": [index >= gpus_per_node for index in gpu_index],
        "launch_argv": argv,
        "parsed": parse(parser, argv),
        "variables_rank_3": processes[3],
    }


if __name__ == "__main__":
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
