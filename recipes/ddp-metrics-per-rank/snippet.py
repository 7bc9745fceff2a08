"""Validation accuracy printed by rank 0 describes rank 0's shard, padded by DistributedSampler."""

import math
import multiprocessing as mp
import os
import socket
import sys
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, Subset, TensorDataset


def validation_set() -> TensorDataset:
    torch.manual_seed(0)
    return TensorDataset(torch.randn(7, 4), torch.randint(0, 2, (7,)))  # 7 samples, 2 ranks


def model() -> nn.Module:
    torch.manual_seed(1)
    return nn.Linear(4, 2)  # the same weights on every rank, as after a DDP step


def count_correct(net, loader):
    """Correct predictions and samples seen in this rank's part of the validation set."""
    correct = seen = 0
    with torch.no_grad():
        for x, y in loader:
            correct += int((net(x).argmax(dim=1) == y).sum())
            seen += len(y)
    return correct, seen


def evaluate(rank: int, how: str) -> dict:
    data = validation_set()
    if how == "all_reduce, no padding":
        # Every sample exactly once: rank 0 gets 4, rank 1 gets 3. Uneven is fine here,
        # because the only collective is the one all_reduce after the loop.
        loader = DataLoader(Subset(data, range(rank, len(data), 2)), batch_size=2)
    else:  # DistributedSampler pads to 8 = 2 x 4 by repeating sample 0 on rank 1
        sampler = DistributedSampler(data, num_replicas=2, rank=rank, shuffle=False)
        loader = DataLoader(data, batch_size=2, sampler=sampler)
    correct, seen = count_correct(model(), loader)
    if how == "per rank":
        return {"accuracy": correct / seen, "seen": seen}  # what `if rank == 0: print` shows
    totals = torch.tensor([correct, seen], dtype=torch.float64)
    dist.all_reduce(totals)  # sums over every rank; every rank must call it
    return {"accuracy": (totals[0] / totals[1]).item(), "seen": int(totals[1])}


def reference_accuracy() -> float:
    """One process, the whole validation set, no sampler: the number we want."""
    x, y = validation_set().tensors
    with torch.no_grad():
        return (model()(x).argmax(dim=1) == y).double().mean().item()


def rank_main(rank: int, port: int, conn, how: str) -> None:
    os.environ["GLOO_SOCKET_IFNAME"] = "lo0" if sys.platform == "darwin" else "lo"
    try:
        dist.init_process_group(
            "gloo",
            init_method=f"tcp://127.0.0.1:{port}",
            rank=rank,
            world_size=2,
            timeout=timedelta(seconds=20),  # a rank that never arrives fails instead of hanging
        )
        conn.send(evaluate(rank, how))
        dist.barrier()  # leave together: a rank whose peer already left can hang on exit
    except Exception as err:
        conn.send({"error": f"{type(err).__name__}: {err}"[:2000]})
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()
        conn.close()
        sys.stdout.flush()
        os._exit(0)  # reported and cleaned up: skip exit handlers that can wait on torch threads


def on_two_ranks(how: str) -> list:
    """Start two gloo ranks on localhost, evaluate on both, collect both reports."""
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
    per_rank = on_two_ranks("per rank")
    padded = on_two_ranks("all_reduce, with padding")
    reference = reference_accuracy()
    return {
        "reference_accuracy": reference,
        "rank_0_accuracy": per_rank[0]["accuracy"],
        "rank_0_matches_reference": math.isclose(per_rank[0]["accuracy"], reference),
        "samples_counted": padded[0]["seen"],
        "reduced_matches_reference": math.isclose(padded[0]["accuracy"], reference),
    }


def fix(device: str) -> dict:
    reduced = on_two_ranks("all_reduce, no padding")
    reference = reference_accuracy()
    return {
        "reference_accuracy": reference,
        "rank_0_accuracy": reduced[0]["accuracy"],
        "rank_0_matches_reference": math.isclose(reduced[0]["accuracy"], reference),
        "samples_counted": reduced[0]["seen"],
        "reduced_matches_reference": math.isclose(reduced[0]["accuracy"], reference),
    }


if __name__ == "__main__":
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
