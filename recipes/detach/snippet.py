"""`.data` hides an in-place change from autograd; `.detach()` shares the version counter."""

import torch
from torch import nn


def _true_sigmoid_grad(x: torch.Tensor) -> torch.Tensor:
    # d/dx sum(sigmoid(x)) = s * (1 - s), computed from an untouched forward pass.
    s = torch.sigmoid(x)
    return s * (1 - s)


def problem(device: str) -> dict:
    torch.manual_seed(0)
    x = torch.randn(4, device=device, requires_grad=True)
    probs = torch.sigmoid(x)  # sigmoid saves its output for the backward pass

    # Meant as a throwaway copy for some metric; `.data` is the same memory, no copy.
    scratch = probs.data
    scratch.sub_(0.5)  # centre on zero in place: `probs` changes too
    version_after = probs._version  # `.data` has its own version counter: still 0

    probs.sum().backward()  # runs without a word, from the overwritten values

    # GAN step for the discriminator, without detaching the generator's output.
    G, D = nn.Linear(2, 2).to(device), nn.Linear(2, 1).to(device)
    z = torch.randn(4, 2, device=device)
    fake = G(z)
    d_loss = nn.functional.binary_cross_entropy_with_logits(
        D(fake), torch.zeros(4, 1, device=device)
    )
    d_loss.backward()  # the gradient flows through `fake` into G as well

    true_grad = _true_sigmoid_grad(x.detach())
    return {
        "shares_storage": scratch.data_ptr() == probs.data_ptr(),
        "version_after_inplace": int(version_after),
        "grad_matches_true": bool(torch.allclose(x.grad, true_grad)),
        "max_grad_error": round(float((x.grad - true_grad).abs().max()), 4),
        "gan_G_grad_is_none": G.weight.grad is None,
    }


def fix(device: str) -> dict:
    torch.manual_seed(0)
    x = torch.randn(4, device=device, requires_grad=True)
    probs = torch.sigmoid(x)

    # `.detach()` shares the memory AND the version counter of `probs`.
    scratch = probs.detach()
    shares_storage = scratch.data_ptr() == probs.data_ptr()
    scratch.sub_(0.5)
    version_after = probs._version  # bumped: autograd knows its saved output changed
    try:
        probs.sum().backward()
        inplace_error = "no error"
    except RuntimeError as err:
        inplace_error = f"{type(err).__name__}: {err}".splitlines()[0]

    # The real fix when you want to edit the values: take a copy with its own memory.
    x.grad = None
    probs = torch.sigmoid(x)
    scratch = probs.detach().clone()
    scratch.sub_(0.5)
    probs.sum().backward()
    true_grad = _true_sigmoid_grad(x.detach())

    # GAN step for the discriminator: D learns from the fake, G receives nothing.
    G, D = nn.Linear(2, 2).to(device), nn.Linear(2, 1).to(device)
    z = torch.randn(4, 2, device=device)
    fake = G(z)
    d_loss = nn.functional.binary_cross_entropy_with_logits(
        D(fake.detach()), torch.zeros(4, 1, device=device)
    )
    d_loss.backward()

    # Pure inference (sampling from G): no graph is recorded at all.
    with torch.no_grad():
        samples = G(z)

    return {
        "shares_storage": shares_storage,
        "version_after_inplace": int(version_after),
        "inplace_error": inplace_error,
        "clone_grad_matches_true": bool(torch.allclose(x.grad, true_grad)),
        "gan_G_grad_is_none": G.weight.grad is None,
        "gan_D_grad_is_none": D.weight.grad is None,
        "no_grad_output_requires_grad": samples.requires_grad,
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
