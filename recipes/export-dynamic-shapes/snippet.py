"""An example input of batch size 1 specialises the batch dimension of a torch.export program.

torch.export traces with the same symbolic shapes as torch.compile, where sizes 0 and 1 are
always specialised: a batch of 1 cannot stand for "any batch size".
"""

import torch
import torch._dynamo
from torch import nn
from torch.export import Dim, export


class Head(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.lin(x)


def export_then_run(example: torch.Tensor, batch_dim) -> str:
    """Export with `batch_dim` for dimension 0 (None: no dynamic_shapes), then run batches 3, 1."""
    torch.manual_seed(0)
    model = Head().to(example.device)
    shapes = None if batch_dim is None else {"x": {0: batch_dim}}
    try:
        program = export(model, (example,), dynamic_shapes=shapes)
        for batch in (3, 1):
            program.module()(torch.randn(batch, 4, device=example.device))
        return "no error"
    except Exception as err:  # UserError / ValueError at export, a guard error at the call
        return f"{type(err).__name__}: {err}"[:2000]


def report(example: torch.Tensor) -> dict:
    hints = hasattr(Dim, "AUTO") and hasattr(Dim, "DYNAMIC")  # both after 2.4 (2.5: AUTO only)
    torch._dynamo.reset()  # strict export (the default on 2.4/2.6) traces with dynamo
    observations = {
        "without_dynamic_shapes": export_then_run(example, None),
        "with_dim": export_then_run(example, Dim("batch")),
        "with_dim_dynamic": export_then_run(example, Dim.DYNAMIC) if hints else "n/a",
        "with_dim_auto": export_then_run(example, Dim.AUTO) if hints else "n/a",
    }
    torch._dynamo.reset()  # nothing traced outlives this side
    return observations


def problem(device: str) -> dict:
    return report(torch.randn(1, 4, device=device))  # one sample, as in many export scripts


def fix(device: str) -> dict:
    return report(torch.randn(2, 4, device=device))  # any batch size >= 2


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
