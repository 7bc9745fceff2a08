"""DDP hides the model's own attributes, and calling the inner module skips gradient sync."""

import multiprocessing as mp
import os
import socket
import sys
from datetime import timedelta

import torch
import torch._dynamo  # noqa: F401 - DDP imports it when built: import it once, before forking
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.num_classes = 3
        self.fc = nn.Linear(4, self.num_classes)

    def forward(self, x):
        return self.fc(x)


def one_step(rank: int, wrapped: bool) -> dict:
    """Runs on every rank: read an attribute, run one backward; report the gradient."""
    torch.manual_seed(0)  # the same model on every rank
    model = DDP(Classifier())
    torch.manual_seed(1 + rank)  # different data on each rank
    x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
    try:
        if wrapped:
            num_classes = model.module.num_classes  # the model's own attribute, via .module
        else:
            num_classes = model.num_classes  # what worked before wrapping
        error = "no error"
    except AttributeError as err:
        num_classes, error = None, f"{type(err).__name__}: {err}"[:2000]
    if wrapped:
        logits = model(x)  # through the wrapper: DDP all-reduces the gradients
    else:
        logits = model.module(x)  # the inner module directly: no gradient synchronisation
    nn.functional.cross_entropy(logits, y).backward()
    grad = model.module.fc.weight.grad.flatten().tolist()
    return {"error": error, "num_classes": num_classes, "grad": grad}


def rank_main(rank: int, port: int, conn, wrapped: bool) -> None:
    os.environ["GLOO_SOCKET_IFNAME"] = "lo0" if sys.platform == "darwin" else "lo"
    try:
        dist.init_process_group(
            "gloo",
            init_method=f"tcp://127.0.0.1:{port}",
            rank=rank,
            world_size=2,
            timeout=timedelta(seconds=20),  # a rank that never arrives fails instead of hanging
        )
        conn.send(one_step(rank, wrapped))
        dist.barrier()  # leave together: a rank whose peer already left can hang on exit
    except Exception as err:
        conn.send({"error": f"{type(err).__name__}: {err}"[:2000], "grad": None})
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()
        conn.close()
        sys.stdout.flush()
        os._exit(0)  # reported and cleaned up: skip exit handlers that can wait on torch threads


def on_two_ranks(wrapped: bool) -> list:
    """Start two gloo ranks on localhost, run one step on each, collect both reports."""
    with socket.socket() as sock:  # a free port: bind port 0, read what the OS gave
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    ctx = mp.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    procs, conns = [], []
    try:
        for rank in range(2):
            receiver, sender = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=rank_main, args=(rank, port, sender, wrapped))
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


def observations(ranks: list) -> dict:
    grads = [r.get("grad") for r in ranks]
    return {
        "error": ranks[0]["error"],
        "num_classes": ranks[0].get("num_classes"),
        # After DDP's all-reduce every rank holds the same (averaged) gradient.
        "grads_equal_on_ranks": grads[0] is not None and grads[0] == grads[1],
    }


def problem(device: str) -> dict:
    return observations(on_two_ranks(wrapped=False))


def fix(device: str) -> dict:
    return observations(on_two_ranks(wrapped=True))


if __name__ == "__main__":
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
