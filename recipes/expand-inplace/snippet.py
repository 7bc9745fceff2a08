"""expand() gives every row the same memory: a write into one row writes all of them."""

import torch

BATCH = 4


def rows_equal_to(state: torch.Tensor, value: float) -> int:
    # How many rows (samples) hold `value` everywhere.
    return int((state == value).all(dim=1).sum())


def problem(device: str) -> dict:
    """Give each sample its own state row with expand(), then update one sample."""
    init = torch.zeros(3, device=device)  # the initial state of one sample
    state = init.expand(BATCH, 3)  # "one row per sample, without copying"
    strides = list(state.stride())

    state[1] += 1.0  # update sample 1 only ... every row, and `init`, change
    rows_after_row_update = rows_equal_to(state, 1.0)
    init_after = init.tolist()

    finished = torch.tensor([False, False, False, True], device=device)
    state[finished] = -1.0  # reset sample 3 only: a deprecation warning, then every row
    rows_after_masked_write = rows_equal_to(state, -1.0)

    try:
        state.add_(1.0)  # a whole-tensor in-place op refuses outright
        add_error = "no error"
    except RuntimeError as err:
        add_error = f"{type(err).__name__}: {err}"[:2000]

    return {
        "strides": strides,
        "shares_memory_with_init": state.data_ptr() == init.data_ptr(),
        "storage_bytes": state.untyped_storage().nbytes(),
        "rows_changed_by_row_update": rows_after_row_update,
        "init_after_row_update": init_after,
        "rows_changed_by_masked_write": rows_after_masked_write,
        "inplace_add_error": add_error,
    }


def fix(device: str) -> dict:
    """repeat() (or expand().clone()) gives every sample memory of its own."""
    init = torch.zeros(3, device=device)
    state = init.repeat(BATCH, 1)  # repeat takes counts: BATCH copies along dim 0
    cloned = init.expand(BATCH, 3).clone()  # the same thing, written with expand

    state[1] += 1.0
    rows_after_row_update = rows_equal_to(state, 1.0)

    finished = torch.tensor([False, False, False, True], device=device)
    state[finished] = -1.0
    rows_after_masked_write = rows_equal_to(state, -1.0)
    state.add_(1.0)

    return {
        "strides": list(state.stride()),
        "shares_memory_with_init": state.data_ptr() == init.data_ptr(),
        "storage_bytes": state.untyped_storage().nbytes(),
        "rows_changed_by_row_update": rows_after_row_update,
        "init_after_row_update": init.tolist(),
        "rows_changed_by_masked_write": rows_after_masked_write,
        "clone_equals_repeat": torch.equal(cloned, init.repeat(BATCH, 1)),
        "state_after_add": state.tolist(),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
