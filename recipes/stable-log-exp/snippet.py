"""log(1 + x), exp(x) - 1 and log(sum(exp(x))) lose digits or overflow; log1p, expm1, logsumexp."""

import torch


def rel_error(value: torch.Tensor, exact: torch.Tensor) -> float:
    return ((value.cpu().double() - exact) / exact).abs().item()


def problem(device: str) -> dict:
    tiny = torch.tensor([1e-10, 1e-5], device=device)  # float32
    log_1p = torch.log(1 + tiny)  # 1 + 1e-10 rounds to exactly 1.0 in float32
    exp_m1 = torch.exp(tiny) - 1
    exact = torch.log1p(tiny.cpu().double())  # float64 reference (on CPU: MPS has none)

    # A log-likelihood of a mixture, or a soft maximum: log(sum(exp(x))) written out.
    big = torch.tensor([1000.0, 1000.0], device=device, requires_grad=True)
    small = torch.tensor([-1000.0, -1000.0], device=device)
    lse_big = torch.log(torch.exp(big).sum())  # exp(1000) = inf
    lse_small = torch.log(torch.exp(small).sum())  # exp(-1000) = 0, log(0) = -inf
    lse_big.backward()
    return {
        "log_1p_of_1e-10": log_1p[0].item(),
        "exp_m1_of_1e-10": exp_m1[0].item(),
        "log_1p_rel_error_at_1e-5": rel_error(log_1p[1], exact[1]),
        "lse_of_1000s": lse_big.item(),
        "lse_of_minus_1000s": lse_small.item(),
        "lse_grad_has_nan": bool(torch.isnan(big.grad).any()),
    }


def fix(device: str) -> dict:
    tiny = torch.tensor([1e-10, 1e-5], device=device)
    log_1p = torch.log1p(tiny)
    exp_m1 = torch.expm1(tiny)
    exact = torch.log1p(tiny.cpu().double())

    big = torch.tensor([1000.0, 1000.0], device=device, requires_grad=True)
    small = torch.tensor([-1000.0, -1000.0], device=device)
    lse_big = torch.logsumexp(big, dim=0)  # max + log(sum(exp(x - max)))
    lse_small = torch.logsumexp(small, dim=0)
    lse_big.backward()  # the gradient is softmax(x)
    return {
        "log_1p_of_1e-10": log_1p[0].item(),
        "exp_m1_of_1e-10": exp_m1[0].item(),
        "log_1p_rel_error_at_1e-5": rel_error(log_1p[1], exact[1]),
        "lse_of_1000s": lse_big.item(),
        "lse_of_minus_1000s": lse_small.item(),
        "lse_grad_has_nan": bool(torch.isnan(big.grad).any()),
        "lse_grad_sum": big.grad.sum().item(),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
