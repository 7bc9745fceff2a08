"""Checking files: read, parse (or report the syntax error), run the rules, apply `# noqa`
and per-file ignores, and apply fixes. Large trees are checked in parallel processes.

Nothing here imports torch: the checker reads code, it never runs it.
"""

from __future__ import annotations

import ast
import codecs
import os
import re
import tokenize
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path

from pitfalls.catalogue.rule_table import SYNTAX_ERROR, matches
from pitfalls.check import registry  # noqa: F401 - the rules register themselves on import
from pitfalls.check.checker import Checker
from pitfalls.check.files import Globs
from pitfalls.check.findings import Edit, Finding, Options, split_lines
from pitfalls.check.notebook import ParsedNotebook, parse_notebook

NOQA = re.compile(
    r"#\s*noqa(?::\s*(?P<codes>[A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*))?", re.IGNORECASE
)
MAX_FIX_ROUNDS = 10
PARALLEL_MIN_FILES = 24
# Files that mention neither torch nor numpy cannot hold a finding: skip them unparsed.
RELEVANT = ("torch", "numpy")


@dataclass
class Settings:
    """Everything a worker needs to check one file (picklable)."""

    enabled: frozenset[str]
    root: Path
    per_file_ignores: list[tuple[Globs, tuple[str, ...]]] = field(default_factory=list)
    numpy_below_2: bool = False
    fix: bool = False


@dataclass
class FileResult:
    """The outcome for one file: findings, and the fixed text when fixes changed it."""

    path: str
    findings: list[Finding] = field(default_factory=list)
    original: str | None = None
    fixed: str | None = None
    fixed_count: int = 0
    error: str | None = None
    encoding: str = "utf-8"  # how `fixed` is written back: the file's own (a BOM is kept)


def read_source(path: Path) -> str:
    """A Python file's text, honouring a PEP 263 coding line; a notebook as UTF-8."""
    return decode_source(path.read_bytes(), is_notebook(path))[0]


def decode_source(data: bytes, notebook: bool = False) -> tuple[str, str]:
    """(text, encoding) of a file's bytes, as Python reads them: a UTF-8 BOM is not part of
    the text (ast calls it an invalid character), and a PEP 263 coding line names the
    encoding of a file that is not UTF-8. `text.encode(encoding)` gives the bytes back."""
    if notebook:
        return data.decode("utf-8"), "utf-8"
    if data.startswith(codecs.BOM_UTF8):
        return data[len(codecs.BOM_UTF8) :].decode("utf-8"), "utf-8-sig"
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        encoding, _ = tokenize.detect_encoding(BytesIO(data).readline)
        return data.decode(encoding), encoding


def is_notebook(path: Path | None) -> bool:
    return path is not None and path.suffix == ".ipynb"


def check_path(path: Path, display: str, settings: Settings) -> FileResult:
    """Check one file on disk (the file is not written: see `FileResult.fixed`)."""
    try:
        data = path.read_bytes()
    except OSError as err:
        return FileResult(display, error=f"cannot read {display}: {err.strerror or err}")
    return check_bytes(data, path, display, settings)


def check_bytes(data: bytes, path: Path | None, display: str, settings: Settings) -> FileResult:
    """Check a file's bytes (decoded as Python would; see `decode_source`)."""
    try:
        text, encoding = decode_source(data, is_notebook(path))
    except (UnicodeDecodeError, SyntaxError) as err:
        return FileResult(display, error=f"cannot read {display}: {err}")
    result = check_text(text, path, display, settings)
    result.encoding = encoding
    return result


def check_text(text: str, path: Path | None, display: str, settings: Settings) -> FileResult:
    """Check source `text` (a .py file, or notebook JSON when `path` ends in .ipynb)."""
    # The text travels back from a worker process only when a fix or diff needs it.
    result = FileResult(display, original=text if settings.fix else None)
    if not any(word in text for word in RELEVANT):
        return result
    ignored = _ignored_codes(path, settings)
    notebook = is_notebook(path)
    try:
        findings, parsed = _lint(text, notebook, settings, ignored)
    except ValueError as err:  # a .ipynb that is not notebook JSON
        result.error = f"cannot read {display}: {err}"
        return result
    except (RecursionError, MemoryError):  # too deep for the parser, or for our rules
        result.error = f"cannot check {display}: its code is nested too deeply"
        return result
    if settings.fix:
        current = text
        for _ in range(MAX_FIX_ROUNDS):
            edits = [edit for finding in findings for edit in finding.edits]
            if not edits:
                break
            source = parsed.text if isinstance(parsed, ParsedNotebook) else current
            new_source, applied = apply_edits(source, edits)
            new = parsed.with_text(new_source) if isinstance(parsed, ParsedNotebook) else new_source
            try:
                new_findings, new_parsed = _lint(new, notebook, settings, ignored)
            except (ValueError, RecursionError, MemoryError):
                break
            if any(f.code == SYNTAX_ERROR for f in new_findings) > any(
                f.code == SYNTAX_ERROR for f in findings
            ):
                break  # the fix introduced a syntax error: keep the last good text
            current, findings, parsed = new, new_findings, new_parsed
            result.fixed_count += applied
        if current != text:
            result.fixed = current
    for finding in findings:
        finding.path = display
    result.findings = findings
    return result


