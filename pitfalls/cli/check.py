"""`pitfalls check`: find the catalogue's pitfalls in your own code, each finding linked to the
recipe that shows it happen. Reads code with `ast`; never imports torch."""

from __future__ import annotations

import difflib
import inspect
import json
import sys
from pathlib import Path
from typing import Optional

import typer

from pitfalls.cli.common import LANG_OPTION, echo, fail, language, plain_output, warn

CHECK_EXIT_CODES = """
Exit codes: 0 no findings (or --exit-zero); 1 findings (with --diff: fixes to apply);
2 usage error, bad configuration, or a path that does not exist or cannot be read.
"""

PATHS_ARGUMENT = typer.Argument(
    None,
    metavar="[PATHS]...",
    help="Files or folders to check [default: .]; `-` reads one file from stdin.",
    show_default=False,
)
SELECT_HELP = "Comma-separated codes or prefixes (PFL1, PFL101) or ALL."


def _codes(values: list[str] | None) -> list[str] | None:
    if values is None:
        return None
    return [code.strip() for value in values for code in value.split(",") if code.strip()]


def check(
    paths: Optional[list[str]] = PATHS_ARGUMENT,
    output_format: str = typer.Option(
        "text", "--output-format", help="text, json, sarif (2.1.0) or github (annotations)."
    ),
    select: Optional[list[str]] = typer.Option(
        None, "--select", help="Rules to run instead of the defaults. " + SELECT_HELP
    ),
    extend_select: Optional[list[str]] = typer.Option(
        None, "--extend-select", help="Rules to run as well. " + SELECT_HELP
    ),
    ignore: Optional[list[str]] = typer.Option(
        None, "--ignore", help="Rules not to run. " + SELECT_HELP
    ),
    fix: bool = typer.Option(False, "--fix", help="Apply the always-safe fixes (marked [*])."),
    diff: bool = typer.Option(False, "--diff", help="Print the fixes as a diff; write nothing."),
    statistics: bool = typer.Option(False, "--statistics", help="Count findings per rule."),
    exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even with findings."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print findings, nothing else."),
    stdin_filename: Optional[str] = typer.Option(
        None, "--stdin-filename", help="The file name to report for `-` (stdin)."
    ),
    explain: Optional[str] = typer.Option(
        None, "--explain", metavar="CODE", help="Explain a rule and open its recipe."
    ),
    config: Optional[str] = typer.Option(
        None, "--config", metavar="FILE", help="Use this pyproject.toml's [tool.pitfalls.check]."
    ),
    force_exclude: bool = typer.Option(
        False, "--force-exclude", help="Apply `exclude` to files named on the command line too."
    ),
    respect_gitignore: bool = typer.Option(
        True, "--respect-gitignore/--no-respect-gitignore", help="Skip .gitignore'd files."
    ),
    lang: Optional[str] = LANG_OPTION,
) -> None:
    """Find PyTorch and NumPy pitfalls in your code: `path:line:col: CODE message [recipe]`.

    Checks .py files and Jupyter notebooks under PATHS, skipping .git, virtual environments,
    build folders and .gitignore'd paths. Settings come from [tool.pitfalls.check] in the
    nearest pyproject.toml (select, extend-select, ignore, exclude, extend-exclude,
    per-file-ignores); `# noqa: PFL101` (or a bare `# noqa`) silences a line.
    `pitfalls check --explain PFL101` (or `pitfalls show PFL101`) opens the recipe behind
    a rule. Files that mention neither torch nor numpy are skipped unparsed.
    """
    lang = language(lang)
    if output_format not in ("text", "json", "sarif", "github"):
        fail(f"unknown --output-format {output_format!r}: use text, json, sarif or github", 2)
    if explain is not None:
        explain_rule(explain, lang, as_json=output_format == "json")
        return
    # lazy: the checker and its rules only for `check` and rule pages
    from pitfalls.catalogue.rule_table import known_selector, resolve_selection
    from pitfalls.check.config import ConfigError, find_config
    from pitfalls.check.driver import Settings
    from pitfalls.check.files import DEFAULT_EXCLUDE, Globs

    words = paths or ["."]
    from_stdin = words == ["-"]
    if "-" in words and not from_stdin:
        fail("`-` (stdin) cannot be combined with other paths", 2)
    start = Path(stdin_filename).parent if from_stdin and stdin_filename else _common(words)
    try:
        cfg = find_config(start.resolve(), Path(config) if config else None)
    except ConfigError as err:
        fail(str(err), 2)
    cli_select = _codes(select)
    chosen = cli_select if cli_select is not None else cfg.select
    extend = cfg.extend_select + (_codes(extend_select) or [])
    ignored = cfg.ignore + (_codes(ignore) or [])
    per_file = [(g, tuple(c)) for g, c in cfg.per_file_ignores.items()]
    for selector in [*(chosen or []), *extend, *ignored, *(c for _, cs in per_file for c in cs)]:
        if not known_selector(selector):
            fail(f"unknown rule selector {selector!r}: see `pitfalls check --help`", 2)
    settings = Settings(
        enabled=resolve_selection(chosen, extend, ignored),
        root=cfg.root,
        per_file_ignores=[(Globs([g], cfg.root), codes) for g, codes in per_file],
        numpy_below_2=cfg.numpy_below_2,
        fix=fix or diff,
    )
    stdin_data = None
    if from_stdin:
        stdin_data = _read_stdin_bytes()
        results = [_check_stdin(stdin_data, stdin_filename, settings)]
        files = 1
    else:
        # lazy: the checker and its rules only for `check` and rule pages
        from pitfalls.check.driver import FileResult, check_files
        from pitfalls.check.files import discover

        exclude = list(DEFAULT_EXCLUDE if cfg.exclude is None else cfg.exclude)
        exclude += cfg.extend_exclude
        found, missing, unreadable = discover(
            [Path(w) for w in words],
            cfg.root,
            exclude,
            respect_gitignore=respect_gitignore,
            force_exclude=force_exclude,
        )
        for path in missing:
            warn(f"pitfalls: {path}: no such file or folder")
        if missing:
            raise typer.Exit(2)
        if not found and not quiet:
            warn(
                "pitfalls: no Python files or notebooks under the given paths (excluded, "
                "or .gitignore'd: see --no-respect-gitignore)"
            )
        results = check_files([(p, _display(p)) for p in found], settings)
        # A folder that cannot be listed is an error after the rest is checked, like a file
        # that cannot be read.
        results += [
            FileResult(_display(p), error=f"cannot read {_display(p)}: {why}")
            for p, why in unreadable
        ]
        files = len(found)
    _finish(results, files, output_format, statistics, exit_zero, quiet, fix, diff, stdin_data)


