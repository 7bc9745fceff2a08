"""`torch.jit.trace` records one execution: a Python `if` on a tensor value and a Python loop over
a size are frozen into the trace, and the traced model is wrong on other inputs."""

import warnings

import torch
from torch import nn


class PostprocessAsWritten(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.sum() > 0:  # a Python branch on a tensor value
            x = x * 2
        else:
            x = -x
        for _ in range(x.shape[0]):  # a Python loop over a size
            x = x + 1
        return x


class PostprocessFixed(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.where(x.sum() > 0, x * 2, -x)  # the choice is a tensor operation
        return x + x.shape[0]  # a size used in tensor arithmetic is recorded, not frozen


def trace(model: nn.Module, example: torch.Tensor):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # check_trace (on by default) re-traces with check_inputs, which default to the example
        # itself: it takes the same path. check_with() below runs the check with other inputs.
        traced = torch.jit.trace(model, example, check_trace=False)
    messages = [(w.category.__name__, str(w.message)) for w in caught]
    tracer = {text.split(". ")[0] for kind, text in messages if kind == "TracerWarning"}
    deprecation = [f"{kind}: {text}" for kind, text in messages if "deprecated" in text]
    return traced, sorted(tracer), deprecation[0][:300] if deprecation else "none"


def check_with(model: nn.Module, example: torch.Tensor, others: list) -> str:
    """Trace with check_inputs that take other paths: the sanity check compares the traces."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the warnings were collected by trace() already
        try:
            torch.jit.trace(model, example, check_inputs=[(t,) for t in others])
            return "no error"
        except torch.jit.TracingCheckError as err:
            return f"{type(err).__name__}: {err}"[:300]


def report(model: nn.Module, device: str) -> dict:
    example = torch.ones(3, 2, device=device)  # positive, batch of 3
    traced, tracer_warnings, deprecation = trace(model, example)
    negative = -torch.ones(3, 2, device=device)  # takes the other branch in eager
    batch_of_5 = torch.ones(5, 2, device=device)  # loops 5 times in eager
    return {
        "tracer_warnings": tracer_warnings,
        "negative_input_matches_eager": torch.equal(traced(negative), model(negative)),
        "batch_of_5_matches_eager": torch.equal(traced(batch_of_5), model(batch_of_5)),
        "jit_trace_deprecation": deprecation,
        "check_inputs_error": check_with(model, example, [negative, batch_of_5]),
    }


def problem(device: str) -> dict:
    return report(PostprocessAsWritten(), device)


def fix(device: str) -> dict:
    return report(PostprocessFixed(), device)


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
