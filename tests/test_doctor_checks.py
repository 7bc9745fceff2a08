"""`pitfalls doctor`'s environment checks, against real conditions where a test can make them
(a torch.py in a folder, a lowered open-files limit, environment variables, a real probe of
this interpreter) and against a fake system root and command runner for what it cannot
(/proc/driver/nvidia, nvidia-smi, the size of /dev/shm, a NumPy/torch pair)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pitfalls.doctor import Probe, System, run_checks, run_probe
from pitfalls.doctor.checks_host import (
    check_alloc_conf,
    check_mps_env,
    check_shadowing,
    check_shm,
    check_visible_devices,
)
from pitfalls.doctor.checks_torch import (
    arch_compatible,
    check_arch,
    check_build,
    check_driver,
    check_mps,
    check_numpy_abi,
    check_openmp,
    check_torch,
)
from pitfalls.doctor.model import CommandResult
from pitfalls.doctor.probe import MARKER, parse_probe_output

MiB = 1024 * 1024


def system(tmp_path: Path, **kw) -> System:
    defaults = dict(
        root=tmp_path,
        env={},
        platform="linux",
        cwd=tmp_path / "work",
        run=lambda argv, timeout: None,
        nofile=lambda: (65536, 65536),
        fs_size=lambda path: 8 * 1024 * MiB,
    )
    defaults.update(kw)
    (tmp_path / "work").mkdir(exist_ok=True)
    return System(**defaults)


def probe(**data) -> Probe:
    base = {
        "torch": "2.13.0",
        "cuda_version": None,
        "hip_version": None,
        "cuda_available": False,
        "cuda_devices": [],
        "warnings": [],
        "openmp": [],
        "numpy": "2.1.0",
        "stderr": "",
    }
    base.update(data)
    return Probe("ok", base)


def gpus(root: Path, count: int, driver: str = "550.54.14") -> None:
    folder = root / "proc/driver/nvidia/gpus"
    folder.mkdir(parents=True)
    for i in range(count):
        (folder / f"0000:0{i}:00.0").mkdir()
    (root / "proc/driver/nvidia/version").write_text(
        f"NVRM version: NVIDIA UNIX x86_64 Kernel Module  {driver}  Thu Feb 22 01:44:30 UTC 2024\n"
    )


def statuses(results) -> list[tuple[str, str]]:
    return [(c.id, c.status) for c in results]


# -- torch build against the hardware ---------------------------------------------------------


def test_cpu_only_build_on_a_machine_with_an_nvidia_gpu(tmp_path: Path) -> None:
    gpus(tmp_path, 2)
    (found,) = check_build(system(tmp_path), probe())
    assert found.status == "problem" and "CPU-only" in found.found and "2 NVIDIA" in found.found
    assert found.recipe == "cuda-not-available"


def test_gpu_count_from_nvidia_smi_when_proc_is_missing(tmp_path: Path) -> None:
    def run(argv, timeout):
        if argv[:2] == ["nvidia-smi", "-L"]:
            return CommandResult(0, "GPU 0: NVIDIA H200 (UUID: GPU-1)\n")
        return None

    (found,) = check_build(system(tmp_path, run=run), probe())
    assert found.status == "problem" and "1 NVIDIA" in found.found


def test_cuda_build_that_cannot_use_the_gpu(tmp_path: Path) -> None:
    gpus(tmp_path, 1)
    found = check_build(
        system(tmp_path),
        probe(
            cuda_version="12.8",
            warnings=[
                "UserWarning: CUDA initialization: The NVIDIA driver on your system is too old"
            ],
        ),
    )
    assert statuses(found) == [("torch-build", "problem")] and "too old" in found[0].found


def test_cpu_build_without_gpu_and_cuda_build_on_cpu_are_fine(tmp_path: Path) -> None:
    assert statuses(check_build(system(tmp_path), probe())) == [("torch-build", "ok")]
    assert statuses(check_build(system(tmp_path), probe(cuda_version="12.8"))) == [
        ("torch-build", "ok")
    ]


# -- compute capability against the wheel's kernels ------------------------------------------


@pytest.mark.parametrize(
    ("capability", "arch", "ok"),
    [
        ((8, 6), ["sm_80", "sm_90"], True),  # same major, higher minor: the sm_80 cubin runs
        ((8, 0), ["sm_86"], False),  # a cubin never runs on a lower minor
        ((12, 0), ["sm_80", "sm_90", "compute_90"], True),  # PTX is compiled for newer GPUs
        ((12, 0), ["sm_80", "sm_90"], False),  # Blackwell on a wheel without its kernels
        ((6, 1), ["sm_75", "sm_80", "compute_80"], False),  # Pascal on a wheel that dropped it
        ((9, 0), ["sm_90a"], True),
    ],
)
def test_arch_compatibility_is_judged_like_torch(capability, arch, ok) -> None:
    assert arch_compatible(capability, arch) is ok


def test_arch_check_judges_the_wheels_arch_list(tmp_path: Path) -> None:
    device = {
        "index": 0,
        "name": "NVIDIA GeForce RTX 5090",
        "capability": [12, 0],
        "torch_judges_compatible": False,
    }
    (found,) = check_arch(
        system(tmp_path),
        probe(
            cuda_version="12.4",
            cuda_available=True,
            arch_list=["sm_80", "sm_90"],
            cuda_devices=[device],
        ),
    )
    assert found.status == "problem" and "sm_120" in found.found
    assert found.recipe == "cuda-arch-not-supported"
    device["torch_judges_compatible"] = None
    device["capability"] = [8, 6]
    (found,) = check_arch(
        system(tmp_path),
        probe(cuda_version="12.4", cuda_available=True, arch_list=["sm_80"], cuda_devices=[device]),
    )
    assert found.status == "ok"
    # torch 2.9 warned about exactly this pair (it compared against the newest arch of the
    # list): its warning is not taken for a problem.
    (found,) = check_arch(
        system(tmp_path),
        probe(
            cuda_version="12.8",
            cuda_available=True,
            arch_list=["sm_80"],
            cuda_devices=[device],
            warnings=["UserWarning: Found GPU0 X which is of cuda capability 8.6."],
        ),
    )
    assert found.status == "ok"
    # No arch list (an unusual build): torch's own judgement decides.
    device["torch_judges_compatible"] = False
    (found,) = check_arch(
        system(tmp_path),
        probe(cuda_version="12.8", cuda_available=True, arch_list=[], cuda_devices=[device]),
    )
    assert found.status == "problem"


# -- driver ------------------------------------------------------------------------------------


def test_driver_older_than_the_wheels_cuda(tmp_path: Path) -> None:
    gpus(tmp_path, 1, driver="470.199.02")
    (found,) = check_driver(system(tmp_path), probe(cuda_version="12.4"))
    assert found.status == "problem" and "470.199.2" in found.found and "525.60.13" in found.found
    assert statuses(check_driver(system(tmp_path), probe(cuda_version="11.8"))) == [
        ("cuda-driver", "ok")
    ]


def test_driver_from_nvidia_smi(tmp_path: Path) -> None:
    def run(argv, timeout):
        return CommandResult(0, "580.82.07\n") if "--query-gpu=driver_version" in argv else None

    (found,) = check_driver(system(tmp_path, run=run), probe(cuda_version="13.0"))
    assert found.status == "ok"


# -- CUDA_VISIBLE_DEVICES ----------------------------------------------------------------------


def test_visible_devices_empty_or_naming_missing_gpus(tmp_path: Path) -> None:
    gpus(tmp_path, 2)
    (empty,) = check_visible_devices(system(tmp_path, env={"CUDA_VISIBLE_DEVICES": ""}), probe())
    assert empty.status == "warning"
    (bad,) = check_visible_devices(system(tmp_path, env={"CUDA_VISIBLE_DEVICES": "1,3"}), probe())
    assert bad.status == "problem" and "GPU 3" in bad.found
    assert bad.recipe == "invalid-device-ordinal"
    (good,) = check_visible_devices(system(tmp_path, env={"CUDA_VISIBLE_DEVICES": "0,1"}), probe())
    assert good.status == "ok"
    assert check_visible_devices(system(tmp_path), probe()) == []


# -- shared memory and open files -------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "status"), [(64 * MiB, "problem"), (512 * MiB, "warning"), (16384 * MiB, "ok")]
)
def test_shm_thresholds(tmp_path: Path, size: int, status: str) -> None:
    (tmp_path / "dev/shm").mkdir(parents=True)
    (found,) = check_shm(system(tmp_path, fs_size=lambda path: size), probe())
    assert found.status == status
    if status != "ok":
        assert found.recipe == "dataloader-worker-killed"


def test_shm_of_this_machine_is_measured() -> None:
    results = check_shm(System(), probe())
    if Path("/dev/shm").is_dir() and sys.platform == "linux":
        assert results and results[0].status in ("ok", "warning", "problem")
        assert "MiB" in results[0].found


def test_open_files_limit_lowered_in_a_real_subprocess() -> None:
    code = (
        "import resource, json\n"
        "hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))\n"
        "from pitfalls.doctor.checks_host import check_open_files\n"
        "from pitfalls.doctor import System, Probe\n"
        "found = check_open_files(System(platform='linux'), Probe('ok'))\n"
        "print(json.dumps([c.to_dict() for c in found]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    (found,) = json.loads(out.stdout)
    assert found["status"] == "warning" and "256" in found["found"]
    assert found["recipe"] == "dataloader-too-many-open-files"
    assert "ulimit -n" in found["advice"]


# -- environment variables ---------------------------------------------------------------------


def test_alloc_conf_keys_and_values(tmp_path: Path) -> None:
    good = {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True,max_split_size_mb:128"}
    assert statuses(check_alloc_conf(system(tmp_path, env=good), probe())) == [("alloc-conf", "ok")]
    typo = {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segment:True"}
    (found,) = check_alloc_conf(system(tmp_path, env=typo), probe())
    assert found.status == "problem" and "unknown key 'expandable_segment'" in found.found
    values = {
        "PYTORCH_ALLOC_CONF": "max_split_size_mb:10,garbage_collection_threshold:1.5,"
        "roundup_power2_divisions:[256:8,>:4]"
    }
    (found,) = check_alloc_conf(system(tmp_path, env=values), probe())
    assert "max_split_size_mb:10" in found.found and "garbage_collection_threshold" in found.found
    assert "roundup" not in found.found.split("': ", 1)[1]  # the list form is valid
    both = {**good, "PYTORCH_ALLOC_CONF": "expandable_segments:True"}
    assert ("alloc-conf", "warning") in statuses(
        check_alloc_conf(system(tmp_path, env=both), probe())
    )


def test_mps_variables(tmp_path: Path) -> None:
    env = {"PYTORCH_ENABLE_MPS_FALLBACK": "true", "PYTORCH_MPS_HIGH_WATERMARK_RATIO": "0"}
    found = check_mps_env(system(tmp_path, env=env), probe())
    assert statuses(found) == [("mps-env", "warning"), ("mps-env", "warning")]
    assert {c.recipe for c in found} == {"mps-unsupported-op", "mps-out-of-memory"}
    env = {"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "2.5"}
    assert statuses(check_mps_env(system(tmp_path, env=env), probe())) == [("mps-env", "problem")]
    env = {"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "1.0", "PYTORCH_MPS_LOW_WATERMARK_RATIO": "1.4"}
    assert statuses(check_mps_env(system(tmp_path, env=env), probe())) == [("mps-env", "problem")]
    assert check_mps_env(system(tmp_path), probe()) == []


def test_kmp_duplicate_lib_ok_hides_the_problem(tmp_path: Path) -> None:
    found = check_openmp(system(tmp_path), probe(kmp_duplicate_lib_ok="TRUE"))
    assert ("openmp", "warning") in statuses(found)


# -- OpenMP and NumPy --------------------------------------------------------------------------


def test_openmp_runtimes(tmp_path: Path) -> None:
    torch_gomp = "/env/lib/python3.11/site-packages/torch/lib/libgomp-a34b3233.so.1"
    system_gomp = "/usr/lib/x86_64-linux-gnu/libgomp.so.1"
    assert statuses(check_openmp(system(tmp_path), probe(openmp=[torch_gomp, system_gomp]))) == [
        ("openmp", "ok")
    ]
    iomp = "/opt/conda/lib/libiomp5.so"
    (mixed,) = check_openmp(system(tmp_path), probe(openmp=[iomp, torch_gomp]))
    assert mixed.status == "warning" and mixed.recipe == "openmp-duplicate-runtime"
    (two,) = check_openmp(
        system(tmp_path), probe(openmp=[iomp, "/env/site-packages/torch/lib/libiomp5.so"])
    )
    assert two.status == "problem"
    aborted = Probe(
        "failed",
        {
            "stderr": "OMP: Error #15: Initializing libiomp5.dylib, but found "
            "libiomp5.dylib already initialized.\n"
        },
        detail="abort",
    )
    (found,) = check_openmp(system(tmp_path), aborted)
    assert found.status == "problem"
    assert check_torch(system(tmp_path), aborted) == []  # reported once, by the OpenMP check


def test_numpy_2_under_a_torch_built_for_numpy_1(tmp_path: Path) -> None:
    stderr = (
        "\nA module that was compiled using NumPy 1.x cannot be run in\n"
        "NumPy 2.0.0 as it may crash. To support both 1.x and 2.x\n"
    )
    found = check_numpy_abi(
        system(tmp_path),
        probe(
            torch="2.1.2",
            numpy="2.0.0",
            stderr=stderr,
            warnings=["UserWarning: Failed to initialize NumPy: _ARRAY_API not found"],
        ),
    )
    assert statuses(found) == [("numpy-abi", "problem")] and found[0].recipe == "numpy-abi-mismatch"
    assert statuses(check_numpy_abi(system(tmp_path), probe())) == [("numpy-abi", "ok")]


# -- macOS -------------------------------------------------------------------------------------


def test_rosetta_and_mps(tmp_path: Path) -> None:
    def rosetta(argv, timeout):
        return CommandResult(0, "1\n") if "sysctl.proc_translated" in argv else None

    (found,) = check_mps(system(tmp_path, platform="darwin", run=rosetta), probe())
    assert found.status == "problem" and "Rosetta" in found.found
    mac = system(tmp_path, platform="darwin")
    (old,) = check_mps(mac, probe(mac_ver="12.1", mps_built=True, mps_available=False))
    assert "12.3" in old.found
    (ok,) = check_mps(mac, probe(mac_ver="14.5", mps_built=True, mps_available=True))
    assert ok.status == "ok"
    assert check_mps(system(tmp_path), probe()) == []  # not macOS: not applicable


# -- shadowing ---------------------------------------------------------------------------------


def test_a_local_torch_py_is_reported(tmp_path: Path) -> None:
    here = system(tmp_path)
    (here.cwd / "torch.py").write_text("print('mine')\n")
    pkg = tmp_path / "libs" / "numpy"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    here.env = {"PYTHONPATH": str(tmp_path / "libs")}
    found = check_shadowing(here, probe())
    assert statuses(found) == [("module-shadowing", "problem")] * 2
    assert {c.recipe for c in found} == {"module-shadowing"}


def test_shadowing_is_what_python_really_imports(tmp_path: Path) -> None:
    """The real condition: a fresh python started in that folder imports the local file."""
    (tmp_path / "torch.py").write_text("")
    out = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(out.stdout.strip()).resolve() == (tmp_path / "torch.py").resolve()
    found = check_shadowing(system(tmp_path, cwd=tmp_path), probe())
    assert found[0].status == "problem"


# -- the probe ---------------------------------------------------------------------------------


def test_probe_output_parsing_and_failures() -> None:
    report = {"torch": "2.13.0", "warnings": []}
    parsed = parse_probe_output("noise\n" + MARKER + json.dumps(report) + "\n", "", 0)
    assert parsed.status == "ok" and parsed.get("torch") == "2.13.0"
    crashed = parse_probe_output("", "Segmentation fault\n", -11)
    assert crashed.status == "failed" and "Segmentation fault" in crashed.detail
    missing = parse_probe_output(
        MARKER + json.dumps({"torch_error": "ModuleNotFoundError: No module named 'torch'"}), "", 0
    )
    assert missing.status == "no_torch"


def test_a_probe_that_hangs_is_could_not_check(tmp_path: Path) -> None:
    slow = tmp_path / "slowpython"
    slow.write_text("#!/bin/sh\nsleep 5\n")
    slow.chmod(0o755)
    result = run_probe(str(slow), timeout=0.5)
    assert result.status == "timeout"
    found = run_checks(system(tmp_path), result)
    assert ("torch-installed", "unknown") in statuses(found)


def test_a_check_that_raises_is_unknown_not_a_crash(tmp_path: Path, monkeypatch) -> None:
    import pitfalls.doctor as doctor

    def broken(system, probe):
        raise OSError("boom")

    monkeypatch.setattr(doctor, "HOST_CHECKS", (broken,))
    found = doctor.run_checks(system(tmp_path), probe())
    assert ("broken", "unknown") in statuses(found)


def test_real_probe_of_this_interpreter() -> None:
    pytest.importorskip("torch")
    result = run_probe(timeout=120)
    assert result.status == "ok"
    import torch

    assert result.get("torch") == torch.__version__
    checks = run_checks(System(), result)
    assert all(c.status in ("ok", "warning", "problem", "unknown") for c in checks)
    assert ("torch-installed", "ok") in statuses(checks)


# -- the command -------------------------------------------------------------------------------


def _doctor(tmp_path: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    import os

    full = {**os.environ, "PITFALLS_CACHE": "0", **(env or {})}
    full.pop("CUDA_VISIBLE_DEVICES", None) if env is None else None
    return subprocess.run(
        [sys.executable, "-m", "pitfalls", "doctor", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=full,
        timeout=300,
    )


def test_doctor_json_has_the_checks_and_exits_1_on_a_problem(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    (tmp_path / "numpy.py").write_text("")
    done = _doctor(tmp_path, "--json", env={"PYTORCH_CUDA_ALLOC_CONF": "expandable:True"})
    data = json.loads(done.stdout)
    assert {"pitfalls", "python", "torch", "devices", "recipes", "problems", "checks"} <= set(data)
    for check in data["checks"]:
        assert set(check) == {"id", "status", "found", "advice", "recipe"}
        assert check["status"] in ("ok", "warning", "problem", "unknown")
    found = {(c["id"], c["status"]) for c in data["checks"]}
    assert ("alloc-conf", "problem") in found and ("module-shadowing", "problem") in found
    assert done.returncode == 1


def test_doctor_plain_lines_when_piped(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    done = _doctor(tmp_path)
    lines = [line.split("\t") for line in done.stdout.splitlines() if line.startswith("check\t")]
    assert lines and all(parts[1] in ("ok", "warning", "problem", "unknown") for parts in lines)
    assert any(parts[2] == "torch-installed" for parts in lines)


def test_every_recipe_a_check_names_is_an_environment_recipe() -> None:
    """The checks' recipes and ENVIRONMENT_RECIPES (what trace sends to doctor) agree."""
    import inspect

    import pitfalls.doctor.checks_host as host
    import pitfalls.doctor.checks_torch as torch_checks
    from pitfalls.doctor import ENVIRONMENT_RECIPES

    named = set()
    for module in (host, torch_checks):
        import re

        named |= set(re.findall(r'"([a-z0-9]+(?:-[a-z0-9]+)+)",?\s*\)', inspect.getsource(module)))
    assert named <= ENVIRONMENT_RECIPES | {"torch-installed"}, named - ENVIRONMENT_RECIPES
