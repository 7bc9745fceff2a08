"""Grayscale or RGBA images into a network whose first conv expects 3 channels."""

import torch
from torch import nn


def pretrained_stem(device: str) -> nn.Conv2d:
    torch.manual_seed(0)
    return nn.Conv2d(3, 8, kernel_size=3).to(device)  # stands for an RGB-pretrained conv1


def run(conv, x) -> str:
    try:
        return f"no error: output {list(conv(x).shape)}"
    except RuntimeError as err:
        return f"{type(err).__name__}: {err}"[:2000]


def images(device: str):
    g = torch.Generator().manual_seed(1)
    gray = torch.rand(2, 1, 28, 28, generator=g).to(device)  # MNIST, X-rays, "L" mode PNGs
    rgba = torch.rand(2, 4, 28, 28, generator=g).to(device)  # PNGs with an alpha channel
    return gray, rgba


def problem(device: str) -> dict:
    conv1 = pretrained_stem(device)
    gray, rgba = images(device)
    return {
        "gray_batch": run(conv1, gray),
        "rgba_batch": run(conv1, rgba),
        # One unbatched image (C, H, W): the message shows it with a batch dimension added.
        "gray_single": run(conv1, gray[0]),
    }


def fix(device: str) -> dict:
    conv1 = pretrained_stem(device)
    gray, rgba = images(device)
    # Give the network the three channels it was trained on: the gray channel three times.
    gray3 = gray.expand(-1, 3, -1, -1)  # a view; .repeat(1, 3, 1, 1) copies
    # Or keep one channel and fold the pretrained weights: sum them over the input channels.
    conv1_gray = nn.Conv2d(1, 8, kernel_size=3).to(device)
    with torch.no_grad():
        conv1_gray.weight.copy_(conv1.weight.sum(dim=1, keepdim=True))
        conv1_gray.bias.copy_(conv1.bias)
    return {
        "gray_batch": run(conv1, gray3),
        "rgba_batch": run(conv1, rgba[:, :3]),  # drop alpha (PIL: img.convert("RGB"))
        "gray_single": run(conv1, gray[0].expand(3, -1, -1)),
        "folded_stem_matches_repeat": torch.allclose(conv1_gray(gray), conv1(gray3), atol=1e-5),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
