"""A hook registered on a submodule after a compiled model has run is silently ignored, while
train()/eval() and attribute changes are seen (they fail a guard and recompile).

Hooks and guards live in dynamo, so the snippet compiles with `backend="eager"` (no inductor).
"""

import torch
import torch._dynamo
from torch import nn


def make_model(device: str) -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.ReLU(), nn.Linear(8, 2)).to(device)


def capture_into(store: list):
    def hook(module, inputs, output):
        store.append(output.detach())

    return hook


def run(device: str, hook_before_first_call: bool) -> dict:
    torch._dynamo.reset()
    model = make_model(device)
    x = torch.randn(16, 4, device=device)
    features = []
    if hook_before_first_call:
        model[0].register_forward_hook(capture_into(features))
    compiled = torch.compile(model, backend="eager")
    compiled(x)  # first call: dynamo traces with the hooks registered now
    if not hook_before_first_call:
        model[0].register_forward_hook(capture_into(features))  # e.g. feature extraction
    features.clear()
    compiled(x)  # the next training step
    calls_next_step = len(features)
    features.clear()
    model.eval()  # a state change dynamo guards on: this call recompiles
    out = compiled(x)
    calls_after_eval = len(features)
    observations = {
        "hook_calls_next_step": calls_next_step,
        "hook_calls_after_eval": calls_after_eval,
        "eval_matches_eager": torch.equal(out, model(x)),  # dropout off, as in eager
    }
    torch._dynamo.reset()  # nothing compiled outlives this side
    return observations


def problem(device: str) -> dict:
    return run(device, hook_before_first_call=False)


def fix(device: str) -> dict:
    return run(device, hook_before_first_call=True)


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
