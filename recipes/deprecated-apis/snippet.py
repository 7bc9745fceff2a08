"""Removed and deprecated torch functions: the old call fails or warns, a one-to-one rename
gives other numbers, and the documented replacement gives the old result."""

import warnings

import torch


def _inputs(device: str) -> tuple[torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    a = torch.randn(4, 4, device=device) + 4 * torch.eye(4, device=device)  # invertible
    b = torch.randn(4, 2, device=device)
    return a, b


def _old_values(a: torch.Tensor) -> dict:
    """What the old functions returned, computed quietly (they still run on this torch)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "range": torch.range(0, 4, device=a.device),  # includes its end: 5 values
            "norm": torch.norm(a),  # of a matrix: the Frobenius norm
            "svd": torch.svd(a),  # U, S, V (V, not V^H)
        }


def problem(device: str) -> dict:
    a, b = _inputs(device)
    old = _old_values(a)

    # 1. A removed function: old code still calls it.
    try:
        torch.solve(b, a)
        solve_error = "no error"
    except RuntimeError as err:
        solve_error = f"{type(err).__name__}: {err}"[:2000]

    # 2. A deprecated one: it still runs, and warns on every call.
    lu, pivots = torch.lu(a)

    # 3. One-to-one renames, as a hurried migration writes them.
    new_range = torch.arange(0, 4, device=device)  # arange stops before its end
    new_norm = torch.linalg.norm(a, ord=2)  # ord=2 on a matrix is the spectral norm
    u, s, vh = torch.linalg.svd(a)
    rebuilt = u @ torch.diag(s) @ vh.mT  # used as if it were V, like torch.svd's

    return {
        "solve_error": solve_error,
        "range_matches_old": torch.equal(new_range.float(), old["range"]),
        "norm_matches_old": bool(torch.allclose(new_norm, old["norm"])),
        "svd_rebuilds_input": bool(torch.allclose(rebuilt, a, atol=1e-4)),
        "ger_is_outer": torch.equal(torch.ger(a[0], a[1]), torch.outer(a[0], a[1])),
        "lu_shape": list(lu.shape),
    }


def fix(device: str) -> dict:
    a, b = _inputs(device)
    old = _old_values(a)

    # 1. torch.linalg.solve takes A first: solve(A, B) solves A X = B.
    try:
        x = torch.linalg.solve(a, b)
        solve_error = "no error"
    except RuntimeError as err:
        solve_error = f"{type(err).__name__}: {err}"[:2000]

    # 2. torch.linalg.lu_factor returns the same packed LU and pivots, without a warning.
    lu, pivots = torch.linalg.lu_factor(a)

    # 3. The replacements that mean the same thing.
    new_range = torch.arange(0, 4 + 1, device=device)  # the end is exclusive: add one step
    new_norm = torch.linalg.matrix_norm(a)  # default ord="fro", as torch.norm(matrix)
    u, s, vh = torch.linalg.svd(a)
    rebuilt = u @ torch.diag(s) @ vh  # linalg.svd returns V^H: use it as is

    return {
        "solve_error": solve_error,
        "solve_residual_small": bool(torch.allclose(a @ x, b, atol=1e-4)),
        "range_matches_old": torch.equal(new_range.float(), old["range"]),
        "norm_matches_old": bool(torch.allclose(new_norm, old["norm"])),
        "svd_rebuilds_input": bool(torch.allclose(rebuilt, a, atol=1e-4)),
        "ger_is_outer": torch.equal(torch.ger(a[0], a[1]), torch.outer(a[0], a[1])),
        "lu_shape": list(lu.shape),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
