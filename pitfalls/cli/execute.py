"""Running snippets: `run` and `verify`. torch is imported only in child processes."""

from __future__ import annotations

import json
import sys
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any, Optional

import typer

from pitfalls.cli.common import (
    LANG_OPTION,
    console,
    echo,
    fail,
    interrupted,
    language,
    plain_output,
    registry,
    resolve,
    take_prestarted,
    warn,
)
from pitfalls.i18n import t

if TYPE_CHECKING:
    from pitfalls.catalogue.model import Recipe
    from pitfalls.runner import ProcessPool, RunResult, VerifyReport

DEVICE_OPTION = typer.Option(
    "auto",
    "--device",
    "-d",
    help="auto (cuda, else mps, else cpu), cpu, cuda, cuda:N or mps.",
)
TIMEOUT_OPTION = typer.Option(
    120.0, "--timeout", help="Seconds before a snippet is ended, with all its children."
)
PYTHON_OPTION = typer.Option(
    None,
    "--python",
    envvar="PITFALLS_PYTHON",
    help="Run snippets in this interpreter (e.g. a conda env with CUDA or an older torch).",
    show_default=False,
)


def _check_device(device: str, lang: str) -> None:
    # lazy: the runner only for what runs snippets
    from pitfalls.runner import DEVICE_NAMES, valid_device

    if not valid_device(device):
        fail(t("err.bad_device", lang, device=device, names=DEVICE_NAMES), 2)


def _check_timeout(timeout: float, lang: str) -> None:
    if not timeout > 0:
        fail(t("err.bad_timeout", lang), 2)


def _status(message: str) -> Any:
    """A spinner on stderr while torch imports, only on a terminal."""
    if plain_output() or not sys.stderr.isatty():
        return nullcontext()
    return console(stderr=True).status(message)


def _start_pool(python: Optional[str], lang: str, timeout: float) -> ProcessPool:
    # lazy: the runner only for what runs snippets
    from pitfalls.runner import ProcessPool, RunnerUnavailable
    from pitfalls.runner import python_for as choose_python
    from pitfalls.runner.process import START_TIMEOUT

    pool = take_prestarted(choose_python(python)) or ProcessPool(python=choose_python(python))
    try:
        with _status(t("run.importing", lang)):
            pool.start(max(timeout, START_TIMEOUT))
    except RunnerUnavailable as err:
        _unavailable(err, pool.python, lang)
    except KeyboardInterrupt:
        pool.close()
        interrupted(lang)
    return pool


def _prepare_output(recipes: list[Recipe], styled: bool, plot: bool) -> None:
    """Work that judging and printing results needs, done while the fork server (started
    before the arguments were parsed) imports torch: seconds in which this process would only
    wait. Each recipe's claim is parsed from its recipe.toml, and the modules that render a
    result are imported. Nothing is printed; an error is left for when the work is done for
    real."""
    # lazy: standard library only this path needs, kept off start-up
    from importlib import import_module

    try:
        for recipe in recipes:
            recipe.plots  # noqa: B018 - parses the expectations and plots together
        # lazy: only this path needs it
        from pitfalls.catalogue.verdict import version_in_range

        version_in_range("0", ">=0")  # imports `packaging`
        modules = ["pitfalls.render.results"]
        if styled:
            modules += ["rich.console", "rich.table", "rich.text"]
            if plot and any(recipe.plots for recipe in recipes):
                modules.append("plotext")
        for name in modules:
            import_module(name)
    except Exception:  # noqa: BLE001 - met again, and reported, when it matters
        pass


def _unavailable(err: Exception, python: str, lang: str) -> None:
    kind = getattr(err, "kind", "python_missing")
    if kind == "torch_missing":
        fail(t("err.torch_missing", lang, python=python), 3)
    fail(t("err.python_missing", lang, message=str(err)), 3)


def _print_result(result: RunResult, lang: str, as_json: bool, plot: bool = True) -> None:
    # lazy: rendering (and Rich) only when printing for a terminal
    from pitfalls.render.results import plain_lines, result_renderable

    if as_json:
        echo(json.dumps(result.to_dict(), ensure_ascii=False, indent=2, allow_nan=False))
    elif plain_output():
        echo("\n".join(plain_lines(result, lang)))
    else:
        out = console()
        charts = _chart_renderables(result, lang, out) if plot else []
        out.print(result_renderable(result, lang, charts))
    if result.error and result.status == "error" and not as_json:
        _print_snippet_error(result, lang)


