"""Integer tensors: `/` returns float, `//` floors toward -inf, and mean() refuses integers."""

import torch


def make_batch(device: str):
    torch.manual_seed(0)
    seq = torch.randn(3, 8, device=device)  # a padded batch of 3 sequences
    lengths = torch.tensor([8, 5, 3], device=device)  # true lengths: integer (int64)
    pred = torch.tensor([1, 0, 2, 2], device=device)  # argmax of the logits: int64
    target = torch.tensor([1, 0, 1, 2], device=device)
    return seq, lengths, pred, target


def problem(device: str) -> dict:
    seq, lengths, pred, target = make_batch(device)

    mid = lengths / 2  # true division: tensor([4.0, 2.5, 1.5]), a float tensor
    try:
        middle = seq[torch.arange(3, device=device), mid]  # pick the middle step of each row
        middle_error = f"no error: {middle.tolist()}"
    except IndexError as err:
        middle_error = f"{type(err).__name__}: {err}"[:2000]

    try:
        accuracy = (pred == target).mean()  # a bool tensor has no mean
        accuracy_error = f"no error: {accuracy.item()}"
    except RuntimeError as err:
        accuracy_error = f"{type(err).__name__}: {err}"[:2000]

    try:
        mean_length = lengths.mean()
        mean_length_error = f"no error: {mean_length.item()}"
    except RuntimeError as err:
        mean_length_error = f"{type(err).__name__}: {err}"[:2000]

    counts = torch.bincount(target, minlength=3)
    try:
        counts /= counts.sum()  # normalise in place: the float result cannot go back into int64
        inplace_error = "no error"
    except RuntimeError as err:
        inplace_error = f"{type(err).__name__}: {err}"[:2000]

    # Offsets relative to a centre, halved the way C, Java and (before 1.13) torch truncated.
    offsets = torch.tensor([-7, -1, 1, 7], device=device)
    return {
        "mid_dtype": str(mid.dtype),
        "middle_index_error": middle_error,
        "accuracy_error": accuracy_error,
        "mean_length_error": mean_length_error,
        "inplace_div_error": inplace_error,
        "offsets_floordiv_2": (offsets // 2).tolist(),
        "offsets_mod_2": (offsets % 2).tolist(),
    }


def fix(device: str) -> dict:
    seq, lengths, pred, target = make_batch(device)

    mid = lengths // 2  # floor division keeps int64: a valid index
    middle = seq[torch.arange(3, device=device), mid]

    accuracy = (pred == target).float().mean()  # convert first, then average
    mean_length = lengths.float().mean()  # or lengths.mean(dtype=torch.float32)

    counts = torch.bincount(target, minlength=3)
    freqs = counts / counts.sum()  # out of place: a new float tensor

    offsets = torch.tensor([-7, -1, 1, 7], device=device)
    halved = torch.div(offsets, 2, rounding_mode="trunc")  # round toward zero, like C
    remainder = torch.fmod(offsets, 2)  # sign of the dividend, like C's %
    return {
        "mid_dtype": str(mid.dtype),
        "mid": mid.tolist(),
        "middle_shape": list(middle.shape),
        "accuracy": round(accuracy.item(), 4),
        "mean_length": round(mean_length.item(), 4),
        "freqs": [round(f, 4) for f in freqs.tolist()],
        "offsets_trunc_2": halved.tolist(),
        "offsets_fmod_2": remainder.tolist(),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
