"""The child probe: the target interpreter imports torch and NumPy and reports what it saw.

It runs as `python -c PROBE_SOURCE` with a timeout, so a CUDA install that hangs or a runtime
that aborts the process (OpenMP's "OMP: Error #15" does) ends the child, not doctor. Its
stderr is kept: NumPy prints its ABI message there, and an aborting runtime its last words.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

from pitfalls.doctor.model import Probe

PROBE_SOURCE = r"""
import json, os, platform, re, sys, warnings
report = {"python": platform.python_version(), "executable": sys.executable,
          "machine": platform.machine(), "mac_ver": platform.mac_ver()[0],
          "warnings": [], "openmp": [],
          "kmp_duplicate_lib_ok": os.environ.get("KMP_DUPLICATE_LIB_OK")}
def libraries():
    found = []
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split()[-1] if "/" in line else ""
                name = os.path.basename(path)
                if re.match(r"lib(iomp5|gomp|omp)([-.][^/]*)?\.so", name) and path not in found:
                    found.append(path)
    except OSError:
        return None
    return found
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        import numpy
        report["numpy"] = numpy.__version__
        report["numpy_file"] = numpy.__file__
    except Exception as err:
        report["numpy"] = None
        report["numpy_error"] = f"{type(err).__name__}: {err}"[:500]
    try:
        import torch
    except Exception as err:
        report["torch_error"] = f"{type(err).__name__}: {err}"[:1000]
        torch = None
    if torch is not None:
        report["torch"] = getattr(torch, "__version__", None)
        report["torch_file"] = getattr(torch, "__file__", None)
        report["cuda_version"] = getattr(torch.version, "cuda", None)
        report["hip_version"] = getattr(torch.version, "hip", None)
        try:
            report["cuda_available"] = bool(torch.cuda.is_available())
        except Exception as err:
            report["cuda_available"] = False
            report["cuda_error"] = f"{type(err).__name__}: {err}"[:500]
        devices = []
        if report["cuda_available"]:
            try:
                arch = list(torch.cuda.get_arch_list())
            except Exception:
                arch = []
            report["arch_list"] = arch
            judge = getattr(torch.cuda, "_code_compatible_with_device", None)
            extract = getattr(torch.cuda, "_extract_arch_version", None)
            for index in range(torch.cuda.device_count()):
                major, minor = torch.cuda.get_device_capability(index)
                entry = {"index": index, "name": torch.cuda.get_device_name(index),
                         "capability": [major, minor], "torch_judges_compatible": None}
                if judge is not None and extract is not None and arch:
                    try:
                        cc = 10 * major + minor
                        entry["torch_judges_compatible"] = any(
                            judge(cc, extract(code)) for code in arch)
                    except Exception:
                        pass
                devices.append(entry)
        report["cuda_devices"] = devices
        mps = getattr(torch.backends, "mps", None)
        report["mps_built"] = bool(mps and mps.is_built())
        try:
            report["mps_available"] = bool(mps and mps.is_available())
        except Exception:
            report["mps_available"] = False
        report["openmp"] = libraries()
report["warnings"] = [f"{w.category.__name__}: {w.message}"[:1000] for w in caught]
print("\n@@pitfalls-doctor@@" + json.dumps(report))
"""

MARKER = "@@pitfalls-doctor@@"


def run_probe(python: str | None = None, timeout: float = 60.0) -> Probe:
    """Run the probe in `python` (default: this interpreter) and parse its report."""
    executable = python or sys.executable
    env = dict(os.environ)
    env.pop("PYTHONSTARTUP", None)
    # An empty folder as the working directory: `python -c` puts it first on sys.path, and the
    # probe must see the installed torch, not a `torch.py` where doctor was started (the
    # shadowing check reports that one on its own).
    with tempfile.TemporaryDirectory(prefix="pitfalls-doctor-") as empty:
        try:
            done = subprocess.run(
                [executable, "-c", PROBE_SOURCE],
                capture_output=True,
                text=True,
                timeout=timeout,
                env=env,
                check=False,
                cwd=empty,
            )
        except subprocess.TimeoutExpired:
            return Probe("timeout", detail=f"importing torch did not finish within {timeout:g} s")
        except OSError as err:
            return Probe("failed", detail=f"cannot start {executable}: {err}")
    return parse_probe_output(done.stdout, done.stderr, done.returncode)


def parse_probe_output(stdout: str, stderr: str, returncode: int) -> Probe:
    """A `Probe` from the child's output (also what tests feed with made-up reports)."""
    report = None
    for line in stdout.splitlines():
        if line.startswith(MARKER):
            try:
                report = json.loads(line[len(MARKER) :])
            except ValueError:
                report = None
    if report is None:
        tail = (stderr.strip().splitlines() or [f"exit status {returncode}"])[-1]
        return Probe("failed", {"stderr": stderr[-4000:]}, detail=tail[:300])
    report["stderr"] = stderr[-4000:]
    if "torch_error" in report and "No module named 'torch'" in report["torch_error"]:
        return Probe("no_torch", report)
    return Probe("ok", report)
