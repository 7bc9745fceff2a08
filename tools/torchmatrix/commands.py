"""The commands: `run` (verify every recipe on every release not yet recorded), `import` (rows from
a GPU machine) and `status`, and their command line."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from pitfalls.catalogue.checked import disagreements, revision
from pitfalls.catalogue.verdict import version_in_range
from torchmatrix import record as record_module
from torchmatrix.common import (
    DEFAULT_WORK,
    MIN_FREE_GB,
    RECORD,
    REPO,
    VERSIONS_FILE,
    InstallFailed,
    Stop,
    VersionSpec,
    public,
    read_versions,
    say,
)
from torchmatrix.envs import Env, _tail, communicate, discard, end_processes, find_uv, prepare
from torchmatrix.record import (
    _sort_key,
    catalogue,
    current_revisions,
    merge_rows,
    read_record,
    row_from_result,
)


def needed(
    version: str, ids: list[str], revisions: dict[str, str], record: dict[str, Any], force: bool
) -> list[str]:
    """The recipes still to run on `version` (CPU): those without a row of their current
    revision there."""
    if force:
        return list(ids)
    missing = []
    for recipe_id in ids:
        rows = record["recipes"].get(recipe_id, [])
        done = any(
            public(r["torch"]) == version
            and r.get("device") == "cpu"
            and r.get("revision") == revisions.get(recipe_id)
            for r in rows
        )
        if not done:
            missing.append(recipe_id)
    return missing


def verify(env: Env, ids: list[str], args: argparse.Namespace) -> list[dict[str, Any]]:
    """`pitfalls verify --json` of `ids` in `env`; raises InstallFailed when it cannot run."""
    log = args.work / "logs" / f"torch-{env.spec.version}.log"
    command = [
        sys.executable, "-m", "pitfalls", "verify", *ids,
        "--python", str(env.python), "--json", "--device", "cpu",
        "--jobs", str(args.jobs), "--timeout", str(args.timeout),
    ]  # fmt: skip
    run_env = {k: v for k, v in os.environ.items() if not k.startswith(("PITFALLS_", "PYTHON"))}
    run_env["PITFALLS_LANG"] = "en"
    if record_module.RECIPES != REPO / "recipes":
        run_env["PITFALLS_PATH"] = str(record_module.RECIPES)
    run_env["PYTHONPATH"] = str(REPO)
    with open(log, "a", encoding="utf-8") as handle:
        handle.write(f"\n$ {' '.join(command)}\n")
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=run_env, cwd=REPO,
        text=True, start_new_session=True,
    )  # fmt: skip
    stdout, stderr = communicate(process)
    with open(log, "a", encoding="utf-8") as handle:
        handle.write(stderr)
    # The whole output (tracebacks, observations) stays beside the log, to read a failure.
    log.with_suffix(".verify.json").write_text(stdout, encoding="utf-8")
    if process.returncode not in (0, 1, 4):
        raise InstallFailed(f"verify exited {process.returncode}: {_tail(stderr)}")
    try:
        results = json.loads(stdout)
    except ValueError:
        raise InstallFailed(f"verify printed no JSON: {_tail(stderr)}") from None
    return results


def cmd_run(args: argparse.Namespace) -> int:
    specs = read_versions(args.versions_file)
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {s.version for s in specs}
        if unknown:
            raise SystemExit(
                f"torch-matrix: not in {args.versions_file}: {', '.join(sorted(unknown))}"
            )
        specs = [s for s in specs if s.version in wanted]
    registry = catalogue()
    for problem in registry.problems:
        say(f"(not in the catalogue: {problem})")
    ids = sorted(registry.recipes)
    if args.recipes:
        wanted_ids = set(args.recipes.split(","))
        unknown = wanted_ids - set(ids)
        if unknown:
            raise SystemExit(f"torch-matrix: no such recipe: {', '.join(sorted(unknown))}")
        ids = [i for i in ids if i in wanted_ids]
    revisions = current_revisions(ids)
    record = read_record(args.record)
    plan = [(s, needed(s.version, ids, revisions, record, args.force)) for s in specs]
    for spec, todo in plan:
        state = f"{len(todo)} of {len(ids)} recipes to run" if todo else "recorded: skipped"
        say(f"torch {spec.version}: {state}")
    plan = [(s, todo) for s, todo in plan if todo]
    if args.dry_run or not plan:
        return 0
    args.work.mkdir(parents=True, exist_ok=True)
    for sub in ("envs", "cache", "logs", "constraints"):
        (args.work / sub).mkdir(exist_ok=True)
    uv = find_uv(args)
    failures: list[str] = []
    executor = ThreadPoolExecutor(1) if args.overlap else None
    pending: tuple[VersionSpec, Future] | None = None
    try:
        for index, (spec, todo) in enumerate(plan):
            if pending is not None and pending[0] is spec:
                env = pending[1].result()
            else:
                say(f"torch {spec.version}: installing")
                env = prepare(spec, args, uv)
            pending = None
            if index + 1 < len(plan) and executor is not None and not env.error:
                following = plan[index + 1][0]
                say(f"torch {following.version}: installing while {spec.version} runs")
                pending = (following, executor.submit(prepare, following, args, uv))
            try:
                if env.error:
                    raise InstallFailed(env.error)
                failures_here = run_version(env, todo, args)
                failures.extend(failures_here)
            except InstallFailed as err:
                say(f"torch {spec.version}: FAILED: {err}")
                failures.append(f"{spec.version}: {err}")
            finally:
                discard(env, args)
    except Stop as err:
        say(f"torch-matrix: {err}")
        failures.append(str(err))
        return 2
    except KeyboardInterrupt:
        say("\ntorch-matrix: interrupted; what ran is recorded, run again to resume")
        end_processes()
        return 130
    finally:
        if pending is not None:
            end_processes()
            with contextlib.suppress(Exception):
                discard(pending[1].result(), args)
        if executor is not None:
            executor.shutdown(wait=True)
        if failures:
            say("\nNot recorded:")
            for failure in failures:
                say(f"  {failure}")
    return 1 if failures else 0


def run_version(env: Env, todo: list[str], args: argparse.Namespace) -> list[str]:
    version = env.spec.version
    before = current_revisions(todo)
    started = time.monotonic()
    say(
        f"torch {version}: verifying {len(todo)} recipes (Python {env.versions.get('python')}, "
        f"NumPy {env.versions.get('numpy')})"
    )
    results = verify(env, [i for i in todo if i in before], args)
    after = current_revisions(todo)
    rows: dict[str, list[dict[str, Any]]] = {}
    changed, counts = [], {}
    for result in results:
        recipe_id = result.get("id")
        if recipe_id not in before:
            continue
        if not (result.get("revision") == before[recipe_id] == after.get(recipe_id)):
            changed.append(recipe_id)  # edited while it ran: which revision ran is unknown
            continue
        row = row_from_result(result, version, "torch-matrix", None)
        for name in ("python", "numpy"):  # a recipe skipped here never saw the environment
            row[name] = row[name] or env.versions.get(name)
        row["torch_build"] = row["torch_build"] or env.versions.get("torch")
        rows[recipe_id] = [row]
        counts[row["status"]] = counts.get(row["status"], 0) + 1
        if row["status"] in ("claim_failed", "error"):
            say(f"  {recipe_id}: {row['status']}: {_describe(row)}")
    merge_rows(args.record, rows)
    summary = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
    say(f"torch {version}: recorded {summary or 'nothing'} in {time.monotonic() - started:.0f} s")
    if changed:
        say(f"  not recorded, edited during the run: {', '.join(changed)}")
        return [f"{version}: edited during the run: {', '.join(changed)}"]
    return []


def _describe(row: dict[str, Any]) -> str:
    if row.get("failed"):
        return "; ".join(
            f"{f.get('side')}: {f.get('expectation')} (actual {json.dumps(f.get('actual'))})"
            for f in row["failed"]
        )
    return row.get("error") or row.get("reason") or ""


def cmd_import(args: argparse.Namespace) -> int:
    data = json.loads(Path(args.file).read_text(encoding="utf-8"))
    results = data if isinstance(data, list) else [data]
    revisions = current_revisions()
    rows: dict[str, list[dict[str, Any]]] = {}
    stale = []
    for result in results:
        recipe_id = result.get("id")
        if recipe_id not in revisions:
            say(f"skipped {recipe_id!r}: not in this catalogue")
            continue
        if not result.get("revision"):
            result["revision"] = revisions[recipe_id]
            stale.append(recipe_id)
        row = row_from_result(result, None, "import", args.device_name)
        if args.date:
            row["date"] = args.date
        rows.setdefault(recipe_id, []).append(row)
    if stale:
        say(
            f"{len(stale)} results carry no revision (an older pitfalls made them): recorded "
            "against this checkout's recipes"
        )
    count = merge_rows(args.record, rows)
    say(f"recorded {count} rows from {args.file}")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    record = read_record(args.record)
    registry = catalogue()
    versions = [s.version for s in read_versions(args.versions_file)]
    bad = 0
    say(f"{args.record.relative_to(REPO) if args.record.is_relative_to(REPO) else args.record}")
    per_version = dict.fromkeys(versions, 0)
    thin, wider, changes = [], [], []
    for recipe in registry:
        rows = record["recipes"].get(recipe.id, [])
        current = revision(recipe)
        fresh = [r for r in rows if r.get("revision") == current]
        cpu = sorted((r for r in fresh if r.get("device") == "cpu"), key=_sort_key)
        for row in cpu:
            if public(row["torch"]) in per_version:
                per_version[public(row["torch"])] += 1
        ran = [r for r in cpu if r["status"] != "skipped"]
        if len({public(r["torch"]) for r in cpu}) < args.min_versions:
            stale = len(rows) - len(fresh)
            thin.append(
                f"{recipe.id}: {len(cpu)} current CPU rows" + (f", {stale} stale" if stale else "")
            )
        for row in disagreements(recipe, rows, current):
            bad += 1
            say(
                f"DISAGREES {recipe.id} torch {row['torch']} ({row['device']}): {row['status']}: "
                f"{_describe(row)}  [declared torch {recipe.torch!r}]"
            )
        outside_held = [
            public(r["torch"])
            for r in ran
            if r["status"] == "held" and version_in_range(public(r["torch"]), recipe.torch) is False
        ]
        if outside_held:
            wider.append(
                f"{recipe.id}: declared {recipe.torch!r}, held on {', '.join(outside_held)}"
            )
        steps = []
        for row in ran:
            if not steps or steps[-1][0] != row["status"]:
                steps.append([row["status"], public(row["torch"]), public(row["torch"])])
            else:
                steps[-1][2] = public(row["torch"])
        if len(steps) > 1:
            text = " → ".join(f"{s} {a}" + (f"–{b}" if b != a else "") for s, a, b in steps)
            changes.append(f"{recipe.id} (declared {recipe.torch!r}): {text}")
    say("current CPU rows per version: " + ", ".join(f"{v} {n}" for v, n in per_version.items()))
    if thin:
        say(f"\nFewer than {args.min_versions} versions ({len(thin)} of {len(registry)}):")
        for line in thin:
            say(f"  {line}")
    if wider:
        say("\nHeld outside the declared range (the range could be wider):")
        for line in wider:
            say(f"  {line}")
    if args.changes and changes:
        say("\nChanged behaviour across versions (CPU):")
        for line in changes:
            say(f"  {line}")
    orphans = sorted(set(record["recipes"]) - set(registry.recipes))
    if orphans:
        say(f"\nRows of recipes not in the catalogue: {', '.join(orphans)}")
    if bad:
        say(f"\n{bad} rows disagree with the declared ranges")
    return 1 if bad else 0


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="torch-matrix",
        description="Run every recipe on every torch release in tools/torch-versions.txt "
        "and record where each claim held (recipes/checked.json).",
    )
    top.add_argument(
        "--record", type=Path, default=RECORD, help="the record file (default: %(default)s)"
    )
    top.add_argument("--versions-file", type=Path, default=VERSIONS_FILE)
    sub = top.add_subparsers(dest="command")

    run = sub.add_parser("run", help="install each torch and verify the catalogue (the default)")
    run.add_argument("--only", help="only these versions, comma-separated (2.6.0,2.7.1)")
    run.add_argument("--recipes", help="only these recipe ids, comma-separated")
    run.add_argument("--force", action="store_true", help="run again what is already recorded")
    run.add_argument("--keep", action="store_true", help="keep each environment and its cache")
    run.add_argument(
        "--work", type=Path, default=DEFAULT_WORK, help="where environments go (%(default)s)"
    )
    run.add_argument(
        "--min-free-gb", type=float, default=MIN_FREE_GB, help="stop below this (%(default)s)"
    )
    run.add_argument("--jobs", type=int, default=2, help="recipes at a time (%(default)s)")
    run.add_argument("--timeout", type=float, default=180, help="seconds per recipe (%(default)s)")
    run.add_argument(
        "--no-overlap",
        dest="overlap",
        action="store_false",
        help="do not install the next version while one runs (one env at a time)",
    )
    run.add_argument("--uv", help="the uv executable (default: PATH, else installed from PyPI)")
    run.add_argument("--index-url", help="a package index for uv (default: PyPI)")
    run.add_argument(
        "--python-for",
        action="append",
        default=[],
        metavar="X.Y=PATH",
        help="the interpreter to use for Python X.Y",
    )
    run.add_argument("--dry-run", action="store_true", help="say what would run, run nothing")

    imp = sub.add_parser("import", help="record a `pitfalls verify --json` made elsewhere")
    imp.add_argument("file")
    imp.add_argument("--device-name", help="the device's name, e.g. H200 (default: as reported)")
    imp.add_argument("--date", help="the date of that run, YYYY-MM-DD (default: today)")

    status = sub.add_parser("status", help="what the record covers, and where it disagrees")
    status.add_argument(
        "--changes", action="store_true", help="list status changes across versions"
    )
    status.add_argument("--min-versions", type=int, default=12)
    return top


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("run", "import", "status", "-h", "--help"):
        # `run` is the default; top-level options may come first.
        split = next((i for i, a in enumerate(argv) if a in ("run", "import", "status")), None)
        if split is None:
            argv = [*argv[: _top_options(argv)], "run", *argv[_top_options(argv) :]]
    args = parser().parse_args(argv)
    record_module.RECIPES = args.record.resolve().parent
    # `kill` (or a batch system) ends the run the way Ctrl-C does: children ended, envs gone.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:  # started in the background
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if args.command == "import":
        return cmd_import(args)
    if args.command == "status":
        return cmd_status(args)
    overrides = {}
    for item in args.python_for:
        minor, _, path = item.partition("=")
        overrides[minor] = path
    args.python_for = overrides
    args.work = args.work.resolve()
    return cmd_run(args)


def _top_options(argv: list[str]) -> int:
    """How many leading words are top-level options (--record F, --versions-file F)."""
    index = 0
    while index < len(argv) and argv[index] in ("--record", "--versions-file"):
        index += 2
    return index
