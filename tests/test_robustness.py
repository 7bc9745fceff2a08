"""A clear answer for every bad input and failure, and no process left behind (issue 5).

Each test asserts the exit code, that the message names the problem, that no traceback from
pitfalls itself reaches the user, and, where processes are involved, that none survives.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import (
    ROBUST,
    TESTS,
    assert_no_traceback,
    marked_processes,
    needs_torch,
    pid_alive,
    run_cli,
    wait_gone,
)

# Every process these tests start carries this marker in its environment, and inherits it to
# everything it starts: a process that still has it after a test is a survivor, wherever it was
# reparented to.
MARKER = f"pitfalls-robustness-{os.getpid()}"
ROBUST_ENV = {"PITFALLS_PATH": str(ROBUST), "PITFALLS_TEST_MARKER": MARKER}
START_METHODS = ["fork", "spawn"] if sys.platform.startswith("linux") else ["spawn"]


def survivors() -> list[int]:
    """Live processes (not zombies) that carry this module's marker."""
    return marked_processes(MARKER)


@pytest.fixture(autouse=True)
def _no_survivors():
    """After every test here, no process it started is left (given a moment to be reaped)."""
    yield
    if not sys.platform.startswith("linux"):
        return
    deadline = time.monotonic() + 3
    while survivors() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert survivors() == []


