"""torch.export fails on a Python branch that depends on tensor values.

torch.export captures the graph with the same machinery as torch.compile (dynamo and symbolic
shapes), but it must produce one graph for every input, so it cannot keep one branch and guard.
"""

import torch
import torch._dynamo
from torch import nn
from torch.export import export


class SignAsWritten(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.sum() > 0:  # a Python branch on a tensor value
            return x + 1
        return x - 1


class CountAsWritten(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hits = x.nonzero()  # its number of rows depends on the values
        if hits.shape[0] > 2:  # a Python branch on a data-dependent size
            return x * 2
        return x


class SignFixed(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cond(x.sum() > 0, lambda t: t + 1, lambda t: t - 1, (x,))


class CountFixed(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hits = (x != 0).sum()  # a tensor, whatever the values
        return torch.where(hits > 2, x * 2, x)


def export_and_check(model: nn.Module, example: torch.Tensor, other: torch.Tensor) -> tuple:
    try:
        program = export(model, (example,))
    except Exception as err:  # GuardOnDataDependentSymNode / UserError
        return f"{type(err).__name__}: {err}"[:2000], False
    return "no error", torch.equal(program.module()(other), model(other))


def report(sign_model: nn.Module, count_model: nn.Module, device: str) -> dict:
    torch._dynamo.reset()  # strict export (the default on 2.4/2.6) traces with dynamo
    ones = torch.ones(4, device=device)
    sign, sign_ok = export_and_check(sign_model, ones, -ones)  # the other branch
    sparse = torch.tensor([0.0, 0.0, 0.0, 1.0], device=device)
    count, count_ok = export_and_check(count_model, ones, sparse)
    torch._dynamo.reset()  # nothing traced outlives this side
    return {
        "branch_on_value": sign,
        "branch_on_value_other_input_ok": sign_ok,
        "branch_on_count": count,
        "branch_on_count_other_input_ok": count_ok,
    }


def problem(device: str) -> dict:
    return report(SignAsWritten(), CountAsWritten(), device)


def fix(device: str) -> dict:
    return report(SignFixed(), CountFixed(), device)


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
