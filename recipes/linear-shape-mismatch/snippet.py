"""Reading "mat1 and mat2 shapes cannot be multiplied", and the flatten that hides it."""

import torch
import torch.nn.functional as F
from torch import nn


def conv_features(device: str) -> torch.Tensor:
    # What a conv stack returns for 4 images: 16 channels on a 4 x 8 grid, 512 per image.
    torch.manual_seed(0)
    return torch.randn(4, 16, 4, 8, device=device)


def message(err: Exception) -> str:
    return f"{type(err).__name__}: {err}"[:2000]


def problem(device: str) -> dict:
    """A guessed in_features, flatten without start_dim, and view(-1, n) with the wrong n."""
    feats = conv_features(device)
    labels = torch.tensor([0, 1, 2, 3], device=device)

    head = nn.Linear(256, 10).to(device)  # in_features guessed: really 16 * 4 * 8 = 512
    try:
        head(torch.flatten(feats, 1))
        wrong_in_features = "no error"
    except RuntimeError as err:
        wrong_in_features = message(err)

    right_head = nn.Linear(512, 10).to(device)
    try:
        right_head(torch.flatten(feats))  # no start_dim: the batch is flattened too
        flatten_all = "no error"
    except RuntimeError as err:
        flatten_all = message(err)

    # "Make the shapes fit": view(-1, 256) runs, and cuts every image into two rows.
    logits = head(feats.view(-1, 256))  # 8 rows of logits for 4 images
    edited = feats.clone()
    edited[0, 8:] += 100.0  # change the second half of image 0 only
    row0_unchanged = torch.equal(head(edited.view(-1, 256))[0], logits[0])
    try:
        F.cross_entropy(logits, labels)
        loss_error = "no error"
    except ValueError as err:
        loss_error = message(err)

    return {
        "wrong_in_features_error": wrong_in_features,
        "flatten_without_start_dim_error": flatten_all,
        "rows_for_4_images": logits.shape[0],
        "row0_ignores_half_of_image0": row0_unchanged,
        "loss_error": loss_error,
    }


def fix(device: str) -> dict:
    """Flatten from dim 1 and take in_features from the real shape (or let LazyLinear do it)."""
    feats = conv_features(device)
    labels = torch.tensor([0, 1, 2, 3], device=device)

    flat = torch.flatten(feats, 1)  # (4, 16, 4, 8) -> (4, 512): one row per image
    head = nn.Linear(flat.shape[1], 10).to(device)  # in_features from the data
    logits = head(flat)
    loss = F.cross_entropy(logits, labels)

    edited = feats.clone()
    edited[0, 8:] += 100.0
    row0_unchanged = torch.equal(head(torch.flatten(edited, 1))[0], logits[0])

    lazy = nn.LazyLinear(10).to(device)  # in_features is set on the first call
    lazy(flat)

    try:
        F.cross_entropy(head(torch.flatten(feats, 1)), labels)
        loss_error = "no error"
    except ValueError as err:
        loss_error = message(err)

    return {
        "rows_for_4_images": logits.shape[0],
        "loss_error": loss_error,
        "logits_shape": list(logits.shape),
        "loss_is_finite": bool(torch.isfinite(loss)),
        "row0_ignores_half_of_image0": row0_unchanged,
        "lazy_in_features": lazy.in_features,
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
