"""A seed alone does not make GPU results repeat: atomics and cuDNN autotuning are the cause."""

import torch
import torch.nn.functional as F


def distinct_index_add_results(device: str, runs: int = 20) -> int:
    """Sum 200k values into 8 bins, several times; count the different answers."""
    torch.manual_seed(0)
    values = torch.randn(200_000, device=device)
    index = torch.randint(0, 8, (200_000,), device=device)  # 25k values per bin
    answers = set()
    for _ in range(runs):
        out = torch.zeros(8, device=device).index_add_(0, index, values)
        answers.add(tuple(out.tolist()))  # float32 values compared bit for bit
    return len(answers)


def distinct_conv_grads(device: str, runs: int = 3) -> int:
    """Backward of a small convolution, several times; count the different weight gradients."""
    torch.manual_seed(0)
    x = torch.randn(8, 4, 16, 16, device=device)
    weight = torch.randn(4, 4, 3, 3, device=device, requires_grad=True)
    grads = set()
    for _ in range(runs):
        weight.grad = None
        F.conv2d(x, weight, padding=1).square().sum().backward()
        grads.add(tuple(weight.grad.flatten().tolist()))
    return len(grads)


def duplicate_put(device: str) -> str:
    """put_ with a repeated index: which of the two values lands is not specified."""
    try:
        t = torch.zeros(4, device=device)
        t.put_(torch.tensor([1, 1], device=device), torch.tensor([1.0, 2.0], device=device))
        return "no error"
    except RuntimeError as err:
        return f"{type(err).__name__}: {err}"[:2000]


def problem(device: str) -> dict:
    saved = torch.backends.cudnn.benchmark
    try:
        torch.manual_seed(0)  # "seeded, so every run is the same"
        torch.backends.cudnn.benchmark = True  # for speed: time the algorithms, keep the fastest
        return {
            "deterministic_algorithms_on": torch.are_deterministic_algorithms_enabled(),
            "cudnn_deterministic": torch.backends.cudnn.deterministic,
            "index_add_distinct_results": distinct_index_add_results(device),
            "conv_grad_distinct_results": distinct_conv_grads(device),
            "duplicate_put": duplicate_put(device),
        }
    finally:
        torch.backends.cudnn.benchmark = saved


def fix(device: str) -> dict:
    saved = (torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic)
    saved_mode = (
        torch.are_deterministic_algorithms_enabled(),
        torch.is_deterministic_algorithms_warn_only_enabled(),
    )
    try:
        torch.manual_seed(0)
        torch.backends.cudnn.benchmark = False
        torch.use_deterministic_algorithms(True)  # also makes cuDNN pick deterministic kernels
        result = {
            "index_add_distinct_results": distinct_index_add_results(device),
            "conv_grad_distinct_results": distinct_conv_grads(device),
            # An operation with no deterministic version now refuses to run...
            "duplicate_put": duplicate_put(device),
        }
        # ...or, with warn_only=True, runs and warns (the warning is recorded for this side).
        torch.use_deterministic_algorithms(True, warn_only=True)
        result["duplicate_put_warn_only"] = duplicate_put(device)
        return result
    finally:
        torch.use_deterministic_algorithms(saved_mode[0], warn_only=saved_mode[1])
        torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic = saved


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
