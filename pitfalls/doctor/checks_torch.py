"""Checks that need to know what torch sees: the build against the hardware, the GPU's
architecture against the wheel's kernels, the driver against the wheel's CUDA, NumPy's ABI,
OpenMP runtimes, and MPS. They read the child probe's report and, for the hardware, the
system (so a CPU-only build is caught on a machine whose GPU torch cannot see)."""

from __future__ import annotations

import re
from collections.abc import Callable

from pitfalls.doctor.model import Check, Probe, System

# Minimum Linux driver for each CUDA major release under minor-version compatibility (NVIDIA's
# CUDA Toolkit release notes, "CUDA Toolkit and Minimum Required Driver Version for CUDA
# Minor Version Compatibility"): a wheel built with CUDA 12.x runs on any driver >= 525.60.13.
MIN_DRIVER_LINUX = {11: (450, 80, 2), 12: (525, 60, 13), 13: (580, 65, 6)}
NUMPY_ABI_FRAGMENTS = (
    "A module that was compiled using NumPy 1.x cannot be run in",
    "_ARRAY_API not found",
    "Failed to initialize NumPy",
    "numpy.core.multiarray failed to import",
)
OMP_ABORT = "OMP: Error #15"


def nvidia_gpus(system: System) -> int | None:
    """How many NVIDIA GPUs the kernel driver knows (None: no driver, or cannot tell)."""
    gpus = system.path("/proc/driver/nvidia/gpus")
    if gpus.is_dir():
        return sum(1 for _ in gpus.iterdir())
    listed = system.run(["nvidia-smi", "-L"], 10.0)
    if listed is not None and listed.returncode == 0:
        return sum(1 for line in listed.stdout.splitlines() if line.startswith("GPU "))
    return None


def driver_version(system: System) -> tuple[int, ...] | None:
    """The NVIDIA kernel driver's version, from /proc or nvidia-smi."""
    text = system.read("/proc/driver/nvidia/version") or ""
    match = re.search(r"Kernel Module(?: for \S+)?\s+(\d+(?:\.\d+)+)", text)
    if match is None:
        queried = system.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"], 10.0
        )
        if queried is None or queried.returncode != 0:
            return None
        match = re.search(r"(\d+(?:\.\d+)+)", queried.stdout)
        if match is None:
            return None
    return tuple(int(part) for part in match.group(1).split("."))


def arch_compatible(capability: tuple[int, int], arch_list: list[str]) -> bool:
    """Whether a GPU of `capability` can run kernels from a wheel built for `arch_list`
    (`sm_80`, `compute_90`...): a cubin runs on its own major with an equal or higher minor
    (an sm_86 card on an sm_80 build), PTX (`compute_XY`) is compiled for any GPU at least
    XY. The same judgement as torch's `_code_compatible_with_device` for ordinary GPUs."""
    major, minor = capability
    device = 10 * major + minor
    for arch in arch_list:
        kind, _, number = arch.partition("_")
        digits = re.match(r"\d+", number)
        if digits is None:
            continue
        code = int(digits.group(0))
        if kind == "sm" and code // 10 == major and code % 10 <= minor:
            return True
        if kind == "compute" and code <= device:
            return True
    return False


def _version(text: str | None) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text or "")[:3])


def _text(version: tuple[int, ...]) -> str:
    return ".".join(str(p) for p in version)


def check_torch(system: System, probe: Probe) -> list[Check]:
    if probe.status == "no_torch":
        return [
            Check(
                "torch-installed",
                "warning",
                f"torch is not installed for {probe.get('executable') or 'this Python'}",
                "install it for recipes to run (pitfalls never replaces a torch you have)",
                "",
            )
        ]
    if probe.status == "timeout":
        return [Check("torch-installed", "unknown", f"could not check: {probe.detail}", "", "")]
    stderr = str(probe.get("stderr") or "")
    if probe.status == "failed":
        if OMP_ABORT in stderr:
            return []  # the OpenMP check reports it, with its own advice
        return [
            Check(
                "torch-installed",
                "problem",
                f"importing torch failed: {probe.detail}",
                "run `python -c 'import torch'` to see the whole error",
                "",
            )
        ]
    error = probe.get("torch_error")
    if error:
        if any(f in error for f in NUMPY_ABI_FRAGMENTS):
            return []
        return [
            Check(
                "torch-installed",
                "problem",
                f"importing torch failed: {error.splitlines()[0][:200]}",
                "reinstall torch in this environment",
                "module-shadowing" if "has no attribute" in error else "",
            )
        ]
    return [
        Check(
            "torch-installed",
            "ok",
            f"torch {probe.get('torch')} ({probe.get('torch_file') or '?'})",
            "",
            "",
        )
    ]


