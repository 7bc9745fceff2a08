"""Reentrant activation checkpointing under DDP: a parameter marked ready twice, or never."""

import multiprocessing as mp
import os
import socket
import sys
import warnings
from datetime import timedelta

import torch
import torch._dynamo  # noqa: F401 - DDP imports it when built: import it once, before forking
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.checkpoint import checkpoint


class Net(nn.Module):
    def __init__(self, use_reentrant: bool, twice: bool):
        super().__init__()
        self.block = nn.Linear(4, 4)
        self.head = nn.Linear(4, 1)
        self.use_reentrant = use_reentrant
        self.twice = twice

    def forward(self, x):
        h = checkpoint(self.block, x, use_reentrant=self.use_reentrant)
        if self.twice:  # the same block applied twice (a shared or recurrent layer)
            h = checkpoint(self.block, h, use_reentrant=self.use_reentrant)
        return self.head(h)


def train_two_steps(rank, use_reentrant, twice, input_requires_grad, **ddp_kwargs) -> dict:
    """Runs on every rank: two DDP steps; the error (if any), the block's gradient, a warning."""
    torch.manual_seed(0)  # the same initial model on every rank
    model = DDP(Net(use_reentrant, twice), **ddp_kwargs)
    torch.manual_seed(1 + rank)  # and different data on each
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            for _ in range(2):  # the second error only shows at the second forward
                model.zero_grad()
                x = torch.randn(8, 4, requires_grad=input_requires_grad)
                model(x).sum().backward()
            error = "ok"
        except RuntimeError as err:
            error = f"{type(err).__name__}: {err}"[:2000]
    grad = model.module.block.weight.grad
    return {
        "error": error,
        "block_has_grad": grad is not None and bool(grad.abs().sum() > 0),
        "block_grad": None if grad is None else grad.flatten().tolist(),
        "warned_grads_none": any("Gradients will be None" in str(w.message) for w in caught),
    }


def rank_main(rank: int, port: int, conn, setup: dict) -> None:
    os.environ["GLOO_SOCKET_IFNAME"] = "lo0" if sys.platform == "darwin" else "lo"
    try:
        dist.init_process_group(
            "gloo",
            init_method=f"tcp://127.0.0.1:{port}",
            rank=rank,
            world_size=2,
            timeout=timedelta(seconds=20),  # a rank that never arrives fails instead of hanging
        )
        conn.send(train_two_steps(rank, **setup))
    except Exception as err:
        conn.send({"error": f"{type(err).__name__}: {err}"[:2000]})
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()
        conn.close()
        sys.stdout.flush()
        os._exit(0)  # reported and cleaned up: skip exit handlers that can wait on torch threads


def on_two_ranks(**setup) -> dict:
    """Start two gloo ranks on localhost, run `setup` on both, return rank 0's observations."""
    with socket.socket() as sock:  # a free port: bind port 0, read what the OS gave
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    ctx = mp.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    procs, conns = [], []
    try:
        for rank in range(2):
            receiver, sender = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=rank_main, args=(rank, port, sender, setup))
            proc.start()
            sender.close()
            procs.append(proc)
            conns.append(receiver)
        answers = [conn.recv() if conn.poll(30) else {"error": "no answer"} for conn in conns]
        grads = [answer.get("block_grad") for answer in answers]
        # After DDP's all-reduce every rank must hold the same (averaged) gradient.
        answers[0]["grads_equal_on_ranks"] = grads[0] is not None and grads[0] == grads[1]
        return answers[0]
    finally:
        for proc in procs:
            proc.join(5)
            if proc.is_alive():
                proc.kill()
                proc.join()


def problem(device: str) -> dict:
    # 1) The same block checkpointed twice, reentrant, with find_unused_parameters=True.
    twice = on_two_ranks(
        use_reentrant=True, twice=True, input_requires_grad=True, find_unused_parameters=True
    )
    # ...and without find_unused_parameters: it runs, and the ranks' gradients drift apart.
    twice_quiet = on_two_ranks(use_reentrant=True, twice=True, input_requires_grad=True)
    # 2) A reentrant checkpoint whose input does not require grad (the first layer's input).
    no_grad_input = on_two_ranks(use_reentrant=True, twice=False, input_requires_grad=False)
    # ...which "works" once DDP is told to look for unused parameters, and trains nothing.
    silent = on_two_ranks(
        use_reentrant=True, twice=False, input_requires_grad=False, find_unused_parameters=True
    )
    return {
        "checkpointed_twice": twice["error"],
        "checkpointed_twice_grads_in_sync": twice_quiet.get("grads_equal_on_ranks"),
        "input_without_grad": no_grad_input["error"],
        "input_without_grad_find_unused": silent["error"],
        "block_has_grad": silent.get("block_has_grad"),
        "warned_grads_none": silent.get("warned_grads_none"),
    }


def fix(device: str) -> dict:
    # use_reentrant=False in the same setups.
    twice = on_two_ranks(
        use_reentrant=False, twice=True, input_requires_grad=True, find_unused_parameters=True
    )
    twice_quiet = on_two_ranks(use_reentrant=False, twice=True, input_requires_grad=True)
    no_grad_input = on_two_ranks(use_reentrant=False, twice=False, input_requires_grad=False)
    silent = on_two_ranks(
        use_reentrant=False, twice=False, input_requires_grad=False, find_unused_parameters=True
    )
    # A workaround that keeps use_reentrant=True for setup 1: static_graph=True.
    static = on_two_ranks(
        use_reentrant=True, twice=True, input_requires_grad=True, static_graph=True
    )
    return {
        "checkpointed_twice": twice["error"],
        "checkpointed_twice_grads_in_sync": twice_quiet.get("grads_equal_on_ranks"),
        "input_without_grad": no_grad_input["error"],
        "input_without_grad_find_unused": silent["error"],
        "block_has_grad": silent.get("block_has_grad"),
        "warned_grads_none": silent.get("warned_grads_none"),
        "reentrant_static_graph": static["error"],
        "reentrant_static_graph_grads_in_sync": static.get("grads_equal_on_ranks"),
    }


if __name__ == "__main__":
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