def _chart_renderables(result: RunResult, lang: str, out: Any) -> list[Any]:
    """The run's charts, sized to the terminal; a chart that cannot be drawn is one line on
    stderr, never a failed command (its series' shape is already part of the verdict)."""
    # lazy: rendering (and Rich) only when printing for a terminal
    from pitfalls.render.charts import chart_height, chart_renderable, charts_for

    drawn = []
    for chart in charts_for(result, lang):
        try:
            drawn.append(chart_renderable(chart, out.width, chart_height(out.height)))
        except ImportError as err:
            warn(f"pitfalls: {t('chart.unavailable', lang, error=err)}")
            break
        except Exception as err:  # plotext failing on odd data must not hide the verdict
            warn(f"pitfalls: {t('chart.failed', lang, title=chart.title, error=err)}")
    if drawn:
        # lazy: Rich loads only when something is drawn
        from rich.text import Text

        drawn.append(Text(""))  # a blank line before the checks
    return drawn


def _print_snippet_error(result: RunResult, lang: str) -> None:
    error = result.error or {}
    message = t(
        "err.snippet_failed",
        lang,
        id=result.recipe.id,
        kind=error.get("kind"),
        message=error.get("message", ""),
    )
    trace = (error.get("traceback") or "").rstrip()
    if trace:
        # The snippet's own traceback is the recipe's failure, worth showing; trim pitfalls'
        # frames so the user reads only their code.
        lines = trace.splitlines()
        keep = [i for i, line in enumerate(lines) if "snippet.py" in line]
        start = keep[0] if keep else max(0, len(lines) - 12)
        warn("\n".join(lines[start:]))
    elif result.output.strip():
        warn("\n".join(result.output.rstrip().splitlines()[-15:]))
    warn(f"pitfalls: {message}")


def run(
    recipe_id: str = typer.Argument(..., metavar="ID", help="Recipe id, alias or unique prefix."),
    device: str = DEVICE_OPTION,
    timeout: float = TIMEOUT_OPTION,
    as_json: bool = typer.Option(False, "--json", help="Print one strict JSON object."),
    no_plot: bool = typer.Option(
        False, "--no-plot", help="Draw no charts (they are drawn only on a colour terminal)."
    ),
    python: Optional[str] = PYTHON_OPTION,
    lang: Optional[str] = LANG_OPTION,
) -> None:
    """Run a recipe: watch the pitfall happen, then the fix hold, on your device and torch.

    The snippet runs in a child process. Claims (one side's evidence), invariants
    (`side = "both"`: checked on each side, never counted) and context (observations nothing
    checks) are shown apart. Exit codes: 0 reproduced and fixed; 1 the claim, or an
    invariant, did not hold here; 2 usage error; 3 device or torch not available; 4 the
    snippet failed (raised, crashed, was killed or timed out).
    """
    # lazy: the runner only for what runs snippets
    from pitfalls.runner import RunnerUnavailable, run_recipe

    lang = language(lang)
    _check_device(device, lang)
    _check_timeout(timeout, lang)
    recipe = resolve(recipe_id, lang)
    _prepare_output([recipe], not as_json and not plain_output(), not no_plot)
    pool = _start_pool(python, lang, timeout)
    ran = False
    try:
        with _status(t("run.running", lang, id=recipe.id, device=device)):
            result = run_recipe(recipe, device, timeout, pool=pool)
        ran = True
    except RunnerUnavailable as err:
        _unavailable(err, pool.python, lang)
    except KeyboardInterrupt:
        pool.close()
        interrupted(lang)
    finally:
        pool.close(wait=not ran)  # after a run, the server exits while the result is printed
    try:
        if result.error and result.error.get("kind") == "device_unavailable":
            available = ", ".join(result.available_devices) or "cpu"
            reason = result.error.get("message", "")
            message = t(
                "err.device_unavailable", lang, device=device, reason=reason, available=available
            )
            fail(message, 3)
        if result.error and result.error.get("kind") == "requirement_missing":
            fail(f"{recipe.id}: {result.error.get('message', '')}", 3)
        _print_result(result, lang, as_json, plot=not no_plot)
    finally:
        pool.close()
    raise typer.Exit(result.exit_code)


