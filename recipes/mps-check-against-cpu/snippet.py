"""Find the layer where a device leaves the float64 CPU reference: compare layer by layer."""

import copy
import sys

import torch
from torch import nn


class NaiveNorm(nn.Module):
    """A hand-written batch norm with var = E[x^2] - E[x]^2: fine in float64, cancels in float32."""

    def forward(self, x):
        mean = x.mean(dim=0, keepdim=True)
        var = (x * x).mean(dim=0, keepdim=True) - mean * mean
        return (x - mean) / torch.sqrt(var.clamp_min(0) + 1e-5)


class StableNorm(nn.Module):
    """The same normalisation, with the variance computed around the mean."""

    def forward(self, x):
        mean = x.mean(dim=0, keepdim=True)
        var = (x - mean).pow(2).mean(dim=0, keepdim=True)
        return (x - mean) / torch.sqrt(var + 1e-5)


def build(norm: nn.Module) -> nn.Sequential:
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Linear(16, 32), norm, nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 4)
    )


def run_recording(model: nn.Module, x: torch.Tensor) -> tuple:
    """Forward and backward once; keep every layer's output and every parameter's gradient."""
    outputs = {}
    hooks = [
        layer.register_forward_hook(
            lambda mod, inp, out, name=name: outputs.__setitem__(name, out.detach())
        )
        for name, layer in model.named_children()
    ]
    try:
        model(x).pow(2).mean().backward()
    finally:
        for hook in hooks:
            hook.remove()
    grads = {name: p.grad.detach() for name, p in model.named_parameters()}
    return outputs, grads


def rel_error(test: torch.Tensor, ref: torch.Tensor) -> float:
    """Largest difference, relative to the reference tensor's own scale."""
    diff = (test.detach().cpu().double() - ref).abs().max()
    return float(diff / ref.abs().max().clamp_min(1e-30))


def compare_with_reference(model: nn.Module, x: torch.Tensor, device: str, tol=1e-3) -> dict:
    """Run `model` in float32 on `device` and in float64 on the CPU, with the same weights,
    and report each layer's output error and each gradient's error against the float64 run."""
    reference = copy.deepcopy(model).double()
    under_test = copy.deepcopy(model).to(device=device, dtype=torch.float32)
    x = x.float()  # both runs start from the same float32 values: only the arithmetic differs
    ref_out, ref_grads = run_recording(reference, x.double())
    test_out, test_grads = run_recording(under_test, x.to(device))
    layer_errors = [rel_error(test_out[name], ref_out[name]) for name in ref_out]
    # A gradient that is zero in exact arithmetic (the bias before a batch norm) is pure
    # rounding noise in both runs: leave it out rather than divide by it.
    grad_errors = [
        rel_error(test_grads[name], ref_grads[name])
        for name in ref_grads
        if ref_grads[name].abs().max() > 1e-12
    ]
    bad = [name for name, err in zip(ref_out, layer_errors) if err > tol]
    names = [f"{name} ({type(layer).__name__})" for name, layer in model.named_children()]
    return {
        "layers": names,
        "layer_rel_errors": [float(f"{e:.2e}") for e in layer_errors],
        "worst_grad_rel_error": float(f"{max(grad_errors):.2e}"),
        "first_layer_over_tolerance": names[list(ref_out).index(bad[0])] if bad else "none",
        "outputs_match": layer_errors[-1] <= tol,
        "grads_match": max(grad_errors) <= tol,
    }


def inputs() -> torch.Tensor:
    # Features with a large common offset (raw sensor readings, unnormalised prices, pixel sums).
    g = torch.Generator().manual_seed(0)
    return 200.0 + torch.randn(64, 16, generator=g, dtype=torch.float64)


def problem(device: str) -> dict:
    return compare_with_reference(build(NaiveNorm()), inputs(), device)


def fix(device: str) -> dict:
    # The layer the comparison named, rewritten; the rest of the model is unchanged.
    return compare_with_reference(build(StableNorm()), inputs(), device)


if __name__ == "__main__":
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
