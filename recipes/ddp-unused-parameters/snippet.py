"""DistributedDataParallel fails on the next iteration when a parameter took no part in the loss."""

import contextlib
import gc
import os
import sys

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(nn.Module):
    def __init__(self, with_aux=True):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.head = nn.Linear(8, 1)
        if with_aux:
            self.aux = nn.Linear(8, 1)  # an auxiliary head that this forward never calls

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))


@contextlib.contextmanager
def one_process_group():
    """A gloo group of world size 1 on an in-memory store: no launcher and no rendezvous.
    Gloo still opens a listening socket; GLOO_SOCKET_IFNAME keeps it on the loopback device.
    (On torch 2.13 it stays open until the process exits, even after destroy_process_group.)"""
    old_ifname = os.environ.get("GLOO_SOCKET_IFNAME")
    os.environ["GLOO_SOCKET_IFNAME"] = "lo0" if sys.platform == "darwin" else "lo"
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        yield
    finally:
        dist.destroy_process_group()
        if old_ifname is None:
            del os.environ["GLOO_SOCKET_IFNAME"]
        else:
            os.environ["GLOO_SOCKET_IFNAME"] = old_ifname
        gc.collect()  # drop the DDP objects that referred to the group


def train_two_steps(model: nn.Module, device: str, **ddp_kwargs) -> str:
    torch.manual_seed(0)
    ddp = DDP(model.to(device), **ddp_kwargs)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1)
    try:
        for _ in range(2):  # the error comes at the SECOND forward
            optimizer.zero_grad()
            ddp(torch.randn(8, 4, device=device)).sum().backward()
            optimizer.step()
        return "ok"
    except RuntimeError as err:
        return f"{type(err).__name__}: {err}"[:2000]


def problem(device: str) -> dict:
    # gloo reduces CPU tensors; on GPUs the same happens with nccl.
    with one_process_group():
        error = train_two_steps(Net(), device)
    return {"error": error}


def fix(device: str) -> dict:
    with one_process_group():
        # 1) Best: every parameter takes part in the loss (here: drop the unused head).
        fixed_model = train_two_steps(Net(with_aux=False), device)
        # 2) Let DDP find the unused parameters after every forward (costs a graph traversal).
        model = Net()
        find_unused = train_two_steps(model, device, find_unused_parameters=True)
        aux_grad_is_none = model.aux.weight.grad is None
        # 3) The same parameters unused on every iteration: declare the graph static.
        static = train_two_steps(Net(), device, static_graph=True)
    return {
        "error": find_unused,  # the same model as the problem's, with the flag
        "model_without_unused_head": fixed_model,
        "find_unused_parameters": find_unused,
        "unused_head_grad_is_none": aux_grad_is_none,
        "static_graph": static,
    }


if __name__ == "__main__":
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