def check_build(system: System, probe: Probe) -> list[Check]:
    """A CPU-only build with an NVIDIA GPU present, or a CUDA build that cannot use it."""
    if probe.status != "ok" or probe.get("torch_error"):
        return []
    gpus = nvidia_gpus(system)
    cuda, hip = probe.get("cuda_version"), probe.get("hip_version")
    version = probe.get("torch")
    if probe.get("cuda_available"):
        count = len(probe.get("cuda_devices") or [])
        backend = f"ROCm {hip}" if hip else f"CUDA {cuda}"
        return [
            Check(
                "torch-build", "ok", f"torch {version} with {backend} sees {count} GPU(s)", "", ""
            )
        ]
    if gpus and not cuda and not hip:
        return [
            Check(
                "torch-build",
                "problem",
                f"torch {version} is a CPU-only build, and this machine has {gpus} NVIDIA GPU(s)",
                "install a CUDA build: pick the command for your CUDA version at "
                "https://pytorch.org/get-started/locally/ (pip's `torch` from another index "
                "can be the CPU wheel)",
                "cuda-not-available",
            )
        ]
    if gpus and cuda:
        reason = probe.get("cuda_error") or next(
            (w for w in probe.get("warnings") or [] if "CUDA" in w or "driver" in w), ""
        )
        return [
            Check(
                "torch-build",
                "problem",
                f"torch {version} is built with CUDA {cuda} but cannot use the "
                f"{gpus} NVIDIA GPU(s) here"
                + (f": {reason.splitlines()[0][:160]}" if reason else ""),
                "check the driver (`nvidia-smi`) and `CUDA_VISIBLE_DEVICES`; see the "
                "cuda-driver check",
                "cuda-not-available",
            )
        ]
    if cuda and gpus is None:
        return [
            Check(
                "torch-build",
                "ok",
                f"torch {version} is built with CUDA {cuda}; there is no NVIDIA driver here, "
                "so it runs on the CPU",
                "",
                "cuda-not-available",
            )
        ]
    return [Check("torch-build", "ok", f"torch {version}, CPU build, no NVIDIA GPU", "", "")]


def check_arch(system: System, probe: Probe) -> list[Check]:
    """Each visible GPU against the kernels the wheel carries."""
    if probe.status != "ok" or not probe.get("cuda_available") or probe.get("hip_version"):
        return []
    arch_list = list(probe.get("arch_list") or [])
    results = []
    for device in probe.get("cuda_devices") or []:
        capability = tuple(device.get("capability") or (0, 0))
        # Our rule first: torch's own warnings have raised false alarms (2.9's
        # `_check_capability` compared against the newest architecture of the list, so an
        # sm_86 card on an sm_80 wheel was warned about although its kernels run).
        if arch_list:
            verdict = arch_compatible(capability, arch_list)
        else:
            verdict = device.get("torch_judges_compatible")
            verdict = True if verdict is None else verdict
        name = f"GPU{device.get('index')} {device.get('name')} (sm_{capability[0]}{capability[1]})"
        if verdict:
            results.append(Check("cuda-arch", "ok", f"{name}: kernels present", "", ""))
        else:
            results.append(
                Check(
                    "cuda-arch",
                    "problem",
                    f"{name}: this torch carries kernels for {' '.join(arch_list) or '?'} only "
                    '("no kernel image is available for execution on the device")',
                    "install a build whose CUDA version supports this GPU (a newer GPU needs a "
                    "newer CUDA; an old one an older release): see `torch.cuda.get_arch_list()`",
                    "cuda-arch-not-supported",
                )
            )
    return results


def check_driver(system: System, probe: Probe) -> list[Check]:
    """The kernel driver against what the wheel's CUDA needs (Linux)."""
    cuda = probe.get("cuda_version") if probe.status == "ok" else None
    if not cuda or system.platform != "linux":
        return []
    driver = driver_version(system)
    if driver is None:
        return []
    major = _version(cuda)[:1]
    needed = MIN_DRIVER_LINUX.get(major[0]) if major else None
    if needed is None:
        return [
            Check(
                "cuda-driver",
                "unknown",
                f"driver {_text(driver)}; CUDA {cuda} is not in doctor's table",
                "",
                "cuda-not-available",
            )
        ]
    if driver < needed:
        return [
            Check(
                "cuda-driver",
                "problem",
                f"NVIDIA driver {_text(driver)} is older than CUDA {cuda} needs "
                f"(>= {_text(needed)})",
                "update the driver, or install a torch built for an older CUDA",
                "cuda-not-available",
            )
        ]
    return [Check("cuda-driver", "ok", f"NVIDIA driver {_text(driver)} serves CUDA {cuda}", "", "")]


def check_numpy_abi(system: System, probe: Probe) -> list[Check]:
    if probe.status not in ("ok", "failed"):
        return []
    seen = "\n".join(
        [str(probe.get("stderr") or ""), str(probe.get("torch_error") or "")]
        + list(probe.get("warnings") or [])
    )
    fragment = next((f for f in NUMPY_ABI_FRAGMENTS if f in seen), None)
    numpy = probe.get("numpy")
    if fragment is not None:
        return [
            Check(
                "numpy-abi",
                "problem",
                f"torch {probe.get('torch') or ''} was built against NumPy 1 and NumPy "
                f'{numpy or "?"} is installed ("{fragment}")',
                '`pip install "numpy<2"`, or a torch built for NumPy 2 (2.3 and later)',
                "numpy-abi-mismatch",
            )
        ]
    if probe.status != "ok" or probe.get("torch_error"):
        return []
    if not numpy:
        return [Check("numpy-abi", "ok", "NumPy is not installed (torch runs without it)", "", "")]
    return [Check("numpy-abi", "ok", f"NumPy {numpy} loads beside torch", "", "")]


