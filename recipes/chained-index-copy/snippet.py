"""x[idx][...] = v writes into a copy: advanced indexing copies, basic slicing gives a view."""

import torch


def make_boxes(device: str) -> torch.Tensor:
    # Three boxes as (x1, y1, x2, y2).
    return torch.tensor(
        [[0.0, 0.0, 10.0, 10.0], [5.0, 5.0, 20.0, 20.0], [1.0, 1.0, 4.0, 4.0]], device=device
    )


def problem(device: str) -> dict:
    """Index with a mask or an index tensor, then index again and write."""
    boxes = make_boxes(device)
    original = boxes.clone()
    keep = torch.tensor([True, False, True], device=device)
    rows = torch.tensor([0, 2], device=device)

    boxes[keep][:, 2:] *= 2.0  # scale x2, y2 of the kept boxes ... of a copy
    after_mask_write = torch.equal(boxes, original)

    boxes[rows][:, 0] = -1.0  # the same with an index tensor
    after_index_write = torch.equal(boxes, original)

    subset = boxes[rows]  # "the rows I want to edit"
    subset += 100.0
    after_subset_edit = torch.equal(boxes, original)

    # Basic slicing first is a view, so the same chained write does land.
    boxes[0:2][:, 0] = -1.0
    slice_write_landed = not torch.equal(boxes, original)

    return {
        "mask_write_lost": after_mask_write,
        "index_write_lost": after_index_write,
        "subset_edit_lost": after_subset_edit,
        "subset_shares_memory": subset.data_ptr() == boxes.data_ptr(),
        "slice_then_write_landed": slice_write_landed,
    }


def fix(device: str) -> dict:
    """One indexing expression per write: boxes[keep, 2:] *= 2, boxes[rows, 0] = -1."""
    boxes = make_boxes(device)
    keep = torch.tensor([True, False, True], device=device)
    rows = torch.tensor([0, 2], device=device)

    boxes[keep, 2:] *= 2.0  # one expression: the write goes through index_put_
    boxes[rows, 0] = -1.0
    boxes[rows] += 100.0

    # A chain is fine when only the LAST step is advanced: x[:, 1] is a view, and the
    # assignment x[:, 1][rows] = v writes through it.
    boxes[:, 1][rows] = 0.0

    # The same three writes, each on its own copy: do they reach the tensor?
    fresh = make_boxes(device)
    masked, indexed, edited = fresh.clone(), fresh.clone(), fresh.clone()
    masked[keep, 2:] *= 2.0
    indexed[rows, 0] = -1.0
    edited[rows] += 100.0

    return {
        "mask_write_lost": torch.equal(masked, fresh),
        "index_write_lost": torch.equal(indexed, fresh),
        "subset_edit_lost": torch.equal(edited, fresh),
        "boxes": boxes.tolist(),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