def verify(
    recipe_ids: Optional[list[str]] = typer.Argument(
        None, metavar="[IDS]...", help="Only these recipes (default: all)."
    ),
    device: str = DEVICE_OPTION,
    tag: Optional[str] = typer.Option(None, "--tag", "-t", help="Only recipes with this tag."),
    skip_slow: bool = typer.Option(
        False,
        "--skip-slow",
        help="Leave out the recipes marked `slow` in recipe.toml (they are not run, not listed).",
    ),
    jobs: Optional[int] = typer.Option(
        None, "--jobs", "-j", help="Recipes run at once [default: usable CPUs; 1 per GPU]."
    ),
    timeout: float = typer.Option(120.0, "--timeout", help="Seconds allowed per recipe."),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list of run results."),
    junit: Optional[str] = typer.Option(
        None, "--junit", metavar="FILE", help="Also write JUnit XML for CI systems."
    ),
    python: Optional[str] = PYTHON_OPTION,
    lang: Optional[str] = LANG_OPTION,
) -> None:
    """Check every recipe's claim (or the chosen ones) on your device and torch.

    torch is imported once; each recipe still runs in its own process. Recipes that do not
    declare the device are skipped. After the run each claim is also applied to the other
    side's observations: a claim that holds there too, or a side with no claim that fails
    there, is a finding (it does not tell problem from fix). Exit codes: 0 all claims held,
    with no finding; 1 a claim or an invariant did not hold, or there is a finding; 3 the
    device or torch is not available; 4 a recipe failed to run.
    """
    # lazy: the runner only for what runs snippets
    from pitfalls.runner import DeviceUnavailable, RunnerUnavailable
    from pitfalls.runner import verify as verify_all

    lang = language(lang)
    _check_device(device, lang)
    _check_timeout(timeout, lang)
    if jobs is not None and jobs < 1:
        fail(t("err.bad_jobs", lang), 2)
    if junit:
        _check_junit_path(junit)
    catalogue = registry()
    recipes = [resolve(word, lang) for word in recipe_ids] if recipe_ids else list(catalogue)
    if tag:
        recipes = [r for r in recipes if tag.lower() in (x.lower() for x in r.tags)]
        if not recipes:
            fail(t("err.no_tag", lang, tag=tag), 1)
    if skip_slow:
        recipes = [r for r in recipes if not r.slow]
        if not recipes:
            fail(t("err.all_slow", lang), 1)
    recipes = list({r.id: r for r in recipes}.values())
    _prepare_output(recipes, not as_json and not plain_output(), plot=False)
    pool = _start_pool(python, lang, timeout)
    progress = _progress(len(recipes), lang)
    ran = False
    try:
        with progress or nullcontext():
            task = (
                progress.add_task(t("verify.progress", lang), total=len(recipes))
                if (progress)
                else None
            )

            def advance(result: RunResult) -> None:
                if progress is not None:
                    progress.update(task, advance=1, description=result.recipe.id)

            report = verify_all(recipes, device, jobs, timeout, on_result=advance, pool=pool)
        ran = True
    except DeviceUnavailable as err:
        available = ", ".join(err.available) or "cpu"
        fail(
            t(
                "err.device_unavailable",
                lang,
                device=device,
                reason=err.reason,
                available=available,
            ),
            3,
        )
    except RunnerUnavailable as err:
        _unavailable(err, pool.python, lang)
    except KeyboardInterrupt:
        pool.close()
        interrupted(lang)
    finally:
        pool.close(wait=not ran)  # after a run, the server exits while the report is printed
    try:
        if as_json:
            data = [r.to_dict() for r in report.results]
            echo(json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False))
        else:
            _print_report(report, lang)
        if junit:  # after the report, so that a failed write does not lose it
            sys.stdout.flush()
            write_junit(report, junit)
    finally:
        pool.close()
    raise typer.Exit(report.exit_code)


def _check_junit_path(path: str) -> None:
    """Exit 2 before running anything when --junit names a folder or an absent folder."""
    # lazy: standard library only this path needs, kept off start-up
    import os

    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path) or not os.path.isdir(folder):
        reason = "Is a directory" if os.path.isdir(path) else f"no folder {folder}"
        fail(f"cannot write JUnit XML to {path}: {reason}", 2)


def _progress(total: int, lang: str) -> Any:
    if plain_output() or not sys.stderr.isatty():
        return None
    # lazy: Rich loads only when something is drawn
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=console(stderr=True),
        transient=True,
    )


def failure_reason(result: RunResult, lang: str) -> str:
    """Why a recipe did not hold, in a few words."""
    if result.skipped:
        return result.skipped
    if result.error:
        return f"{result.error.get('kind')}: {result.error.get('message', '')}"
    # lazy: rendering (and Rich) only when printing for a terminal
    from pitfalls.render.results import check_label

    failed = [c for c in result.checks if c.applies and not c.holds]
    return "; ".join(f"{check_label(c, lang)}: {c.expectation.describe()}" for c in failed[:3])