def _omp_kind(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    if name.startswith("libiomp5"):
        return "intel"
    if name.startswith("libgomp"):
        return "gnu"
    return "llvm"


def check_openmp(system: System, probe: Probe) -> list[Check]:
    """Two OpenMP runtimes in one process after importing torch and NumPy."""
    stderr = str(probe.get("stderr") or "")
    hidden = probe.get("kmp_duplicate_lib_ok") or system.env.get("KMP_DUPLICATE_LIB_OK") or ""
    if OMP_ABORT in stderr:
        return [
            Check(
                "openmp",
                "problem",
                "importing torch and NumPy aborts: two copies of Intel's OpenMP runtime "
                '("OMP: Error #15: Initializing libiomp5...")',
                "install torch and NumPy from one channel (all pip or all conda), or remove "
                "the duplicate (`conda install nomkl`); not KMP_DUPLICATE_LIB_OK",
                "openmp-duplicate-runtime",
            )
        ]
    if probe.status != "ok" or probe.get("torch_error"):
        return []
    results = []
    if hidden.upper() in ("TRUE", "1", "YES"):
        results.append(
            Check(
                "openmp",
                "warning",
                f"KMP_DUPLICATE_LIB_OK={hidden} is set: it silences OpenMP's duplicate-runtime "
                "error instead of fixing it",
                "unset it and remove the second runtime; two runtimes can crash or give wrong "
                "results",
                "openmp-duplicate-runtime",
            )
        )
    libs = probe.get("openmp")
    if libs is None:
        if not results:
            results.append(
                Check(
                    "openmp",
                    "ok",
                    "importing torch and NumPy together did not "
                    "abort (loaded libraries cannot be listed here)",
                    "",
                    "",
                )
            )
        return results
    intel = sorted({p for p in libs if _omp_kind(p) == "intel"})
    others = sorted({p for p in libs if _omp_kind(p) != "intel"})
    if len(intel) > 1:
        results.append(
            Check(
                "openmp",
                "problem",
                f"two copies of Intel's OpenMP runtime are loaded: {', '.join(intel)}",
                "install torch and NumPy from one channel, or remove one copy",
                "openmp-duplicate-runtime",
            )
        )
    elif intel and others:
        results.append(
            Check(
                "openmp",
                "warning",
                f"Intel's OpenMP runtime ({intel[0]}) is loaded beside "
                f"{', '.join(others)}: two thread pools compete, and on some platforms this aborts",
                "use one channel's builds (for example NumPy without MKL: `conda install nomkl`)",
                "openmp-duplicate-runtime",
            )
        )
    elif not results:
        found = ", ".join(p.rsplit("/", 1)[-1] for p in libs) or "none"
        results.append(Check("openmp", "ok", f"one OpenMP runtime family loaded ({found})", "", ""))
    return results


def check_mps(system: System, probe: Probe) -> list[Check]:
    """macOS: MPS built and available; the macOS version; Python under Rosetta."""
    if system.platform != "darwin":
        return []
    translated = system.run(["sysctl", "-n", "sysctl.proc_translated"], 5.0)
    if translated is not None and translated.stdout.strip() == "1":
        return [
            Check(
                "mps",
                "problem",
                "this Python is an x86_64 build running under Rosetta on Apple silicon: MPS "
                "is not available to it",
                "install an arm64 Python (python.org's universal installer, or an arm64 "
                "conda/Miniforge) and torch in it",
                "mps-not-available",
            )
        ]
    if probe.status != "ok" or probe.get("torch_error"):
        return []
    mac = _version(probe.get("mac_ver"))
    if mac and mac < (12, 3):
        return [
            Check(
                "mps",
                "problem",
                f"macOS {_text(mac)}: MPS needs macOS 12.3 or later",
                "update macOS, or run on the CPU",
                "mps-not-available",
            )
        ]
    if not probe.get("mps_built"):
        return [
            Check(
                "mps",
                "problem",
                f"torch {probe.get('torch')} was built without MPS",
                "install torch from pip or conda for macOS arm64",
                "mps-not-available",
            )
        ]
    if not probe.get("mps_available"):
        return [
            Check(
                "mps",
                "problem",
                "torch is built with MPS but MPS is not available (no Metal device?)",
                "check `torch.backends.mps.is_available()` on an Apple-silicon Mac",
                "mps-not-available",
            )
        ]
    return [Check("mps", "ok", f"MPS available (macOS {_text(mac)})", "", "")]


TORCH_CHECKS: tuple[Callable[[System, Probe], list[Check]], ...] = (
    check_torch,
    check_build,
    check_arch,
    check_driver,
    check_numpy_abi,
    check_openmp,
    check_mps,
)
