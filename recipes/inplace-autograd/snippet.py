"""In-place edits of tensors autograd saved, and of leaf parameters, break backward()."""

import torch
from torch import nn


def error_of(step) -> str:
    try:
        step()
    except RuntimeError as err:
        return f"{type(err).__name__}: {err}"[:2000]
    return "no error"


def problem(device: str) -> dict:
    torch.manual_seed(0)
    logits = torch.randn(2, 3, device=device, requires_grad=True)

    # 1) A hand-written softmax, normalised in place to save memory.
    probs = logits.exp()  # exp saves its output: d/dx exp(x) = exp(x)
    probs /= probs.sum(dim=1, keepdim=True)  # BUG: overwrites the saved output
    version = probs._version
    softmax_error = error_of(lambda: probs[:, 0].sum().backward())

    # 2) ReLU(inplace=True) right after an op that saved its output.
    gate = nn.Sequential(nn.Sigmoid(), nn.ReLU(inplace=True))
    relu_error = error_of(lambda: gate(logits).sum().backward())

    # 3) A hand-written SGD step on a parameter, outside torch.no_grad().
    w = torch.randn(3, device=device, requires_grad=True)
    (w * 2).sum().backward()

    try:
        w -= 0.1 * w.grad  # BUG: an in-place update of a leaf that requires grad
        sgd_error = "no error"
    except RuntimeError as err:
        sgd_error = f"{type(err).__name__}: {err}"[:2000]
    try:
        w[0] = 0.0  # pinning one weight: an in-place write into a view of the leaf
        pin_error = "no error"
    except RuntimeError as err:
        pin_error = f"{type(err).__name__}: {err}"[:2000]

    # The usual workaround, rebinding, runs but makes `w` a non-leaf that gets no .grad.
    w = w - 0.1 * w.grad
    return {
        "version_after_inplace_divide": int(version),
        "softmax_inplace_error": softmax_error,
        "relu_after_sigmoid_error": relu_error,
        "sgd_inplace_on_leaf_error": sgd_error,
        "index_assign_on_leaf_error": pin_error,
        "w_is_leaf_after_update": w.is_leaf,
    }


def fix(device: str) -> dict:
    torch.manual_seed(0)
    logits = torch.randn(2, 3, device=device, requires_grad=True)

    # 1) Out of place: a new tensor, the saved exp output stays intact.
    probs = logits.exp()
    probs = probs / probs.sum(dim=1, keepdim=True)
    probs[:, 0].sum().backward()
    manual_grad = logits.grad.clone()
    logits.grad = None
    torch.softmax(logits, dim=1)[:, 0].sum().backward()
    softmax_grad_ok = torch.allclose(manual_grad, logits.grad, atol=1e-6)

    # 2) ReLU(inplace=True) is safe after Linear: Linear saves its input, not its output.
    torch.manual_seed(0)
    block = nn.Sequential(nn.Linear(3, 3), nn.ReLU(inplace=True)).to(device)
    relu_after_linear = error_of(lambda: block(logits).sum().backward())
    gate = nn.Sequential(nn.Sigmoid(), nn.ReLU())  # after Sigmoid: the out-of-place ReLU
    sigmoid_then_relu = error_of(lambda: gate(logits).sum().backward())

    # 3) Update parameters in place under torch.no_grad(): `w` stays a leaf.
    w = torch.randn(3, device=device, requires_grad=True)
    (w * 2).sum().backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        w[0] = 0.0
    w.grad = None
    (w * 2).sum().backward()
    return {
        "softmax_grad_matches_builtin": softmax_grad_ok,
        "relu_inplace_after_linear": relu_after_linear,
        "relu_after_sigmoid_error": sigmoid_then_relu,
        "w_is_leaf_after_update": w.is_leaf,
        "w_requires_grad_after_update": w.requires_grad,
        "w_gets_grad_next_step": w.grad is not None,
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
