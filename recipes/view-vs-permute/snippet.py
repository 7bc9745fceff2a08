"""view/reshape never move axes: use permute to go from (B, C, H, W) to (B, H, W, C)."""

import torch


def make_images(device: str) -> torch.Tensor:
    # One 3-channel 2 x 2 image, (B, C, H, W). Channel c of every pixel holds 4*c + pixel, so
    # the three channels of the top-left pixel are 0, 4 and 8.
    return torch.arange(12.0, device=device).reshape(1, 3, 2, 2)


def problem(device: str) -> dict:
    """Reshape to channels-last with view, and flatten a permuted tensor with view."""
    x = make_images(device)
    B, C, H, W = x.shape

    # Wanted: (B, H, W, C), one vector of C channel values per pixel.
    x_hwc = x.view(B, H, W, C)  # right shape, wrong data: view only re-reads memory in order

    # The other classic: flatten after a permute (or a transpose, or .t()).
    try:
        x.permute(0, 2, 3, 1).view(B, -1)
        view_error = "no error"
    except RuntimeError as err:
        view_error = f"{type(err).__name__}: {err}"[:2000]

    # "Use .reshape(...) instead" works, but here reshape has to copy: writes are lost.
    flat = x.permute(0, 2, 3, 1).reshape(B, -1)
    flat[0, 0] = 100.0

    return {
        "pixel0_channels": x_hwc[0, 0, 0].tolist(),
        "matches_permute": torch.equal(x_hwc, x.permute(0, 2, 3, 1)),
        "view_after_permute_error": view_error,
        "reshape_shares_memory": flat.data_ptr() == x.data_ptr(),
        "write_through_reshape_reached_x": float(x[0, 0, 0, 0]) == 100.0,
    }


def fix(device: str) -> dict:
    """permute moves axes; reshape (or contiguous().view) only after it."""
    x = make_images(device)
    B, C, H, W = x.shape

    x_hwc = x.permute(0, 2, 3, 1)  # (B, H, W, C): the axes move, the pixels stay whole
    flat = x_hwc.reshape(B, -1)  # same as x_hwc.contiguous().view(B, -1): a copy
    back = x_hwc.permute(0, 3, 1, 2)  # and back to (B, C, H, W)

    observations = {
        "pixel0_channels": x_hwc[0, 0, 0].tolist(),
        "permute_is_contiguous": x_hwc.is_contiguous(),
        "flat_equals_contiguous_view": torch.equal(flat, x_hwc.contiguous().view(B, -1)),
        "round_trip_equals_input": torch.equal(back, make_images(device)),
    }

    # reshape on a contiguous tensor is a view: here writes do reach the original.
    same_layout = x.reshape(B, -1)
    same_layout[0, 0] = 100.0
    observations["reshape_shares_memory"] = same_layout.data_ptr() == x.data_ptr()
    observations["write_through_reshape_reached_x"] = float(x[0, 0, 0, 0]) == 100.0
    return observations


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
