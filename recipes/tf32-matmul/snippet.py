"""TF32: on by default for float32 convolutions on Ampere+, off for matmuls; one API to set it."""

import torch
import torch.nn.functional as F

backends = torch.backends
NEW_API = hasattr(backends.cuda.matmul, "fp32_precision")  # torch >= 2.9


def attempt(fn):
    try:
        return fn()
    except RuntimeError as err:
        return f"{type(err).__name__}: {err}"[:2000]


def relative_errors(device: str) -> dict:
    """float32 conv and matmul on `device`, against the same maths in float64 on the CPU."""
    torch.manual_seed(0)
    x, w = torch.randn(8, 16, 32, 32), torch.randn(32, 16, 3, 3)
    a, b = torch.randn(512, 512), torch.randn(512, 512)
    conv = F.conv2d(x.to(device), w.to(device), padding=1).cpu().double()
    conv_ref = F.conv2d(x.double(), w.double(), padding=1)
    mm = (a.to(device) @ b.to(device)).cpu().double()
    mm_ref = a.double() @ b.double()
    return {
        "conv_rel_err": float((conv - conv_ref).abs().max() / conv_ref.abs().max()),
        "matmul_rel_err": float((mm - mm_ref).abs().max() / mm_ref.abs().max()),
    }


def global_setter_reaches_conv():
    """cudnn.conv's own flag after `torch.backends.fp32_precision = "ieee"` (torch >= 2.9)."""
    if not NEW_API:
        return "no fp32_precision API"
    saved = (backends.fp32_precision, backends.cudnn.conv.fp32_precision)
    try:
        backends.fp32_precision = "ieee"
        return backends.cudnn.conv.fp32_precision
    finally:
        backends.fp32_precision, backends.cudnn.conv.fp32_precision = saved


def problem(device: str) -> dict:
    result = {
        # The defaults since torch 1.12: convolutions may use TF32, matmuls may not.
        "cudnn_allow_tf32": backends.cudnn.allow_tf32,
        "matmul_allow_tf32": backends.cuda.matmul.allow_tf32,
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
        **relative_errors(device),
    }
    result["conv_may_use_tf32"] = result["cudnn_allow_tf32"]
    # The one-line global setter, from the default state: does it reach cuDNN's conv flag?
    result["conv_after_global_ieee"] = global_setter_reaches_conv()
    if NEW_API:
        saved = (backends.cuda.matmul.fp32_precision, backends.cudnn.conv.fp32_precision)
        try:
            # Your script opts in and out with the new API...
            backends.cuda.matmul.fp32_precision = "tf32"
            backends.cudnn.conv.fp32_precision = "ieee"
            # ...and a library (or an older line of yours) reads the legacy flags.
            result["legacy_matmul_read"] = attempt(lambda: torch.get_float32_matmul_precision())
            result["legacy_cudnn_read"] = attempt(lambda: backends.cudnn.allow_tf32)
            result["flags_read"] = result["legacy_cudnn_read"]
        finally:
            backends.cuda.matmul.fp32_precision, backends.cudnn.conv.fp32_precision = saved
    return result


def fix(device: str) -> dict:
    if not NEW_API:  # torch < 2.9: the legacy flags are the only API
        saved = backends.cudnn.allow_tf32
        backends.cudnn.allow_tf32 = False
        try:
            return {
                "conv_may_use_tf32": backends.cudnn.allow_tf32,
                **relative_errors(device),
            }
        finally:
            backends.cudnn.allow_tf32 = saved
    saved = (backends.cuda.matmul.fp32_precision, backends.cudnn.conv.fp32_precision)
    try:
        # One API, for writing and for reading: full float32 for convolutions, and TF32
        # for matmuls where speed matters more than the last digits.
        backends.cudnn.conv.fp32_precision = "ieee"
        backends.cuda.matmul.fp32_precision = "tf32"
        result = relative_errors(device)
        result["conv_may_use_tf32"] = backends.cudnn.conv.fp32_precision == "tf32"
        result["flags_read"] = attempt(
            lambda: [backends.cuda.matmul.fp32_precision, backends.cudnn.conv.fp32_precision]
        )
        # Code that only ever uses the legacy flags stays consistent: they set the new ones too.
        backends.cuda.matmul.fp32_precision = "none"
        backends.cuda.matmul.allow_tf32 = True
        result["new_flag_after_legacy_write"] = backends.cuda.matmul.fp32_precision
        backends.cuda.matmul.allow_tf32 = False  # undone through the same API
    finally:
        backends.cuda.matmul.fp32_precision, backends.cudnn.conv.fp32_precision = saved
    return result


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
