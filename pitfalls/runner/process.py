"""Starting, watching and ending snippet processes: the parent side of `_child.py`.

One `ProcessPool` runs tasks with a concurrency limit and reports what happened to each as an
`Outcome`. On Linux it talks to a fork server that imported torch once (fork mode); elsewhere,
or when `PITFALLS_START_METHOD=spawn`, it starts a fresh interpreter per task (spawn mode).
Either way every snippet runs in its own process group, a timeout or a cancel ends that whole
group, and closing the pool (also on Ctrl-C) leaves no process behind.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHILD_SCRIPT = Path(__file__).with_name("_child.py")
OUTPUT_LIMIT = 64 * 1024  # bytes of a task's output kept: the tail, which holds the error
RESULT_LIMIT = 1 << 20
PIPE_GRACE = 3.0  # seconds to drain a snippet's pipes after it exited
# Seconds the fork server may take to import torch (a cold disk or a network home can be
# slow); an interpreter that never answers must not make the CLI wait forever.
START_TIMEOUT = 120.0


@dataclass
class Task:
    """One snippet to run on one device."""

    task_id: int
    recipe_id: str
    snippet: str
    device: str
    timeout: float
    threads: int | None = None
    probe: bool = False
    requires: tuple[str, ...] = ()
    # Run in the preloaded server when there is one (see ProcessPool.preload).
    preloaded: bool = False

    def request(self) -> dict[str, Any]:
        """The JSON request understood by `_child.execute`."""
        return {
            "op": "run",
            "task": self.task_id,
            "snippet": self.snippet,
            "device": self.device,
            "threads": self.threads,
            "timeout": self.timeout,
            "probe": self.probe,
            "requires": list(self.requires),
        }


@dataclass
class Outcome:
    """What happened to a task's process: its result document, output and exit."""

    task: Task
    result: dict[str, Any] | None = None
    output: str = ""
    output_truncated: bool = False
    returncode: int | None = None
    signal: int | None = None
    timed_out: bool = False
    cancelled: bool = False
    result_problem: str = ""
    lost: str = ""  # why the fork server vanished mid-task, if it did
    duration: float = 0.0


