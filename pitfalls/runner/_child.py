"""The child side of the runner: the only code that imports torch.

This file runs as a script in the interpreter chosen for snippets (the current one, or the
one named by `--python`), which may not have pitfalls installed, so it uses the standard
library alone. It has two modes:

- `serve FD`: a fork server. It imports torch once, then forks one fresh child per request
  received on the Unix socket FD, so that running many recipes pays torch's import once while
  each recipe still runs isolated in its own process and session (Linux).
- `run REQUEST_JSON RESULT_FD`: run one recipe in this very process (spawn mode: macOS, where
  fork breaks MPS, and Windows).

A request is JSON: {"task": int, "snippet": path, "device": str, "threads": int | null,
"timeout": float, "probe": bool}. The result, written as one JSON document to the result
pipe, holds the environment, the resolved device, the problem's and the fix's observations,
and an `error` object when something went wrong.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import traceback

MAX_RESULT_BYTES = 1 << 20
MAX_WARNINGS = 50
MAX_WARNING_CHARS = 2000
EXIT_RESULT_WRITTEN = 0


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return text[0] if text else ""


def _describe(err: BaseException) -> str:
    """`Type: message`, even for an exception whose str() itself raises."""
    try:
        text = str(err)
    except Exception:
        text = "<str() of the exception failed>"
    return f"{type(err).__name__}: {text}"


def _error(kind: str, stage: str, message: str, err: BaseException | None = None) -> dict:
    data = {"kind": kind, "stage": stage, "message": message}
    if err is not None:
        data["type"] = type(err).__name__
        # Drop the runner's own frames: the reader needs the snippet's part of the story.
        tb = err.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
            tb = tb.tb_next
        data["traceback"] = "".join(traceback.format_exception(type(err), err, tb))
    return data


# The environment as the fork server found it: the same in every child it forks, and
# costly to find out (package metadata, platform calls) in each one again.
_SERVER_ENVIRONMENT: dict | None = None


def _environment(torch) -> dict:
    if _SERVER_ENVIRONMENT is not None:
        return dict(_SERVER_ENVIRONMENT)
    # lazy: only this path of the snippet process needs it
    import platform
    from importlib import metadata

    env = {
        "python": platform.python_version(),
        "python_executable": sys.executable,
        "platform": platform.platform(terse=True),
        "torch": getattr(torch, "__version__", None),
        "cuda": getattr(torch.version, "cuda", None),
        "numpy": None,
        "device_name": None,
    }
    try:
        env["numpy"] = metadata.version("numpy")
    except Exception:
        pass
    return env


def _available_devices(torch, named: bool) -> list[str]:
    """The devices torch can use here. CUDA devices get their names only when `named`:
    asking for a name initialises CUDA, which a CPU run must not do (a snippet that forks
    DataLoader workers would inherit an initialised context, and the run would not be the
    one the user asked for)."""
    devices = ["cpu"]
    try:
        if torch.cuda.is_available():
            for index in range(torch.cuda.device_count()):
                name = f" ({torch.cuda.get_device_name(index)})" if named else ""
                devices.append(f"cuda:{index}{name}")
    except Exception:
        pass
    try:
        if torch.backends.mps.is_available():
            devices.append("mps")
    except Exception:
        pass
    return devices


def _resolve_device(torch, wanted: str) -> tuple[str | None, str]:
    """Map `auto`/`cuda`/`cuda:N`/`mps`/`cpu` to a usable device, or (None, reason)."""
    cuda_ok = False
    try:
        cuda_ok = bool(torch.cuda.is_available())
    except Exception:
        cuda_ok = False
    mps_ok = False
    try:
        mps_ok = bool(torch.backends.mps.is_available())
    except Exception:
        mps_ok = False
    if wanted == "auto":
        return ("cuda" if cuda_ok else "mps" if mps_ok else "cpu"), ""
    if wanted == "cpu":
        return "cpu", ""
    if wanted == "mps":
        return ("mps", "") if mps_ok else (None, "MPS is not available")
    if wanted.startswith("cuda"):
        if not cuda_ok:
            return None, "CUDA is not available"
        index = int(wanted.split(":", 1)[1]) if ":" in wanted else 0
        count = torch.cuda.device_count()
        if index >= count:
            return None, f"there is no CUDA device {index} ({count} found)"
        return wanted, ""
    return None, f"unknown device {wanted!r}"


def _check_json(name: str, observations: object) -> str | None:
    """Why `observations` cannot travel as JSON, or None when they can."""
    if not isinstance(observations, dict):
        return f"{name}() returned {type(observations).__name__}, not a dict of observations"
    for key, value in observations.items():
        if not isinstance(key, str):
            return f"{name}() returned a non-string observation name {key!r}"
        try:
            json.dumps(value)
        except RecursionError:
            return f"{name}() observation {key!r} is nested too deeply to report"
        except (TypeError, ValueError):
            kind = type(value).__name__
            return (
                f"{name}() observation {key!r} is a {kind}, not a plain value; "
                "return numbers, bools, strings or lists (use .item() or .tolist())"
            )
    return None


def execute(request: dict) -> dict:
    """Run one request in this process and return the result document."""
    started = time.monotonic()
    result: dict = {"task": request.get("task"), "device": None, "problem": None, "fix": None}
    result["error"] = None
    try:
        # lazy: torch only in the snippet process, once, after the environment is set up
        import torch
    except Exception as err:  # ImportError, or a broken install raising anything
        result["environment"] = {"python": sys.version.split()[0], "torch": None}
        result["error"] = _error(
            "torch_missing", "import", f"torch cannot be imported: {_first_line(err)}"
        )
        return result
    result["environment"] = _environment(torch)
    threads = request.get("threads")
    if threads:
        torch.set_num_threads(int(threads))
    device, reason = _resolve_device(torch, request.get("device", "cpu"))
    wanted = str(request.get("device", "cpu"))
    result["available_devices"] = _available_devices(
        torch, named=request.get("probe", False) or wanted.startswith("cuda") or wanted == "auto"
    )
    if device is None:
        result["error"] = _error("device_unavailable", "device", reason)
        return result
    result["device"] = device
    if device.startswith("cuda"):
        index = int(device.split(":", 1)[1]) if ":" in device else 0
        result["environment"]["device_name"] = torch.cuda.get_device_name(index)
    elif device == "mps":
        result["environment"]["device_name"] = "Apple MPS"
    else:
        # lazy: only this path of the snippet process needs it
        import platform

        result["environment"]["device_name"] = platform.processor() or platform.machine()
    if request.get("probe"):
        return result
    missing = [name for name in request.get("requires", []) if not _importable(name)]
    if missing:
        names = ", ".join(missing)
        message = (
            f"this recipe needs {names}, which {sys.executable} cannot import "
            f"(pip install {' '.join(missing)})"
        )
        result["error"] = _error("requirement_missing", "import", message)
        return result
    snippet = request["snippet"]
    # BaseException: sys.exit() or a KeyboardInterrupt raised by the snippet is its error to
    # report, not a crash of the runner (a real Ctrl-C kills this process by signal).
    try:
        module = _import_snippet(snippet)
    except BaseException as err:
        result["error"] = _error("exception", "import", _describe(err), err)
        return result
    missing = [name for name in ("problem", "fix") if not callable(getattr(module, name, None))]
    if missing:
        names = " and ".join(f"{m}(device)" for m in missing)
        result["error"] = _error("missing_function", "import", f"snippet.py defines no {names}")
        return result
    timings = {}
    for side in ("problem", "fix"):
        side_started = time.monotonic()
        try:
            print(f"--- {side}({device!r}) ---", flush=True)
        except (OSError, ValueError):  # the snippet closed or broke its own stdout
            pass
        recorded: list = []
        try:
            observations = _call_recording_warnings(getattr(module, side), device, recorded)
        except BaseException as err:
            result["error"] = _error("exception", side, _describe(err), err)
            return result
        finally:
            timings[side] = round(time.monotonic() - side_started, 4)
            result["timings"] = timings
            result.setdefault("warnings", {})[side] = [
                text[:MAX_WARNING_CHARS] for text in recorded[:MAX_WARNINGS]
            ]
        problem_text = _check_json(side, observations)
        if problem_text:
            result["error"] = _error("bad_observations", side, problem_text)
            return result
        result[side] = observations
    result["timings"]["total"] = round(time.monotonic() - started, 4)
    return result


def _call_recording_warnings(function, device: str, recorded: list):
    """Call one side, recording every warning it raises as "Category: message".

    `always` so that a warning torch raised once already in this process is still seen; each
    warning is shown again afterwards on stderr, as it would be without the runner.
    """
    # lazy: only this path of the snippet process needs it
    import warnings

    caught: list = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            return function(device)
    finally:
        for item in caught:
            recorded.append(f"{item.category.__name__}: {item.message}")
            try:
                warnings.showwarning(item.message, item.category, item.filename, item.lineno)
            except Exception:
                pass


def _importable(name: str) -> bool:
    # lazy: only this path of the snippet process needs it
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _import_snippet(path: str):
    """Import snippet.py as the module `snippet`, its folder first on sys.path.

    A real module name (not `__main__`) keeps the standalone block from running, and lets
    spawn-started DataLoader workers import the snippet's classes again by name.
    """
    # lazy: only this path of the snippet process needs it
    import importlib.util

    folder = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location("snippet", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["snippet"] = module
    spec.loader.exec_module(module)
    return module


def _encode(result: dict) -> bytes:
    try:
        data = json.dumps(result, allow_nan=True).encode("utf-8")
    except (TypeError, ValueError, RecursionError) as err:
        result = {k: result.get(k) for k in ("task", "device", "environment")}
        result["error"] = _error("bad_observations", "result", f"result is not JSON: {err}")
        data = json.dumps(result).encode("utf-8")
    if len(data) > MAX_RESULT_BYTES:
        result = {k: result.get(k) for k in ("task", "device", "environment")}
        message = f"observations are too large ({len(data)} bytes; the limit is {MAX_RESULT_BYTES})"
        result["error"] = _error("bad_observations", "result", message)
        data = json.dumps(result).encode("utf-8")
    return data


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _prepare_child_process() -> None:
    """Reset what a forked child inherits from the server before running a snippet."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        # Children of a forked child inherit the server's start method; DataLoader workers
        # must be this child's own children (fork), or a kill of the group misses them.
        # lazy: only this path of the snippet process needs it
        import multiprocessing

        multiprocessing.set_start_method("fork", force=True)


