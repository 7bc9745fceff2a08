"""One-hot targets with scatter_: the index needs shape (N, 1), an integer dtype, and a device."""

import torch
import torch.nn.functional as F

NUM_CLASSES = 3


def attempt(call) -> str:
    try:
        call()
        return "no error"
    except Exception as err:
        return f"{type(err).__name__}: {err}".splitlines()[0]


def problem(device: str) -> dict:
    """The usual first attempts at a one-hot target, and what each one does."""
    labels = torch.tensor([2, 0, 1, 2], device=device)  # int64, shape (4,)
    target = torch.zeros(len(labels), NUM_CLASSES, device=labels.device)

    # 1) The labels as they come, shape (4,): scatter_ wants the index to have as many
    #    dimensions as the (4, 3) target.
    try:
        target.scatter_(1, labels, 1.0)
        missing_dim = "no error"
    except Exception as err:
        missing_dim = f"{type(err).__name__}: {err}".splitlines()[0]

    # 2) Labels that arrived as floats (from numpy, a CSV file, a collate function).
    try:
        target.scatter_(1, labels.float().view(-1, 1), 1.0)
        float_index = "no error"
    except Exception as err:
        float_index = f"{type(err).__name__}: {err}".splitlines()[0]

    # 3) F.one_hot accepts int64 only, even on versions where scatter_ takes int32.
    try:
        F.one_hot(labels.int(), NUM_CLASSES)
        one_hot_int32 = "no error"
    except Exception as err:
        one_hot_int32 = f"{type(err).__name__}: {err}".splitlines()[0]

    # 4) The out-of-place scatter (no trailing underscore) returns a new tensor; without
    #    an assignment the result is lost and the target stays all zeros.
    target.scatter(1, labels.view(-1, 1), 1.0)

    return {
        "missing_dim_error": missing_dim,
        "float_index_error": float_index,
        "one_hot_int32_error": one_hot_int32,
        "unassigned_scatter_target_sum": target.sum().item(),
    }


def fix(device: str) -> dict:
    """Index of shape (N, 1), built on the labels' device; or F.one_hot in one line."""
    labels = torch.tensor([2, 0, 1, 2], device=device)
    # One row per sample, one column holding that sample's class: shape (4, 1).
    index = labels.view(-1, 1)
    # Create the target where the labels live, instead of a hard-coded `.cuda()`.
    target = torch.zeros(len(labels), NUM_CLASSES, device=labels.device)
    target.scatter_(1, index, 1.0)  # in place: `target` itself now holds the one-hot rows

    # The out-of-place form returns a new tensor, so assign it.
    fresh = torch.zeros(len(labels), NUM_CLASSES, device=labels.device).scatter(1, index, 1.0)

    # int32 indices are accepted by scatter_ since torch 2.8; int64 works on every version.
    try:
        via_int32 = torch.zeros_like(target).scatter_(1, index.int(), 1.0)
        int32_index = "accepted" if torch.equal(via_int32, target) else "wrong result"
    except Exception as err:
        int32_index = f"{type(err).__name__}: {err}".splitlines()[0]

    # Today's one-liner. F.one_hot returns int64, so cast it before using it in a loss.
    one_hot = F.one_hot(labels, num_classes=NUM_CLASSES)

    blank = torch.zeros(len(labels), NUM_CLASSES, device=labels.device)
    return {
        # The problem's three attempts, each corrected: an (N, 1) index, int64, int64.
        "missing_dim_error": attempt(lambda: blank.clone().scatter_(1, index, 1.0)),
        "float_index_error": attempt(
            lambda: blank.clone().scatter_(1, labels.float().long().view(-1, 1), 1.0)
        ),
        "one_hot_int32_error": attempt(lambda: F.one_hot(labels.int().long(), NUM_CLASSES)),
        "unassigned_scatter_target_sum": fresh.sum().item(),  # assigned: one 1 per row
        "hot_columns": target.argmax(dim=1).tolist(),
        "rows_sum_to_one": bool((target.sum(dim=1) == 1).all()),
        "target_on_labels_device": target.device == labels.device,
        "out_of_place_matches_in_place": torch.equal(fresh, target),
        "int32_index": int32_index,
        "one_hot_dtype": str(one_hot.dtype),
        "one_hot_matches_scatter": torch.equal(one_hot.float(), target),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
