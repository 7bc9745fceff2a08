"""`pitfalls trace`: real processes, real exit codes, output passed through untouched."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time

from conftest import FIXTURES, TESTS

FINDABLE = FIXTURES / "findable"
FRAGMENT = "the flux capacitor overheated while computing gradients"


def trace(*command: str, env: dict[str, str] | None = None, input: bytes | None = None):
    full_env = dict(os.environ, PITFALLS_PATH=str(FINDABLE), **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", "pitfalls", "trace", "--", *command],
        capture_output=True,
        env=full_env,
        input=input,
        timeout=60,
        cwd=str(TESTS),
    )


def test_output_and_exit_code_pass_through_unchanged() -> None:
    script = "import sys; sys.stdout.write('out\\n'); sys.stderr.write('err\\n'); sys.exit(7)"
    result = trace(sys.executable, "-c", script)
    assert result.returncode == 7
    assert result.stdout == b"out\n"
    assert result.stderr == b"err\n"  # no hint: no traceback


def test_a_matching_traceback_gets_one_hint_after_it() -> None:
    script = f"def go():\n    raise RuntimeError({FRAGMENT!r})\ngo()\n"
    result = trace(sys.executable, "-c", script)
    assert result.returncode == 1
    err = result.stderr.decode()
    assert err.index("Traceback (most recent call last)") < err.index("boom-fragment")
    assert "pitfalls show boom-fragment" in err and "pitfalls run boom-fragment" in err
    assert err.count("boom-fragment") == 3


def test_an_unrelated_traceback_gets_no_hint() -> None:
    result = trace(sys.executable, "-c", "raise ValueError('the parrot is resting')")
    assert result.returncode == 1
    assert b"pitfalls" not in result.stderr
    assert result.stderr.rstrip().endswith(b"ValueError: the parrot is resting")


def test_not_found_is_127_and_not_executable_is_126(tmp_path) -> None:
    missing = trace("no-such-command-for-pitfalls")
    assert missing.returncode == 127
    assert missing.stderr.decode().strip().count("\n") == 0
    assert "not found" in missing.stderr.decode()
    plain = tmp_path / "plain.txt"
    plain.write_text("not a program")
    denied = trace(str(plain))
    assert denied.returncode == 126
    assert "Traceback" not in denied.stderr.decode()


def test_an_empty_command_name_is_not_found_as_in_a_shell() -> None:
    empty = trace("")
    assert empty.returncode == 127
    assert "not found" in empty.stderr.decode() and "Traceback" not in empty.stderr.decode()


def test_a_signal_death_is_128_plus_n() -> None:
    result = trace(sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)")
    assert result.returncode == 128 + 9


def test_usage_error_is_2() -> None:
    full_env = dict(os.environ)
    result = subprocess.run(
        [sys.executable, "-m", "pitfalls", "trace"], capture_output=True, env=full_env
    )
    assert result.returncode == 2
    assert b"Traceback" not in result.stderr


def test_binary_and_non_utf8_output_pass_through_byte_for_byte() -> None:
    script = "import sys; sys.stdout.buffer.write(bytes(range(256)) * 400); sys.exit(3)"
    result = trace(sys.executable, "-c", script)
    assert result.returncode == 3
    assert result.stdout == bytes(range(256)) * 400


def test_piped_commands_run_unbuffered() -> None:
    result = trace(sys.executable, "-c", "import os; print(os.environ.get('PYTHONUNBUFFERED'))")
    assert result.stdout == b"1\n"


def test_stdin_reaches_the_command() -> None:
    result = trace(sys.executable, "-c", "print(input()[::-1])", input=b"abc\n")
    assert result.stdout == b"cba\n"


def test_on_a_terminal_the_command_gets_a_terminal_too() -> None:
    script = (
        "import sys; print('tty' if sys.stdout.isatty() else 'pipe'); "
        f"raise RuntimeError({FRAGMENT!r})"
    )
    pid, fd = pty.fork()
    if pid == 0:  # the child: run trace with the pty as its terminal
        os.environ["PITFALLS_PATH"] = str(FINDABLE)
        os.chdir(str(TESTS))
        os.execv(
            sys.executable,
            [sys.executable, "-m", "pitfalls", "trace", "--", sys.executable, "-c", script],
        )
    output = b""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        readable, _, _ = select.select([fd], [], [], 1)
        if readable:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    text = output.decode("utf-8", "replace")
    assert "tty" in text.splitlines()[0]
    assert "pitfalls show boom-fragment" in text
    assert os.waitstatus_to_exitcode(status) == 1


def test_ctrl_c_goes_to_the_command_and_its_status_is_returned() -> None:
    script = "import time\nprint('ready', flush=True)\ntime.sleep(30)\n"
    full_env = dict(os.environ, PITFALLS_PATH=str(FINDABLE))
    process = subprocess.Popen(
        [sys.executable, "-m", "pitfalls", "trace", "--", sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=full_env,
        start_new_session=True,
    )
    assert process.stdout.readline() == b"ready\n"
    os.killpg(process.pid, 2)  # what the terminal does on Ctrl-C: the whole foreground group
    _, err = process.communicate(timeout=30)
    # Python re-raises SIGINT on an uncaught KeyboardInterrupt: a shell reports 128 + 2.
    assert process.returncode == 130
    assert b"KeyboardInterrupt" in err
    assert b"pitfalls/" not in err  # no traceback of ours
