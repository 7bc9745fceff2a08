"""An RNN hidden state carried across batches drags the previous batch's freed graph along."""

import torch
from torch import nn

BATCHES = 5


def setup(device: str):
    torch.manual_seed(0)
    rnn = nn.RNN(4, 8, batch_first=True).to(device)
    head = nn.Linear(8, 1).to(device)
    opt = torch.optim.SGD([*rnn.parameters(), *head.parameters()], lr=0.01)
    # One long sequence, cut into consecutive chunks of 5 time steps (truncated BPTT).
    xs = torch.randn(BATCHES, 2, 5, 4, device=device)
    ys = torch.randn(BATCHES, 2, 5, 1, device=device)
    h = torch.zeros(1, 2, 8, device=device)
    return rnn, head, opt, xs, ys, h


def train(device: str, detach_hidden: bool, retain_graph: bool = False) -> tuple:
    """Returns how many batches trained, and the error that stopped training (or "no error")."""
    rnn, head, opt, xs, ys, h = setup(device)
    for i in range(BATCHES):
        if detach_hidden:
            h = h.detach()  # keep the values, drop the link to the previous batch's graph
        opt.zero_grad()
        out, h = rnn(xs[i], h)
        loss = nn.functional.mse_loss(head(out), ys[i])
        try:
            loss.backward(retain_graph=retain_graph)
        except RuntimeError as err:
            return i, f"{type(err).__name__}: {err}"[:2000]
        opt.step()
    return BATCHES, "no error"


def problem(device: str) -> dict:
    trained, error = train(device, detach_hidden=False)
    # The usual advice from the error message itself: retain the graph.
    trained_retain, error_retain = train(device, detach_hidden=False, retain_graph=True)

    # Two losses on a shared trunk, each with its own backward().
    torch.manual_seed(0)
    trunk, head_a, head_b = nn.Linear(4, 8), nn.Linear(8, 1), nn.Linear(8, 1)
    trunk, head_a, head_b = trunk.to(device), head_a.to(device), head_b.to(device)
    x = torch.randn(3, 4, device=device)
    feats = torch.tanh(trunk(x))
    loss_a, loss_b = head_a(feats).sum(), head_b(feats).sum()
    loss_a.backward()
    try:
        loss_b.backward()  # the trunk's part of the graph was freed by the first call
        two_losses = "no error"
    except RuntimeError as err:
        two_losses = f"{type(err).__name__}: {err}"[:2000]
    return {
        "batches_trained": trained,
        "error": error,
        "batches_trained_with_retain_graph": trained_retain,
        "error_with_retain_graph": error_retain,
        "two_losses_two_backwards": two_losses,
    }


def fix(device: str) -> dict:
    trained, error = train(device, detach_hidden=True)

    torch.manual_seed(0)
    trunk, head_a, head_b = nn.Linear(4, 8), nn.Linear(8, 1), nn.Linear(8, 1)
    trunk, head_a, head_b = trunk.to(device), head_a.to(device), head_b.to(device)
    x = torch.randn(3, 4, device=device)
    feats = torch.tanh(trunk(x))
    loss_a, loss_b = head_a(feats).sum(), head_b(feats).sum()
    (loss_a + loss_b).backward()  # one backward through the shared part
    summed = trunk.weight.grad.clone()

    # retain_graph=True is for a real second pass over an unchanged graph: same gradient.
    trunk.weight.grad = None
    feats = torch.tanh(trunk(x))
    loss_a, loss_b = head_a(feats).sum(), head_b(feats).sum()
    loss_a.backward(retain_graph=True)
    loss_b.backward()
    return {
        "batches_trained": trained,
        "error": error,
        "summed_losses_grad_matches_two_backwards": torch.allclose(summed, trunk.weight.grad),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