class RunnerUnavailable(RuntimeError):
    """The snippet interpreter cannot start or cannot import torch."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind  # "python_missing" or "torch_missing"


EventHandler = Callable[[str, Task, Any], None]


@dataclass
class _Running:
    task: Task
    started: float
    out_fd: int
    result_fd: int
    output: bytearray = field(default_factory=bytearray)
    truncated: bool = False
    result: bytearray = field(default_factory=bytearray)
    out_open: bool = True
    result_open: bool = True
    exit: dict[str, Any] | None = None
    process: subprocess.Popen[bytes] | None = None
    deadline: float | None = None
    timed_out: bool = False
    cancelled: bool = False
    pid: int | None = None
    exited_at: float | None = None
    server: str = "main"  # which fork server forked it: "main" or "preloaded"

    def done(self) -> bool:
        return self.exit is not None and not self.out_open and not self.result_open


def default_start_method() -> str:
    """`fork` (a torch-preloaded fork server) on Linux, `spawn` elsewhere."""
    chosen = os.environ.get("PITFALLS_START_METHOD", "").strip().lower()
    if chosen in ("fork", "spawn"):
        return chosen
    return "fork" if sys.platform.startswith("linux") else "spawn"


def child_environment() -> dict[str, str]:
    """The environment for snippet processes."""
    env = dict(os.environ)
    # Asking NVML instead of initialising the CUDA driver keeps the fork server fork-safe.
    env.setdefault("PYTORCH_NVML_BASED_CUDA_CHECK", "1")
    env.setdefault("PYTHONUNBUFFERED", "1")
    env.setdefault("PYTHONIOENCODING", "utf-8")
    return env


class ProcessPool:
    """Runs tasks in isolated child processes, at most `jobs` at a time."""

    def __init__(
        self,
        python: str | None = None,
        start_method: str | None = None,
        on_event: EventHandler | None = None,
    ) -> None:
        self.python = python or sys.executable
        self.start_method = start_method or default_start_method()
        self.on_event = on_event or (lambda kind, task, data: None)
        self.torch_version: str | None = None
        self._server: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self._server_stderr = b""
        self._running: dict[int, _Running] = {}
        self._cancel_requests: set[int] = set()
        self._lock = threading.Lock()
        self._closed = False
        self._launch_error = ""
        # The preloaded server: forked from the main one, it imports modules that several
        # snippets need while the main one goes on running the others.
        self._preloaded: socket.socket | None = None
        self._preloaded_state = "none"  # "none", "starting", "ready" or "gone"
        self._preloaded_since = 0.0

    # -- lifecycle -------------------------------------------------------------------------

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

    def close(self, wait: bool = True) -> None:
        """End every running task's process group and the server; safe to call twice.

        With `wait=False` the server is told to exit but not waited for, so that the caller
        can print meanwhile; a later `close()` waits for it.
        """
        with self._lock:
            first, self._closed = not self._closed, True
        if first:
            self._shut_down()
        if wait:
            self._reap_server()

    def _shut_down(self) -> None:
        for running in list(self._running.values()):
            _kill_group(running)
            if running.out_open:
                _close_quietly(running.out_fd)
            if running.result_open:
                _close_quietly(running.result_fd)
            running.out_open = running.result_open = False
        for control in (self._preloaded, self._control):
            if control is not None:
                try:
                    control.close()  # the server sees EOF, kills its children and exits
                except OSError:
                    pass
        if self._server is not None and self.torch_version is None:
            # Still importing torch: nothing to finish cleanly, do not make quit wait.
            _kill_server(self._server)

    def _reap_server(self) -> None:
        if self._server is not None:
            try:
                self._server.wait(timeout=2)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(self._server.pid, signal.SIGKILL)
                except OSError:
                    pass
                self._server.wait()
            if self._server.stderr:
                self._server.stderr.close()
        # The server killed the groups it knew; this catches a child started a moment ago.
        for running in list(self._running.values()):
            _kill_group(running)
        self._running.clear()

    def __enter__(self) -> ProcessPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def cancel(self, task_id: int | None = None) -> None:
        """Ask for a task (or, with None, every task) to be ended; thread-safe."""
        with self._lock:
            self._cancel_requests.add(-1 if task_id is None else task_id)

    # -- running -------------------------------------------------------------------------

    def run(self, tasks: list[Task], jobs: int = 1) -> list[Outcome]:
        """Run `tasks`, at most `jobs` at once; returns outcomes in the order of `tasks`."""
        if os.name == "nt":
            # The event loop selects on pipes, which Windows cannot do, and Windows has no
            # process groups to end a snippet's children with: say so rather than half-work.
            raise RunnerUnavailable(
                "python_missing",
                "running snippets is not supported on native Windows yet; use WSL, or read "
                "the recipes with `pitfalls show`",
            )
        self.start()
        pending = list(tasks)
        outcomes: dict[int, Outcome] = {}
        selector = selectors.DefaultSelector()
        if self._control is not None:
            selector.register(self._control, selectors.EVENT_READ, ("control", "main"))
        if self._preloaded is not None:
            selector.register(self._preloaded, selectors.EVENT_READ, ("control", "preloaded"))
        try:
            while pending or self._running:
                if self._cancelled_all():
                    for task in pending:
                        outcomes[task.task_id] = Outcome(task, cancelled=True)
                    pending.clear()
                self._check_preloaded_start(selector)
                while pending and len(self._running) < max(1, jobs):
                    task = self._next_task(pending)
                    if task is None:  # the rest wait for the preloaded server
                        break
                    self._launch(task, selector)
                self._apply_cancels()
                self._check_spawned_deadlines()
                for key, _ in selector.select(timeout=0.05):
                    kind, task_id = key.data
                    if kind == "control":
                        self._on_control(selector, task_id)
                    else:
                        self._on_pipe(kind, task_id, selector)
                for task_id, running in list(self._running.items()):
                    if running.process is not None and running.exit is None:
                        code = running.process.poll()
                        if code is not None:
                            # Whatever the snippet left behind in its group holds our pipes.
                            _kill_group(running)
                            running.exit = {
                                "returncode": code if code >= 0 else None,
                                "signal": -code if code < 0 else None,
                            }
                    self._stop_waiting_for_escapees(running, selector)
                    if running.done():
                        del self._running[task_id]
                        outcome = self._finish(running)
                        outcomes[task_id] = outcome
                        self.on_event("finished", running.task, outcome)
        finally:
            selector.close()
            with self._lock:
                # A cancel is for this batch: a stale one must not end the next run.
                self._cancel_requests.clear()
        return [outcomes[t.task_id] for t in tasks]

    # -- internals -----------------------------------------------------------------------

    def _cancelled_all(self) -> bool:
        with self._lock:
            return -1 in self._cancel_requests

    def _apply_cancels(self) -> None:
        with self._lock:
            requests = set(self._cancel_requests)
            self._cancel_requests -= {r for r in requests if r != -1}
        for task_id, running in self._running.items():
            if (task_id in requests or -1 in requests) and not running.cancelled:
                running.cancelled = True
                self._kill(running)

    def _next_task(self, pending: list[Task]) -> Task | None:
        """The first pending task that can start now: one for the preloaded server waits
        while that server is still importing (the main one has the others to run)."""
        for index, task in enumerate(pending):
            if not (task.preloaded and self._preloaded_state == "starting"):
                return pending.pop(index)
        return None

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

    def _launch(self, task: Task, selector: selectors.BaseSelector) -> None:
        out_r, out_w = os.pipe()
        res_r, res_w = os.pipe()
        running = _Running(task, time.monotonic(), out_r, res_r)
        try:
            if self._control is not None:
                if task.preloaded and self._preloaded_state == "ready":
                    try:
                        self._send(task.request(), fds=[out_w, res_w], server="preloaded")
                        running.server = "preloaded"
                    except RunnerUnavailable:
                        self._drop_preloaded(selector)
                if running.server == "main":
                    self._send(task.request(), fds=[out_w, res_w])
            else:
                running.process = self._spawn(task, out_w, res_w)
                if task.timeout > 0:
                    running.deadline = running.started + task.timeout
        finally:
            os.close(out_w)
            os.close(res_w)
        os.set_blocking(out_r, False)
        os.set_blocking(res_r, False)
        selector.register(out_r, selectors.EVENT_READ, ("output", task.task_id))
        selector.register(res_r, selectors.EVENT_READ, ("result", task.task_id))
        self._running[task.task_id] = running
        self.on_event("started", task, None)

    def _spawn(self, task: Task, out_w: int, res_w: int) -> subprocess.Popen[bytes]:
        request = json.dumps(task.request())
        kwargs: dict[str, Any] = {}
        if os.name == "nt":  # pragma: no cover - no process groups to kill on Windows
            # lazy: Windows only
            import msvcrt

            handle = msvcrt.get_osfhandle(res_w)
            os.set_handle_inheritable(handle, True)
            result_arg = str(handle)
            kwargs["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP
            kwargs["close_fds"] = False
        else:
            result_arg = str(res_w)
            kwargs["pass_fds"] = [res_w]
            kwargs["start_new_session"] = True
        try:
            return subprocess.Popen(
                [self.python, str(CHILD_SCRIPT), "run", request, result_arg],
                stdin=subprocess.DEVNULL,
                stdout=out_w,
                stderr=out_w,
                env=child_environment(),
                **kwargs,
            )
        except OSError as err:
            raise RunnerUnavailable(
                "python_missing", f"cannot start {self.python}: {err.strerror}"
            ) from None

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

    def _on_control(self, selector: selectors.BaseSelector, server: str = "main") -> None:
        message = self._receive_control(block=False, server=server)
        if message is None:
            # The server died under us: fail its running tasks rather than wait forever.
            if server == "preloaded":
                detail = "the preloaded runner process stopped"
                self._drop_preloaded(selector)
            else:
                selector.unregister(self._control)
                detail = self._drain_server_stderr() or "no message"
                self._control = None
            for running in self._running.values():
                if running.server != server:
                    continue
                _kill_group(running)  # nobody else will end them now
                if running.exit is None:
                    running.exit = {"returncode": None, "signal": None, "lost": detail}
            return
        event = message.get("event")
        if server == "preloaded" and event == "ready":
            self._preloaded_state = "ready"
            return
        running = self._running.get(message.get("task", -1))
        if running is None:
            return
        if event == "started":
            running.exit = None
            running.pid = message["pid"]
            # The run's own time starts when it is forked, not when it was asked for.
            running.started = time.monotonic()
        elif event == "exited":
            running.exit = message
            running.timed_out = bool(message.get("timed_out"))
            running.cancelled = running.cancelled or bool(message.get("cancelled"))

    def _on_pipe(self, kind: str, task_id: int, selector: selectors.BaseSelector) -> None:
        running = self._running[task_id]
        fd = running.out_fd if kind == "output" else running.result_fd
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            selector.unregister(fd)
            os.close(fd)
            if kind == "output":
                running.out_open = False
            else:
                running.result_open = False
            return
        if kind == "output":
            running.output += chunk
            if len(running.output) > OUTPUT_LIMIT:
                del running.output[: len(running.output) - OUTPUT_LIMIT]
                running.truncated = True
            self.on_event("output", running.task, chunk.decode("utf-8", "replace"))
        else:
            running.result += chunk
            if len(running.result) > RESULT_LIMIT:
                # Stop reading: a child writing an endless result is killed, not buffered.
                running.result_open = False
                selector.unregister(fd)
                os.close(fd)
                running.result = bytearray(b"\0too-large")
                self._kill(running)

    def _stop_waiting_for_escapees(
        self, running: _Running, selector: selectors.BaseSelector
    ) -> None:
        """Once the snippet has exited, give its pipes a short grace, then stop reading.

        A process that escaped every kill (where there is no subreaper to catch it) could
        otherwise hold the output pipe open forever.
        """
        if running.exit is None:
            running.exited_at = None
            return
        if running.exited_at is None:
            running.exited_at = time.monotonic()
        if time.monotonic() - running.exited_at < PIPE_GRACE:
            return
        for kind in ("output", "result"):
            is_open = running.out_open if kind == "output" else running.result_open
            if is_open:
                fd = running.out_fd if kind == "output" else running.result_fd
                selector.unregister(fd)
                os.close(fd)
        running.out_open = running.result_open = False

    def _kill(self, running: _Running) -> None:
        """End a task: through the server that forked it (which knows its process group even
        before we do), or directly when there is no server."""
        control = self._preloaded if running.server == "preloaded" else self._control
        if running.process is None and control is not None:
            try:
                self._send({"op": "cancel", "task": running.task.task_id}, server=running.server)
                return
            except RunnerUnavailable:
                pass
        _kill_group(running)

    def _check_spawned_deadlines(self) -> None:
        now = time.monotonic()
        for running in self._running.values():
            if running.deadline and now > running.deadline and not running.timed_out:
                running.timed_out = True
                _kill_group(running)

    def _finish(self, running: _Running) -> Outcome:
        exit_info = running.exit or {}
        outcome = Outcome(
            task=running.task,
            output=running.output.decode("utf-8", "replace"),
            output_truncated=running.truncated,
            returncode=exit_info.get("returncode"),
            signal=exit_info.get("signal"),
            timed_out=running.timed_out,
            cancelled=running.cancelled and not running.timed_out,
            duration=time.monotonic() - running.started,
        )
        if exit_info.get("lost"):
            outcome.lost = f"the runner process died: {exit_info['lost']}"
        if running.result.startswith(b"\0too-large"):
            outcome.result_problem = "the snippet's result is larger than 1 MiB"
        elif running.result:
            try:
                outcome.result = json.loads(running.result)
            except ValueError:
                outcome.result_problem = "the snippet's result is not valid JSON"
        return outcome

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


def _kill_group(running: _Running) -> None:
    pid = running.pid or (running.process.pid if running.process else None)
    if pid is None:
        return
    try:
        if os.name == "nt":  # pragma: no cover
            if running.process is not None:
                running.process.kill()
        else:
            os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass


def _kill_server(server: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(server.pid, signal.SIGKILL)
    except OSError:
        pass


def _close_quietly(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass
