"""Jupyter notebooks: each code cell parsed on its own, magics neutralised, lines mapped back.

As in black and ruff, IPython syntax (`%matplotlib inline`, `!pip install x`, `files = !ls`,
`obj?`) becomes `pass` (or `name = None`) before parsing, keeping the line count, so a
research notebook does not turn into syntax errors. A cell that starts with a `%%` cell magic
holds another language (bash, HTML, ...) and is skipped. A cell that still does not parse is
reported as one syntax error, and the other cells are checked.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from typing import Any

ASSIGNED_MAGIC = re.compile(r"^(\s*)([\w.]+\s*=\s*)[%!]")
HELP_QUERY = re.compile(r"^[\w.]+\?{1,2}\s*$")  # `obj?`, `obj??`


@dataclass
class Cell:
    index: int  # 1-based position among all cells, as Jupyter shows it
    source: str  # the original text, ending with a newline
    first_line: int  # its first line in the joined text


@dataclass
class ParsedNotebook:
    data: dict[str, Any]
    cells: list[Cell]
    text: str  # the code cells' original sources, joined
    tree: ast.Module
    syntax_errors: list[tuple[int, int, str]] = field(default_factory=list)  # line, col, msg

    def locate(self, line: int) -> tuple[int | None, int]:
        """(cell index, line within the cell) for a line of the joined text."""
        for cell in reversed(self.cells):
            if line >= cell.first_line:
                return cell.index, line - cell.first_line + 1
        return None, line

    def with_text(self, text: str) -> str:
        """The notebook JSON with each code cell's source replaced from the joined `text`."""
        lines = text.splitlines(keepends=True)
        data = json.loads(json.dumps(self.data))
        for cell in self.cells:
            count = cell.source.count("\n")
            new = "".join(lines[cell.first_line - 1 : cell.first_line - 1 + count])
            raw = data["cells"][cell.index - 1]
            original = raw.get("source", "")
            original = "".join(original) if isinstance(original, list) else original
            if not original.endswith("\n") and new.endswith("\n"):
                new = new[:-1]
            raw["source"] = (
                new.splitlines(keepends=True) if isinstance(raw.get("source"), list) else new
            )
        return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def neutralise(source: str) -> str | None:
    """The cell with IPython magics made into Python of the same line count, or None for a
    cell magic cell (another language)."""
    if source.lstrip().startswith("%%"):
        return None
    out: list[str] = []
    continued = False
    for line in source.split("\n"):
        stripped = line.lstrip()
        indent = line[: len(line) - len(stripped)]
        if continued:
            out.append("")  # the rest of a magic continued with a backslash
            continued = line.endswith("\\")
            continue
        assigned = ASSIGNED_MAGIC.match(line)
        if stripped.startswith(("%", "!", "?")) or HELP_QUERY.match(stripped):
            out.append(indent + "pass")
            continued = line.endswith("\\")
        elif assigned:
            out.append(f"{assigned.group(1)}{assigned.group(2)}None")
            continued = line.endswith("\\")
        else:
            out.append(line)
    return "\n".join(out)


def parse_notebook(raw: str) -> ParsedNotebook:
    """Parse every code cell; raises ValueError when `raw` is not notebook JSON."""
    try:
        data = json.loads(raw)
        cells_data = data["cells"]
    except (json.JSONDecodeError, KeyError, TypeError) as err:
        raise ValueError(f"not a Jupyter notebook: {err}") from err
    cells: list[Cell] = []
    body: list[ast.stmt] = []
    errors: list[tuple[int, int, str]] = []
    line = 1
    for index, cell in enumerate(cells_data, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        if not source.endswith("\n"):
            source += "\n"
        cells.append(Cell(index, source, line))
        code = neutralise(source)
        if code is not None:
            try:
                tree = ast.parse(code)
            except SyntaxError as err:
                errors.append((line + (err.lineno or 1) - 1, err.offset or 1, err.msg))
            else:
                ast.increment_lineno(tree, line - 1)
                body.extend(tree.body)
        line += source.count("\n")
    text = "".join(cell.source for cell in cells)
    return ParsedNotebook(data, cells, text, ast.Module(body=body, type_ignores=[]), errors)
