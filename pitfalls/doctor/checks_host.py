"""Checks that need no torch: shared memory, the open-files limit, environment variables that
steer CUDA and MPS, and modules that shadow torch, NumPy or torchvision. They run in doctor's
own process and read the machine through `System`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pitfalls.doctor.checks_torch import nvidia_gpus
from pitfalls.doctor.model import Check, Probe, System

MiB = 1024 * 1024
# /dev/shm: DataLoader workers hand every batch to the main process through shared memory.
# A batch of 64 RGB images of 224 x 224 in float32 is 38.5 MB; with the default
# prefetch_factor of 2, four workers keep 8 batches (about 310 MB) in flight, more with bigger
# batches or more workers. Below 256 MiB (Docker's default is 64 MiB) that common setup cannot
# fit and workers die with a bus error; below 1 GiB larger batches will not.
SHM_PROBLEM = 256 * MiB
SHM_WARNING = 1024 * MiB
# Open files: torch's default sharing strategy on Linux (file_descriptor) keeps a descriptor
# open for every tensor a worker shares; 1024, the usual soft limit, is reached quickly.
NOFILE_WARNING = 4096

# Every key any release from 1.13 to 2.15 accepts in PYTORCH_CUDA_ALLOC_CONF /
# PYTORCH_ALLOC_CONF (read from c10's parser strings in the 2.4.1 and 2.15.0 wheels). An
# unknown key fails at the first CUDA allocation: "Unrecognized CachingAllocator option"
# (2.4) / "Unrecognized key '...'" (2.15).
ALLOC_KEYS = {
    "max_split_size_mb": "int>20",
    "max_non_split_rounding_mb": "int",
    "garbage_collection_threshold": "fraction",
    "expandable_segments": "bool",
    "roundup_power2_divisions": "divisions",
    "backend": "backend",
    "release_lock_on_cudamalloc": "bool",
    "release_lock_on_hipmalloc": "bool",
    "pinned_use_cuda_host_register": "bool",
    "pinned_use_hip_host_register": "bool",
    "pinned_num_register_threads": "power2",
    "pinned_use_background_threads": "bool",
    "pinned_max_round_threshold_mb": "int",
    "pinned_reserve_segment_size_mb": "int",
    "per_process_memory_fraction": "fraction",
    "graph_capture_record_stream_reuse": "bool",
    "expandable_segments_reserve": "any",
    "expandable_segments_reserve_by_class": "any",
    "expandable_segments_handle_type": "any",
}
SHADOWED = ("torch", "numpy", "torchvision")


def check_visible_devices(system: System, probe: Probe) -> list[Check]:
    value = system.env.get("CUDA_VISIBLE_DEVICES")
    if value is None:
        return []
    entries = [e.strip() for e in value.split(",")] if value.strip() else []
    if not entries or entries[0] in ("-1", "NoDevFiles"):
        return [
            Check(
                "cuda-visible-devices",
                "warning",
                f"CUDA_VISIBLE_DEVICES={value!r} hides every GPU: torch sees none",
                "unset it, or name the GPUs to use (`CUDA_VISIBLE_DEVICES=0,1`)",
                "cuda-not-available",
            )
        ]
    count = nvidia_gpus(system)
    numbers = [e for e in entries if e.isdigit()]
    if count is not None and numbers:
        missing = [e for e in numbers if int(e) >= count]
        if missing:
            return [
                Check(
                    "cuda-visible-devices",
                    "problem",
                    f"CUDA_VISIBLE_DEVICES={value} names GPU {', '.join(missing)}, and this "
                    f"machine has {count} (0 to {count - 1})",
                    "name only GPUs that exist; CUDA ignores every entry after a bad one",
                    "invalid-device-ordinal",
                )
            ]
    return [Check("cuda-visible-devices", "ok", f"CUDA_VISIBLE_DEVICES={value}", "", "")]


def check_shm(system: System, probe: Probe) -> list[Check]:
    if system.platform != "linux" or not system.path("/dev/shm").is_dir():
        return []
    size = system.fs_size(str(system.path("/dev/shm")))
    if size is None:
        return [Check("shm", "unknown", "could not check: /dev/shm cannot be measured", "", "")]
    text = f"/dev/shm is {size / MiB:.0f} MiB"
    advice = (
        "give the container more (`docker run --shm-size=8g`, or `--ipc=host`), or use fewer "
        "workers or smaller batches"
    )
    if size < SHM_PROBLEM:
        return [
            Check(
                "shm",
                "problem",
                text + ": DataLoader workers will die with a bus error on ordinary image batches",
                advice,
                "dataloader-worker-killed",
            )
        ]
    if size < SHM_WARNING:
        return [
            Check(
                "shm",
                "warning",
                text + ": enough for small batches, not for large ones",
                advice,
                "dataloader-worker-killed",
            )
        ]
    return [Check("shm", "ok", text, "", "")]


def check_open_files(system: System, probe: Probe) -> list[Check]:
    if system.platform != "linux":
        return []  # macOS and Windows share tensors through files, not descriptors
    soft, hard = system.nofile()
    if soft >= NOFILE_WARNING or soft < 0:
        return [Check("open-files", "ok", f"open-files limit {soft}", "", "")]
    can_raise = hard < 0 or hard > soft
    return [
        Check(
            "open-files",
            "warning",
            f"open-files limit is {soft}: DataLoader workers that share many tensors fail "
            'with "Too many open files"',
            (
                f"`ulimit -n {min(hard, 65536) if hard > 0 else 65536}` before training, or "
                if can_raise
                else ""
            )
            + '`torch.multiprocessing.set_sharing_strategy("file_system")`',
            "dataloader-too-many-open-files",
        )
    ]


def _bad_value(kind: str, value: str) -> str | None:
    """Why `value` is not acceptable for a key of `kind`, or None."""
    if kind == "any":
        return None
    if kind == "bool":
        return None if value in ("True", "False", "true", "false") else "expects True or False"
    if kind == "backend":
        return (
            None if value in ("native", "cudaMallocAsync") else "expects native or cudaMallocAsync"
        )
    if kind in ("int", "int>20", "power2"):
        if not value.isdigit():
            return "expects a whole number"
        number = int(value)
        if kind == "int>20" and number <= 20:
            return "must be more than 20 (MB)"
        if kind == "power2" and (number & (number - 1)) != 0:
            return "must be a power of 2"
        return None
    if kind == "fraction":
        try:
            number = float(value)
        except ValueError:
            return "expects a number between 0 and 1"
        return None if 0.0 < number < 1.0 else "must be between 0 and 1"
    if kind == "divisions":
        if value.isdigit():
            number = int(value)
            return None if number == 0 or (number & (number - 1)) == 0 else "must be a power of 2"
        return (
            None if value.startswith("[") and value.endswith("]") else "expects N or [size:N,...]"
        )
    return None


def _split_alloc_conf(text: str) -> list[tuple[str, str]]:
    """`a:1,b:[x:2,y:4]` into pairs, keeping bracketed lists whole."""
    pairs, depth, current = [], 0, ""
    for char in text + ",":
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        if char == "," and depth == 0:
            if current.strip():
                key, _, value = current.partition(":")
                pairs.append((key.strip(), value.strip()))
            current = ""
        else:
            current += char
    return pairs


def check_alloc_conf(system: System, probe: Probe) -> list[Check]:
    results = []
    names = [n for n in ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF") if n in system.env]
    for name in names:
        problems = []
        for key, value in _split_alloc_conf(system.env[name]):
            if key not in ALLOC_KEYS:
                problems.append(f"unknown key {key!r}")
                continue
            why = _bad_value(ALLOC_KEYS[key], value)
            if why:
                problems.append(f"{key}:{value} {why}")
        if problems:
            results.append(
                Check(
                    "alloc-conf",
                    "problem",
                    f"{name}={system.env[name]!r}: {'; '.join(problems)} (torch raises at the "
                    "first CUDA allocation)",
                    "fix the value: keys are key:value pairs separated by commas, for example "
                    "`expandable_segments:True,max_split_size_mb:128`",
                    "cuda-memory-fragmentation",
                )
            )
        else:
            results.append(Check("alloc-conf", "ok", f"{name}={system.env[name]}", "", ""))
    if len(names) == 2:
        results.append(
            Check(
                "alloc-conf",
                "warning",
                "both PYTORCH_CUDA_ALLOC_CONF and PYTORCH_ALLOC_CONF are set",
                "set one of them (PYTORCH_ALLOC_CONF is the newer name)",
                "cuda-memory-fragmentation",
            )
        )
    return results


def _ratio(value: str) -> float | None:
    try:
        return float(value)
    except ValueError:
        return None


def check_mps_env(system: System, probe: Probe) -> list[Check]:
    results = []
    fallback = system.env.get("PYTORCH_ENABLE_MPS_FALLBACK")
    if fallback is not None and fallback not in ("0", "1"):
        results.append(
            Check(
                "mps-env",
                "warning",
                f"PYTORCH_ENABLE_MPS_FALLBACK={fallback!r}: "
                "torch turns the fallback on only for the value 1",
                "set it to 1 (before torch is imported)",
                "mps-unsupported-op",
            )
        )
    high = system.env.get("PYTORCH_MPS_HIGH_WATERMARK_RATIO")
    low = system.env.get("PYTORCH_MPS_LOW_WATERMARK_RATIO")
    for name, value in (
        ("PYTORCH_MPS_HIGH_WATERMARK_RATIO", high),
        ("PYTORCH_MPS_LOW_WATERMARK_RATIO", low),
    ):
        if value is not None and (_ratio(value) is None or (_ratio(value) or 0) < 0):
            results.append(
                Check(
                    "mps-env",
                    "problem",
                    f"{name}={value!r} is not a ratio >= 0",
                    "use a number such as 1.4, or unset it",
                    "mps-out-of-memory",
                )
            )
    if high is not None and (_ratio(high) or 0) > 2.0:
        results.append(
            Check(
                "mps-env",
                "problem",
                f"PYTORCH_MPS_HIGH_WATERMARK_RATIO={high}: "
                'torch refuses ratios above 2.0 ("invalid high watermark ratio") '
                "at the first MPS allocation",
                "use a ratio up to 2.0 (the default is 1.7)",
                "mps-out-of-memory",
            )
        )
    if high is not None and _ratio(high) == 0.0:
        results.append(
            Check(
                "mps-env",
                "warning",
                "PYTORCH_MPS_HIGH_WATERMARK_RATIO=0 removes "
                "the limit on MPS allocations: memory shared with the system can "
                "run out and freeze the Mac",
                "set a ratio (the default is 1.7) and make the model smaller",
                "mps-out-of-memory",
            )
        )
    high_v, low_v = _ratio(high or ""), _ratio(low or "")
    if high_v and low_v and low_v > high_v:
        results.append(
            Check(
                "mps-env",
                "problem",
                "the MPS low watermark ratio is above the high one",
                "keep LOW <= HIGH",
                "mps-out-of-memory",
            )
        )
    return results


def _shadows(folder: Path, name: str) -> Path | None:
    for candidate in (folder / f"{name}.py", folder / name / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def check_shadowing(system: System, probe: Probe) -> list[Check]:
    """A `torch.py` (or `numpy.py`, a `torch/` package...) where the user's scripts start, or
    on PYTHONPATH, is imported instead of the real one. Doctor's own sys.path[0] is its
    console script's folder, so the working directory is looked at explicitly."""
    folders = [system.cwd] + [Path(p) for p in system.env.get("PYTHONPATH", "").split(":") if p]
    real = {
        "torch": Path(probe.get("torch_file")).parent if probe.get("torch_file") else None,
        "numpy": Path(probe.get("numpy_file")).parent if probe.get("numpy_file") else None,
    }
    results = []
    for folder in folders:
        for name in SHADOWED:
            found = _shadows(folder, name)
            if found is None or (real.get(name) and found.parent == real[name]):
                continue
            results.append(
                Check(
                    "module-shadowing",
                    "problem",
                    f"{found} is imported instead of the installed {name} by scripts started "
                    f"in {folder}",
                    f"rename it (and delete any __pycache__ beside it); never name a file "
                    f"{name}.py",
                    "module-shadowing",
                )
            )
    if not results:
        results.append(
            Check(
                "module-shadowing",
                "ok",
                "no torch.py, numpy.py or torchvision.py in the working directory or on PYTHONPATH",
                "",
                "",
            )
        )
    return results


HOST_CHECKS: tuple[Callable[[System, Probe], list[Check]], ...] = (
    check_visible_devices,
    check_shm,
    check_open_files,
    check_alloc_conf,
    check_mps_env,
    check_shadowing,
)
