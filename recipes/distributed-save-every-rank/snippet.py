"""Rank 0 saves a checkpoint and the other ranks read it at once: nothing orders the two."""

import multiprocessing as mp
import os
import socket
import sys
import tempfile
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn


def end_of_epoch(rank: int, path: str, wait_for_rank_0: bool, rank_1_went_on) -> dict:
    """Runs on every rank: rank 0 evaluates and saves; every rank then reloads the checkpoint."""
    torch.manual_seed(0)
    model = nn.Linear(4, 2)
    if rank == 0:  # only rank 0 writes the file
        # Rank 0 has more to do first (evaluation, logging). Here that work lasts until rank 1
        # has gone on, so that the race ends the same way on every run, however busy the CPU.
        rank_1_went_on.wait(20)
        torch.save(model.state_dict(), path)
    if rank == 1 and wait_for_rank_0:
        rank_1_went_on.set()  # rank 1 goes on to the barrier
    if wait_for_rank_0:
        dist.barrier()  # nobody reads before rank 0 has written
    try:  # e.g. resume, or load the best model for testing
        state = torch.load(path, map_location="cpu", weights_only=True)  # or f"cuda:{local_rank}"
        nn.Linear(4, 2).load_state_dict(state)
        error = "no error"
    except (OSError, RuntimeError) as err:
        error = f"{type(err).__name__}: {err}"[:2000]
    if rank == 1:
        rank_1_went_on.set()  # rank 1 went on and read (without the barrier: too early)
    dist.barrier()  # leave together
    return {"error": error}


def rank_main(rank: int, port: int, conn, path: str, wait_for_rank_0: bool, went_on) -> None:
    os.environ["GLOO_SOCKET_IFNAME"] = "lo0" if sys.platform == "darwin" else "lo"
    try:
        dist.init_process_group(
            "gloo",
            init_method=f"tcp://127.0.0.1:{port}",
            rank=rank,
            world_size=2,
            timeout=timedelta(seconds=20),  # a rank that never arrives fails instead of hanging
        )
        conn.send(end_of_epoch(rank, path, wait_for_rank_0, went_on))
    except Exception as err:
        conn.send({"error": f"{type(err).__name__}: {err}"[:2000]})
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()
        conn.close()
        sys.stdout.flush()
        os._exit(0)  # reported and cleaned up: skip exit handlers that can wait on torch threads


def on_two_ranks(wait_for_rank_0: bool) -> list:
    """Start two gloo ranks on localhost sharing one checkpoint folder; collect both reports."""
    with socket.socket() as sock:  # a free port: bind port 0, read what the OS gave
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    ctx = mp.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    procs, conns = [], []
    rank_1_went_on = ctx.Event()  # the two ranks' only link besides the process group
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "checkpoint.pt")
        try:
            for rank in range(2):
                receiver, sender = ctx.Pipe(duplex=False)
                args = (rank, port, sender, path, wait_for_rank_0, rank_1_went_on)
                proc = ctx.Process(target=rank_main, args=args)
                proc.start()
                sender.close()
                procs.append(proc)
                conns.append(receiver)
            return [conn.recv() if conn.poll(30) else {"error": "no answer"} for conn in conns]
        finally:
            for proc in procs:
                proc.join(5)
                if proc.is_alive():
                    proc.kill()
                    proc.join()


def problem(device: str) -> dict:
    ranks = on_two_ranks(wait_for_rank_0=False)
    return {"rank_0_load": ranks[0]["error"], "rank_1_load": ranks[1]["error"]}


def fix(device: str) -> dict:
    ranks = on_two_ranks(wait_for_rank_0=True)
    return {"rank_0_load": ranks[0]["error"], "rank_1_load": ranks[1]["error"]}


if __name__ == "__main__":
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
