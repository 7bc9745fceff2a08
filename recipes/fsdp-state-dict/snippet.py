"""FSDP2: a full state dict is a collective, and a sharded one is no checkpoint of the model."""

import multiprocessing as mp
import os
import socket
import sys
import tempfile
from datetime import timedelta

import torch
import torch._dynamo  # noqa: F401 - FSDP imports it: import it once, before forking the ranks
import torch.distributed as dist
from torch import nn
from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp import fully_shard

FULL = StateDictOptions(full_state_dict=True, cpu_offload=True)
HANG_TIMEOUT = timedelta(seconds=1.5)  # the default is 30 minutes: the hang ends here
SETUP_TIMEOUT = timedelta(seconds=20)  # everything else: no race on a busy CPU


def net() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2))


def probe() -> torch.Tensor:
    return torch.linspace(-1, 1, 8).reshape(2, 4)


def train_and_save(rank: int, how: str, path: str, short_wait) -> dict:
    """Runs on every rank: shard the model over 2 ranks, train a step, save a checkpoint."""
    model = net()
    mesh = init_device_mesh("cpu", (2,))  # one dimension: shard over both ranks (gloo)
    for layer in (model[0], model[2], model):
        fully_shard(layer, mesh=mesh)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    torch.manual_seed(1 + rank)
    model(torch.randn(8, 4)).pow(2).mean().backward()
    optimizer.step()
    with torch.no_grad():
        expected = model(probe()).tolist()  # a forward is a collective too: every rank runs it
    report = {"expected": expected, "error": "no error", "keys": None}
    try:
        if how == "rank 0 gathers":
            if rank == 0:  # the full state dict gathers from every rank: rank 1 is not there
                torch.save(get_model_state_dict(model, options=FULL), path)
            dist.barrier(group=short_wait)  # rank 1 waits here, rank 0 in the gather: a hang
        elif how == "sharded":
            state = model.state_dict()  # DTensor shards, each rank holding half of each weight
            report["keys"] = {type(v).__name__ for v in state.values()}.pop()
            if rank == 0:
                torch.save(state, path)
            dist.barrier()
        else:  # every rank takes part; with cpu_offload only rank 0 gets the tensors
            state = get_model_state_dict(model, options=FULL)
            report["keys"] = len(state)
            if rank == 0:
                torch.save(state, path)
            dist.barrier()  # the others wait until the file is written
    except RuntimeError as err:
        report["error"] = f"{type(err).__name__}: {err}"[:2000]
        return report
    try:  # FSDP1, for comparison: it wants an accelerator (GPU) on every rank
        FSDP(net())
        report["fsdp1"] = "no error"
    except RuntimeError as err:
        report["fsdp1"] = f"{type(err).__name__}: {err}"[:300]
    return report


def rank_main(rank: int, port: int, conn, how: str, path: str) -> None:
    os.environ["GLOO_SOCKET_IFNAME"] = "lo0" if sys.platform == "darwin" else "lo"
    try:
        dist.init_process_group(
            "gloo",
            init_method=f"tcp://127.0.0.1:{port}",
            rank=rank,
            world_size=2,
            timeout=SETUP_TIMEOUT,
        )
        # The wait that hangs gets the short timeout: a group of the same ranks for rank 1's
        # barrier. Rank 0's gather keeps the long one, so rank 1 always times out first.
        short_wait = dist.new_group([0, 1], timeout=HANG_TIMEOUT)
        conn.send(train_and_save(rank, how, path, short_wait))
    except Exception as err:
        conn.send({"error": f"{type(err).__name__}: {err}"[:2000]})
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()
        conn.close()
        sys.stdout.flush()
        os._exit(0)  # reported and cleaned up: skip exit handlers that can wait on torch threads


def on_two_ranks(how: str, path: str) -> list:
    """Start two gloo ranks on localhost, run `how` on both, collect both reports."""
    with socket.socket() as sock:  # a free port: bind port 0, read what the OS gave
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    ctx = mp.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    procs, conns = [], []
    try:
        for rank in range(2):
            receiver, sender = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=rank_main, args=(rank, port, sender, how, path))
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


def load_into_plain_model(path: str, expected) -> tuple:
    """Where a checkpoint ends up: a single process, an ordinary nn.Module."""
    model = net()
    try:
        model.load_state_dict(torch.load(path, weights_only=True))
    except (RuntimeError, OSError) as err:  # OSError: no file was written
        return f"{type(err).__name__}: {err}"[:2000], None
    with torch.no_grad():
        return "no error", torch.allclose(model(probe()), torch.tensor(expected))


def problem(device: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        hang = on_two_ranks("rank 0 gathers", os.path.join(tmp, "full.pt"))
        sharded = on_two_ranks("sharded", os.path.join(tmp, "sharded.pt"))
        load_error, _ = load_into_plain_model(os.path.join(tmp, "sharded.pt"), None)
    return {
        # Rank 1 gave up at the barrier after 1.5 s; rank 0, in the gather, then saw it leave.
        "full_state_dict_error": hang[1].get("error"),
        "state_dict_values": sharded[0].get("keys"),
        "load_error": load_error,
    }


def fix(device: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "full.pt")
        ranks = on_two_ranks("every rank gathers", path)
        load_error, same_outputs = load_into_plain_model(path, ranks[0].get("expected"))
    return {
        "full_state_dict_error": ranks[1]["error"],
        "keys_per_rank": [r.get("keys") for r in ranks],
        "load_error": load_error,
        "loaded_model_matches_trained": same_outputs,
        "fsdp1_on_this_machine": ranks[0].get("fsdp1"),
    }


if __name__ == "__main__":
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
