"""Variable-length samples break the default collate; pad them in a `collate_fn`, keep lengths."""

import gc

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset


class Sentences(Dataset):
    """Token ids of different lengths, with a label each (as a tokenizer would give them)."""

    def __init__(self, as_lists=False):
        self.sequences = [
            torch.tensor([5]),
            torch.tensor([7, 2]),
            torch.tensor([3, 9, 4]),
            torch.tensor([6, 1]),
        ]
        self.as_lists = as_lists  # some tokenizers return plain Python lists

    def __len__(self):
        return len(self.sequences)

    def __getitem__(self, index):
        tokens = self.sequences[index]
        return (tokens.tolist() if self.as_lists else tokens), index % 2


def pad_collate(batch):
    sequences, labels = zip(*batch)
    sequences = [torch.as_tensor(s) for s in sequences]  # lists from a tokenizer too
    lengths = torch.tensor([len(s) for s in sequences])
    padded = pad_sequence(sequences, batch_first=True, padding_value=0)  # (batch, longest)
    mask = torch.arange(padded.size(1)) < lengths[:, None]  # True on real tokens
    return padded, lengths, mask, torch.tensor(labels)


def first_batch(loader):
    try:
        return next(iter(loader))
    except RuntimeError as err:
        text = f"{type(err).__name__}: {err}"
    gc.collect()  # free the failed iterator and its worker now, not inside a later fork
    # A worker's error arrives with its traceback: keep the end, where the message is.
    return text if len(text) <= 2000 else text[:1000] + "\n...\n" + text[-1000:]


def outcome(batch) -> str:
    return batch if isinstance(batch, str) else "no error"


def problem(device: str) -> dict:
    # The default collate_fn stacks the samples of a batch: they must have equal shapes.
    in_process = first_batch(DataLoader(Sentences(), batch_size=4))
    # With workers, the same error comes back wrapped in a message naming the worker.
    in_worker = first_batch(DataLoader(Sentences(), batch_size=4, num_workers=1, timeout=30))
    # Lists of token ids fail in the same place, with a message of their own.
    as_lists = first_batch(DataLoader(Sentences(as_lists=True), batch_size=4))
    return {
        "error": outcome(in_process),
        "error_with_workers": outcome(in_worker),
        "error_with_lists": outcome(as_lists),
    }


def fix(device: str) -> dict:
    # The problem's in-process loaders, with pad_collate.
    batch = first_batch(DataLoader(Sentences(), batch_size=4, collate_fn=pad_collate))
    as_lists = first_batch(
        DataLoader(Sentences(as_lists=True), batch_size=4, collate_fn=pad_collate)
    )
    padded, lengths, mask, labels = (t.to(device) for t in batch)

    # Mean embedding per sentence, padding excluded: the mask keeps the pads out.
    torch.manual_seed(0)
    embedding = torch.nn.Embedding(10, 4).to(device)  # the pad id 0 has a real, non-zero vector
    vectors = embedding(padded)  # (batch, longest, 4)
    masked_mean = (vectors * mask[..., None]).sum(1) / lengths[:, None]
    unmasked_mean = vectors.sum(1) / lengths[:, None]  # right divisor, pads still summed
    one_by_one = torch.stack([embedding(s.to(device)).mean(0) for s in Sentences().sequences])
    return {
        "error": outcome(batch),
        "error_with_lists": outcome(as_lists),
        "batch_shape": list(padded.shape),
        "lengths": lengths.tolist(),
        "masked_mean_matches_unpadded": torch.allclose(masked_mean, one_by_one),
        "unmasked_mean_matches_unpadded": torch.allclose(unmasked_mean, one_by_one),
        "plain_mean_matches_unpadded": torch.allclose(vectors.mean(1), one_by_one),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
