"""Conv2d wants (N, C, H, W): an (N, H, W, C) batch needs permute(0, 3, 1, 2), not view."""

import torch
from torch import nn


def load_images(device: str):
    # `reference` is the batch as Conv2d needs it, (N, C, H, W). `hwc` holds the same pixels
    # the way PIL, OpenCV, NumPy and most image files give them: (N, H, W, C).
    torch.manual_seed(0)
    reference = torch.rand(2, 3, 32, 32, device=device)
    hwc = reference.permute(0, 2, 3, 1).contiguous()
    return reference, hwc


def message(err: Exception) -> str:
    return f"{type(err).__name__}: {err}"[:2000]


def problem(device: str) -> dict:
    """Feed (N, H, W, C) to Conv2d, then "fix" the error with view."""
    reference, hwc = load_images(device)
    conv = nn.Conv2d(3, 8, kernel_size=3).to(device)
    expected = conv(reference)

    try:
        conv(hwc)
        conv_error = "no error"
    except RuntimeError as err:
        conv_error = message(err)

    # The tempting fix: ask for the shape the error wants. It runs, on scrambled pixels.
    n, h, w, c = hwc.shape
    viewed = hwc.view(n, c, h, w)
    out = conv(viewed)

    # When H happens to equal C there is not even an error: an 8 x 8 feature map with 8
    # channels (for example exported channels-last from another framework).
    features = torch.rand(2, 8, 8, 8, device=device)  # (N, C, H, W)
    features_hwc = features.permute(0, 2, 3, 1).contiguous()
    conv8 = nn.Conv2d(8, 16, kernel_size=3).to(device)
    square_out = conv8(features_hwc)

    return {
        "conv_error": conv_error,
        "output_shape": list(out.shape),  # looks right: view gave the shape the conv wanted
        "pixel0_matches": torch.equal(viewed[0, :, 0, 0], reference[0, :, 0, 0]),
        "output_matches": torch.allclose(out, expected, rtol=1e-3, atol=1e-3),
        "square_output_shape": list(square_out.shape),
        "square_output_matches": torch.allclose(square_out, conv8(features), rtol=1e-3, atol=1e-3),
    }


def fix(device: str) -> dict:
    """permute(0, 3, 1, 2) moves the channel axis; the result is already channels_last."""
    reference, hwc = load_images(device)
    conv = nn.Conv2d(3, 8, kernel_size=3).to(device)
    expected = conv(reference)

    x = hwc.permute(0, 3, 1, 2)  # (N, H, W, C) -> (N, C, H, W), no copy
    out = conv(x)

    # channels_last propagates: the conv's (and a pool's) output keeps the layout, so a
    # classifier head that flattens with view raises; torch.flatten (or reshape) copies if needed.
    pooled = nn.MaxPool2d(2)(torch.relu(out))
    try:
        pooled.view(pooled.size(0), -1)
        view_head_error = "no error"
    except RuntimeError as err:
        view_head_error = message(err)
    flat = torch.flatten(pooled, 1)
    flat_expected = torch.flatten(nn.MaxPool2d(2)(torch.relu(expected)), 1)

    features = torch.rand(2, 8, 8, 8, device=device)
    features_hwc = features.permute(0, 2, 3, 1).contiguous()
    conv8 = nn.Conv2d(8, 16, kernel_size=3).to(device)
    square_out = conv8(features_hwc.permute(0, 3, 1, 2))

    return {
        "output_shape": list(out.shape),
        "pixel0_matches": torch.equal(x[0, :, 0, 0], reference[0, :, 0, 0]),
        "output_matches": torch.allclose(out, expected, rtol=1e-3, atol=1e-3),
        "is_channels_last": x.is_contiguous(memory_format=torch.channels_last),
        "output_is_channels_last": out.is_contiguous(memory_format=torch.channels_last),
        "view_head_error": view_head_error,
        "flatten_head_matches": torch.allclose(flat, flat_expected, rtol=1e-3, atol=1e-3),
        "shares_memory_with_input": x.data_ptr() == hwc.data_ptr(),
        "square_output_matches": torch.allclose(square_out, conv8(features), rtol=1e-3, atol=1e-3),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
