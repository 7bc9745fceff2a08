"""NumPy defaults to float64: torch.from_numpy gives double tensors that float32 layers reject."""

import numpy as np
import torch
from torch import nn


def load_features():
    # Features and targets as NumPy (and pandas, scikit-learn, ...) produce them: float64.
    rng = np.random.default_rng(0)
    return rng.random((4, 3)), rng.random((4, 1)), rng.random((1, 1, 5, 5))


def try_all(calls) -> dict:
    errors = {}
    for name, call in calls:
        try:
            call()
            errors[name] = "no error"
        except RuntimeError as err:
            errors[name] = f"{type(err).__name__}: {err}"[:2000]
    return errors


def run(x, y, image, model, conv) -> dict:
    """The same four steps on both sides: a Linear, a plain matmul, a Conv2d and BCELoss."""
    errors = try_all(
        [
            ("linear_error", lambda: model(x)),
            ("matmul_error", lambda: x @ model.weight.T),
            ("conv_error", lambda: conv(image)),
            # Labels in [0, 1] for a binary classifier, straight from a pandas column.
            ("bce_error", lambda: nn.BCELoss()(torch.sigmoid(model(x.float())), y)),
        ]
    )
    # mse_loss mixes the dtypes without complaint: the loss takes the wider one.
    loss = nn.functional.mse_loss(model(x.float()), y)
    return {"input_dtype": str(x.dtype), **errors, "loss_dtype": str(loss.dtype)}


def problem(device: str) -> dict:
    torch.manual_seed(0)
    model = nn.Linear(3, 1).to(device)  # parameters are float32
    conv = nn.Conv2d(1, 1, 3).to(device)
    features, targets, image = load_features()

    x = torch.from_numpy(features).to(device)  # keeps NumPy's float64
    y = torch.from_numpy(targets).to(device)
    return run(x, y, torch.from_numpy(image).to(device), model, conv)


def fix(device: str) -> dict:
    torch.manual_seed(0)
    model = nn.Linear(3, 1).to(device)
    conv = nn.Conv2d(1, 1, 3).to(device)
    features, targets, image = load_features()

    # Convert once, where the data enters torch.
    x = torch.as_tensor(features, dtype=torch.float32, device=device)
    y = torch.from_numpy(targets.astype(np.float32)).to(device)  # or: .float() after from_numpy
    return run(x, y, torch.as_tensor(image, dtype=torch.float32, device=device), model, conv)


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
