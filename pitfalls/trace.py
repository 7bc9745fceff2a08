"""`pitfalls trace -- COMMAND...`: run a command untouched, then explain its Python traceback.

The command's output passes through live and byte for byte. On a terminal it runs on a
pseudo-terminal of its own, sized like ours, so that progress bars, colours and line
buffering behave as they would without `trace`; piped, it gets `PYTHONUNBUFFERED=1` and its
stdout and stderr are copied to ours as the bytes arrive. Only a bounded tail is kept in
memory, to look for a traceback once the command has ended.

Exit codes are the command's own; 127 when it is not found, 126 when it cannot be executed,
128+N when it died of signal N (as shells report them).
"""

from __future__ import annotations

import errno
import os
import re
import select
import signal
import subprocess
import sys
from dataclasses import dataclass

EXIT_CANNOT_EXECUTE = 126
EXIT_NOT_FOUND = 127
TAIL_BYTES = 256 * 1024  # a traceback longer than this is not one a person pastes
_ANSI = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
_TRACEBACK = "Traceback (most recent call last):"


@dataclass
class Traced:
    """How a traced command ended, and the tail of what it printed."""

    returncode: int
    tail: bytes = b""
    error: str = ""  # why it could not start: "not found" or "cannot execute"

    def traceback_text(self) -> str | None:
        """The last Python traceback in the output (ANSI colours removed), if any."""
        text = _ANSI.sub(b"", self.tail).decode("utf-8", errors="replace")
        text = text.replace("\r\n", "\n")
        start = text.rfind(_TRACEBACK)
        if start < 0:
            return None
        # Chained tracebacks ("During handling...") belong to one report: keep from the first
        # traceback of the final block, which ends the output.
        return text[start:] if start >= 0 else None


def run_traced(command: list[str], *, use_pty: bool | None = None) -> Traced:
    """Run `command`, copying its output through; returns how it ended."""
    if not command or not command[0]:
        # As a shell answers an empty command name: nothing by that name can be found.
        return Traced(EXIT_NOT_FOUND, error="not found")
    if use_pty is None:
        use_pty = sys.stdout is not None and sys.stdout.isatty() and sys.platform != "win32"
    try:
        if use_pty:
            return _run_on_pty(command)
        return _run_piped(command)
    except FileNotFoundError:
        return Traced(EXIT_NOT_FOUND, error="not found")
    except PermissionError:
        return Traced(EXIT_CANNOT_EXECUTE, error="cannot execute")
    except OSError as err:
        if err.errno in (errno.ENOEXEC, errno.EACCES, errno.EISDIR):
            return Traced(EXIT_CANNOT_EXECUTE, error="cannot execute")
        raise


def exit_status(returncode: int) -> int:
    """A shell's exit status for a Popen return code (negative: killed by a signal)."""
    return 128 - returncode if returncode < 0 else returncode


class _Tail:
    def __init__(self) -> None:
        self.data = bytearray()

    def add(self, chunk: bytes) -> None:
        self.data += chunk
        if len(self.data) > 2 * TAIL_BYTES:
            del self.data[: len(self.data) - TAIL_BYTES]

    def bytes(self) -> bytes:
        return bytes(self.data[-TAIL_BYTES:])


def _write(fd: int, chunk: bytes) -> bool:
    """Write all of `chunk`; False when our reader has gone (a closed pipe, a full disk, a
    closed descriptor), so that the caller can let the command find that out too."""
    view = memoryview(chunk)
    while view:
        try:
            written = os.write(fd, view)
        except InterruptedError:
            continue
        except OSError:
            return False
        view = view[written:]
    return True


def _ignoring_interrupts():
    # Like a shell: Ctrl-C goes to the command (same process group), which decides what it
    # means; `trace` itself waits for it and reports the command's own exit status.
    return signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_piped(command: list[str]) -> Traced:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    previous = _ignoring_interrupts()
    tail = _Tail()
    try:
        pipes = {process.stdout.fileno(): process.stdout, process.stderr.fileno(): process.stderr}
        streams = {process.stdout.fileno(): 1, process.stderr.fileno(): 2}
        while streams:
            readable, _, _ = select.select(list(streams), [], [])
            for fd in readable:
                chunk = os.read(fd, 65536)
                if not chunk:
                    del streams[fd]
                    continue
                if streams[fd] == 2:
                    tail.add(chunk)
                if not _write(streams[fd], chunk):
                    # Where our output went is gone (`trace -- yes | head -1`): close the
                    # command's pipe too, so that its next write fails as it would without
                    # trace, instead of it running on forever into our drain.
                    del streams[fd]
                    pipes[fd].close()
        returncode = process.wait()
    finally:
        signal.signal(signal.SIGINT, previous)
        for stream in (process.stdout, process.stderr):
            stream.close()
    return Traced(exit_status(returncode), tail.bytes())


def _run_on_pty(command: list[str]) -> Traced:
    # lazy: terminal control only on this path (POSIX)
    import pty
    import termios

    master, slave = pty.openpty()
    _copy_window_size(slave)
    try:
        process = subprocess.Popen(
            command, stdout=slave, stderr=slave, close_fds=True, start_new_session=False
        )
    except BaseException:
        os.close(master)
        os.close(slave)
        raise
    os.close(slave)
    previous = _ignoring_interrupts()
    previous_winch = signal.signal(signal.SIGWINCH, lambda *_: _copy_window_size(master))
    tail = _Tail()
    try:
        while True:
            try:
                readable, _, _ = select.select([master], [], [], 0.1)
            except InterruptedError:
                continue
            if readable:
                try:
                    chunk = os.read(master, 65536)
                except OSError as err:  # EIO: every writer of the pty has gone
                    if err.errno != errno.EIO:
                        raise
                    chunk = b""
                if not chunk:
                    break
                _write(1, chunk)
                tail.add(chunk)
            elif process.poll() is not None:
                # Drain what is left, without waiting on grandchildren that keep the pty open.
                try:
                    while select.select([master], [], [], 0.05)[0]:
                        chunk = os.read(master, 65536)
                        if not chunk:
                            break
                        _write(1, chunk)
                        tail.add(chunk)
                except OSError:
                    pass
                break
        returncode = process.wait()
    finally:
        signal.signal(signal.SIGINT, previous)
        signal.signal(signal.SIGWINCH, previous_winch)
        try:
            termios.tcflush(master, termios.TCIOFLUSH)
        except (OSError, termios.error):
            pass
        os.close(master)
    return Traced(exit_status(returncode), tail.bytes())


def _copy_window_size(target_fd: int) -> None:
    # lazy: terminal control only on this path (POSIX)
    import fcntl
    import struct
    import termios

    try:
        size = fcntl.ioctl(sys.stdout.fileno(), termios.TIOCGWINSZ, struct.pack("HHHH", 0, 0, 0, 0))
        fcntl.ioctl(target_fd, termios.TIOCSWINSZ, size)
    except (OSError, ValueError):
        pass
