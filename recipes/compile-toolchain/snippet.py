"""torch.compile's default backend (inductor) needs a C++ compiler on CPU: without one, the first
call fails; `suppress_errors` hides that failure instead of fixing it.

The snippet simulates a machine without a compiler by pointing inductor's config at one that
does not exist (`torch._inductor.config.cpp.cxx`), so it shows the real error on any machine.
"""

import logging

import torch
import torch._dynamo
import torch._inductor.config

NO_COMPILER = {"cpp.cxx": ("/nonexistent/bin/c++",), "fx_graph_cache": False}


def predict(x: torch.Tensor) -> torch.Tensor:
    return torch.sin(x) * 2 + 1


class FailureLog(logging.Handler):
    """Collects dynamo's log records about the failed compile (suppress_errors only logs it)."""

    def __init__(self) -> None:
        super().__init__()
        self.messages = []

    def emit(self, record: logging.LogRecord) -> None:
        if "InvalidCxxCompiler" in record.getMessage():
            self.messages.append(record.getMessage())


def call(backend: str, x: torch.Tensor, suppress_errors: bool = False) -> dict:
    handler = FailureLog()
    dynamo_log = logging.getLogger("torch._dynamo")
    dynamo_log.addHandler(handler)
    torch._dynamo.reset()
    try:
        with torch._dynamo.config.patch(suppress_errors=suppress_errors):
            out = torch.compile(predict, backend=backend)(x)
        error = "no error"
        correct = bool(torch.allclose(out, predict(x)))
    except Exception as err:  # BackendCompilerFailed / InductorError
        error = f"{type(err).__name__}: {err}"[:2000]
        correct = False
    finally:
        dynamo_log.removeHandler(handler)
        torch._dynamo.reset()  # nothing compiled outlives this call
    return {"error": error, "correct": correct, "failure_logged": bool(handler.messages)}


def problem(device: str) -> dict:
    x = torch.randn(8, device=device)
    with torch._inductor.config.patch(NO_COMPILER):
        default = call("inductor", x)  # what torch.compile(model) uses
        hidden = call("inductor", x, suppress_errors=True)  # the fallback that hides it
    return {
        "error": default["error"],
        "suppressed_error": hidden["error"],
        "suppressed_failure_logged": hidden["failure_logged"],
    }


def fix(device: str) -> dict:
    x = torch.randn(8, device=device)
    with torch._inductor.config.patch(NO_COMPILER):
        fallback = call("aot_eager", x)  # dynamo and AOTAutograd, no code generation
    return {"error": fallback["error"], "correct": fallback["correct"]}


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
