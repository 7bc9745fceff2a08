"""The lint checks that call out of this process: `ruff format --check` on every snippet
(PIT013) and fetching each reference URL (PIT015, only with --check-links)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pitfalls.authoring.lint import Finding, display_path, read_text


def format_findings(folders: list[Path]) -> list[Finding]:
    """PIT013 for each snippet `ruff format --check` would change; nothing without ruff."""
    # lazy: standard library only this path needs, kept off start-up
    from concurrent.futures import ThreadPoolExecutor

    command = ruff_command()
    # An unparsable snippet makes ruff fail rather than judge formatting; PIT011 covers it.
    snippets = [f / "snippet.py" for f in folders if _parses(f / "snippet.py")]
    if command is None or not snippets:
        return []
    with ThreadPoolExecutor(max_workers=8) as pool:
        unformatted = list(pool.map(lambda path: _ruff_would_reformat(command, path), snippets))
    return [
        Finding("PIT013", display_path(s), f"not formatted: run `ruff format {display_path(s)}`")
        for s, flagged in zip(snippets, unformatted)
        if flagged
    ]


def _ruff_would_reformat(command: list[str], path: Path) -> bool:
    # One process per file, judged by exit status alone: ruff's report wording changes between
    # versions, its exit codes (0 formatted, 1 would reformat) do not.

    try:
        done = subprocess.run(
            [*command, "format", "--check", "--no-cache", str(path)],
            capture_output=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False  # ruff is an optional helper here; its failure is not the recipe's
    return done.returncode == 1


def _parses(path: Path) -> bool:
    # lazy: standard library only this path needs, kept off start-up
    import ast

    text = read_text(path) if path.is_file() else None
    if text is None:
        return False
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True


def ruff_command() -> list[str] | None:
    """How to run ruff: the current interpreter's module, else `ruff` on PATH, else None."""
    # lazy: standard library only this path needs, kept off start-up
    import shutil
    from importlib.util import find_spec

    if find_spec("ruff") is not None:
        return [sys.executable, "-m", "ruff"]
    found = shutil.which("ruff")
    return [found] if found else None


def check_urls(urls: list[tuple[str, Path, int | None]]) -> list[Finding]:
    """PIT015 for each reference that cannot be fetched; fetched a few at a time."""
    # lazy: standard library only this path needs, kept off start-up
    from concurrent.futures import ThreadPoolExecutor

    unique = list(dict.fromkeys(url for url, _, _ in urls))
    with ThreadPoolExecutor(max_workers=8) as pool:
        problems = dict(zip(unique, pool.map(fetch_problem, unique)))
    return [
        Finding("PIT015", display_path(folder / "recipe.toml"), f"{url}: {problems[url]}", line)
        for url, folder, line in urls
        if problems[url]
    ]


def fetch_problem(url: str, timeout: float = 10.0) -> str | None:
    """Why `url` cannot be fetched, or None when it answers with a success status."""
    # lazy: standard library only this path needs, kept off start-up
    import urllib.error
    import urllib.request

    headers = {"User-Agent": "pitfalls-lint (link check)"}
    for method in ("HEAD", "GET"):  # some servers refuse HEAD; GET settles it
        request = urllib.request.Request(url, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                if response.status < 400:
                    return None
                problem = f"HTTP {response.status}"
        except urllib.error.HTTPError as err:
            problem = f"HTTP {err.code}"
        except (urllib.error.URLError, OSError, ValueError) as err:
            return f"cannot fetch: {getattr(err, 'reason', err)}"
    return problem
