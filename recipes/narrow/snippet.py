"""Tensor.narrow returns a view: writes reach the original, and it slices along `dim` only."""

import torch


def make_grid(device: str) -> torch.Tensor:
    # A 3 x 4 tensor whose values are their own flat positions, so rows and columns are easy
    # to tell apart. torch.tensor gives a fresh tensor (not itself a view of anything).
    return torch.tensor(
        [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], device=device
    )


def problem(device: str) -> dict:
    """Treat narrow as if it returned a copy, or as if it sliced rows, or as plain slicing."""
    t = make_grid(device)
    cols = t.narrow(1, 1, 2)  # columns 1 and 2 of every row: a view into t's memory
    cols.fill_(-1.0)  # meant as a scratch edit, but it writes into t itself

    # The old notes' functional call, without the tensor.
    try:
        torch.narrow(1, 1, 2)
        functional_without_tensor = "no error"
    except Exception as err:
        functional_without_tensor = f"{type(err).__name__}: {err}".splitlines()[0]

    # Slicing past the end clips quietly; narrow refuses instead.
    try:
        t.narrow(1, 3, 2)
        narrow_past_end = "no error"
    except Exception as err:
        narrow_past_end = f"{type(err).__name__}: {err}".splitlines()[0]

    return {
        "original_row0_after_write": t[0].tolist(),
        "base_is_original": cols._base is t,
        # Same memory, one float32 (4 bytes) further on: the view starts at column 1.
        "data_ptr_offset_bytes": cols.data_ptr() - t.data_ptr(),
        "view_is_contiguous": cols.is_contiguous(),
        # narrow(1, s, l) is not t[s:s+l]: that slice takes rows, not columns.
        "narrow_shape": list(t.narrow(1, 1, 2).shape),
        "row_slice_shape": list(t[1:3].shape),
        "functional_without_tensor_error": functional_without_tensor,
        "narrow_past_end_error": narrow_past_end,
        "slice_past_end_shape": list(t[:, 3:5].shape),
    }


def fix(device: str) -> dict:
    """clone() for a copy; compare narrow with the slice along the same dim."""
    t = make_grid(device)
    cols = t.narrow(1, 1, 2).clone()  # clone() copies into new memory
    cols.fill_(-1.0)  # only the copy changes

    start, length = 1, 2
    # narrow(dim, start, length) is the slice start:start + length along that same dim.
    cols_view = t.narrow(1, start, length)
    same_as_column_slice = torch.equal(cols_view, t[:, start : start + length])
    same_as_row_slice = torch.equal(t.narrow(0, start, length), t[start : start + length])
    # The functional form takes the tensor first: torch.narrow(input, dim, start, length).
    functional = torch.narrow(t, 1, start, length)
    # A negative start counts from the end of the dimension, like a negative slice index.
    last_two = t.narrow(1, -2, 2)

    return {
        "original_row0_after_write": t[0].tolist(),
        "clone_base_is_none": cols._base is None,
        "clone_is_contiguous": cols.is_contiguous(),
        "equals_column_slice": same_as_column_slice,
        "dim0_equals_row_slice": same_as_row_slice,
        "functional_matches_method": torch.equal(functional, cols_view),
        "negative_start_matches_slice": torch.equal(last_two, t[:, -2:]),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
