"""Static checks of a snippet: parse it, never import it (importing would pull in torch)."""

from __future__ import annotations

import ast
from pathlib import Path

REQUIRED_FUNCTIONS = ("problem", "fix")


def missing_functions(path: Path) -> list[str] | str:
    """The required functions `path` does not define at top level, or a syntax error text."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except SyntaxError as err:
        return f"snippet.py does not parse: line {err.lineno}: {err.msg}"
    except (OSError, UnicodeDecodeError) as err:
        return f"snippet.py cannot be read: {err}"
    defined = {
        node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    defined |= {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    return [name for name in REQUIRED_FUNCTIONS if name not in defined]
