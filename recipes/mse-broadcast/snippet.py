"""(N, 1) predictions against (N,) targets broadcast to (N, N): a wrong loss with only a warning."""

import torch
import torch.nn.functional as F


def make_batch(device: str):
    # A regression head, nn.Linear(in_features, 1), returns (N, 1); the targets are (N,).
    # These predictions are perfect: every one equals its target.
    pred = torch.tensor([[1.0], [2.0], [3.0], [4.0]], device=device, requires_grad=True)
    target = torch.tensor([1.0, 2.0, 3.0, 4.0], device=device)
    # A binary classifier: one logit per sample, (N, 1); labels (N,). Three of four right.
    logit = torch.tensor([[2.0], [-1.0], [0.5], [3.0]], device=device)
    label = torch.tensor([1, 0, 0, 1], device=device)
    return pred, target, logit, label


def problem(device: str) -> dict:
    pred, target, logit, label = make_batch(device)
    loss = F.mse_loss(pred, target)  # UserWarning, then (N, 1) - (N,) -> (N, N)
    loss.backward()

    # The same broadcast in a metric: (N, 1) == (N,) is an N x N table.
    correct = (logit > 0).long() == label
    accuracy = correct.float().mean()

    # BCEWithLogitsLoss checks the shapes and refuses.
    try:
        F.binary_cross_entropy_with_logits(logit, label.float())
        bce = "no error"
    except ValueError as err:
        bce = f"{type(err).__name__}: {err}"[:2000]
    return {
        "broadcast_shape": list((pred - target).shape),
        "loss_on_perfect_predictions": loss.item(),
        "grad_on_perfect_predictions_is_zero": bool((pred.grad == 0).all()),
        "accuracy": accuracy.item(),
        "correct_shape": list(correct.shape),
        "bce_with_logits": bce,
    }


def fix(device: str) -> dict:
    pred, target, logit, label = make_batch(device)
    loss = F.mse_loss(pred.squeeze(1), target)  # (N,) against (N,)
    loss.backward()

    correct = (logit.squeeze(1) > 0).long() == label
    accuracy = correct.float().mean()

    bce = F.binary_cross_entropy_with_logits(logit.squeeze(1), label.float())
    return {
        "loss_on_perfect_predictions": loss.item(),
        "grad_on_perfect_predictions_is_zero": bool((pred.grad == 0).all()),
        "accuracy": accuracy.item(),
        "correct_shape": list(correct.shape),
        "bce_is_finite": bool(torch.isfinite(bce)),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
