"""Without `sampler.set_epoch(epoch)`, `DistributedSampler` shuffles every epoch the same way."""

import torch
from torch.utils.data import DataLoader, DistributedSampler

EPOCHS = 3
DATASET = list(range(8))


def epoch_orders(rank: int, call_set_epoch: bool) -> list:
    # num_replicas and rank given explicitly: no process group is needed to build the sampler.
    sampler = DistributedSampler(DATASET, num_replicas=2, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(DATASET, batch_size=None, sampler=sampler)
    orders = []
    for epoch in range(EPOCHS):
        if call_set_epoch:
            # Before iterating: the permutation is seeded with seed + epoch.
            sampler.set_epoch(epoch)
        orders.append([int(i) for i in loader])
    return orders


def problem(device: str) -> dict:
    # The sampler only picks indices; the device plays no part.
    torch.manual_seed(0)
    rank0 = epoch_orders(rank=0, call_set_epoch=False)
    return {
        "rank0_orders": rank0,
        "distinct_orders_over_epochs": len({tuple(o) for o in rank0}),
    }


def fix(device: str) -> dict:
    torch.manual_seed(0)
    rank0 = epoch_orders(rank=0, call_set_epoch=True)
    rank1 = epoch_orders(rank=1, call_set_epoch=True)
    return {
        "rank0_orders": rank0,
        "distinct_orders_over_epochs": len({tuple(o) for o in rank0}),
        # Both ranks use the same epoch, so their shards still split the dataset exactly.
        "ranks_partition_dataset_every_epoch": all(
            sorted(a + b) == DATASET for a, b in zip(rank0, rank1)
        ),
        "rank0_subset_changes": len({frozenset(o) for o in rank0}) > 1,
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
