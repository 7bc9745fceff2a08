"""What every part of torch-matrix shares: paths, the versions file (one torch release a line, with
the Python and NumPy it needs), row fields, messages."""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


VERSIONS_FILE = REPO / "tools" / "torch-versions.txt"


RECORD = REPO / "recipes" / "checked.json"


DEFAULT_WORK = Path(tempfile.gettempdir()) / "pitfalls-torch-matrix"


PYTHON_ORDER = ("3.11", "3.12", "3.10", "3.13", "3.9")


MIN_FREE_GB = 12.0  # one torch with its CUDA libraries is 3-5 GB, its unpacked cache as much


ROW_FIELDS = (
    "torch",
    "device",
    "device_name",
    "status",
    "revision",
    "date",
    "python",
    "numpy",
    "platform",
    "torch_build",
    "source",
    "failed",
    "error",
    "reason",
)


STATUS_OF = {"held": "held", "claim_failed": "claim_failed", "skipped": "skipped"}


NO_WHEELS = re.compile(
    r"no wheels with a matching|has no usable wheels|requires-python|No solution found|"
    r"not available for|no matching distribution",
    re.IGNORECASE,
)


def say(text: str = "") -> None:
    print(text, flush=True)


def public(version: str) -> str:
    return version.split("+", 1)[0]


def version_key(text: str) -> Any:
    from packaging.version import Version

    return Version(public(text))


@dataclass
class VersionSpec:
    """One line of tools/torch-versions.txt."""

    version: str
    python: str | None = None
    numpy: str | None = None
    extra: str | None = None  # more requirements, comma-separated (setuptools<70)

    def numpy_requirement(self) -> str:
        if self.numpy:
            return f"numpy{self.numpy}" if self.numpy[0] in "<>=!~" else self.numpy
        return "numpy<2" if version_key(self.version) < version_key("2.3") else "numpy"


def read_versions(path: Path = VERSIONS_FILE) -> list[VersionSpec]:
    specs = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        spec = VersionSpec(words[0])
        for word in words[1:]:
            name, _, value = word.partition("=")
            if name not in ("python", "numpy", "extra") or not value:
                raise SystemExit(f"{path}:{number}: unknown setting {word!r}")
            setattr(spec, name, value)
        version_key(spec.version)  # a bad version fails here, with its line
        specs.append(spec)
    return specs


class Stop(Exception):
    """Stop the whole run (low disk space), keeping what was recorded."""


class InstallFailed(Exception):
    """One version could not be installed; the run goes on."""