def _print_report(report: VerifyReport, lang: str) -> None:
    # lazy: rendering (and Rich) only when printing for a terminal
    from pitfalls.render.results import mark, verify_summary

    summary = verify_summary(report, lang)
    env = report.environment
    heading = f"{t('verify.title', lang, device=report.device)} · torch {env.get('torch')}"
    if plain_output():
        for r in report.results:
            state = "skipped" if r.skipped else r.status
            echo(
                "\t".join(
                    [
                        r.recipe.id,
                        state,
                        "-" if r.skipped else mark(r.reproduced),
                        "-" if r.skipped else mark(r.fixed),
                        f"{r.duration:.2f}s",
                        "; ".join(
                            ([] if r.status == "held" else [failure_reason(r, lang)])
                            + [f.message(lang) for f in r.findings or []]
                        ),
                    ]
                )
            )
        echo(f"{heading}\t{summary}")
        return
    # lazy: Rich loads only when something is drawn
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=heading, show_edge=False, pad_edge=False)
    table.add_column(t("verify.col.recipe", lang), style="bold cyan", no_wrap=True)
    table.add_column(t("run.reproduced", lang), justify="center")
    table.add_column(t("run.fixed", lang), justify="center")
    table.add_column(t("verify.col.time", lang), justify="right")
    table.add_column(t("verify.col.reason", lang), overflow="fold")
    for r in report.results:
        if r.skipped:
            table.add_row(r.recipe.id, "-", "-", "", f"[yellow]{escape(r.skipped)}[/]")
            continue

        def cell(ok: bool) -> str:
            return f"[green]{mark(ok)}[/]" if ok else f"[bold red]{mark(ok)}[/]"

        reason = "" if r.status == "held" else f"[red]{escape(failure_reason(r, lang))}[/]"
        table.add_row(r.recipe.id, cell(r.reproduced), cell(r.fixed), f"{r.duration:.2f}s", reason)
    out = console()
    out.print(table)
    flagged = report.with_findings()
    if flagged:
        out.print(t("verify.findings", lang), style="bold")
        for r in flagged:
            for finding in r.findings or []:
                out.print(
                    f"[bold cyan]{escape(r.recipe.id)}[/]: [red]{escape(finding.message(lang))}[/]"
                )
        summary += " · " + t("verify.findings_count", lang, n=len(flagged))
    style = "bold green" if report.exit_code == 0 else "bold red"
    out.print(summary, style=style)


def write_junit(report: VerifyReport, path: str) -> None:
    """Write the report as JUnit XML: one testcase per recipe."""
    # lazy: standard library only this path needs, kept off start-up
    import xml.etree.ElementTree as ET

    counts = report.counts()
    suite = ET.Element(
        "testsuite",
        name=f"pitfalls verify ({report.device})",
        tests=str(len(report.results)),
        failures=str(
            counts.get("claim_failed", 0) + sum(r.status == "held" for r in report.with_findings())
        ),
        errors=str(counts.get("error", 0) + counts.get("unavailable", 0)),
        skipped=str(counts.get("skipped", 0)),
        time=f"{sum(r.duration for r in report.results):.3f}",
    )
    for r in report.results:
        case = ET.SubElement(
            suite, "testcase", classname="pitfalls", name=r.recipe.id, time=f"{r.duration:.3f}"
        )
        found = "; ".join(f.message("en") for f in r.findings or [])
        if r.skipped:
            ET.SubElement(case, "skipped", message=r.skipped)
        elif r.status == "held" and found:
            failure = ET.SubElement(case, "failure", message=found)
            failure.text = json.dumps(r.to_dict(), indent=2, allow_nan=False)
        elif r.status == "claim_failed":
            failure = ET.SubElement(case, "failure", message=failure_reason(r, "en"))
            failure.text = json.dumps(r.to_dict(), indent=2, allow_nan=False)
        elif r.status in ("error", "unavailable"):
            error = ET.SubElement(case, "error", message=failure_reason(r, "en"))
            error.text = (r.error or {}).get("traceback") or r.output[-4000:]
    root = ET.Element("testsuites")
    root.append(suite)
    try:
        ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
    except OSError as err:
        fail(f"cannot write JUnit XML to {path}: {err.strerror}", 2)