def _ignored_codes(path: Path | None, settings: Settings) -> tuple[str, ...]:
    if path is None:
        return ()
    codes: list[str] = []
    for globs, selected in settings.per_file_ignores:
        if globs.match(path):
            codes.extend(selected)
    return tuple(codes)


def _lint(
    text: str, notebook: bool, settings: Settings, ignored: tuple[str, ...]
) -> tuple[list[Finding], ParsedNotebook | str]:
    enabled = frozenset(c for c in settings.enabled if not any(matches(i, c) for i in ignored))
    options = Options(numpy_below_2=settings.numpy_below_2, notebook=notebook)
    findings: list[Finding] = []
    parsed: ParsedNotebook | str
    if notebook:
        parsed = parse_notebook(text)
        source, tree = parsed.text, parsed.tree
        for line, col, message in parsed.syntax_errors:
            findings.append(_syntax_error(line, col, message))
    else:
        parsed = source = text
        try:
            tree = ast.parse(text)
        except SyntaxError as err:
            line = err.lineno or 1
            return [_syntax_error(line, err.offset or 1, err.msg or "invalid syntax")], parsed
        except ValueError as err:  # null bytes
            return [_syntax_error(1, 1, str(err))], parsed
    if enabled:
        findings.extend(Checker(source, tree, enabled, options).run())
    findings = _without_noqa(findings, source)
    if isinstance(parsed, ParsedNotebook):
        for finding in findings:
            finding.cell, finding.line = parsed.locate(finding.line)
            end_cell, finding.end_line = parsed.locate(finding.end_line)
    findings.sort(key=lambda f: (f.cell or 0, f.line, f.col, f.code))
    return findings, parsed


def _syntax_error(line: int, col: int, message: str) -> Finding:
    return Finding(SYNTAX_ERROR, f"syntax error: {message}", line, max(col, 1), line, max(col, 1))


def _without_noqa(findings: list[Finding], source: str) -> list[Finding]:
    """Drop findings on lines with `# noqa` (bare, or naming the code or a prefix of it)."""
    if "noqa" not in source.lower():
        return findings
    lines = split_lines(source)
    kept = []
    for finding in findings:
        if finding.code != SYNTAX_ERROR and 0 < finding.line <= len(lines):
            match = NOQA.search(lines[finding.line - 1])
            if match is not None:
                codes = match.group("codes")
                if codes is None or any(
                    finding.code.startswith(c.upper()) for c in re.split(r"[\s,]+", codes) if c
                ):
                    continue
        kept.append(finding)
    return kept


def apply_edits(text: str, edits: list[Edit]) -> tuple[str, int]:
    """`text` with the non-overlapping `edits` applied (later overlapping ones are skipped)."""
    parts: list[str] = []
    position = 0
    applied = 0
    for edit in sorted(set(edits), key=lambda e: (e.start, e.end)):
        if edit.start < position:
            continue
        parts.append(text[position : edit.start])
        parts.append(edit.text)
        position = edit.end
        applied += 1
    parts.append(text[position:])
    return "".join(parts), applied


def _worker(job: tuple[Path, str, Settings]) -> FileResult:
    return check_path(*job)


def check_files(
    files: list[tuple[Path, str]], settings: Settings, jobs: int | None = None
) -> list[FileResult]:
    """Check `files` ((path, display) pairs) in order; in parallel processes when many."""
    jobs = jobs or _cpu_count()
    work = [(path, display, settings) for path, display in files]
    if jobs <= 1 or len(work) < PARALLEL_MIN_FILES:
        return [_worker(job) for job in work]
    # lazy: standard library only this path needs, kept off start-up
    from concurrent.futures import ProcessPoolExecutor

    chunk = max(1, len(work) // (jobs * 4))
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(_worker, work, chunksize=chunk))


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))  # type: ignore[attr-defined]
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1
