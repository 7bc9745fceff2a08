"""Shared test helpers: CLI invocation, fixture recipe paths, process checks."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
FIXTURES = TESTS / "fixtures"
ROBUST = FIXTURES / "robust"
MALFORMED = FIXTURES / "malformed"
REPO = TESTS.parent

try:
    import importlib.util

    HAS_TORCH = importlib.util.find_spec("torch") is not None
except Exception:  # pragma: no cover
    HAS_TORCH = False

needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed")

# The registry's metadata cache goes to a throwaway folder, shared by the whole run (so the
# suite exercises cache hits too), never to the developer's ~/.cache.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="pitfalls-test-cache-")


@pytest.fixture(autouse=True)
def _stable_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """English, no colour surprises, fixed width, no stray PITFALLS_* settings."""
    for name in (
        "PITFALLS_LANG",
        "PITFALLS_PATH",
        "PITFALLS_PYTHON",
        "LANGUAGE",
        "LC_ALL",
        "LC_MESSAGES",
        "PITFALLS_START_METHOD",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.setenv("TERM", "xterm-256color")


def run_cli(
    *args: str,
    env: dict[str, str] | None = None,
    input: str | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """Run the real CLI (`python -m pitfalls`) in a subprocess and capture its output."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "pitfalls", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        env=full_env,
        input=input,
        timeout=timeout,
        cwd=str(TESTS),  # never the repo root, where `import tui` would work by accident
    )


def run_on_pty(argv: list[str], env: dict[str, str], cwd: Path | None = None) -> tuple[int, bytes]:
    """Run `argv` with one pseudo-terminal as stdin, stdout and stderr, reading what it
    writes until it exits: (exit code, output)."""
    import pty

    leader, follower = pty.openpty()
    process = subprocess.Popen(
        argv, stdin=follower, stdout=follower, stderr=follower, env=env, cwd=cwd
    )
    os.close(follower)
    output = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO once the last writer has gone
            break
        if not chunk:
            break
        output += chunk
    os.close(leader)
    return process.wait(timeout=60), output


def pid_alive(pid: int) -> bool:
    """Whether a process exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def wait_gone(pid: int, within: float = 3.0) -> bool:
    """True once `pid` has gone (or is a zombie) within `within` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            return True
        time.sleep(0.05)
    return not pid_alive(pid)


def assert_no_traceback(text: str) -> None:
    """No Python traceback from pitfalls reached the user."""
    assert "Traceback (most recent call last)" not in text, text


def marked_processes(marker: str) -> list[int]:
    """Live processes (not zombies) carrying PITFALLS_TEST_MARKER=marker in their environment,
    wherever they were reparented to."""
    found = []
    needle = f"PITFALLS_TEST_MARKER={marker}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                if needle not in handle.read().split(b"\0"):
                    continue
        except OSError:
            continue
        if pid_alive(int(entry)):
            found.append(int(entry))
    return found


def shm_files() -> set[str]:
    """Names in /dev/shm (empty where there is none)."""
    try:
        return set(os.listdir("/dev/shm"))
    except OSError:
        return set()


def listening_socket_owners() -> dict[int, list[int]]:
    """Inode of each listening TCP socket -> pids holding it (Linux /proc)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as handle:
                next(handle)
                for line in handle:
                    fields = line.split()
                    if fields[3] == "0A":  # LISTEN
                        inodes.add(int(fields[9]))
        except OSError:
            continue
    owners: dict[int, list[int]] = {inode: [] for inode in inodes}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            for fd in os.listdir(f"/proc/{entry}/fd"):
                target = os.readlink(f"/proc/{entry}/fd/{fd}")
                if target.startswith("socket:["):
                    inode = int(target[8:-1])
                    if inode in owners:
                        owners[inode].append(int(entry))
        except OSError:
            continue
    return owners
