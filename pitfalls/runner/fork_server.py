"""The parent's side of the fork server (runner/child/server.py): starting it and waiting until
torch is imported, the control socket's messages, and the second, preloaded server.
`ProcessPool` (process.py) is a `ForkServerConnection`: this holds the connection, the pool
schedules the tasks over it."""

from __future__ import annotations

import json
import selectors
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

from pitfalls.runner.groups import child_environment
from pitfalls.runner.tasks import RunnerUnavailable

# The child: a folder run as a script (runner/child/__main__.py), standard library only.
CHILD_SCRIPT = Path(__file__).with_name("child")
OUTPUT_LIMIT = 64 * 1024  # bytes of a task's output kept: the tail, which holds the error
# Seconds the fork server may take to import torch (a cold disk or a network home can be
# slow); an interpreter that never answers must not make the CLI wait forever.
START_TIMEOUT = 120.0


class ForkServerConnection:
    """The fork server and the preloaded server, as the pool talks to them (fork mode).

    The attributes are set by ProcessPool.__init__."""

    python: str
    start_method: str
    torch_version: str | None
    _server: subprocess.Popen[bytes] | None
    _control: socket.socket | None
    _closed: bool
    _launch_error: str
    _preloaded: socket.socket | None
    _preloaded_state: str
    _preloaded_since: float

    def close(self, wait: bool = True) -> None:  # ProcessPool's
        raise NotImplementedError

    def launch(self) -> None:
        """Start the fork server without waiting for it (fork mode only).

        The CLI calls this before it has even parsed its arguments, so that torch imports in
        the server while the CLI itself starts up.
        """
        if self.start_method != "fork" or self._server is not None or self._closed:
            return
        parent_sock, child_sock = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self._server = subprocess.Popen(
                [self.python, str(CHILD_SCRIPT), "serve", str(child_sock.fileno())],
                pass_fds=[child_sock.fileno()],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,
                env=child_environment(),
            )
        except OSError as err:
            parent_sock.close()
            self._launch_error = f"cannot start {self.python}: {err.strerror}"
            return
        finally:
            child_sock.close()
        self._control = parent_sock

    def start(self, timeout: float = START_TIMEOUT) -> None:
        """Launch the fork server if needed and wait until torch is imported (fork mode).

        Raises RunnerUnavailable when the interpreter cannot run, has no torch, or does not
        answer within `timeout` seconds.
        """
        if self.start_method != "fork" or self.torch_version is not None:
            return
        self.launch()
        if self._launch_error:
            raise RunnerUnavailable("python_missing", self._launch_error)
        if not self._wait_readable(timeout):
            self.close()
            raise RunnerUnavailable(
                "python_missing",
                f"{self.python} did not start the runner within {timeout:g} s",
            )
        message = self._receive_control(block=True)
        if message is None or message.get("event") != "ready":
            detail = self._drain_server_stderr() or "is it a Python interpreter?"
            self.close()
            raise RunnerUnavailable(
                "python_missing", f"{self.python} could not start the runner: {detail}"
            )
        if message.get("torch") is None:
            self.close()
            raise RunnerUnavailable(
                "torch_missing", f"torch cannot be imported in {self.python}: {message['error']}"
            )
        self.torch_version = message["torch"]

    def _wait_readable(self, timeout: float) -> bool:
        """Wait until the server says something (or exits); False after `timeout` seconds."""
        assert self._control is not None
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as selector:
            selector.register(self._control, selectors.EVENT_READ)
            while True:
                remaining = deadline - time.monotonic()
                if not remaining > 0:
                    return False
                if selector.select(timeout=min(remaining, 1.0)):
                    return True

    def preload(self, modules: list[str]) -> None:
        """Have a second fork server import `modules` once, for the tasks marked `preloaded`
        (fork mode; spawn mode starts each task afresh and gains nothing).

        The main server forks it and goes on running the other tasks meanwhile, so the import
        occupies no job slot; and those tasks keep forking from a smaller process, which is
        faster. A pool has at most one preloaded server.
        """
        if self.start_method != "fork" or not modules or self._preloaded_state != "none":
            return
        self.start()
        parent_sock, child_sock = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self._send({"op": "preload", "modules": list(modules)}, fds=[child_sock.fileno()])
        except RunnerUnavailable:
            parent_sock.close()
            raise
        finally:
            child_sock.close()
        self._preloaded = parent_sock
        self._preloaded_state = "starting"
        self._preloaded_since = time.monotonic()

    def _send(
        self, message: dict[str, Any], fds: list[int] | None = None, server: str = "main"
    ) -> None:
        control = self._preloaded if server == "preloaded" else self._control
        assert control is not None
        data = json.dumps(message).encode("utf-8")
        try:
            if fds:
                socket.send_fds(control, [data], fds)
            else:
                control.send(data)
        except OSError as err:
            raise RunnerUnavailable(
                "python_missing", f"the runner process stopped: {self._drain_server_stderr()}"
            ) from err

    def _receive_control(self, block: bool, server: str = "main") -> dict[str, Any] | None:
        control = self._preloaded if server == "preloaded" else self._control
        assert control is not None
        control.setblocking(block)
        try:
            data = control.recv(1 << 16)
        except BlockingIOError:
            return {}
        except OSError:
            data = b""
        finally:
            control.setblocking(True)
        if not data:
            return None
        return json.loads(data)

    def _check_preloaded_start(self, selector: selectors.BaseSelector) -> None:
        """Give up on a preloaded server that does not answer: its tasks run in the main one."""
        if self._preloaded_state != "starting":
            return
        if time.monotonic() - self._preloaded_since > START_TIMEOUT:
            self._drop_preloaded(selector)

    def _drop_preloaded(self, selector: selectors.BaseSelector | None) -> None:
        control, self._preloaded = self._preloaded, None
        self._preloaded_state = "gone"
        if control is None:
            return
        if selector is not None:
            try:
                selector.unregister(control)
            except (KeyError, ValueError):
                pass
        try:
            control.close()  # it sees EOF and exits once its children are gone
        except OSError:
            pass

    def _drain_server_stderr(self) -> str:
        server = self._server
        if server is None or server.stderr is None:
            return ""
        try:
            server.wait(timeout=1)
            text = server.stderr.read(OUTPUT_LIMIT).decode("utf-8", "replace")
        except (subprocess.TimeoutExpired, OSError, ValueError):
            text = ""
        lines = [line for line in text.strip().splitlines() if line.strip()]
        return lines[-1] if lines else ""
