"""The fork server: import torch once, then fork one fresh child per request, so that running
many recipes pays torch's import once while each still runs isolated in its own process and
session (Linux). It reports each child's start and exit to the parent, ends what is
cancelled, and can fork a second, preloaded server for snippets that share heavy imports.

Part of the runner's child (see __main__.py beside this file): standard library only.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import traceback
from typing import Any

# The execute half (execute.py beside this file), given by __main__: this folder is run as a
# script, not imported as a package, so that nothing of pitfalls lands on the snippet's path.
execution: Any = None


def _run_forked(request: dict, out_fd: int, result_fd: int, control_fd: int) -> None:
    """Body of a forked child: never returns."""
    code = 70
    try:
        os.setsid()
        os.close(control_fd)
        os.dup2(out_fd, 1)
        os.dup2(out_fd, 2)
        os.close(out_fd)
        execution._prepare_child_process()
        sys.stdout.reconfigure(line_buffering=True)
        sys.stderr.reconfigure(line_buffering=True)
        result = execution.execute(request)
        execution._write_all(result_fd, execution._encode(result))
        os.close(result_fd)
        code = execution.EXIT_RESULT_WRITTEN
    except BaseException:  # noqa: BLE001 - a forked child must never return into the server
        try:
            traceback.print_exc()
        except Exception:
            pass
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:
            pass
        os._exit(code)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def serve(control_fd: int) -> None:
    """The fork server: import torch once, then fork a child per request and report exits."""
    # lazy: only this path of the snippet process needs it
    import socket

    sock = socket.socket(fileno=control_fd)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what Ctrl-C means
    try:
        # lazy: torch only in the snippet process, once, after the environment is set up
        import torch
    except Exception as err:
        error = execution._first_line(err) or type(err).__name__
        _send(sock, {"event": "ready", "torch": None, "error": error})
        return
    _settle()
    _send(sock, {"event": "ready", "torch": torch.__version__, "python": sys.version.split()[0]})
    _serve_loop(sock)
    _exit_now()


def _send(sock, message: dict) -> None:
    try:
        sock.send(json.dumps(message).encode("utf-8"))
    except OSError:
        pass


def _settle() -> None:
    """Make this server cheap to fork from, once its imports are done."""
    # lazy: only this path of the snippet process needs it
    import gc
    import platform

    if sys.platform.startswith("linux"):
        _become_subreaper()
    try:
        platform.processor()  # cached by `platform` for the children (`uname -p` on Linux)
        # lazy: torch only in the snippet process, once, after the environment is set up
        import torch

        execution.remember_environment(torch)
    except Exception:  # noqa: BLE001 - each child then finds out on its own
        pass
    # A child's garbage collection would otherwise walk (and so copy, page by page) every
    # object the imports created: frozen, they stay shared with the server.
    if hasattr(gc, "freeze"):
        gc.freeze()


def _exit_now() -> None:
    """Leave without finalising torch: every child is ended and reaped, and an interpreter
    shutdown that tears torch down would only keep the command waiting."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        pass
    os._exit(0)


