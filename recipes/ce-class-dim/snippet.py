"""cross_entropy wants classes on dim 1: (N, C), (N, C, T), (N, C, H, W)."""

import torch
import torch.nn.functional as F


def _error(fn) -> str:
    try:
        fn()
    except (RuntimeError, ValueError) as err:
        return f"{type(err).__name__}: {err}"[:2000]
    return "no error"


def make_batch(device: str, n=2, t=5, c=7):
    # A tagger: nn.Linear on the last dim returns (N, T, C), tags are (N, T).
    torch.manual_seed(0)
    logits = torch.randn(n, t, c, device=device)
    tags = torch.randint(0, c, (n, t), device=device)
    return logits, tags


def problem(device: str) -> dict:
    logits, tags = make_batch(device)  # T = 5 steps, C = 7 classes
    # Sequence logits straight from the model: cross_entropy reads dim 1 (T) as classes.
    seq_ntc = _error(lambda: F.cross_entropy(logits, tags))
    # Flattening the logits but not the tags.
    seq_flat = _error(lambda: F.cross_entropy(logits.reshape(-1, 7), tags))

    # When T == C the same mistake runs, and computes a different loss.
    square, square_tags = make_batch(device, t=4, c=4)
    wrong = F.cross_entropy(square, square_tags)
    right = F.cross_entropy(square.reshape(-1, 4), square_tags.reshape(-1))

    # Segmentation: channels-last logits (N, H, W, C), or a mask loaded as a
    # one-channel image, (N, 1, H, W).
    nhwc = torch.randn(2, 8, 8, 3, device=device)
    mask = torch.randint(0, 3, (2, 1, 8, 8), device=device)
    seg_nhwc = _error(lambda: F.cross_entropy(nhwc, mask.squeeze(1)))
    nchw = nhwc.permute(0, 3, 1, 2)
    seg_mask = _error(lambda: F.cross_entropy(nchw, mask))

    # Plain classification with labels kept as a column, shape (N, 1).
    column = _error(lambda: F.cross_entropy(logits[:, 0], tags[:, :1]))
    return {
        "seq_ntc": seq_ntc,
        "seq_flatten_logits_only": seq_flat,
        "t_equals_c_matches_correct": torch.allclose(wrong, right),
        "seg_channels_last": seg_nhwc,
        "seg_mask_with_channel_dim": seg_mask,
        "cls_column_target": column,
    }


def fix(device: str) -> dict:
    logits, tags = make_batch(device)
    # Put classes on dim 1 ...
    loss_nct = F.cross_entropy(logits.permute(0, 2, 1), tags)
    # ... or flatten both to one row per token.
    loss_flat = F.cross_entropy(logits.reshape(-1, logits.size(-1)), tags.reshape(-1))
    per_token = F.cross_entropy(logits.permute(0, 2, 1), tags, reduction="none")

    square, square_tags = make_batch(device, t=4, c=4)
    square_nct = F.cross_entropy(square.permute(0, 2, 1), square_tags)
    square_flat = F.cross_entropy(square.reshape(-1, 4), square_tags.reshape(-1))

    nhwc = torch.randn(2, 8, 8, 3, device=device)
    mask = torch.randint(0, 3, (2, 1, 8, 8), device=device)
    seg_logits = nhwc.permute(0, 3, 1, 2)
    seg = F.cross_entropy(nhwc.permute(0, 3, 1, 2), mask.squeeze(1))  # (N, C, H, W), (N, H, W)

    column = F.cross_entropy(logits[:, 0], tags[:, :1].squeeze(1))
    return {
        # The same calls as the problem's, with classes on dim 1: none raises.
        "seq_ntc": _error(lambda: F.cross_entropy(logits.permute(0, 2, 1), tags)),
        "seq_flatten_logits_only": _error(
            lambda: F.cross_entropy(logits.reshape(-1, 7), tags.reshape(-1))
        ),
        "t_equals_c_matches_correct": torch.allclose(square_nct, square_flat),
        "seg_channels_last": _error(lambda: F.cross_entropy(nhwc.permute(0, 3, 1, 2), mask[:, 0])),
        "seg_mask_with_channel_dim": _error(lambda: F.cross_entropy(seg_logits, mask.squeeze(1))),
        "cls_column_target": _error(lambda: F.cross_entropy(logits[:, 0], tags[:, :1].squeeze(1))),
        "permute_matches_flatten": torch.allclose(loss_nct, loss_flat),
        "per_token_loss_shape": list(per_token.shape),
        "seg_loss": round(float(seg), 4),
        "cls_loss": round(float(column), 4),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
