"""Softmax fed into cross_entropy: the loss has a floor and the gradient almost vanishes."""

import math

import torch
import torch.nn.functional as F

C = 10  # classes


def make_batch(device: str):
    # Two predictions for class 0, as a model's last Linear layer would return them:
    # one sure and right (logit 30 for class 0), one sure and wrong (logit 8 for class 1).
    sure_right = torch.zeros(1, C, device=device)
    sure_right[0, 0] = 30.0
    sure_wrong = torch.zeros(1, C, device=device)
    sure_wrong[0, 1] = 8.0
    target = torch.tensor([0], device=device)
    return sure_right, sure_wrong.requires_grad_(), target


def problem(device: str) -> dict:
    """The model ends in nn.Softmax, and its output goes into cross_entropy / nll_loss."""
    sure_right, sure_wrong, target = make_batch(device)

    probs = F.softmax(sure_right, dim=1)  # what a model ending in nn.Softmax(dim=1) returns
    loss_right = F.cross_entropy(probs, target)  # cross_entropy applies log_softmax again

    loss_wrong = F.cross_entropy(F.softmax(sure_wrong, dim=1), target)
    loss_wrong.backward()

    # nll_loss wants log-probabilities; given logits or probabilities it returns -input[target].
    nll_on_logits = F.nll_loss(sure_right, target)
    nll_on_probs = F.nll_loss(probs, target)
    return {
        "loss_when_sure_and_right": round(loss_right.item(), 5),
        "loss_when_sure_and_wrong": round(loss_wrong.item(), 5),
        "grad_when_sure_and_wrong": round(sure_wrong.grad.abs().max().item(), 5),
        "nll_on_logits": round(nll_on_logits.item(), 5),
        "nll_on_probs": round(nll_on_probs.item(), 5),
    }


def fix(device: str) -> dict:
    """Raw logits into cross_entropy, or log_softmax + nll_loss."""
    sure_right, sure_wrong, target = make_batch(device)

    loss_right = F.cross_entropy(sure_right, target)  # raw logits, no softmax
    loss_wrong = F.cross_entropy(sure_wrong, target)
    loss_wrong.backward()

    # The same loss in two steps, for a model that must output log-probabilities.
    log_probs = F.log_softmax(sure_right, dim=1)
    nll = F.nll_loss(log_probs, target)
    return {
        "loss_when_sure_and_right": round(loss_right.item(), 5),
        "loss_when_sure_and_wrong": round(loss_wrong.item(), 5),
        "grad_when_sure_and_wrong": round(sure_wrong.grad.abs().max().item(), 5),
        "log_softmax_nll_matches_cross_entropy": math.isclose(
            nll.item(), loss_right.item(), abs_tol=1e-6
        ),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
