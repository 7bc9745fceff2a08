"""Two copies of the OpenMP runtime in one process: Intel's and LLVM's abort with OMP Error #15."""

import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import torch

# File names of the OpenMP runtimes people meet: GNU (gcc), LLVM, Intel, Microsoft.
OPENMP_RUNTIME = re.compile(r"^(libgomp|libomp|libiomp5|libiomp5md|vcomp)[-.\w]*\.(so|dylib|dll)")


def loaded_libraries() -> list:
    """Paths of the shared libraries mapped into this process (Linux and macOS)."""
    if sys.platform.startswith("linux"):
        with open("/proc/self/maps") as maps:
            return sorted({line.split(None, 5)[5].strip() for line in maps if "/" in line})
    if sys.platform == "darwin":
        dyld = ctypes.CDLL("/usr/lib/libSystem.B.dylib")
        dyld._dyld_get_image_name.restype = ctypes.c_char_p
        count = dyld._dyld_image_count()
        return sorted(dyld._dyld_get_image_name(i).decode() for i in range(count))
    return []


def openmp_runtimes() -> list:
    """The distinct OpenMP runtime files loaded in this process."""
    found = {os.path.realpath(p) for p in loaded_libraries()}
    return sorted(p for p in found if OPENMP_RUNTIME.match(os.path.basename(p)))


def child(copy_folder: str) -> None:
    """Runs in a fresh interpreter. torch loads its own OpenMP runtime and starts it."""
    torch.set_num_threads(1)  # a setting made in torch's runtime
    torch.ones(1 << 16).sum()
    report = {
        "torch_runtime": [os.path.basename(p) for p in openmp_runtimes()],
        "torch_threads": torch.get_num_threads(),
    }
    copy = None
    if copy_folder and openmp_runtimes():
        # A second copy of the same runtime, as another package's wheel or a conda
        # environment brings one: same code, another file.
        original = openmp_runtimes()[0]
        copy = shutil.copy(original, os.path.join(copy_folder, os.path.basename(original)))
        copy = ctypes.CDLL(copy)
    report["openmp_runtimes_loaded"] = len(openmp_runtimes())
    print(json.dumps(report), flush=True)
    if copy is not None:
        # The second copy starts. Intel's and LLVM's runtimes check here for another copy
        # already running in the process and abort; GNU libgomp has no such check and
        # answers from its own settings, which torch.set_num_threads never reached.
        print(json.dumps({"copy_threads": copy.omp_get_max_threads()}), flush=True)


def run_child(load_copy: bool) -> dict:
    # KMP_DUPLICATE_LIB_OK=TRUE would hide the conflict: the child runs without it.
    # OMP_NUM_THREADS=3 gives every runtime the same start, whatever the machine's cores.
    env = {k: v for k, v in os.environ.items() if k != "KMP_DUPLICATE_LIB_OK"}
    env["OMP_NUM_THREADS"] = "3"
    with tempfile.TemporaryDirectory() as folder:
        argv = [sys.executable, os.path.abspath(__file__), "--child", folder if load_copy else ""]
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    result = {}
    for line in done.stdout.splitlines():
        result.update(json.loads(line))
    errors = [line for line in done.stderr.splitlines() if line.startswith("OMP: Error")]
    result["exit_code"] = done.returncode
    result["omp_error"] = errors[0] if errors else "no error"
    if result["omp_error"].startswith("OMP: Error #15"):
        result["second_copy"] = "aborted the process (OMP Error #15)"
    elif "copy_threads" not in result:
        result["second_copy"] = "none started"
    elif result["copy_threads"] == result["torch_threads"]:
        result["second_copy"] = "shares torch's settings"
    else:
        result["second_copy"] = "runs with its own settings"
    return result


def problem(device: str) -> dict:
    # `device` is not used: the conflict is between libraries in the process, before any tensor.
    return run_child(load_copy=True)


def fix(device: str) -> dict:
    # One runtime for the whole process, as after removing the duplicate package or taking
    # every package from one channel: this process, with torch's runtime started and no other.
    torch.ones(1 << 16).sum()
    return {
        "torch_runtime": [os.path.basename(p) for p in openmp_runtimes()],
        "openmp_runtimes_loaded": len(openmp_runtimes()),
        "second_copy": "none started",
        "omp_error": "no error",
    }


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2])
    else:
        device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
        print("problem:", problem(device))
        print("fix:", fix(device))
