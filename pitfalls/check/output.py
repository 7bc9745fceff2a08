"""Rendering findings: text (grouped and coloured on a terminal, one line each when piped),
JSON, SARIF 2.1.0 for code scanning, and GitHub workflow annotations."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from pitfalls._version import __version__
from pitfalls.catalogue.rule_table import RULES, SYNTAX_ERROR
from pitfalls.check.findings import Finding
from pitfalls.check.registry import DOCS

FORMATS = ("text", "json", "sarif", "github")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://pypi.org/project/pitfalls/"


def where(finding: Finding) -> str:
    """`path:line:col`, with `cell N:` for notebooks, as ruff prints it."""
    cell = f"cell {finding.cell}:" if finding.cell is not None else ""
    return f"{finding.path}:{cell}{finding.line}:{finding.col}"


def plain_line(finding: Finding) -> str:
    """`path:line:col: CODE message [recipe-id]`."""
    recipe = f" [{finding.recipe}]" if finding.recipe else ""
    return f"{where(finding)}: {finding.code} {finding.message}{recipe}"


def render_text(findings: list[Finding], color: bool) -> str:
    """Plain: one finding per line. On a terminal: grouped by file, coloured, `[*]` marks a
    fix that `--fix` applies, and each finding says how to read its recipe."""
    if not color:
        return "".join(plain_line(f) + "\n" for f in findings)
    # lazy: Rich loads only when something is drawn
    from rich.markup import escape

    out: list[str] = []
    current = None
    for finding in findings:
        if finding.path != current:
            if current is not None:
                out.append("")
            out.append(f"[bold]{escape(finding.path)}[/]")
            current = finding.path
        cell = f"cell {finding.cell}:" if finding.cell is not None else ""
        fixable = " [cyan]\\[*][/]" if finding.edits else ""
        style = "bold red" if finding.code == SYNTAX_ERROR else "bold magenta"
        out.append(
            f"  [dim]{cell}{finding.line}:{finding.col}[/] [{style}]{finding.code}[/]{fixable} "
            f"{escape(finding.message)}"
        )
        if finding.recipe:
            out.append(f"    [dim]→ pitfalls show {finding.recipe}[/]")
    return "\n".join(out) + ("\n" if out else "")


def render_json(findings: list[Finding]) -> str:
    """A list of objects with ruff's field names, plus `name`, `recipe` and `cell`."""
    data = [
        {
            "code": f.code,
            "name": f.name,
            "message": f.message,
            "recipe": f.recipe,
            "filename": f.path,
            "cell": f.cell,
            "location": {"row": f.line, "column": f.col},
            "end_location": {"row": f.end_line, "column": f.end_col},
            "fix": _fix_json(f),
        }
        for f in findings
    ]
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def _fix_json(finding: Finding) -> dict[str, Any] | None:
    if not finding.edits:
        return None
    return {
        "applicability": "safe",
        "message": finding.fix_title,
        "edits": [{"start": e.start, "end": e.end, "content": e.text} for e in finding.edits],
    }


def rule_description(code: str) -> dict[str, Any]:
    """A rule as data, as in `show --json`, `--explain --json` and SARIF."""
    rule = RULES[code]
    return {
        "code": rule.code,
        "name": rule.name,
        "summary": rule.summary,
        "recipe": rule.recipe,
        "fix": rule.fix,
        "default": rule.default,
        "since": rule.since,
        "explanation": DOCS.get(code, ""),
    }


def render_sarif(findings: list[Finding]) -> str:
    """SARIF 2.1.0: every rule in the driver, one result per finding."""
    rules = [
        {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": DOCS.get(rule.code, rule.summary)},
            "help": {"text": f"Run `pitfalls show {rule.recipe}` to see this pitfall happen."},
            "properties": {"recipe": rule.recipe, "fix": rule.fix, "default": rule.default},
        }
        for rule in RULES.values()
    ]
    rules.append(
        {
            "id": SYNTAX_ERROR,
            "name": "syntax-error",
            "shortDescription": {"text": "the file does not parse"},
        }
    )
    results = []
    for f in findings:
        region = {
            "startLine": f.line,
            "startColumn": f.col,
            "endLine": f.end_line,
            "endColumn": f.end_col,
        }
        result: dict[str, Any] = {
            "ruleId": f.code,
            "level": "error",
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(f.path)},
                        "region": region,
                    }
                }
            ],
        }
        if f.cell is not None:
            result["properties"] = {"cell": f.cell}
        results.append(result)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "pitfalls",
                        "version": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": rules,
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(log, ensure_ascii=False, indent=2) + "\n"


def _uri(path: str) -> str:
    """A path as a relative URI reference: `%`, spaces and `#` escaped, and `:` too, so that
    `c:/x.py` or `na:me.py` is not read as a URI scheme."""
    # lazy: standard library only this path needs, kept off start-up
    from urllib.parse import quote

    return quote(path.replace("\\", "/"), safe="/")


def _escape_property(text: str) -> str:
    return (
        text.replace("%", "%25")
        .replace("\r", "%0D")
        .replace("\n", "%0A")
        .replace(":", "%3A")
        .replace(",", "%2C")
    )


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def render_github(findings: list[Finding]) -> str:
    """`::error title=...,file=...,line=...::message` workflow commands."""
    lines = []
    for f in findings:
        props = ",".join(
            [
                f"title={_escape_property(f'pitfalls ({f.code})')}",
                f"file={_escape_property(f.path)}",
                f"line={f.line}",
                f"col={f.col}",
                f"endLine={f.end_line}",
                f"endColumn={f.end_col}",
            ]
        )
        lines.append(f"::error {props}::{_escape_data(plain_line(f))}\n")
    return "".join(lines)


def render_statistics(findings: list[Finding], color: bool) -> str:
    """One row per code: count, code, `[*]` when fixable, and the rule's name."""
    counts = Counter(f.code for f in findings)
    fixable = {f.code for f in findings if f.edits}
    rows = []
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        name = RULES[code].name if code in RULES else "syntax-error"
        mark = "[*]" if code in fixable else "   "
        if color:
            rows.append(f"{count:>5}  {code}  {mark} {name}")
        else:
            rows.append(f"{count}\t{code}\t{mark.strip()}\t{name}")
    return "".join(row + "\n" for row in rows)


def summary(findings: list[Finding], fixed: int, files: int, unchecked: int = 0) -> str:
    """The closing line, like ruff's; `unchecked` files could not be read or written, so
    "All checks passed" is never said of them."""
    fixable = sum(1 for f in findings if f.edits)
    parts = []
    if fixed:
        parts.append(f"Fixed {fixed} finding{'s' if fixed != 1 else ''}.")
    if findings:
        noun = "finding" if len(findings) == 1 else "findings"
        line = f"Found {len(findings)} {noun} in {files} file{'s' if files != 1 else ''}."
        if fixable:
            line += f" {fixable} fixable with `--fix`."
        parts.append(line)
    elif not fixed and not unchecked:
        parts.append(f"All checks passed ({files} file{'s' if files != 1 else ''}).")
    if unchecked:
        noun = "file" if unchecked == 1 else "files"
        parts.append(f"{unchecked} {noun} could not be checked (see above).")
    return " ".join(parts)
