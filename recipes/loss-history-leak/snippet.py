"""`total += loss` chains every step's autograd graph onto a running total; `.item()` does not."""

import weakref

import torch
import torch.nn.functional as F
from torch import nn

STEPS = 20


def graph_nodes(t) -> int:
    """How many autograd nodes are reachable from `t` (0 for a float or a detached tensor)."""
    if not isinstance(t, torch.Tensor) or t.grad_fn is None:
        return 0
    seen, stack = set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        stack.extend(child for child, _ in node.next_functions)
    return len(seen)


def setup(device: str):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 1)).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    xs = torch.randn(STEPS, 16, 8, device=device)
    ys = torch.randn(STEPS, 16, 1, device=device)
    # Watch the hidden activations (the ReLU output) without keeping them alive ourselves.
    hidden = []
    model[1].register_forward_hook(lambda mod, inp, out: hidden.append(weakref.ref(out)))
    return model, opt, xs, ys, hidden


def kib_alive(hidden) -> float:
    alive = [ref() for ref in hidden]
    return sum(t.numel() * t.element_size() for t in alive if t is not None) / 1024


def problem(device: str) -> dict:
    model, opt, xs, ys, hidden = setup(device)
    nodes = []
    total_loss = 0
    for step in range(STEPS):
        opt.zero_grad()
        loss = F.mse_loss(model(xs[step]), ys[step])
        loss.backward()
        opt.step()
        total_loss += loss  # BUG: a tensor with grad_fn; the graph of every step hangs on it
        nodes.append(graph_nodes(total_loss))
    # backward() freed what each step saved; only the graph's nodes pile up.
    train_kib = kib_alive(hidden)

    # Validation without torch.no_grad(): no backward ever frees the saved activations.
    hidden.clear()
    kib = []
    val_loss = 0
    for step in range(STEPS):
        val_loss += F.mse_loss(model(xs[step]), ys[step])
        kib.append(kib_alive(hidden))

    return {
        "total_loss_type": type(total_loss).__name__,
        "total_loss_requires_grad": bool(total_loss.requires_grad),
        "graph_nodes_after_first_step": nodes[0],
        "train_activation_kib_after_last_step": train_kib,
        "graph_nodes_after_last_step": nodes[-1],
        "graph_nodes_per_step": {
            "x": list(range(1, STEPS + 1)),
            "y": {"total_loss += loss": nodes},
        },
        "val_activation_kib_after_last_step": kib[-1],
        "val_activation_kib_per_step": {
            "x": list(range(1, STEPS + 1)),
            "y": {"val_loss += loss": kib},
        },
    }


def fix(device: str) -> dict:
    model, opt, xs, ys, hidden = setup(device)
    nodes = []
    total_loss = 0.0
    total_on_device = torch.zeros((), device=device)
    for step in range(STEPS):
        opt.zero_grad()
        loss = F.mse_loss(model(xs[step]), ys[step])
        loss.backward()
        opt.step()
        total_loss += loss.item()  # a Python float: no graph attached
        total_on_device += loss.detach()  # or stay on the device, without a sync per step
        nodes.append(graph_nodes(total_loss))

    hidden.clear()
    kib = []
    val_loss = 0.0
    for step in range(STEPS):
        val_loss += F.mse_loss(model(xs[step]), ys[step]).item()
        kib.append(kib_alive(hidden))
    with torch.no_grad():  # better still: no graph is recorded at all
        no_grad_out = model(xs[0])

    return {
        "total_loss_type": type(total_loss).__name__,
        "graph_nodes_after_last_step": nodes[-1],
        "graph_nodes_per_step": {
            "x": list(range(1, STEPS + 1)),
            "y": {"total_loss += loss.item()": nodes},
        },
        "detached_total_requires_grad": bool(total_on_device.requires_grad),
        "detached_total_matches_item_total": abs(total_on_device.item() - total_loss) < 1e-3,
        "val_activation_kib_after_last_step": kib[-1],
        "val_activation_kib_per_step": {
            "x": list(range(1, STEPS + 1)),
            "y": {"val_loss += loss.item()": kib},
        },
        "no_grad_output_has_grad_fn": no_grad_out.grad_fn is not None,
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