def _wakeup_pipe() -> tuple[int, int]:
    """A pipe that receives a byte on SIGCHLD, so that the loop notices an exit at once."""
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    os.set_blocking(write_fd, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # a Python handler, for set_wakeup_fd
    signal.set_wakeup_fd(write_fd)
    return read_fd, write_fd


def _close_wakeup_pipe(pipe: tuple[int, int]) -> None:
    """In a forked child: stop writing the server's wakeup pipe and close it."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for fd in pipe:
        try:
            os.close(fd)
        except OSError:
            pass


def _run_preloaded(message: dict, control_fd: int, parent_sock, pipe: tuple[int, int]) -> None:
    """Body of a preloaded server, forked from the fork server: never returns.

    It imports the modules several snippets need (torch._dynamo, pulled in by the first
    optimizer step, checkpointing, DDP and torch.compile) while the first server goes on
    forking the snippets that need none of them, then serves the ones that do, each forked
    with those modules already imported. It stays in the first server's process group.
    """
    # lazy: only this path of the snippet process needs it
    import socket

    try:
        parent_sock.close()
        _close_wakeup_pipe(pipe)
        sock = socket.socket(fileno=control_fd)
        for name in message.get("modules", []):
            try:
                __import__(name)
            except Exception:  # noqa: BLE001 - a snippet will report it itself
                pass
        _settle()
        _send(sock, {"event": "ready", "preloaded": list(message.get("modules", []))})
        _serve_loop(sock)
    except BaseException:  # noqa: BLE001 - a forked server must never return into its parent
        try:
            traceback.print_exc()
        except Exception:
            pass
    _exit_now()


def _serve_loop(sock) -> None:
    """Fork a child per request received on `sock`, report exits, end what times out; return
    once the parent has closed the socket and every child is gone."""
    # lazy: only this path of the snippet process needs it
    import select
    import socket

    pipe = _wakeup_pipe()
    running: dict[int, dict] = {}  # pid -> {"task", "deadline", "timed_out"}
    servers: set[int] = set()  # preloaded servers forked from this one
    closing = False
    while not closing or running:
        watched = [pipe[0]] if closing else [sock, pipe[0]]
        readable, _, _ = select.select(watched, [], [], 0.02)
        if pipe[0] in readable:
            try:
                while os.read(pipe[0], 512):
                    pass
            except OSError:
                pass
        if sock in readable:
            try:
                data, fds, _flags, _addr = socket.recv_fds(sock, 1 << 16, 2)
            except OSError:
                data, fds = b"", []
            if not data:
                closing = True
                for pid in running:
                    _kill_group(pid)
            else:
                message = json.loads(data)
                if message.get("op") == "run" and len(fds) == 2:
                    out_fd, result_fd = fds
                    pid = os.fork()
                    if pid == 0:
                        _close_wakeup_pipe(pipe)
                        _run_forked(message, out_fd, result_fd, sock.fileno())
                    os.close(out_fd)
                    os.close(result_fd)
                    timeout = float(message.get("timeout") or 0)
                    deadline = time.monotonic() + timeout if timeout > 0 else None
                    running[pid] = {"task": message["task"], "deadline": deadline}
                    _send(sock, {"event": "started", "task": message["task"], "pid": pid})
                elif message.get("op") == "preload" and len(fds) == 1:
                    pid = os.fork()
                    if pid == 0:
                        _run_preloaded(message, fds[0], sock, pipe)
                    os.close(fds[0])
                    servers.add(pid)
                elif message.get("op") == "cancel":
                    for pid, info in running.items():
                        if info["task"] == message.get("task"):
                            info["cancelled"] = True
                            _kill_group(pid)
                else:
                    for fd in fds:
                        os.close(fd)
        now = time.monotonic()
        for pid, info in running.items():
            if info.get("deadline") and now > info["deadline"] and not info.get("timed_out"):
                info["timed_out"] = True
                _kill_group(pid)
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            if pid in servers:  # a preloaded server that ended: its socket was closed
                servers.discard(pid)
                continue
            info = running.pop(pid, None)
            if info is None:
                # An orphan adopted as subreaper: its own children come to us next.
                _kill_adopted_orphans(running, servers)
                continue
            _kill_group(pid)  # whatever the snippet left behind in its group
            _kill_adopted_orphans(running, servers)  # and what escaped the group with setsid()
            _send(
                sock,
                {
                    "event": "exited",
                    "task": info["task"],
                    "returncode": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
                    "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
                    "timed_out": bool(info.get("timed_out")),
                    "cancelled": bool(info.get("cancelled")),
                },
            )


def _kill_adopted_orphans(running: dict, servers: set) -> None:
    """SIGKILL every child of this server that is not a snippet or a server it started.

    As a subreaper, the server inherits whatever a snippet left running after it exited, even
    a process that moved to its own session (which a group kill cannot reach).
    """
    if not sys.platform.startswith("linux"):
        return
    me = os.getpid()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return
    for entry in entries:
        if not entry.isdigit() or int(entry) in running or int(entry) in servers:
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 1 and int(fields[1]) == me and fields[0] != b"Z":
            try:
                os.kill(int(entry), signal.SIGKILL)
            except OSError:
                pass


def _become_subreaper() -> None:
    """Adopt orphans of the children, so that a snippet's escaped grandchildren are reaped."""
    try:
        # lazy: a platform-only module
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_child_subreaper = 36
        libc.prctl(pr_set_child_subreaper, 1, 0, 0, 0)
    except Exception:
        pass
