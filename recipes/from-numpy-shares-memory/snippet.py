"""torch.from_numpy, torch.as_tensor and Tensor.numpy share memory; torch.tensor copies."""

import numpy as np
import torch


def problem(device: str) -> dict:
    """Convert with the sharing functions, then write on one side."""
    # A loader that reads every frame into one preallocated buffer.
    buffer = np.zeros(2, dtype=np.float32)
    frames = []
    for step in range(3):
        buffer[:] = step  # read frame `step` into the buffer
        frames.append(torch.from_numpy(buffer).to(device))  # on CPU: no copy at all
    batch = torch.stack(frames)

    # In-place normalisation of the tensor rewrites the caller's array.
    image = np.full(3, 10.0, dtype=np.float32)
    x = torch.as_tensor(image).to(device)
    x -= 10.0
    shares_memory = x.data_ptr() == image.ctypes.data

    # The other direction: a NumPy edit of .numpy() rewrites the tensor.
    weights = torch.ones(3, device=device)
    weights_np = weights.numpy()
    weights_np *= 0.0  # e.g. zeroing small values for a plot

    # A flipped array (BGR -> RGB) has a negative stride, which no tensor can have.
    bgr = np.arange(6, dtype=np.uint8).reshape(2, 3)
    try:
        torch.from_numpy(bgr[:, ::-1])
        flip_error = "no error"
    except ValueError as err:
        flip_error = f"{type(err).__name__}: {err}"[:2000]

    return {
        "batch": batch.tolist(),
        "shares_memory": shares_memory,
        "image_after_tensor_edit": image.tolist(),
        "weights_after_numpy_edit": weights.tolist(),
        "flipped_array_error": flip_error,
    }


def fix(device: str) -> dict:
    """Copy where the two sides must not share: torch.tensor, .copy(), or out-of-place ops."""
    buffer = np.zeros(2, dtype=np.float32)
    frames = []
    for step in range(3):
        buffer[:] = step
        frames.append(torch.tensor(buffer, device=device))  # torch.tensor always copies
    batch = torch.stack(frames)

    image = np.full(3, 10.0, dtype=np.float32)
    x = torch.as_tensor(image).to(device)
    x = x - 10.0  # out of place: a new tensor, the array is untouched
    shares_memory = x.data_ptr() == image.ctypes.data

    weights = torch.ones(3, device=device)
    weights_np = weights.numpy().copy()
    weights_np *= 0.0

    bgr = np.arange(6, dtype=np.uint8).reshape(2, 3)
    rgb = torch.from_numpy(bgr[:, ::-1].copy())  # NumPy makes a positive-stride copy first

    try:
        torch.from_numpy(bgr[:, ::-1].copy())  # the problem's call, on the copy
        flipped_error = "no error"
    except ValueError as err:
        flipped_error = f"{type(err).__name__}: {err}"[:2000]

    return {
        "batch": batch.tolist(),
        "flipped_array_error": flipped_error,
        "shares_memory": shares_memory,
        "image_after_tensor_edit": image.tolist(),
        "weights_after_numpy_edit": weights.tolist(),
        "flipped_first_row": rgb[0].tolist(),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