def run_robust(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    result = run_cli(*args, env={**ROBUST_ENV, **env})
    # JSON may carry the snippet's own traceback as data; what a reader sees may not.
    assert_no_traceback(result.stderr if "--json" in args else result.stdout + result.stderr)
    return result


# -- usage errors -------------------------------------------------------------------------


def test_unknown_id_exits_2_with_did_you_mean() -> None:
    result = run_robust("run", "t-okk", "--device", "cpu")
    assert result.returncode == 2
    assert "Did you mean: t-ok" in result.stderr


def test_ambiguous_prefix_exits_2_with_candidates() -> None:
    result = run_robust("run", "t-s", "--device", "cpu")
    assert result.returncode == 2
    assert "t-segfault" in result.stderr and "t-sigkill" in result.stderr


def test_not_a_device_name_exits_2_listing_valid_names() -> None:
    result = run_robust("run", "t-ok", "--device", "tpu")
    assert result.returncode == 2
    assert "'tpu' is not a device name" in result.stderr and "cuda:N" in result.stderr


@needs_torch
@pytest.mark.parametrize("device", ["cuda", "cuda:7", "mps"])
def test_unavailable_device_exits_3_in_one_line(device: str) -> None:
    import torch  # noqa: F401 - only to know what this machine has

    if device.startswith("cuda") and torch.cuda.is_available() and device == "cuda":
        pytest.skip("CUDA is available here")
    if device == "mps" and torch.backends.mps.is_available():
        pytest.skip("MPS is available here")
    result = run_robust("run", "t-ok", "--device", device)
    assert result.returncode == 3
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert device in lines[0] and "Available: cpu" in lines[0]


@needs_torch
def test_verify_on_an_unavailable_device_exits_3_not_0() -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("CUDA is available here")
    result = run_robust("verify", "t-ok", "--device", "cuda")
    assert result.returncode == 3
    assert "not available" in result.stderr


# -- torch or interpreter missing ---------------------------------------------------------


@pytest.fixture(scope="module")
def python_without_torch(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("venv-no-torch")
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    check = subprocess.run([str(python), "-c", "import torch"], capture_output=True)
    if check.returncode == 0:
        pytest.skip("the base interpreter has torch")
    return str(python)


@pytest.mark.parametrize("start_method", START_METHODS)
def test_run_without_torch_exits_3_and_says_how(python_without_torch, start_method) -> None:
    result = run_robust(
        "run",
        "t-ok",
        "--device",
        "cpu",
        "--python",
        python_without_torch,
        PITFALLS_START_METHOD=start_method,
    )
    assert result.returncode == 3
    assert "torch is not installed" in result.stderr
    assert "pip install" in result.stderr and "--python" in result.stderr


def test_verify_without_torch_exits_3(python_without_torch) -> None:
    result = run_robust("verify", "--python", python_without_torch, "--device", "cpu")
    assert result.returncode == 3 and "torch is not installed" in result.stderr


def test_python_that_does_not_exist_exits_3() -> None:
    result = run_robust("run", "t-ok", "--python", "/nonexistent/python3")
    assert result.returncode == 3
    assert "/nonexistent/python3" in result.stderr


# -- the snippet fails ---------------------------------------------------------------------


@needs_torch
@pytest.mark.parametrize("start_method", START_METHODS)
def test_snippet_that_raises_exits_4_showing_its_error(start_method: str) -> None:
    result = run_robust("run", "t-raises", "--device", "cpu", PITFALLS_START_METHOD=start_method)
    assert result.returncode == 4
    assert "ValueError: the snippet broke on purpose" in result.stderr
    assert "snippet.py" in result.stderr  # the snippet's own frames are shown


@needs_torch
@pytest.mark.parametrize(
    ("recipe_id", "signal_name"), [("t-segfault", "SIGSEGV"), ("t-sigkill", "SIGKILL")]
)
@pytest.mark.parametrize("start_method", START_METHODS)
def test_snippet_killed_by_a_signal_exits_4(recipe_id, signal_name, start_method) -> None:
    result = run_robust("run", recipe_id, "--device", "cpu", PITFALLS_START_METHOD=start_method)
    assert result.returncode == 4
    assert f"killed by signal {signal_name}" in result.stdout + result.stderr


@needs_torch
@pytest.mark.parametrize("start_method", START_METHODS)
def test_hang_past_timeout_is_ended_with_its_children(tmp_path: Path, start_method) -> None:
    pidfile = tmp_path / "pid"
    started = time.monotonic()
    result = run_robust(
        "run",
        "t-child-hang",
        "--device",
        "cpu",
        "--timeout",
        "3",
        PITFALLS_TEST_PIDFILE=str(pidfile),
        PITFALLS_START_METHOD=start_method,
    )
    elapsed = time.monotonic() - started
    assert result.returncode == 4
    assert "timed out after 3 s" in result.stdout + result.stderr
    assert elapsed < 30
    assert wait_gone(int(pidfile.read_text())), "the snippet's child survived the timeout"


@needs_torch
@pytest.mark.skipif(os.name == "nt", reason="a shell script as --python")
def test_spawn_mode_timeout_counts_the_run_not_the_interpreter_start(tmp_path: Path) -> None:
    """In spawn mode each recipe starts a fresh interpreter that imports torch (seconds, more
    on a loaded machine). `--timeout` counts the recipe's own run, as in fork mode, where the
    server imported torch beforehand: an interpreter that takes longer to start than the
    timeout still runs its recipe."""
    slow_start = 3.0
    python = tmp_path / "slow-python"
    python.write_text(f'#!/bin/sh\nsleep {slow_start}\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    timeout = 2.0  # under the slow start, and ~1000x what t-ok's run takes
    started = time.monotonic()
    result = run_robust(
        "run",
        "t-ok",
        "--device",
        "cpu",
        "--json",
        "--python",
        str(python),
        "--timeout",
        f"{timeout:g}",
        PITFALLS_START_METHOD="spawn",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert time.monotonic() - started > slow_start  # the slow interpreter did run it
    data = json.loads(result.stdout)
    assert data["status"] == "held" and data["problem"] == {"bad": True}


@pytest.mark.skipif(os.name == "nt", reason="a shell script as the interpreter")
def test_a_spawned_interpreter_that_never_starts_the_run_is_ended(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The start is bounded on its own (START_TIMEOUT, the fork server's bound, here made
    short), and said as a start that failed, not as the recipe's timeout."""
    from pitfalls.runner import ProcessPool, Task, process

    pidfile = tmp_path / "pid"
    python = tmp_path / "python"
    python.write_text(f"#!/bin/sh\necho $$ > {pidfile}\nexec sleep 600\n")
    python.chmod(0o755)
    monkeypatch.setattr(process, "START_TIMEOUT", 1.0)
    pool = ProcessPool(python=str(python), start_method="spawn")
    snippet = ROBUST / "t-ok" / "snippet.py"
    started = time.monotonic()
    try:
        (outcome,) = pool.run([Task(0, "t-ok", str(snippet), "cpu", 20.0)])
    finally:
        pool.close()
    assert time.monotonic() - started < 15  # neither the 20 s timeout nor the 600 s sleep
    assert not outcome.timed_out and outcome.result is None
    assert outcome.lost == f"{python} did not start the run within 1 s"
    assert wait_gone(int(pidfile.read_text())), "the interpreter that never started survived"


@needs_torch
@pytest.mark.parametrize("start_method", START_METHODS)
def test_children_left_behind_are_ended(tmp_path: Path, start_method: str) -> None:
    pidfile = tmp_path / "pid"
    result = run_robust(
        "run",
        "t-orphan",
        "--device",
        "cpu",
        PITFALLS_TEST_PIDFILE=str(pidfile),
        PITFALLS_START_METHOD=start_method,
    )
    assert result.returncode == 0, result.stderr
    assert wait_gone(int(pidfile.read_text())), "a child the snippet left behind survived"


@needs_torch
def test_a_child_that_escaped_the_group_is_ended_too(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    started = time.monotonic()
    result = run_robust("run", "t-escapee", "--device", "cpu", PITFALLS_TEST_PIDFILE=str(pidfile))
    assert result.returncode == 0, result.stderr
    assert time.monotonic() - started < 30
    if sys.platform.startswith("linux"):  # the fork server adopts and ends it as subreaper
        assert wait_gone(int(pidfile.read_text())), "a child in its own session survived"
    else:  # pragma: no cover
        os.kill(int(pidfile.read_text()), signal.SIGKILL)


@needs_torch
def test_huge_output_stays_bounded() -> None:
    result = run_robust("run", "t-huge-output", "--device", "cpu", "--json")
    assert result.returncode == 0, result.stderr[-500:]
    data = json.loads(result.stdout)
    assert data["output_truncated"] is True
    assert len(data["output"]) <= 64 * 1024
    assert len(result.stdout) < 200 * 1024
    plain = run_robust("run", "t-huge-output", "--device", "cpu")
    assert plain.returncode == 0
    assert "only the last 64 KiB were kept" in plain.stdout
    assert len(plain.stdout) < 16 * 1024


@needs_torch
def test_observations_that_are_not_json_exit_4_clearly() -> None:
    result = run_robust("run", "t-not-json", "--device", "cpu")
    assert result.returncode == 4
    assert "observation 'bad' is a object, not a plain value" in result.stderr


@needs_torch
def test_snippet_without_fix_exits_4_naming_the_function() -> None:
    result = run_robust("run", "t-no-fix", "--device", "cpu")
    assert result.returncode == 4
    assert "defines no fix(device)" in result.stderr


@needs_torch
def test_verify_with_one_broken_recipe_among_many() -> None:
    result = run_robust("verify", "t-ok", "t-raises", "t-claim-fails", "--device", "cpu", "--json")
    assert result.returncode == 4
    statuses = {r["id"]: r["status"] for r in json.loads(result.stdout)}
    assert statuses == {"t-ok": "held", "t-raises": "error", "t-claim-fails": "claim_failed"}
    claim_only = run_robust("verify", "t-ok", "t-claim-fails", "--device", "cpu")
    assert claim_only.returncode == 1


# -- Ctrl-C -------------------------------------------------------------------------------


def _interrupt_cli(args: list[str], pidfile: Path) -> tuple[int, str, float]:
    """Start the CLI in its own process group, as a shell would, and press Ctrl-C."""
    env = {**os.environ, **ROBUST_ENV, "PITFALLS_TEST_PIDFILE": str(pidfile)}
    process = subprocess.Popen(
        [sys.executable, "-m", "pitfalls", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=str(TESTS),
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not pidfile.exists() or not pidfile.read_text().strip():
        assert time.monotonic() < deadline, "the snippet never started"
        assert process.poll() is None, process.communicate()
        time.sleep(0.05)
    pressed = time.monotonic()
    os.killpg(process.pid, signal.SIGINT)  # the terminal signals the foreground group
    _, stderr = process.communicate(timeout=10)
    return process.returncode, stderr, time.monotonic() - pressed


@needs_torch
@pytest.mark.parametrize("command", ["run", "verify"])
def test_ctrl_c_exits_130_quickly_with_no_orphans(tmp_path: Path, command: str) -> None:
    pidfile = tmp_path / "pid"
    args = [command, "t-sleep", "--device", "cpu"]
    code, stderr, elapsed = _interrupt_cli(args, pidfile)
    assert code == 130
    assert elapsed < 1.5, elapsed
    assert_no_traceback(stderr)
    assert "KeyboardInterrupt" not in stderr
    assert "Interrupted" in stderr
    assert wait_gone(int(pidfile.read_text()), 2.0), "the snippet survived Ctrl-C"


# -- output environments ------------------------------------------------------------------


@pytest.mark.parametrize(
    "pipeline",
    ["list | head -1", "show detach | head -3", "search focal loss nan | head -1"],
)
def test_closed_pipe_ends_quietly(pipeline: str) -> None:
    command, rest = pipeline.split(" | ", 1)
    shell = f"'{sys.executable}' -m pitfalls {command} | {rest}"
    result = subprocess.run(
        ["bash", "-o", "pipefail", "-c", shell], capture_output=True, text=True, cwd=str(TESTS)
    )
    assert result.stdout.strip()
    assert result.stderr == "", result.stderr


@pytest.mark.parametrize(
    "env",
    [
        {"NO_COLOR": "1"},
        {"TERM": "dumb"},
        {"COLUMNS": "20"},
    ],
)
@pytest.mark.parametrize(
    "args", [["list"], ["show", "detach"], ["search", "loss", "becomes", "nan", "focal"]]
)
def test_odd_terminals_do_not_crash(env: dict[str, str], args: list[str]) -> None:
    result = run_cli(*args, env=env)
    assert result.returncode == 0
    assert_no_traceback(result.stderr)
    assert result.stdout.strip()
    assert "\x1b[" not in result.stdout  # plain when piped


@pytest.mark.parametrize("args", [["--lang", "zh", "list"], ["show", "detach", "--lang", "zh"]])
def test_output_encoding_that_cannot_show_chinese(args: list[str]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pitfalls", *args],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
        cwd=str(TESTS),
    )
    assert result.returncode == 0, result.stderr
    assert b"Traceback" not in result.stderr
    assert b"\\u" in result.stdout  # escaped, not lost
    result.stdout.decode("ascii")


def test_nothing_is_left_running_after_the_suite_module() -> None:
    # Every process this module started is a child of pytest; none may be left (zombies
    # already reaped by subprocess count as gone).
    me = os.getpid()
    leftovers = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and pid_alive(int(entry)):
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    parent = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if parent == me:
                leftovers.append(entry)
    assert leftovers == []


@needs_torch
def test_a_missing_extra_module_is_unavailable_for_run_and_skipped_by_verify() -> None:
    result = run_robust("run", "t-needs-module", "--device", "cpu")
    assert result.returncode == 3
    assert "needs pitfalls_no_such_module" in result.stderr
    assert "pip install pitfalls_no_such_module" in result.stderr
    verified = run_robust("verify", "t-ok", "t-needs-module", "--device", "cpu", "--json")
    assert verified.returncode == 0
    statuses = {r["id"]: r["status"] for r in json.loads(verified.stdout)}
    assert statuses == {"t-ok": "held", "t-needs-module": "skipped"}


def test_malformed_recipe_folders_are_reported_and_the_rest_work() -> None:
    from conftest import MALFORMED

    result = run_cli("list", env={"PITFALLS_PATH": str(MALFORMED)})
    assert result.returncode == 0
    assert_no_traceback(result.stderr)
    ids = {line.split("\t")[0] for line in result.stdout.splitlines()}
    assert {"detach", "m-dup", "m-alias-clash", "m-only-en"} <= ids
    assert "m-bad-toml" not in ids and "m-no-prose" not in ids
    errors = result.stderr
    for name, reason in [
        ("m-bad-toml", "not valid TOML"),
        ("m-no-prose", "no prose"),
        ("m-no-snippet", "no snippet.py"),
        ("m-dup-b", "already taken"),
        ("m-builtin-clash", "already taken by built-in"),
    ]:
        line = next((x for x in errors.splitlines() if f"/{name}:" in x), "")
        assert reason in line, (name, errors)
    assert "warning" in errors and "alias 'clamp'" in errors
    shown = run_cli("show", "clamp", env={"PITFALLS_PATH": str(MALFORMED)})
    assert shown.stdout.startswith("# Focal loss")  # the built-in keeps its alias
