"""uint8 image arithmetic wraps around modulo 256; convert to float (or a wider int) first."""

import numpy as np
import torch


def load_images(device: str):
    # Two 3-pixel "images" as decoders return them (np.asarray(PIL image), decode_image):
    # dtype uint8, values 0..255.
    a = torch.tensor([200, 250, 30], dtype=torch.uint8, device=device)
    b = torch.tensor([100, 10, 40], dtype=torch.uint8, device=device)
    return a, b


def problem(device: str) -> dict:
    a, b = load_images(device)
    blend = (a + b) / 2  # a + b is computed in uint8 first: 200 + 100 = 300 wraps to 44
    brighter = a + 60  # 250 + 60 = 310 wraps to 54: the brightest pixel turns almost black
    diff = (a - b).abs()  # 30 - 40 = -10 wraps to 246; abs() of an unsigned value changes nothing
    total = a.sum()  # reductions are safe: sum() of an integer tensor accumulates in int64

    # NumPy 2 refuses a Python int that does not fit the array's dtype; torch wraps it.
    try:
        numpy_plus_300 = str(np.asarray([200, 250, 30], dtype=np.uint8) + 300)
    except OverflowError as err:
        numpy_plus_300 = f"{type(err).__name__}: {err}"[:2000]
    return {
        "sum_dtype": str((a + b).dtype),
        "blend": blend.tolist(),
        "brighter": brighter.tolist(),
        "diff": diff.tolist(),
        "torch_plus_300": (a + 300).tolist(),
        "pixel_total": int(total),
        "pixel_total_dtype": str(total.dtype),
        "numpy_plus_300": numpy_plus_300,
    }


def fix(device: str) -> dict:
    a, b = load_images(device)
    a, b = a.float(), b.float()  # convert once, right after loading; float32 holds 0..255 exactly
    blend = (a + b) / 2
    brighter = (a + 60).clamp(0, 255)  # saturate, as image libraries do
    diff = (a - b).abs()
    back_to_uint8 = brighter.round().to(torch.uint8)  # only after clamping, if you must store uint8
    return {
        "sum_dtype": str((a + b).dtype),
        "blend": blend.tolist(),
        "brighter": brighter.tolist(),
        "diff": diff.tolist(),
        "back_to_uint8": back_to_uint8.tolist(),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
