"""torch.where masks the forward value, not the gradient: sqrt at 0 still sends NaN back."""

import torch


def problem(device: str) -> dict:
    x = torch.tensor([-1.0, 0.0, 4.0], device=device, requires_grad=True)

    # "sqrt where positive, 0 elsewhere": the forward is finite everywhere.
    y = torch.where(x > 0, torch.sqrt(x), torch.zeros_like(x))
    y.sum().backward()
    where_grad = x.grad.clone()

    # Cleaning the output afterwards does not reach the gradient.
    x.grad = None
    torch.nan_to_num(torch.where(x > 0, torch.sqrt(x), torch.zeros_like(x))).sum().backward()
    nan_to_num_grad = x.grad.clone()

    # Anomaly mode names the culprit (debugging only: it slows everything down).
    x.grad = None
    with torch.autograd.detect_anomaly():
        try:
            torch.where(x > 0, torch.sqrt(x), torch.zeros_like(x)).sum().backward()
            anomaly = "no error"
        except RuntimeError as err:
            anomaly = f"{type(err).__name__}: {err}"[:2000]

    # A hand-written pairwise distance: the diagonal is sqrt(0).
    torch.manual_seed(0)
    points = torch.randn(4, 2, device=device, requires_grad=True)
    dist = ((points[:, None] - points[None]) ** 2).sum(-1).sqrt()
    dist.sum().backward()
    return {
        "where_forward_is_finite": bool(torch.isfinite(y).all()),
        "where_grad_is_nan": torch.isnan(where_grad).tolist(),
        "nan_to_num_grad_is_nan": torch.isnan(nan_to_num_grad).tolist(),
        "anomaly_error": anomaly,
        "distance_forward_is_finite": bool(torch.isfinite(dist).all()),
        "distance_grad_nan_fraction": torch.isnan(points.grad).float().mean().item(),
    }


def fix(device: str) -> dict:
    x = torch.tensor([-1.0, 0.0, 4.0], device=device, requires_grad=True)

    # The double where: make the input safe before sqrt, then mask the output.
    positive = x > 0
    safe_x = torch.where(positive, x, torch.ones_like(x))
    y = torch.where(positive, torch.sqrt(safe_x), torch.zeros_like(x))
    y.sum().backward()

    # Distances from the library define the gradient at 0 (as 0).
    torch.manual_seed(0)
    points = torch.randn(4, 2, device=device, requires_grad=True)
    dist = torch.linalg.vector_norm(points[:, None] - points[None], dim=-1)
    dist.sum().backward()
    norm_grad = points.grad.clone()
    points.grad = None
    torch.cdist(points, points).sum().backward()
    return {
        "where_grad_is_nan": torch.isnan(x.grad).tolist(),
        "distance_grad_nan_fraction": torch.isnan(norm_grad).float().mean().item(),
        "where_forward": y.tolist(),
        "where_grad": x.grad.tolist(),
        "distance_grad_is_finite": bool(torch.isfinite(norm_grad).all()),
        "cdist_grad_matches_vector_norm": torch.allclose(points.grad, norm_grad, atol=1e-5),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
