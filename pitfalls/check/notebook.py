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
from typing import Any, Callable

from pitfalls.check.findings import split_lines

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
    raw: str = ""  # the notebook's JSON text, for its layout

    def locate(self, line: int) -> tuple[int | None, int]:
        """(cell index, line within the cell) for a line of the joined text."""
        for cell in reversed(self.cells):
            if line >= cell.first_line:
                return cell.index, line - cell.first_line + 1
        return None, line

    def with_text(self, text: str) -> str:
        """The notebook JSON with each code cell's source replaced from the joined `text`,
        laid out as the original was (see `_layout`), so only the fixed text changes."""
        lines = split_lines(text)
        data = json.loads(json.dumps(self.data))
        for cell in self.cells:
            count = len(split_lines(cell.source))
            new = "".join(lines[cell.first_line - 1 : cell.first_line - 1 + count])
            raw = data["cells"][cell.index - 1]
            original = raw.get("source", "")
            original = "".join(original) if isinstance(original, list) else original
            if not original.endswith("\n") and new.endswith("\n"):
                new = new[:-1]
            if new == original:
                continue  # keep the cell as written, however its lines were split
            raw["source"] = split_lines(new) if isinstance(raw.get("source"), list) else new
        return _layout(self.data, self.raw)(data)


# JSON layouts notebooks are written in: nbformat's (indent 1), and those of other tools.
_LAYOUTS = [
    {"indent": indent, "ensure_ascii": ascii_only}
    for indent in (1, 2, 4, None, 0, "\t", 3)
    for ascii_only in (False, True)
] + [{"indent": None, "ensure_ascii": a, "separators": (",", ":")} for a in (False, True)]


def _layout(data: Any, raw: str) -> Callable[[Any], str]:
    """A function that writes notebook data the way `raw` (the text `data` was read from)
    is written: indent, escapes, line endings, final newline. A layout no candidate
    reproduces exactly gets nbformat's own."""
    newline = "\r\n" if "\r\n" in raw else "\n"
    end = raw[len(raw.rstrip()) :]
    for options in _LAYOUTS:
        # Strings never hold a raw newline in JSON, so newlines are layout only.
        if json.dumps(data, **options).replace("\n", newline) + end == raw:
            return lambda new: json.dumps(new, **options).replace("\n", newline) + end
    return lambda new: json.dumps(new, indent=1, ensure_ascii=False) + "\n"


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
    except json.JSONDecodeError as err:
        raise ValueError(f"not a Jupyter notebook: {err}") from err
    cells_data = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells_data, list):
        raise ValueError("not a Jupyter notebook: no list of `cells`")
    cells: list[Cell] = []
    body: list[ast.stmt] = []
    errors: list[tuple[int, int, str]] = []
    line = 1
    for index, cell in enumerate(cells_data, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(part, str) for part in source):
            source = "".join(source)
        elif not isinstance(source, str):
            raise ValueError(f"not a Jupyter notebook: cell {index}'s `source` is not text")
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
        line += len(split_lines(source))  # as Python counts lines: not at \f or \u2028
    text = "".join(cell.source for cell in cells)
    return ParsedNotebook(data, cells, text, ast.Module(body=body, type_ignores=[]), errors, raw)
