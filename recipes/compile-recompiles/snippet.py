"""A step counter kept as an int attribute of a compiled module recompiles it every step.

Recompiles are decided by dynamo's guards, so the snippet compiles with a counting backend
that runs the graph as is (no inductor): the count is the number of graphs compiled.
"""

import logging

import torch
import torch._dynamo
from torch import nn

STEPS = 12  # more steps than the recompile limit (8 by default)


class WarmupAsWritten(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.step = 2  # a Python int, bumped after every step

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.lin(x) * min(1.0, self.step / 100)


class WarmupFixed(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.register_buffer("step", torch.tensor(2.0))  # a tensor, updated in place

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.lin(x) * torch.clamp(self.step / 100, max=1.0)


def scaled(x: torch.Tensor, n: int) -> torch.Tensor:
    return x * n


class LimitMessages(logging.Handler):
    """Collects dynamo's log records: the recompile limit is a log message, not a warning."""

    def __init__(self) -> None:
        super().__init__()
        self.messages = []

    def emit(self, record: logging.LogRecord) -> None:
        if "hit config." in record.getMessage():
            self.messages.append(record.getMessage())


def run(model_cls, dynamic, device: str) -> dict:
    compiled_graphs = []

    def counting_backend(gm, example_inputs):
        compiled_graphs.append(gm)
        return gm.forward

    handler = LimitMessages()
    dynamo_log = logging.getLogger("torch._dynamo")
    dynamo_log.addHandler(handler)
    try:
        torch.manual_seed(0)
        x = torch.randn(2, 4, device=device)
        torch._dynamo.reset()
        model = model_cls().to(device)
        step = torch.compile(model, backend=counting_backend)
        for _ in range(STEPS):
            step(x)
            model.step += 1  # int: a new value; buffer: the same tensor, changed in place
        module_compiles = len(compiled_graphs)

        torch._dynamo.reset()
        compiled_graphs.clear()
        fn = torch.compile(scaled, backend=counting_backend, dynamic=dynamic)
        for n in range(2, 2 + STEPS):  # 0 and 1 are always specialised: start at 2
            fn(x, n)
        int_arg_compiles = len(compiled_graphs)
    finally:
        dynamo_log.removeHandler(handler)
        torch._dynamo.reset()  # nothing compiled outlives this side
    return {
        "module_compiles": module_compiles,
        "int_arg_compiles": int_arg_compiles,
        "limit_messages": len(handler.messages),
        "limit_message": handler.messages[0] if handler.messages else "none",
    }


def problem(device: str) -> dict:
    return run(WarmupAsWritten, False, device)  # int attribute; dynamic=False for the int


def fix(device: str) -> dict:
    return run(WarmupFixed, None, device)  # tensor buffer; the default: automatic dynamic


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
