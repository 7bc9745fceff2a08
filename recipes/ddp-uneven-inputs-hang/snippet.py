"""Ranks that run different numbers of steps wait for each other forever (here: 1.5 s)."""

import multiprocessing as mp
import os
import socket
import sys
from datetime import timedelta

import torch
import torch._dynamo  # noqa: F401 - DDP imports it when built: import it once, before forking
import torch.distributed as dist
from torch import nn
from torch.distributed.algorithms.join import Join
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, Subset, TensorDataset

TIMEOUT = timedelta(seconds=1.5)  # the default is 30 minutes (gloo) or 10 (nccl)
SETUP_TIMEOUT = timedelta(seconds=20)  # start-up and DDP's own collectives: no race on a busy CPU


def dataset() -> TensorDataset:
    torch.manual_seed(0)
    return TensorDataset(torch.randn(5, 4), torch.randn(5, 1))  # 5 samples for 2 ranks


def train_epoch(rank: int, how: str, epoch_end) -> dict:
    torch.manual_seed(0)
    model = DDP(nn.Linear(4, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = dataset()
    if how in ("split by hand", "join"):  # every other sample: rank 0 gets 3, rank 1 gets 2
        loader = DataLoader(Subset(data, range(rank, len(data), 2)), batch_size=1)
    else:  # DistributedSampler pads the shorter rank with repeated samples: 3 and 3
        loader = DataLoader(data, batch_size=1, sampler=DistributedSampler(data, 2, rank))
    try:
        with Join([model], enable=(how == "join")):  # Join: finished ranks shadow the others
            for x, y in loader:
                optimizer.zero_grad()
                nn.functional.mse_loss(model(x), y).backward()  # all-reduces the gradients
                optimizer.step()
        dist.barrier(group=epoch_end)  # the end of the epoch: every rank meets here
        error = "no error"
    except RuntimeError as err:
        error = f"{type(err).__name__}: {err}"[:2000]
    return {"batches": len(loader), "error": error}


def rank_main(rank: int, port: int, conn, how: str) -> None:
    os.environ["GLOO_SOCKET_IFNAME"] = "lo0" if sys.platform == "darwin" else "lo"
    try:
        dist.init_process_group(
            "gloo",
            init_method=f"tcp://127.0.0.1:{port}",
            rank=rank,
            world_size=2,
            timeout=SETUP_TIMEOUT,
        )
        # The wait that hangs gets the short timeout: a group of the same ranks for the barrier.
        # Rank 0's all-reduce keeps the long one, so rank 1 always times out first and alone.
        epoch_end = dist.new_group([0, 1], timeout=TIMEOUT)
        conn.send(train_epoch(rank, how, epoch_end))
    except Exception as err:
        conn.send({"batches": None, "error": f"{type(err).__name__}: {err}"[:2000]})
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()
        conn.close()
        sys.stdout.flush()
        os._exit(0)  # reported and cleaned up: skip exit handlers that can wait on torch threads


def on_two_ranks(how: str) -> list:
    """Start two gloo ranks on localhost; each trains one epoch; collect both reports."""
    with socket.socket() as sock:  # a free port: bind port 0, read what the OS gave
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    ctx = mp.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    procs, conns = [], []
    try:
        for rank in range(2):
            receiver, sender = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=rank_main, args=(rank, port, sender, how))
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
    ranks = on_two_ranks("split by hand")
    # Rank 1 runs out of data first and waits in barrier(); rank 0 waits in its third
    # all-reduce. Only the barrier has the short timeout: rank 1 gives up after 1.5 s, and
    # rank 0, still waiting, sees it leave ("Connection closed by peer").
    return {
        "batches": [r.get("batches") for r in ranks],
        "error": ranks[1]["error"],
        "error_rank_0": ranks[0]["error"],
    }


def fix(device: str) -> dict:
    sampler = on_two_ranks("DistributedSampler")
    join = on_two_ranks("join")
    return {
        "batches": [r.get("batches") for r in sampler],
        "error": sampler[1]["error"],
        "error_rank_0": sampler[0]["error"],
        "batches_with_join": [r.get("batches") for r in join],
        "error_with_join": join[1]["error"],
    }


if __name__ == "__main__":
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
