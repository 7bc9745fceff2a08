"""`.to("mps")` where MPS is not usable; pick the device at run time and find out why."""

import platform
import subprocess
import sys

import torch


def why_no_mps() -> str:
    """The first reason, in the order they matter, that this Python cannot use MPS."""
    if torch.backends.mps.is_available():
        return "available"
    if sys.platform != "darwin":
        return f"not macOS ({sys.platform}): MPS is Apple's GPU backend"
    if platform.machine() == "x86_64":
        # An x86_64 Python on Apple silicon runs under Rosetta 2; the kernel says so.
        translated = subprocess.run(
            ["sysctl", "-n", "sysctl.proc_translated"], capture_output=True, text=True
        ).stdout.strip()
        if translated == "1":
            return "x86_64 Python under Rosetta: install an arm64 Python, then torch again"
        return "Intel Mac without a GPU that MPS accepts (Apple silicon or an AMD GPU)"
    if not torch.backends.mps.is_built():
        return "this torch build has no MPS (a source build without USE_MPS?)"
    if not torch.backends.mps.is_available():
        # torch gives the same answer (and the same "supported on macOS 1x.0+" message)
        # when the macOS is too old and when this process sees no Metal device at all.
        return (
            f"MPS built, but not usable on macOS {platform.mac_ver()[0]}: check the minimum, "
            "and that this process can reach the GPU (not a sandbox or a VM)"
        )


def train_step(device: str) -> dict:
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1).to(device)
    loss = model(torch.randn(4, 3, device=device)).pow(2).mean()
    loss.backward()
    return {"ran_on": loss.device.type, "loss_is_finite": bool(torch.isfinite(loss))}


def problem(device: str) -> dict:
    # A script from a Mac tutorial, run where MPS is not usable.
    try:
        torch.ones(2).to("mps")
        to_device = "no error"
    except (RuntimeError, NotImplementedError) as err:
        to_device = f"{type(err).__name__}: {err}"[:2000]
    return {"to_device": to_device, "mps_is_built": torch.backends.mps.is_built()}


def fix(device: str) -> dict:
    # Ask first, use what is there, and say why when it is not MPS.
    chosen = "mps" if torch.backends.mps.is_available() else "cpu"
    try:
        torch.ones(2).to(chosen)
        to_device = "no error"
    except (RuntimeError, NotImplementedError) as err:
        to_device = f"{type(err).__name__}: {err}"[:2000]
    return {
        "to_device": to_device,
        "mps_is_built": torch.backends.mps.is_built(),
        "why_no_mps": why_no_mps(),
        **train_step(chosen),
    }


if __name__ == "__main__":
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