def _common(words: list[str]) -> Path:
    """The folder to look for pyproject.toml from: the paths' common folder."""
    # lazy: standard library only this path needs, kept off start-up
    import os

    folders = [str(_resolve(w) if os.path.isdir(w) else _resolve(w).parent) for w in words]
    try:
        return Path(os.path.commonpath(folders))
    except ValueError:  # different drives
        return Path.cwd()


def _resolve(path: str | Path) -> Path:
    """The absolute path, with symlinks resolved where they can be (not in a loop, not in
    a folder we may not enter: those are reported when the path is read)."""
    try:
        return Path(path).resolve()
    except (OSError, RuntimeError):
        return Path(path).absolute()


def _display(path: Path) -> str:
    try:
        return str(_resolve(path).relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _read_stdin_bytes() -> bytes:
    if sys.stdin is None:
        fail("stdin is closed: pipe the source in, or name a file", 2)
    buffer = getattr(sys.stdin, "buffer", None)
    return buffer.read() if buffer is not None else sys.stdin.read().encode("utf-8")


def _check_stdin(data: bytes, stdin_filename: str | None, settings):  # type: ignore[no-untyped-def]
    # lazy: the checker and its rules only for `check` and rule pages
    from pitfalls.check.driver import check_bytes

    path = Path(stdin_filename) if stdin_filename else None
    return check_bytes(data, path, stdin_filename or "-", settings)


def _write_stdout_bytes(data: bytes) -> None:
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(data.decode("utf-8", errors="replace"))
    else:
        buffer.write(data)
        buffer.flush()


def _finish(results, files, output_format, statistics, exit_zero, quiet, fix, diff, stdin_data):  # type: ignore[no-untyped-def]
    # lazy: the checker and its rules only for `check` and rule pages
    from pitfalls.check.output import (
        render_github,
        render_json,
        render_sarif,
        render_statistics,
        render_text,
        summary,
    )

    stdin = stdin_data is not None

    errors = [r.error for r in results if r.error]
    for error in errors:
        warn(f"pitfalls: {error}")
    if diff:
        changed = [r for r in results if r.fixed is not None]
        for result in changed:
            sys.stdout.write(_unified_diff(result))
        count = sum(r.fixed_count for r in changed)
        if not quiet:
            warn(f"Would fix {count} finding{'s' if count != 1 else ''}." if count else "No fixes.")
        raise typer.Exit(2 if errors else 1 if changed else 0)
    fixed = 0
    if fix:
        for result in results:
            if result.fixed is None:
                continue
            fixed += result.fixed_count
            if stdin:
                continue
            try:
                # Bytes, in the file's own encoding: no newline translation, BOM kept.
                Path(_path_of(result.path)).write_bytes(result.fixed.encode(result.encoding))
            except (OSError, UnicodeEncodeError) as err:
                warn(f"pitfalls: cannot write {result.path}: {getattr(err, 'strerror', 0) or err}")
                errors.append(result.path)
        if stdin:
            # What an editor replaces its buffer with: the input itself when nothing was fixed
            # or it could not be read.
            result = results[0]
            fixed = result.fixed.encode(result.encoding) if result.fixed is not None else None
            _write_stdout_bytes(fixed if fixed is not None else stdin_data)
    findings = [f for r in results for f in r.findings]
    color = not plain_output()
    out = sys.stderr if fix and stdin else sys.stdout
    if statistics:
        text = render_statistics(findings, color)
    elif output_format == "json":
        text = render_json(findings)
    elif output_format == "sarif":
        text = render_sarif(findings)
    elif output_format == "github":
        text = render_github(findings)
    else:
        text = render_text(findings, color)
    if color and output_format == "text" and out is sys.stdout:
        # lazy: Rich and the registry only when the command prints or reads recipes
        from pitfalls.cli.common import console

        console().print(text, end="", highlight=False, soft_wrap=True)
    else:
        out.write(text)
    if not quiet and output_format == "text":
        warn(summary(findings, fixed, files, unchecked=len(errors)))
    if errors:
        raise typer.Exit(2)
    raise typer.Exit(1 if findings and not exit_zero else 0)


def _path_of(display: str) -> str:
    return display


def _unified_diff(result) -> str:  # type: ignore[no-untyped-def]
    # lazy: the checker and its rules only for `check` and rule pages
    from pitfalls.check.findings import split_lines

    # Lines as Python counts them: str.splitlines() also breaks at \f and \u2028.
    before = split_lines(result.original) if result.original else []
    after = split_lines(result.fixed) if result.fixed else []
    lines = difflib.unified_diff(before, after, f"a/{result.path}", f"b/{result.path}")
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def explain_rule(word: str, lang: str, as_json: bool = False) -> None:
    """Print a rule's documentation, then the recipe page behind it."""
    # lazy: the checker and its rules only for `check` and rule pages
    from pitfalls.catalogue.rule_table import lookup
    from pitfalls.check.output import rule_description

    rule = lookup(word)
    if rule is None:
        fail(f"unknown rule code {word!r}: `pitfalls check --help` lists the rules", 2)
    data = rule_description(rule.code)
    if as_json:
        echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    default = "on by default" if rule.default else "off by default (select it by code)"
    fixes = {"always": "`--fix` rewrites it", "sometimes": "`--fix` rewrites some cases"}
    header = [
        f"# {rule.code} ({rule.name})",
        "",
        f"*{rule.summary}*",
        "",
        f"Recipe: `{rule.recipe}` · {fixes.get(rule.fix, 'no automatic fix')} · {default} "
        f"· since {rule.since}",
        "",
        inspect.cleandoc(data["explanation"]),
        "",
    ]
    markdown = "\n".join(header)
    # lazy: Rich and the registry only when the command prints or reads recipes
    from pitfalls.catalogue.registry import ResolveError
    from pitfalls.cli.common import registry

    try:
        recipe = registry().resolve(rule.recipe)
    except ResolveError:
        recipe = None
    if recipe is not None:
        # lazy: rendering (and Rich) only when printing for a terminal
        from pitfalls.render.page import page_markdown

        _, prose = recipe.prose_with_fallback(lang)
        markdown += "\n---\n\n" + page_markdown(recipe, lang, prose)
    else:
        markdown += f"\n(The recipe `{rule.recipe}` is not installed.)\n"
    if plain_output():
        sys.stdout.write(markdown)
        return
    # lazy: Rich loads only when something is drawn
    from rich.markdown import Markdown

    # lazy: Rich and the registry only when the command prints or reads recipes
    from pitfalls.cli.common import console

    console().print(Markdown(markdown, code_theme="monokai"))
