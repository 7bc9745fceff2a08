"""`torch.save` of a slice writes the whole storage behind it; `.clone()` saves only the slice."""

import io

import torch


def saved_bytes_and_storage(t: torch.Tensor):
    """Save `t` the way a per-sample cache does, load it back, report the sizes."""
    buf = io.BytesIO()  # stands in for a file such as f"sample_{i}.pt"
    torch.save(t, buf)
    buf.seek(0)
    loaded = torch.load(buf)
    return len(buf.getvalue()), loaded.untyped_storage().nbytes(), loaded


def problem(device: str) -> dict:
    torch.manual_seed(0)
    features = torch.randn(256, 1024, device=device)  # one batch of embeddings: 1 MiB
    sample = features[0]  # one row, 4 KiB: a view into the batch's storage
    file_bytes, storage_bytes, loaded = saved_bytes_and_storage(sample)
    # A common "fix" that is not one: a row is already contiguous, so this returns `sample`.
    contiguous_bytes, _, _ = saved_bytes_and_storage(sample.contiguous())
    return {
        "sample_bytes": sample.nelement() * sample.element_size(),
        "file_bytes": file_bytes,
        "loaded_storage_bytes": storage_bytes,
        "values_match": bool(torch.equal(loaded, sample)),
        "contiguous_file_bytes": contiguous_bytes,
    }


def fix(device: str) -> dict:
    torch.manual_seed(0)
    features = torch.randn(256, 1024, device=device)
    sample = features[0].clone()  # own, compact storage: only these 1024 floats
    file_bytes, storage_bytes, loaded = saved_bytes_and_storage(sample)
    return {
        "sample_bytes": sample.nelement() * sample.element_size(),
        "file_bytes": file_bytes,
        "loaded_storage_bytes": storage_bytes,
        "values_match": bool(torch.equal(loaded, features[0])),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
