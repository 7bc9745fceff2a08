"""The snippet process's work: run one recipe's snippet and encode what it observed.

Part of the runner's child (see __main__.py beside this file): standard library only, run in
the interpreter chosen for snippets, which may not have pitfalls installed. `execute` takes a
request and returns the result document; `run_here` is spawn mode (one request, this very
process); the fork server (server.py) calls the same functions in each child it forks.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import traceback

MAX_RESULT_BYTES = 1 << 20
# Spawn mode: written to the result pipe, before the result, once torch is imported: the run's
# own time (what --timeout counts) starts there, as it starts at the fork in fork mode, where
# the server imported torch beforehand. A result document is JSON, so it never starts so.
STARTED_MARK = b"\x02"
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


def execute(request: dict, on_start=None) -> dict:
    """Run one request in this process and return the result document.

    `on_start`, if given, is called once torch is imported and the environment known (what
    the fork server did once for all its children), before anything of the recipe.
    """
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
    if on_start is not None:
        on_start()
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


def run_here(request_json: str, result_fd: int) -> None:
    """Spawn mode: run one request in this process and write the result to RESULT_FD."""
    _prepare_child_process()
    try:
        sys.stdout.reconfigure(line_buffering=True)
        sys.stderr.reconfigure(line_buffering=True)
    except Exception:
        pass
    result = execute(json.loads(request_json), lambda: _write_all(result_fd, STARTED_MARK))
    _write_all(result_fd, _encode(result))
    os.close(result_fd)


def remember_environment(torch) -> None:
    """In the fork server, once torch is imported: find out the environment once, for every
    child it forks (the same in each, and costly to find out again)."""
    global _SERVER_ENVIRONMENT
    if _SERVER_ENVIRONMENT is not None:
        return
    try:
        _SERVER_ENVIRONMENT = _environment(torch)
    except Exception:  # noqa: BLE001 - each child then finds out on its own
        _SERVER_ENVIRONMENT = None
