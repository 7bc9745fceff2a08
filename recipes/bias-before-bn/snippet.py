"""A conv bias right before BatchNorm is cancelled by the mean subtraction: `bias=False`."""

import torch
from torch import nn


def conv_bn(bias: bool, device: str) -> nn.Sequential:
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(3, 4, 3, bias=bias), nn.BatchNorm2d(4)).to(device)


def problem(device: str) -> dict:
    block = conv_bn(bias=True, device=device).train()  # Conv2d's default is bias=True
    x = torch.randn(8, 3, 6, 6, device=device)
    target = torch.randn(8, 4, 4, 4, device=device)

    out = block(x)
    nn.functional.mse_loss(out, target).backward()
    out = out.detach()
    conv = block[0]

    # Shift every bias by 5: BatchNorm subtracts the per-channel batch mean, 5 included.
    with torch.no_grad():
        conv.bias.add_(5.0)
        out_shifted = block(x)
    return {
        "params": sum(p.numel() for p in block.parameters()),
        "output_change_after_bias_plus_5": float((out_shifted - out).abs().max()),
        "bias_grad_max": float(conv.bias.grad.abs().max()),
        "weight_grad_max": float(conv.weight.grad.abs().max()),
        "bias_grad_over_weight_grad": float(
            conv.bias.grad.abs().max() / conv.weight.grad.abs().max()
        ),
    }


def fix(device: str) -> dict:
    with_bias = conv_bn(bias=True, device=device).train()
    block = conv_bn(bias=False, device=device).train()  # BatchNorm's beta is the bias now
    with torch.no_grad():
        block[0].weight.copy_(with_bias[0].weight)  # same weights, minus the bias
    x = torch.randn(8, 3, 6, 6, device=device)
    target = torch.randn(8, 4, 4, 4, device=device)
    with torch.no_grad():
        same = torch.allclose(block(x), with_bias(x), atol=1e-5)
    nn.functional.mse_loss(block(x), target).backward()
    return {
        "params": sum(p.numel() for p in block.parameters()),
        "same_output_as_with_bias": same,
        "bn_beta_grad_max": float(block[1].bias.grad.abs().max()),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
