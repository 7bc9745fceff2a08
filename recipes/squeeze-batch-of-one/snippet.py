"""squeeze() also drops a batch dimension of 1: the last batch or one-image inference breaks."""

import torch
import torch.nn.functional as F
from torch import nn


def make_model(device: str):
    torch.manual_seed(0)
    pool = nn.AdaptiveAvgPool2d(1)  # (B, 8, H, W) -> (B, 8, 1, 1)
    classifier = nn.Linear(8, 3).to(device)  # three classes
    scorer = nn.Linear(8, 1).to(device)  # one logit for a binary label
    return pool, classifier, scorer


def problem(device: str) -> dict:
    """squeeze() with no dim, fine for a batch of 4, broken for a batch of 1."""
    pool, classifier, scorer = make_model(device)
    images = torch.randn(4, 8, 5, 5, device=device)

    full = pool(images).squeeze()  # (4, 8, 1, 1) -> (4, 8): looks right
    last = pool(images[:1]).squeeze()  # (1, 8, 1, 1) -> (8,): the batch is gone too
    logits = classifier(last)  # Linear accepts (8,) and returns (3,)

    try:
        logits.argmax(dim=1)  # predicted class per sample
        argmax_error = "no error"
    except IndexError as err:
        argmax_error = f"{type(err).__name__}: {err}"[:2000]

    score = scorer(last).squeeze()  # (1,) -> (): a 0-d tensor
    label = torch.ones(1, device=device)
    try:
        F.binary_cross_entropy_with_logits(score, label)
        bce_error = "no error"
    except ValueError as err:
        bce_error = f"{type(err).__name__}: {err}"[:2000]

    return {
        "full_batch_features_shape": list(full.shape),
        "last_batch_features_shape": list(last.shape),
        "last_batch_logits_shape": list(logits.shape),
        "argmax_error": argmax_error,
        "binary_score_shape": list(score.shape),
        "bce_error": bce_error,
    }


def fix(device: str) -> dict:
    """Name the dimensions to drop: flatten(start_dim=1), squeeze(-1)."""
    pool, classifier, scorer = make_model(device)
    images = torch.randn(4, 8, 5, 5, device=device)

    full = torch.flatten(pool(images), 1)  # (4, 8, 1, 1) -> (4, 8)
    last = torch.flatten(pool(images[:1]), 1)  # (1, 8, 1, 1) -> (1, 8)
    logits = classifier(last)
    predictions = logits.argmax(dim=1)

    score = scorer(last).squeeze(-1)  # (1, 1) -> (1,): only the logit dim goes
    label = torch.ones(1, device=device)
    loss = F.binary_cross_entropy_with_logits(score, label)

    # The problem's two failing calls, on the shapes flatten and squeeze(-1) kept.
    try:
        logits.argmax(dim=1)
        argmax_error = "no error"
    except IndexError as err:
        argmax_error = f"{type(err).__name__}: {err}"[:2000]
    try:
        F.binary_cross_entropy_with_logits(score, label)
        bce_error = "no error"
    except ValueError as err:
        bce_error = f"{type(err).__name__}: {err}"[:2000]

    return {
        "full_batch_features_shape": list(full.shape),
        "last_batch_features_shape": list(last.shape),
        "last_batch_logits_shape": list(logits.shape),
        "argmax_error": argmax_error,
        "predictions_shape": list(predictions.shape),
        "bce_error": bce_error,
        "binary_score_shape": list(score.shape),
        "bce_is_finite": bool(torch.isfinite(loss)),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
