"""Graph breaks: `.item()`, `print` and a Python `if` on a tensor split a compiled function.

The breaks live in dynamo, so the demonstration compiles with `backend="eager"` (no inductor).
"""

import io

import torch
import torch._dynamo

LOG = io.StringIO()  # stands in for the console: print() breaks the graph just the same


def step_as_written(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    y = torch.tanh(x @ w)
    print("tanh done", file=LOG)  # logging inside the compiled code
    scale = y.abs().max().item()  # a Python float
    if y.sum() > 0:  # a Python branch on a tensor value
        y = y * 2
    return y / scale


def step_fixed(x: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    y = torch.tanh(x @ w)
    scale = y.abs().amax()  # stays a tensor
    y = torch.where(y.sum() > 0, y * 2, y)  # both branches computed, one selected
    return y / scale, scale  # the caller logs `scale` after the compiled call


# One cause per function, to see what fullgraph=True does with each.
def uses_item(x: torch.Tensor) -> torch.Tensor:
    return x * x.sum().item()


def uses_print(x: torch.Tensor) -> torch.Tensor:
    print("x.shape:", x.shape, file=LOG)
    return x + 1


def uses_if(x: torch.Tensor) -> torch.Tensor:
    if x.sum() > 0:
        return x + 1
    return x - 1


def keeps_tensor(x: torch.Tensor) -> torch.Tensor:
    return x * x.sum()


def logs_outside(x: torch.Tensor) -> torch.Tensor:
    return x + 1


def uses_where(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x.sum() > 0, x + 1, x - 1)


def first_line_reasons(explanation) -> str:
    return "; ".join(str(b.reason).strip().splitlines()[0] for b in explanation.break_reasons)


def as_tuple(out) -> tuple:
    return out if isinstance(out, tuple) else (out,)


def fullgraph_error(fn, x: torch.Tensor) -> str:
    torch._dynamo.reset()
    try:
        torch.compile(fn, backend="eager", fullgraph=True)(x)
        return "no error"
    except Exception as err:  # torch._dynamo.exc.Unsupported / UserError
        return f"{type(err).__name__}: {err}"[:2000]


def report(step, item_fn, print_fn, if_fn, device: str) -> dict:
    torch.manual_seed(0)
    x = torch.randn(8, 4, device=device)
    w = torch.randn(4, 4, device=device)
    torch._dynamo.reset()
    explanation = torch._dynamo.explain(step)(x, w)
    torch._dynamo.reset()
    compiled = torch.compile(step, backend="eager")(x, w)
    eager = step(x, w)
    observations = {
        "graphs": explanation.graph_count,
        "graph_breaks": explanation.graph_break_count,
        "break_reasons": first_line_reasons(explanation),
        "matches_eager": all(map(torch.equal, as_tuple(compiled), as_tuple(eager))),
        "fullgraph_item": fullgraph_error(item_fn, x),
        "fullgraph_print": fullgraph_error(print_fn, x),
        "fullgraph_if": fullgraph_error(if_fn, x),
    }
    torch._dynamo.reset()  # nothing compiled outlives this side
    return observations


def problem(device: str) -> dict:
    return report(step_as_written, uses_item, uses_print, uses_if, device)


def fix(device: str) -> dict:
    return report(step_fixed, keeps_tensor, logs_outside, uses_where, device)


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
