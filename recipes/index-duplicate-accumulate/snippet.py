"""x[idx] += 1 counts a repeated index once; index_add_, bincount or accumulate=True count all."""

import torch


def make_batch(device: str):
    labels = torch.tensor([0, 2, 2, 1, 2], device=device)  # class 2 occurs three times
    preds = torch.tensor([0, 2, 2, 1, 1], device=device)  # the pair (2, 2) occurs twice
    return labels, preds


def problem(device: str) -> dict:
    """Histogram and confusion matrix with indexed +=."""
    labels, preds = make_batch(device)

    counts = torch.zeros(3, dtype=torch.long, device=device)
    counts[labels] += 1  # one per sample ... or so it seems

    confusion = torch.zeros(3, 3, dtype=torch.long, device=device)
    confusion[labels, preds] += 1

    return {
        "class_counts": counts.tolist(),
        "confusion_total": int(confusion.sum()),
        "confusion_2_2": int(confusion[2, 2]),
    }


def fix(device: str) -> dict:
    """Operations that accumulate over repeated indices."""
    labels, preds = make_batch(device)
    ones = torch.ones(len(labels), dtype=torch.long, device=device)

    by_bincount = torch.bincount(labels, minlength=3)
    by_index_add = torch.zeros(3, dtype=torch.long, device=device).index_add_(0, labels, ones)
    by_accumulate = torch.zeros(3, dtype=torch.long, device=device)
    by_accumulate.index_put_((labels,), ones, accumulate=True)

    confusion = torch.zeros(3, 3, dtype=torch.long, device=device)
    confusion.index_put_((labels, preds), ones, accumulate=True)

    # Sums per class (not just counts): index_add_ with the values.
    values = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], device=device)
    sums = torch.zeros(3, device=device).index_add_(0, labels, values)

    return {
        "class_counts": by_bincount.tolist(),
        "index_add_matches_bincount": torch.equal(by_index_add, by_bincount),
        "accumulate_matches_bincount": torch.equal(by_accumulate, by_bincount),
        "confusion_total": int(confusion.sum()),
        "confusion_2_2": int(confusion[2, 2]),
        "sums_per_class": sums.tolist(),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
