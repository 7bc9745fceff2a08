"""The file is not a checkpoint: an LFS pointer, an HTML page, a truncated or empty download."""

import os
import tempfile
import zipfile

import torch

LFS_POINTER = (
    b"version https://git-lfs.github.com/spec/v1\n"
    b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
    b"size 102502400\n"
)
HTML_PAGE = b"<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body></body></html>\n"


def write_files(folder: str, device: str) -> dict:
    """The real checkpoint, and what a clone or a download can leave in its place."""
    torch.manual_seed(0)
    real = os.path.join(folder, "real.pt")
    torch.save({"weight": torch.randn(256, 512, device=device)}, real)  # 512 KiB
    legacy = os.path.join(folder, "legacy.pt")  # the pre-1.6 format, still found in old repos
    torch.save({"weight": torch.randn(64, 64)}, legacy, _use_new_zipfile_serialization=False)
    with open(real, "rb") as f:
        real_bytes = f.read()
    with open(legacy, "rb") as f:
        legacy_bytes = f.read()
    contents = {
        "lfs_pointer": LFS_POINTER,  # cloned without `git lfs pull`
        "html_page": HTML_PAGE,  # wget of a page that needs a login
        "truncated_zip": real_bytes[: len(real_bytes) // 2],  # an interrupted download
        "truncated_small_zip": real_bytes[: 32 * 1024],  # cut off after 32 KiB
        "truncated_legacy": legacy_bytes[:-200],
        "empty_file": b"",  # a failed download that left the file behind
    }
    paths = {"real": real}
    for name, data in contents.items():
        paths[name] = os.path.join(folder, name + ".pt")
        with open(paths[name], "wb") as f:
            f.write(data)
    return paths


def load_error(path: str, **kwargs) -> str:
    try:
        torch.load(path, map_location="cpu", **kwargs)
        return "no error"
    except Exception as err:  # UnpicklingError, RuntimeError, OSError, EOFError
        return f"{type(err).__name__}: {err}"[:2000]


def diagnose(path: str) -> str:
    """Look at the size and the first bytes before blaming torch.load."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(64)
    if size == 0:
        return "empty file"
    if head.startswith(b"version https://git-lfs"):
        return "Git LFS pointer: run `git lfs pull`"
    if head.lstrip().startswith(b"<"):
        return "HTML page, not a checkpoint"
    if head.startswith(b"PK\x03\x04"):  # torch.save's format since 1.6 is a zip archive
        return "checkpoint" if zipfile.is_zipfile(path) else "truncated zip checkpoint"
    if head.startswith(b"\x80"):  # a pickle: the legacy format
        return f"legacy checkpoint of {size} bytes: compare with the expected size"
    return f"unknown content {head[:16]!r}"


def problem(device: str) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        paths = write_files(folder, device)
        return {
            # torch.load with the default weights_only (True since 2.6).
            "lfs_pointer": load_error(paths["lfs_pointer"]),
            "html_page": load_error(paths["html_page"]),
            "truncated_zip": load_error(paths["truncated_zip"]),
            "truncated_small_zip": load_error(paths["truncated_small_zip"]),
            "truncated_legacy": load_error(paths["truncated_legacy"]),
            "empty_file": load_error(paths["empty_file"]),
            # The advice in the weights-only message: it only changes which error you get.
            "lfs_pointer_weights_only_false": load_error(paths["lfs_pointer"], weights_only=False),
            "html_page_weights_only_false": load_error(paths["html_page"], weights_only=False),
            "empty_file_weights_only_false": load_error(paths["empty_file"], weights_only=False),
        }


def fix(device: str) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        paths = write_files(folder, device)
        diagnosis = {name: diagnose(path) for name, path in paths.items()}
        # Only a file that looks like a checkpoint goes to torch.load.
        state = torch.load(paths["real"], map_location="cpu", weights_only=True)
        return {
            "lfs_pointer": diagnosis["lfs_pointer"],
            "html_page": diagnosis["html_page"],
            "truncated_zip": diagnosis["truncated_zip"],
            "truncated_small_zip": diagnosis["truncated_small_zip"],
            "truncated_legacy": diagnosis["truncated_legacy"],
            "empty_file": diagnosis["empty_file"],
            "real_checkpoint": diagnosis["real"],
            "real_checkpoint_loads": list(state["weight"].shape),
        }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
