"""A distributed call in a script started as plain `python train.py`: no default process group."""

import multiprocessing as mp
import os
import socket
import sys
from datetime import timedelta

import torch
import torch.distributed as dist


def mean_over_ranks(loss: torch.Tensor) -> torch.Tensor:
    # How training scripts often average a metric: fine under torchrun, an error without it.
    dist.all_reduce(loss)
    return loss / dist.get_world_size()


def mean_over_ranks_guarded(loss: torch.Tensor) -> torch.Tensor:
    # The same, but a single process (no process group) keeps its own value.
    if dist.is_available() and dist.is_initialized():
        dist.all_reduce(loss)
        loss = loss / dist.get_world_size()
    return loss


def rank_main(rank: int, world_size: int, port: int, conn) -> None:
    """One rank, started the way torchrun starts it: the rendezvous comes from variables."""
    os.environ.update(
        RANK=str(rank), WORLD_SIZE=str(world_size), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port)
    )
    os.environ["GLOO_SOCKET_IFNAME"] = "lo0" if sys.platform == "darwin" else "lo"
    try:
        # init_method defaults to "env://": RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT.
        dist.init_process_group("gloo", timeout=timedelta(seconds=20))
        loss = torch.tensor(float(rank + 1))  # rank 0 has loss 1, rank 1 has loss 2
        conn.send(("no error", mean_over_ranks_guarded(loss).item()))
        dist.barrier()  # leave together: a rank whose peer already left can hang on exit
    except Exception as err:
        conn.send((f"{type(err).__name__}: {err}"[:2000], None))
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()
        conn.close()
        sys.stdout.flush()
        os._exit(0)  # reported and cleaned up: skip exit handlers that can wait on torch threads


def run_two_ranks() -> list:
    """Start two ranks on this machine (gloo on localhost) and collect what each reports."""
    with socket.socket() as sock:  # a free port: bind port 0, read what the OS gave
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    ctx = mp.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    procs, conns = [], []
    try:
        for rank in range(2):
            receiver, sender = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=rank_main, args=(rank, 2, port, sender))
            proc.start()
            sender.close()
            procs.append(proc)
            conns.append(receiver)
        return [conn.recv() if conn.poll(30) else ("no answer", None) for conn in conns]
    finally:
        for proc in procs:
            proc.join(5)
            if proc.is_alive():
                proc.kill()
                proc.join()


def problem(device: str) -> dict:
    # This process was started as a plain script: nobody called init_process_group.
    loss = torch.tensor(0.5, device=device)
    try:
        mean_over_ranks(loss)
        error = "no error"
    except (RuntimeError, ValueError) as err:
        error = f"{type(err).__name__}: {err}"[:2000]
    # Calling init_process_group() in the script does not help: nothing set its variables.
    names = ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")
    saved = {name: os.environ.pop(name) for name in names if name in os.environ}
    try:
        dist.init_process_group("gloo", timeout=timedelta(seconds=20))
        init_error = "no error"
        dist.destroy_process_group()
    except (RuntimeError, ValueError) as err:
        init_error = f"{type(err).__name__}: {err}"[:2000]
    finally:
        os.environ.update(saved)
    return {"error": error, "init_error": init_error}


def fix(device: str) -> dict:
    # 1) Guarded: the same script also runs on one process, keeping its own value.
    loss = torch.tensor(0.5, device=device)
    try:
        single = mean_over_ranks_guarded(loss).item()
        error = "no error"
    except (RuntimeError, ValueError) as err:
        single, error = None, f"{type(err).__name__}: {err}"[:2000]
    # 2) Launched as two ranks with the variables torchrun sets, init works and it averages.
    ranks = run_two_ranks()
    init_errors = sorted({init_error for init_error, _ in ranks})
    return {
        "error": error,
        "single_process_loss": single,
        "init_error": init_errors[0] if len(init_errors) == 1 else "; ".join(init_errors),
        "two_ranks_mean": [mean for _, mean in ranks],
    }


if __name__ == "__main__":
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
