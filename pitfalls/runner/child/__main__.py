"""The child side of the runner: the only code that imports torch.

This folder runs as a script (`python .../runner/child serve FD`) in the interpreter chosen
for snippets (the current one, or the one named by `--python`), which may not have pitfalls
installed, so it uses the standard library alone. It has two modes:

- `serve FD`: a fork server. It imports torch once, then forks one fresh child per request
  received on the Unix socket FD, so that running many recipes pays torch's import once while
  each recipe still runs isolated in its own process and session (Linux).
- `run REQUEST_JSON RESULT_FD`: run one recipe in this very process (spawn mode: macOS, where
  fork breaks MPS, and Windows).

A request is JSON: {"task": int, "snippet": path, "device": str, "threads": int | null,
"timeout": float, "probe": bool}. The result, written as one JSON document to the result
pipe, holds the environment, the resolved device, the problem's and the fix's observations,
and an `error` object when something went wrong.

The work is in two files beside this one, loaded here under private names: execute.py (run
one snippet, encode its observations) and server.py (the fork server).
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _load(name: str):
    """Load `name`.py from this folder under a private module name (this folder is not on
    sys.path: its modules must not shadow what torch or the snippet import)."""
    # lazy: only a child process loads its halves, once
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        f"_pitfalls_child_{name}", os.path.join(HERE, f"{name}.py")
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _result_fd_from_arg(arg: str) -> int:
    if os.name == "nt":  # pragma: no cover - Windows passes a handle, not a descriptor
        # lazy: a platform-only module
        import msvcrt

        return msvcrt.open_osfhandle(int(arg), 0)
    return int(arg)


if __name__ == "__main__":
    if sys.path and os.path.abspath(sys.path[0]) == HERE:
        sys.path.pop(0)
    execute = _load("execute")
    if sys.argv[1:2] == ["serve"]:
        server = _load("server")
        server.execution = execute
        server.serve(int(sys.argv[2]))
    elif sys.argv[1:2] == ["run"]:
        execute.run_here(sys.argv[2], _result_fd_from_arg(sys.argv[3]))
    else:
        sys.stderr.write("usage: python runner/child serve FD | run REQUEST_JSON RESULT_FD\n")
        sys.exit(2)
