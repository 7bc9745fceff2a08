"""Starting, watching and ending snippet processes: the parent side of `child/`.

One `ProcessPool` runs tasks with a concurrency limit and reports what happened to each as an
`Outcome`. On Linux it talks to a fork server that imported torch once (fork mode); elsewhere,
or when `PITFALLS_START_METHOD=spawn`, it starts a fresh interpreter per task (spawn mode).
Either way every snippet runs in its own process group, a timeout or a cancel ends that whole
group, and closing the pool (also on Ctrl-C) leaves no process behind.

Just over 400 lines as one cohesive thing: the pool's event loop and the handlers it calls
(the fork server's connection, the tasks and the group kills are modules of their own).
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
from typing import Any

from pitfalls.runner.fork_server import (
    CHILD_SCRIPT,
    OUTPUT_LIMIT,
    START_TIMEOUT,
    ForkServerConnection,
)
from pitfalls.runner.groups import (
    Running,
    child_environment,
    close_quietly,
    default_start_method,
    kill_group,
    kill_server,
)
from pitfalls.runner.tasks import EventHandler, Outcome, RunnerUnavailable, Task

__all__ = [
    "START_TIMEOUT",
    "EventHandler",
    "Outcome",
    "ProcessPool",
    "RunnerUnavailable",
    "Task",
    "child_environment",
    "default_start_method",
]

RESULT_LIMIT = 1 << 20
STARTED_MARK = b"\x02"  # child/execute.py's: in spawn mode, the run has started
PIPE_GRACE = 3.0  # seconds to drain a snippet's pipes after it exited


class ProcessPool(ForkServerConnection):
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
        self._running: dict[int, Running] = {}
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
            kill_group(running)
            if running.out_open:
                close_quietly(running.out_fd)
            if running.result_open:
                close_quietly(running.result_fd)
            running.out_open = running.result_open = False
        for control in (self._preloaded, self._control):
            if control is not None:
                try:
                    control.close()  # the server sees EOF, kills its children and exits
                except OSError:
                    pass
        if self._server is not None and self.torch_version is None:
            # Still importing torch: nothing to finish cleanly, do not make quit wait.
            kill_server(self._server)

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
            kill_group(running)
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
                            kill_group(running)
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

    def _launch(self, task: Task, selector: selectors.BaseSelector) -> None:
        out_r, out_w = os.pipe()
        res_r, res_w = os.pipe()
        running = Running(task, time.monotonic(), out_r, res_r)
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
                # A fresh interpreter imports torch first: that start is bounded as the fork
                # server's is; the run's own timeout starts once the child says it has started.
                if task.timeout > 0:
                    running.deadline = running.started + START_TIMEOUT
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
                kill_group(running)  # nobody else will end them now
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
            if running.process is not None and not running.result and not running.run_started:
                if chunk.startswith(STARTED_MARK):
                    chunk = chunk[len(STARTED_MARK) :]
                    running.run_started = True
                    # As at the fork in fork mode: the run's own time starts now.
                    running.started = time.monotonic()
                    if running.task.timeout > 0:
                        running.deadline = running.started + running.task.timeout
            running.result += chunk
            if len(running.result) > RESULT_LIMIT:
                # Stop reading: a child writing an endless result is killed, not buffered.
                running.result_open = False
                selector.unregister(fd)
                os.close(fd)
                running.result = bytearray(b"\0too-large")
                self._kill(running)

    def _stop_waiting_for_escapees(
        self, running: Running, selector: selectors.BaseSelector
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

    def _kill(self, running: Running) -> None:
        """End a task: through the server that forked it (which knows its process group even
        before we do), or directly when there is no server."""
        control = self._preloaded if running.server == "preloaded" else self._control
        if running.process is None and control is not None:
            try:
                self._send({"op": "cancel", "task": running.task.task_id}, server=running.server)
                return
            except RunnerUnavailable:
                pass
        kill_group(running)

    def _check_spawned_deadlines(self) -> None:
        now = time.monotonic()
        for running in self._running.values():
            if running.deadline and now > running.deadline and not running.timed_out:
                if running.run_started:
                    running.timed_out = True
                else:
                    running.deadline = None  # killed once; says so as a start that failed
                    running.start_failed = (
                        f"{self.python} did not start the run within {START_TIMEOUT:g} s"
                    )
                kill_group(running)

    def _finish(self, running: Running) -> Outcome:
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
        if running.start_failed:
            outcome.lost = running.start_failed
        if running.result.startswith(b"\0too-large"):
            outcome.result_problem = "the snippet's result is larger than 1 MiB"
        elif running.result:
            try:
                outcome.result = json.loads(running.result)
            except ValueError:
                outcome.result_problem = "the snippet's result is not valid JSON"
        return outcome
