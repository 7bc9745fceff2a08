"""Image tensors in the wrong range: what ToTensor, ToDtype(scale=True) and Normalize really do."""

import numpy as np
import torch
from torchvision import transforms
from torchvision.transforms import v2

IMAGENET = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])


def images():
    rng = np.random.default_rng(0)
    rgb = rng.integers(0, 256, size=(4, 4, 3), dtype=np.uint8)  # what PIL / cv2 give: HWC uint8
    rgb[0, 0] = 255  # one white pixel, so the maximum is known
    depth = rng.integers(0, 4096, size=(4, 4, 1)).astype(np.int16)  # a 12-bit sensor in int16
    return rgb, depth


def problem(device: str) -> dict:
    rgb, depth = images()
    # cv2 pipelines often convert to float first; ToTensor then has nothing to scale.
    from_float = transforms.ToTensor()(rgb.astype(np.float32))
    # ToTensor scales only uint8 (and PIL images): int16 comes back as int16, unscaled.
    from_int16 = transforms.ToTensor()(depth)
    # torch.tensor(...) of Python ints is int64; scale=True divides by int64's maximum.
    as_int64 = torch.tensor(rgb.tolist()).permute(2, 0, 1)
    from_int64 = v2.ToDtype(torch.float32, scale=True)(as_int64)
    # ImageNet statistics are for values in [0, 1]; applied to 0-255 they give hundreds.
    normalized = IMAGENET(from_float.to(device))
    return {
        "float_input_max": from_float.max().item(),
        "int16_input_dtype": str(from_int16.dtype),
        "int16_input_max": from_int16.max().item(),
        "int64_scaled_max": from_int64.max().item(),
        "normalized_max": normalized.max().item(),
    }


def fix(device: str) -> dict:
    rgb, depth = images()
    # Keep the image uint8 until ToTensor (or v2.ToImage + ToDtype with scale=True).
    from_uint8 = transforms.ToTensor()(rgb)
    # For other integer data, divide by the range it really has: 12 bits here.
    from_int16 = torch.from_numpy(depth).permute(2, 0, 1).float() / 4095
    # A tensor of 0-255 values: make it uint8 first, so scale=True divides by 255.
    as_uint8 = torch.tensor(rgb.tolist()).permute(2, 0, 1).to(torch.uint8)
    from_int64 = v2.ToDtype(torch.float32, scale=True)(as_uint8)
    normalized = IMAGENET(from_uint8.to(device))
    return {
        "float_input_max": from_uint8.max().item(),
        "int16_input_dtype": str(from_int16.dtype),
        "int16_input_max": from_int16.max().item(),
        "int64_scaled_max": from_int64.max().item(),
        "normalized_max": normalized.max().item(),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
