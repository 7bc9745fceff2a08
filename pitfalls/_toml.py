"""The TOML parser the package uses: `tomli` where it is installed, else the standard library's.

`tomli` is a dependency because its CPython wheels (2.2.1 and later) are compiled with mypyc:
they parse the whole catalogue about four times faster than `tomllib`, its pure-Python copy in
the standard library, which is most of what a first `list` or `show` costs right after install.
Both parse the same TOML into the same values. Imported only where TOML is parsed: with the
metadata cache warm, `list` parses none and `show` only the one recipe's claim.
"""

from __future__ import annotations

try:
    from tomli import TOMLDecodeError, load, loads
except ImportError:  # pragma: no cover - tomli removed by hand; Python 3.11+ has tomllib
    from tomllib import TOMLDecodeError, load, loads

__all__ = ["TOMLDecodeError", "load", "loads"]
