"""`pitfalls verify`: the whole catalogue, skips, jobs, JSON, JUnit and another interpreter."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import ROBUST, needs_torch, run_cli

ROBUST_ENV = {"PITFALLS_PATH": str(ROBUST)}
pytestmark = needs_torch


# The whole catalogue under one real `verify` is tests/test_recipes.py's `verified` fixture.


def test_verify_json_objects_match_run_json() -> None:
    verified = json.loads(run_cli("verify", "detach", "--device", "cpu", "--json").stdout)
    single = json.loads(run_cli("run", "detach", "--device", "cpu", "--json").stdout)
    # verify adds the discrimination findings (pitfalls.runner.discriminate); run does not.
    assert set(verified[0]) - {"findings"} == set(single)
    assert isinstance(verified[0]["findings"], list) and "findings" not in single
    assert verified[0]["problem"] == single["problem"]


def test_undeclared_device_is_skipped_not_failed() -> None:
    result = run_cli("verify", "t-ok", "t-cuda-only", "--device", "cpu", "--json", env=ROBUST_ENV)
    assert result.returncode == 0, result.stderr
    statuses = {r["id"]: r["status"] for r in json.loads(result.stdout)}
    assert statuses == {"t-ok": "held", "t-cuda-only": "skipped"}


def test_junit_xml(tmp_path: Path) -> None:
    junit = tmp_path / "report.xml"
    result = run_cli(
        "verify",
        "t-ok",
        "t-claim-fails",
        "t-raises",
        "t-cuda-only",
        "--device",
        "cpu",
        "--junit",
        str(junit),
        env=ROBUST_ENV,
    )
    assert result.returncode == 4
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("4", "1", "1")
    assert suite.get("skipped") == "1"
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert cases["t-claim-fails"].find("failure") is not None
    assert cases["t-raises"].find("error") is not None
    assert cases["t-cuda-only"].find("skipped") is not None
    assert list(cases["t-ok"]) == []


def test_plain_summary_table_names_the_reason() -> None:
    result = run_cli("verify", "t-ok", "t-claim-fails", "--device", "cpu", env=ROBUST_ENV)
    assert result.returncode == 1
    rows = {line.split("\t")[0]: line.split("\t") for line in result.stdout.splitlines()}
    assert rows["t-ok"][1] == "held"
    assert rows["t-claim-fails"][1] == "claim_failed"
    assert "fix: bad == false" in rows["t-claim-fails"][5]


def test_jobs_limit_threads_and_children_fork_their_workers() -> None:
    result = run_cli(
        "verify", "t-threads", "t-ok", "--device", "cpu", "--jobs", "2", "--json", env=ROBUST_ENV
    )
    assert result.returncode == 0, result.stderr
    by_id = {r["id"]: r for r in json.loads(result.stdout)}
    observed = by_id["t-threads"]["problem"]
    import os

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert observed["threads"] == max(1, cpus // 2)
    if sys.platform.startswith("linux"):
        # Forked from the torch-preloaded server, and DataLoader workers would be our children.
        assert observed["start_method"] == "fork"


def test_bad_jobs_is_a_usage_error() -> None:
    result = run_cli("verify", "--jobs", "0", "--device", "cpu")
    assert result.returncode == 2 and "--jobs" in result.stderr


def test_tag_selects_recipes() -> None:
    result = run_cli("verify", "--tag", "autograd", "--device", "cpu", "--json")
    assert result.returncode == 0, result.stderr
    ids = {r["id"] for r in json.loads(result.stdout)}
    assert "detach" in ids and "narrow" not in ids


def test_another_interpreter_via_python_and_env() -> None:
    by_flag = run_cli(
        "run", "t-ok", "--device", "cpu", "--python", sys.executable, "--json", env=ROBUST_ENV
    )
    assert by_flag.returncode == 0, by_flag.stderr
    assert json.loads(by_flag.stdout)["environment"]["python_executable"] == sys.executable
    by_env = run_cli(
        "verify",
        "t-ok",
        "--device",
        "cpu",
        "--json",
        env={**ROBUST_ENV, "PITFALLS_PYTHON": sys.executable},
    )
    assert by_env.returncode == 0, by_env.stderr


@pytest.mark.parametrize("start_method", ["spawn"])
def test_spawn_mode_verifies_too(start_method: str) -> None:
    result = run_cli(
        "verify",
        "t-ok",
        "t-claim-fails",
        "--device",
        "cpu",
        "--json",
        env={**ROBUST_ENV, "PITFALLS_START_METHOD": start_method},
    )
    assert result.returncode == 1
    statuses = {r["id"]: r["status"] for r in json.loads(result.stdout)}
    assert statuses == {"t-ok": "held", "t-claim-fails": "claim_failed"}
