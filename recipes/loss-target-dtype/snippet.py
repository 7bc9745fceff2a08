"""Class-index targets must be int64 for cross_entropy; BCE targets must be float."""

import torch
import torch.nn.functional as F


def _error(fn) -> str:
    try:
        fn()
    except (RuntimeError, ValueError, IndexError) as err:
        return f"{type(err).__name__}: {err}"[:2000]
    return "no error"


def problem(device: str) -> dict:
    torch.manual_seed(0)
    logits = torch.randn(4, 3, device=device)  # 4 samples, 3 classes
    scores = torch.randn(4, device=device)  # 4 samples, one binary logit each

    # Class labels read from a CSV or a NumPy float array: float32, not int64.
    labels = torch.tensor([0.0, 2.0, 1.0, 2.0], device=device)
    # The same labels from a NumPy int32 array (the default integer on Windows).
    labels_i32 = torch.tensor([0, 2, 1, 2], dtype=torch.int32, device=device)
    # One-hot targets from F.one_hot: int64, but cross_entropy reads them as probabilities.
    one_hot = F.one_hot(labels.long(), num_classes=3)

    # Binary labels written as Python ints: int64, and BCE wants float.
    binary = torch.tensor([1, 0, 1, 1], device=device)

    return {
        "ce_float_labels": _error(lambda: F.cross_entropy(logits, labels)),
        "ce_int32_labels": _error(lambda: F.cross_entropy(logits, labels_i32)),
        "ce_one_hot_int64": _error(lambda: F.cross_entropy(logits, one_hot)),
        "bce_with_logits_int64": _error(lambda: F.binary_cross_entropy_with_logits(scores, binary)),
        "bce_int64": _error(lambda: F.binary_cross_entropy(torch.sigmoid(scores), binary)),
    }


def fix(device: str) -> dict:
    torch.manual_seed(0)
    logits = torch.randn(4, 3, device=device)
    scores = torch.randn(4, device=device)
    labels = torch.tensor([0.0, 2.0, 1.0, 2.0], device=device)
    binary = torch.tensor([1, 0, 1, 1], device=device)

    # Class indices: int64 (uint8 is accepted too), shape (N,).
    targets = labels.long()
    loss = F.cross_entropy(logits, targets)
    loss_u8 = F.cross_entropy(logits, targets.to(torch.uint8))

    # A float target shaped like the logits is a probability per class (torch >= 1.10).
    probs = F.one_hot(targets, num_classes=3).float()
    loss_probs = F.cross_entropy(logits, probs)

    # Binary targets: float, the same shape as the scores.
    bce = F.binary_cross_entropy_with_logits(scores, binary.float())

    # mse_loss does promote an int64 target today, and its gradient is fine.
    pred = scores.clone().requires_grad_()
    F.mse_loss(pred, binary).backward()
    labels_i32 = torch.tensor([0, 2, 1, 2], dtype=torch.int32, device=device)
    one_hot = F.one_hot(targets, num_classes=3)
    return {
        # The problem's five calls, each with its target converted: none raises.
        "ce_float_labels": _error(lambda: F.cross_entropy(logits, labels.long())),
        "ce_int32_labels": _error(lambda: F.cross_entropy(logits, labels_i32.long())),
        "ce_one_hot_int64": _error(lambda: F.cross_entropy(logits, one_hot.float())),
        "bce_with_logits_int64": _error(
            lambda: F.binary_cross_entropy_with_logits(scores, binary.float())
        ),
        "bce_int64": _error(lambda: F.binary_cross_entropy(torch.sigmoid(scores), binary.float())),
        "ce_loss_is_finite": bool(torch.isfinite(loss)),
        "uint8_matches_int64": torch.allclose(loss_u8, loss),
        "one_hot_probs_match_indices": torch.allclose(loss_probs, loss),
        "bce_loss_is_finite": bool(torch.isfinite(bce)),
        "mse_int64_target_grad_is_finite": bool(torch.isfinite(pred.grad).all()),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
