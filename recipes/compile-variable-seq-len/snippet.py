"""Batches padded to their own longest sequence give a static-shape compiled model (dynamic=False,
as used for CUDA graphs and fixed-shape kernels) a new shape almost every step: one compile per
length, until the recompile limit sends it back to eager. Padding to a few bucket lengths bounds
the number of graphs.

Shapes and recompiles are dynamo's business, so the snippet compiles with a counting backend
that runs the graph as is (no inductor).
"""

import logging

import torch
import torch._dynamo
from torch import nn

BUCKET = 16  # pad every batch up to a multiple of 16 tokens


class Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(100, 8)
        self.proj = nn.Linear(8, 8)

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        h = torch.tanh(self.proj(self.embed(tokens))) * mask.unsqueeze(-1)
        return h.sum(dim=1) / mask.sum(dim=1, keepdim=True)  # mean over the real tokens


def batches(device: str) -> list:
    g = torch.Generator().manual_seed(0)
    lengths = torch.randint(4, 64, (16, 2), generator=g)  # 16 batches of 2 sequences
    out = []
    for row in lengths:
        seqs = [torch.randint(1, 100, (int(n),), generator=g) for n in row]
        out.append(seqs)
    return out


def pad(seqs: list, length: int, device: str) -> tuple:
    tokens = torch.zeros(len(seqs), length, dtype=torch.long)
    mask = torch.zeros(len(seqs), length)
    for i, s in enumerate(seqs):
        tokens[i, : len(s)] = s
        mask[i, : len(s)] = 1.0
    return tokens.to(device), mask.to(device)


class LimitMessages(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += "hit config." in record.getMessage()


def run(device: str, to_length) -> dict:
    graphs = []

    def counting_backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch.manual_seed(0)
    model = Encoder().to(device)
    handler = LimitMessages()
    dynamo_log = logging.getLogger("torch._dynamo")
    dynamo_log.addHandler(handler)
    torch._dynamo.reset()
    try:
        compiled = torch.compile(model, backend=counting_backend, dynamic=False)
        shapes, same = set(), True
        for seqs in batches(device):
            tokens, mask = pad(seqs, to_length(max(len(s) for s in seqs)), device)
            shapes.add(tokens.shape[1])
            reference = model(*pad(seqs, max(len(s) for s in seqs), device))
            same &= torch.allclose(compiled(tokens, mask), reference, atol=1e-6)
    finally:
        dynamo_log.removeHandler(handler)
        torch._dynamo.reset()  # nothing compiled outlives this side
    return {
        "padded_lengths": len(shapes),
        "compiles": len(graphs),
        "limit_messages": handler.count,
        "matches_eager": bool(same),
    }


def problem(device: str) -> dict:
    return run(device, lambda longest: longest)  # pad each batch to its own longest sequence


def fix(device: str) -> dict:
    return run(device, lambda longest: -(-longest // BUCKET) * BUCKET)  # round up to a bucket


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
