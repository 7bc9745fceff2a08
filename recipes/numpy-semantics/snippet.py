"""Same name, different result: torch's std, median and repeat are not NumPy's."""

import numpy as np
import torch

FEATURE = [1.0, 2.0, 3.0, 4.0]  # an even number of values
LABELS = [0, 1, 2]


def problem(device: str) -> dict:
    x = torch.tensor(FEATURE, device=device)
    labels = torch.tensor(LABELS, device=device)
    ref = np.array(FEATURE)

    # Porting NumPy code name for name.
    std = x.std()  # NumPy: ddof=0; torch: Bessel's correction (divide by n - 1)
    median = x.median()  # NumPy averages the two middle values; torch returns the lower one
    repeated = labels.repeat(2)  # NumPy's repeat repeats each element; torch's tiles the tensor
    single = torch.tensor([5.0], device=device).std()  # n - 1 = 0 degrees of freedom
    return {
        "std": round(std.item(), 4),
        "numpy_std": round(float(ref.std()), 4),
        "std_matches_numpy": bool(np.isclose(std.item(), ref.std())),
        "median": median.item(),
        "numpy_median": float(np.median(ref)),
        "repeat": repeated.tolist(),
        "numpy_repeat": np.repeat(np.array(LABELS), 2).tolist(),
        "std_of_one_value_is_nan": bool(single.isnan()),
    }


def fix(device: str) -> dict:
    x = torch.tensor(FEATURE, device=device)
    labels = torch.tensor(LABELS, device=device)
    ref = np.array(FEATURE)

    std = x.std(correction=0)  # population std, like np.std (ddof=0)
    median = x.quantile(0.5)  # averages the two middle values, like np.median
    repeated = labels.repeat_interleave(2)  # like np.repeat
    tiled = labels.repeat(2)  # torch's repeat is np.tile
    single = torch.tensor([5.0], device=device).std(correction=0)
    return {
        "std": round(std.item(), 4),
        "std_matches_numpy": bool(np.isclose(std.item(), ref.std())),
        "median": median.item(),
        "median_matches_numpy": median.item() == float(np.median(ref)),
        "repeat": repeated.tolist(),
        "repeat_matches_numpy": repeated.tolist() == np.repeat(np.array(LABELS), 2).tolist(),
        "tile_matches_numpy": tiled.tolist() == np.tile(np.array(LABELS), 2).tolist(),
        "std_of_one_value": single.item(),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