def _run_forked(request: dict, out_fd: int, result_fd: int, control_fd: int) -> None:
    """Body of a forked child: never returns."""
    code = 70
    try:
        os.setsid()
        os.close(control_fd)
        os.dup2(out_fd, 1)
        os.dup2(out_fd, 2)
        os.close(out_fd)
        _prepare_child_process()
        sys.stdout.reconfigure(line_buffering=True)
        sys.stderr.reconfigure(line_buffering=True)
        result = execute(request)
        _write_all(result_fd, _encode(result))
        os.close(result_fd)
        code = EXIT_RESULT_WRITTEN
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
        error = _first_line(err) or type(err).__name__
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

    global _SERVER_ENVIRONMENT
    if sys.platform.startswith("linux"):
        _become_subreaper()
    try:
        platform.processor()  # cached by `platform` for the children (`uname -p` on Linux)
        if _SERVER_ENVIRONMENT is None:
            # lazy: torch only in the snippet process, once, after the environment is set up
            import torch

            _SERVER_ENVIRONMENT = _environment(torch)
    except Exception:  # noqa: BLE001 - each child then finds out on its own
        _SERVER_ENVIRONMENT = None
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


def run_here(request_json: str, result_fd: int) -> None:
    """Spawn mode: run one request in this process and write the result to RESULT_FD."""
    _prepare_child_process()
    try:
        sys.stdout.reconfigure(line_buffering=True)
        sys.stderr.reconfigure(line_buffering=True)
    except Exception:
        pass
    result = execute(json.loads(request_json))
    _write_all(result_fd, _encode(result))
    os.close(result_fd)


def _result_fd_from_arg(arg: str) -> int:
    if os.name == "nt":  # pragma: no cover - Windows passes a handle, not a descriptor
        # lazy: a platform-only module
        import msvcrt

        return msvcrt.open_osfhandle(int(arg), 0)
    return int(arg)


if __name__ == "__main__":
    # The runner's own folder must not shadow modules that torch or the snippet import.
    if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
        sys.path.pop(0)
    if sys.argv[1:2] == ["serve"]:
        serve(int(sys.argv[2]))
    elif sys.argv[1:2] == ["run"]:
        run_here(sys.argv[2], _result_fd_from_arg(sys.argv[3]))
    else:
        sys.stderr.write("usage: _child.py serve FD | run REQUEST_JSON RESULT_FD\n")
        sys.exit(2)
