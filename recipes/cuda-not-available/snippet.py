"""`.cuda()` fails where no GPU is visible; pick the device at run time instead."""

import multiprocessing
import os
import sys

import torch


def hard_coded() -> dict:
    """A script copied from a GPU tutorial."""
    try:
        torch.randn(2, 3).cuda()  # the line copied from the tutorial
        error = "no error"
    except Exception as err:
        error = f"{type(err).__name__}: {err}"[:2000]
    return {"cuda_call": error, "torch_version_cuda": torch.version.cuda}


def device_agnostic() -> dict:
    """The same script, device-agnostic: ask torch where it can run, then use that device."""
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = torch.nn.Linear(3, 1).to(device)
    x = torch.randn(2, 3, device=device)
    try:
        torch.randn(2, 3).to(device)  # the tutorial's .cuda() line, made device-agnostic
        error = "no error"
    except Exception as err:
        error = f"{type(err).__name__}: {err}"[:2000]
    loss = model(x).pow(2).mean()
    loss.backward()
    return {
        "cuda_call": error,
        "cuda_is_available": torch.cuda.is_available(),
        "cuda_device_count": torch.cuda.device_count(),
        "ran_on": loss.device.type,
        "loss_is_finite": bool(torch.isfinite(loss)),
    }


def _hide_gpus_and_run(body, send) -> None:
    # Hide every GPU before anything in this process starts CUDA: the same situation as a
    # laptop, a CPU-only server, a CPU-only wheel, or a container started without `--gpus`.
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    send.send(body())
    send.close()


def run_without_gpu(body) -> dict:
    # CUDA reads CUDA_VISIBLE_DEVICES once, when it starts in a process. A forked child can
    # start CUDA itself only if this process has not touched the CUDA runtime (see cuda-fork);
    # on a CUDA build even `torch.cuda.is_available()` may have, so the child must then be a
    # fresh interpreter ("spawn"), which imports torch again. A CPU-only build can fork.
    cuda_build = torch.version.cuda is not None
    method = "spawn" if cuda_build or torch.cuda.is_initialized() else None
    context = multiprocessing.get_context(method)
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_hide_gpus_and_run, args=(body, send))
    child.start()
    send.close()
    try:
        if not receive.poll(120):
            return {"child_failed": "no answer within 120 s"}
        return receive.recv()
    except EOFError:  # the child died before it answered
        child.join(10)
        return {"child_failed": f"exit code {child.exitcode}"}
    finally:
        receive.close()
        child.join(10)
        if child.is_alive():
            child.kill()
            child.join()


def problem(device: str) -> dict:
    # `device` is not used: the point is a machine where there is no GPU to pick.
    return run_without_gpu(hard_coded)


def fix(device: str) -> dict:
    return run_without_gpu(device_agnostic)


if __name__ == "__main__":
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
