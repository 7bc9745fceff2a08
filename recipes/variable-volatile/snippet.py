"""Pre-0.4 evaluation code: `Variable(x, volatile=True)` does nothing, so the graph is built."""

import torch
from torch import nn
from torch.autograd import Variable


def make(device: str):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10)).to(device)
    batches = [torch.randn(32, 64, device=device) for _ in range(5)]
    return model.eval(), batches


class SavedBytes:
    """Counts the bytes autograd keeps for backward (activations, not the weights)."""

    def __init__(self, model: nn.Module) -> None:
        self.seen = {p.data_ptr() for p in model.parameters()}
        self.total = 0

    def pack(self, t: torch.Tensor) -> torch.Tensor:
        if t.data_ptr() not in self.seen:  # count each tensor once, even if saved twice
            self.seen.add(t.data_ptr())
            self.total += t.numel() * t.element_size()
        return t

    def hooks(self):
        return torch.autograd.graph.saved_tensors_hooks(self.pack, lambda t: t)


def problem(device: str) -> dict:
    model, batches = make(device)
    saved = SavedBytes(model)
    outputs = []
    with saved.hooks():
        for batch in batches:
            inp = Variable(batch, volatile=True)  # 0.3-era "inference mode": a no-op now
            out = model(inp)
            outputs.append(out)  # each output keeps its whole graph alive
    return {
        "variable_returns": type(Variable(batches[0])).__name__,
        "volatile_flag_reads": inp.volatile,
        "output_requires_grad": outputs[-1].requires_grad,
        "output_has_grad_fn": outputs[-1].grad_fn is not None,
        "bytes_kept_for_backward": saved.total,
    }


def fix(device: str) -> dict:
    model, batches = make(device)
    saved = SavedBytes(model)
    outputs = []
    with saved.hooks(), torch.no_grad():
        for batch in batches:
            out = model(batch)  # plain tensors: no Variable needed since 0.4
            outputs.append(out)
    with torch.inference_mode():  # stricter and slightly faster, for pure inference
        inference_out = model(batches[0])
    return {
        "output_requires_grad": outputs[-1].requires_grad,
        "output_has_grad_fn": outputs[-1].grad_fn is not None,
        "bytes_kept_for_backward": saved.total,
        "inference_output_is_inference": inference_out.is_inference(),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
