"""pack_padded_sequence: lengths on the CPU, sorted or enforce_sorted=False, and never too long."""

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


def batch(device: str):
    torch.manual_seed(0)
    x = torch.randn(3, 5, 2, device=device)  # (batch, time, features), padded to 5 steps
    lengths = torch.tensor([4, 2, 3], device=device)  # e.g. mask.sum(1): on x's device
    return x, lengths


def attempt(fn):
    try:
        return fn()
    except RuntimeError as err:
        return f"{type(err).__name__}: {err}"[:2000]


def problem(device: str) -> dict:
    x, lengths = batch(device)
    # Lengths on the GPU. On a CPU-only machine the meta device stands in: same check, same message.
    elsewhere = "meta" if torch.device(device).type == "cpu" else device
    on_device = attempt(lambda: pack_padded_sequence(x, lengths.to(elsewhere), batch_first=True))
    unsorted = attempt(lambda: pack_padded_sequence(x, lengths.cpu(), batch_first=True))
    # batch_first forgotten: dimension 0 (3 sequences) is read as time, dimension 1 as batch.
    sorted_lengths = lengths.sort(descending=True).values.cpu()
    time_major = attempt(lambda: pack_padded_sequence(x, sorted_lengths))

    # Lengths counted before the batch was cut to 5 steps: 7 > 5 is accepted without a word.
    # (On the CPU: a GPU kernel given these batch sizes may read out of bounds.)
    xc = x.cpu()
    too_long = pack_padded_sequence(
        xc, torch.tensor([7, 2, 3]), batch_first=True, enforce_sorted=False
    )
    lstm = nn.LSTM(2, 4, batch_first=True)
    too_long_lstm = attempt(lambda: str(lstm(too_long)[0].data.shape))

    # pad_packed_sequence pads to the longest length in this batch, not to the input's length.
    packed = pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
    unpacked, _ = pad_packed_sequence(packed, batch_first=True)
    return {
        "lengths_on_device": on_device,
        "unsorted_lengths": unsorted,
        "batch_first_mismatch": time_major,
        "too_long_consistent": int(too_long.batch_sizes.sum()) == too_long.data.shape[0],
        "too_long_lstm": too_long_lstm,
        "unpacked_keeps_length": unpacked.shape[1] == x.shape[1],
    }


def fix(device: str) -> dict:
    x, lengths = batch(device)
    lengths = lengths.clamp(max=x.shape[1]).cpu()  # a 1-D int64 tensor on the CPU, <= T
    packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    lstm = nn.LSTM(2, 4, batch_first=True).to(device)
    out, _ = lstm(packed)
    # total_length: every replica of a DataParallel model pads to the same length.
    unpacked, out_lengths = pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])

    xc = x.cpu()
    clamped = torch.tensor([7, 2, 3]).clamp(max=xc.shape[1])
    cut = pack_padded_sequence(xc, clamped, batch_first=True, enforce_sorted=False)
    return {
        "lengths_on_device": f"no error: {int(packed.batch_sizes.sum())} steps packed",
        "unsorted_lengths": f"no error: lengths back in input order {out_lengths.tolist()}",
        "batch_first_mismatch": f"no error: output {list(unpacked.shape)}",
        "too_long_consistent": int(cut.batch_sizes.sum()) == cut.data.shape[0],
        "too_long_lstm": attempt(lambda: str(nn.LSTM(2, 4, batch_first=True)(cut)[0].data.shape)),
        "unpacked_keeps_length": unpacked.shape[1] == x.shape[1],
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
