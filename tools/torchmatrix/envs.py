"""One throwaway environment per torch release: uv, an interpreter for it, installing torch and
NumPy under constraints of its own, and the processes it starts."""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from torchmatrix.common import NO_WHEELS, PYTHON_ORDER, Stop, VersionSpec, public, say

PROCESSES: set[subprocess.Popen] = set()


PROCESSES_LOCK = threading.Lock()


def run_logged(command: list[str], log: Path, env: dict[str, str], cwd: Path | None = None):
    """Run `command`, appending its output to `log`; returns (exit code, output)."""
    with open(log, "a", encoding="utf-8") as handle:
        handle.write(f"\n$ {' '.join(map(str, command))}\n")
        handle.flush()
        process = subprocess.Popen(
            [str(c) for c in command],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=cwd,
            text=True,
            start_new_session=True,
        )
        output, _ = communicate(process)
        handle.write(output)
    return process.returncode, output


def communicate(process: subprocess.Popen) -> tuple[str, str]:
    """Wait for `process`; interrupted, end its whole process group first."""
    with PROCESSES_LOCK:
        PROCESSES.add(process)
    try:
        return process.communicate()
    except BaseException:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGTERM)
        process.wait()
        raise
    finally:
        with PROCESSES_LOCK:
            PROCESSES.discard(process)


def end_processes() -> None:
    with PROCESSES_LOCK:
        for process in PROCESSES:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGTERM)


def uv_environment(cache: Path) -> dict[str, str]:
    """The environment uv runs in: this machine's uv and pip settings removed (a machine-wide
    `constraint` on torch must not cap us), our own cache, never a Python download."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("UV_", "PIP_", "PYTHON", "VIRTUAL_ENV", "CONDA_"))
    }
    env.update({"UV_CACHE_DIR": str(cache), "UV_PYTHON_DOWNLOADS": "never", "UV_NO_PROGRESS": "1"})
    return env


def find_uv(args: argparse.Namespace) -> str:
    """uv from --uv, PATH, or a tools venv under the work folder (installed from PyPI)."""
    if args.uv:
        return args.uv
    found = shutil.which("uv")
    if found:
        return found
    tools = args.work / "tools-venv"
    uv = tools / "bin" / "uv"
    if not uv.exists():
        say(f"uv is not installed: installing it into {tools}")
        subprocess.run([sys.executable, "-m", "venv", str(tools)], check=True)
        subprocess.run(
            [str(tools / "bin" / "python"), "-m", "pip", "install", "-q", "uv"], check=True
        )
    return str(uv)


def python_works(candidate: str, minor: str) -> bool:
    try:
        out = subprocess.run(
            [candidate, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and out.stdout.strip() == minor


def find_python(minor: str, overrides: dict[str, str], uv: str) -> str | None:
    if minor in overrides:
        return overrides[minor]
    candidates = sorted(
        glob.glob(os.path.expanduser(f"~/.pyenv/versions/{minor}.*/bin/python{minor}")),
        key=lambda p: [int(x) for x in re.findall(r"\d+", p.split("/versions/")[1])[:3]],
        reverse=True,
    )
    which = shutil.which(f"python{minor}")
    if which:
        candidates.append(which)
    for candidate in candidates:
        if python_works(candidate, minor):
            return candidate
    out = subprocess.run(
        [uv, "python", "find", "--no-config", minor],
        capture_output=True,
        text=True,
        env=uv_environment(Path(tempfile.gettempdir())),
    )
    path = out.stdout.strip()
    return path if out.returncode == 0 and path and python_works(path, minor) else None


def env_versions(python: Path) -> dict[str, str | None]:
    code = (
        "import json, platform\nfrom importlib import metadata\nv = {}\n"
        "for name in ('torch', 'numpy'):\n"
        "    try:\n        v[name] = metadata.version(name)\n"
        "    except metadata.PackageNotFoundError:\n        v[name] = None\n"
        "v['python'] = platform.python_version()\nprint(json.dumps(v))\n"
    )
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True)
    if out.returncode:
        return {}
    return json.loads(out.stdout)


def free_gb(folder: Path) -> float:
    return shutil.disk_usage(folder).free / 1e9


def remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


@dataclass
class Env:
    spec: VersionSpec
    folder: Path
    cache: Path
    python: Path | None = None
    versions: dict[str, Any] = field(default_factory=dict)
    error: str = ""


def prepare(spec: VersionSpec, args: argparse.Namespace, uv: str) -> Env:
    """Create the environment of one torch version. Raises Stop when disk space is low; a
    failed install comes back as an Env with `error` set."""
    version = spec.version
    env = Env(
        spec, args.work / "envs" / f"torch-{version}", args.work / "cache" / f"torch-{version}"
    )
    log = args.work / "logs" / f"torch-{version}.log"
    python = env.folder / "bin" / "python"
    if env.folder.exists() and args.keep and python.exists():
        found = env_versions(python)
        if found.get("torch") and public(found["torch"]) == version:
            env.python, env.versions = python, found
            return env
    remove(env.folder)
    remove(env.cache)
    free = free_gb(args.work)
    if free < args.min_free_gb:
        raise Stop(
            f"only {free:.1f} GB free on {args.work} (a torch environment and its cache take "
            f"up to 10 GB; the limit is --min-free-gb {args.min_free_gb:g}): stopping before "
            f"torch {version}. Free some space and run the same command again to resume."
        )
    env.cache.mkdir(parents=True, exist_ok=True)
    constraints = args.work / "constraints" / f"torch-{version}.txt"
    numpy = spec.numpy_requirement()
    extra = [r.strip() for r in (spec.extra or "").split(",") if r.strip()]
    constraints.write_text("\n".join([f"torch=={version}", numpy, *extra, ""]), encoding="utf-8")
    uv_env = uv_environment(env.cache)
    index = ["--index-url", args.index_url] if args.index_url else []
    problems = []
    for minor in [spec.python] if spec.python else PYTHON_ORDER:
        interpreter = find_python(minor, args.python_for, uv)
        if interpreter is None:
            problems.append(f"no Python {minor} found")
            continue
        remove(env.folder)
        code, output = run_logged(
            [uv, "venv", "--no-config", "--python", interpreter, env.folder], log, uv_env
        )
        if code:
            problems.append(f"uv venv with Python {minor} failed: {_tail(output)}")
            continue
        started = time.monotonic()
        code, output = run_logged(
            [
                uv,
                "pip",
                "install",
                "--no-config",
                *index,
                "--python",
                python,
                "--constraint",
                constraints,
                f"torch=={version}",
                numpy,
                *extra,
            ],
            log,
            uv_env,
        )
        if code == 0:
            say(
                f"  torch {version}: installed with Python {minor} "
                f"in {time.monotonic() - started:.0f} s"
            )
            break
        problems.append(f"Python {minor}: {_tail(output)}")
        if not NO_WHEELS.search(output):
            break  # a network or disk problem: another Python will not help
    else:
        code = 1
    if code:
        env.error = "; ".join(problems) or "install failed"
        return env
    env.python, env.versions = python, env_versions(python)
    installed = env.versions.get("torch")
    if not installed or public(installed) != version:
        env.error = (
            f"asked for torch {version}, the environment has {installed}: something capped it"
        )
    return env


def _tail(output: str, lines: int = 3) -> str:
    kept = [line.strip() for line in output.strip().splitlines() if line.strip()]
    return " | ".join(kept[-lines:])[:500]


def discard(env: Env, args: argparse.Namespace) -> None:
    if not args.keep:
        remove(env.folder)
        remove(env.cache)
