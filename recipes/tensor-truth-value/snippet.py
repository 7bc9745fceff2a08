"""`if tensor:`, `and`/`or` and `assert a == b` need one True/False; a tensor of many has none."""

import torch


def _error(call) -> str:
    try:
        call()
        return "no error"
    except RuntimeError as err:
        return f"{type(err).__name__}: {err}"[:2000]


def make(device: str):
    torch.manual_seed(0)
    logits = torch.randn(4, 3, device=device)
    labels = logits.argmax(dim=1)
    labels[3] = (labels[3] + 1) % 3  # the model gets 3 of 4 right
    x = torch.tensor([-0.5, 0.25, 0.75, 1.5], device=device)
    total = torch.tensor([0.3, 1.1], device=device) + torch.tensor([0.6, 2.2], device=device)
    expected = torch.tensor([0.9, 3.3], device=device)
    return logits, labels, x, total, expected


def problem(device: str) -> dict:
    logits, labels, x, total, expected = make(device)
    pred = logits.argmax(dim=1)
    scores = torch.empty(0, device=device)  # no detection survived the threshold

    def branch_on_batch():
        if pred == labels:  # meant: "if every prediction is right"
            pass

    def branch_on_one_sample():
        if pred[:1] == labels[:1]:  # the same line with a batch of one: works
            pass

    def assert_result():
        assert total == expected

    def branch_on_scores():
        if scores:  # meant: "if there are any detections"
            pass

    return {
        "if_error": _error(branch_on_batch),
        "batch_of_one_error": _error(branch_on_one_sample),
        "and_error": _error(lambda: (x > 0) and (x < 1)),
        "chained_compare_error": _error(lambda: 0 < x < 1),
        "assert_error": _error(assert_result),
        "empty_error": _error(branch_on_scores),
    }


def fix(device: str) -> dict:
    logits, labels, x, total, expected = make(device)
    pred = logits.argmax(dim=1)
    scores = torch.empty(0, device=device)

    all_right = bool((pred == labels).all())  # say which reduction you mean
    accuracy = (pred == labels).float().mean().item()
    in_unit = (x > 0) & (x < 1)  # element-wise and: & (or |, ~), with parentheses

    try:
        torch.testing.assert_close(total, expected)  # tolerances chosen for the dtype
        assert_close_error = "no error"
    except AssertionError as err:
        assert_close_error = f"{type(err).__name__}: {err}"[:2000]

    def branch_on_scores():
        for candidate in (scores, torch.ones(2, device=device)):  # empty, then two detections
            if candidate.numel() > 0:  # ask about the size
                pass

    return {
        # The problem's keys, for the same branches written with an explicit reduction.
        "if_error": _error(lambda: bool((pred == labels).all())),
        "and_error": _error(lambda: (x > 0) & (x < 1)),
        "chained_compare_error": _error(lambda: bool(((0 < x) & (x < 1)).any())),
        "assert_error": assert_close_error,
        "empty_error": _error(branch_on_scores),
        "all_right": all_right,
        "accuracy": accuracy,
        "in_unit_interval": in_unit.tolist(),
        "equal_exact": torch.equal(total, expected),  # same shape and every bit equal
        "allclose": torch.allclose(total, expected),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
