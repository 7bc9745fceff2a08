"""Regression tests for what a red-team pass broke: odd recipes, odd snippets, odd input.

Each test names the input that used to crash (a traceback), hang, or answer misleadingly, and
asserts the documented exit code and a one-line message instead.
"""

from __future__ import annotations

import json
import marshal
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import FIXTURES, ROBUST, assert_no_traceback, needs_torch, run_cli, wait_gone
from pitfalls.catalogue.cache import CACHE_VERSION

REDTEAM = FIXTURES / "redteam"
START_METHODS = ["fork", "spawn"] if sys.platform.startswith("linux") else ["spawn"]


def run_redteam(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    result = run_cli(*args, env={"PITFALLS_PATH": str(REDTEAM), **env})
    assert_no_traceback(result.stderr if "--json" in args else result.stdout + result.stderr)
    return result


# -- recipe files that are not UTF-8, or not files ------------------------------------------


@pytest.mark.parametrize(
    "args",
    [["show", "rt-not-utf8"], ["show", "rt-not-utf8", "--json"], ["show", "rt-not-utf8", "--code"]],
)
def test_prose_and_snippet_that_are_not_utf8_still_show(args: list[str]) -> None:
    result = run_redteam(*args)
    assert result.returncode == 0, result.stderr
    assert "\ufffd" in result.stdout  # the bad bytes, shown as replacement characters


def test_search_reads_prose_that_is_not_utf8() -> None:
    # The words are found in the undecodable Symptom section; a fixture with no questions is
    # not a confident answer, so --json shows the ranking whatever the exit code.
    result = run_redteam("search", "latin", "bytes", "--json")
    assert result.returncode in (0, 1), result.stderr
    assert json.loads(result.stdout)[0]["id"] == "rt-not-utf8"


def test_a_snippet_that_cannot_be_read_is_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "rt-snippet-folder"
    shutil.copytree(ROBUST / "t-ok", folder)
    text = (folder / "recipe.toml").read_text(encoding="utf-8").replace("t-ok", folder.name)
    (folder / "recipe.toml").write_text(text, encoding="utf-8")
    (folder / "snippet.py").unlink()
    (folder / "snippet.py").mkdir()  # a folder where the snippet should be
    for args in (["show", folder.name], ["show", folder.name, "--code"]):
        result = run_cli(*args, env={"PITFALLS_PATH": str(tmp_path)})
        assert_no_traceback(result.stderr)
        assert result.returncode == 1
        assert result.stderr.strip().splitlines() == [
            f"pitfalls: cannot read {folder / 'snippet.py'}: not a regular file"
        ]


# -- recipe.toml values of the wrong type ----------------------------------------------------


@pytest.mark.parametrize(
    ("recipe_id", "reason"),
    [
        ("rt-title-table", "`title.en` must be a string"),
        ("rt-raises-int", "`raises.type` must be a string or a list of strings"),
        ("rt-tol-string", "`rel_tol` must be a number >= 0"),
        ("rt-date-value", "`equals` needs a number, bool, string or list"),
    ],
)
def test_wrong_types_in_recipe_toml_are_load_problems(recipe_id: str, reason: str) -> None:
    listed = run_redteam("list")
    assert listed.returncode == 0
    assert f"{recipe_id}: " in listed.stderr and reason in listed.stderr
    assert f"\n{recipe_id}\t" not in "\n" + listed.stdout
    # Never loaded, so running it is an unknown recipe, not a crash halfway through a run.
    assert run_redteam("run", recipe_id, "--device", "cpu").returncode == 2
    linted = run_redteam("lint", str(REDTEAM / recipe_id))
    assert linted.returncode == 1
    assert reason.split("`")[1] in linted.stdout  # lint names the key too


# -- snippets that end themselves or break their own streams ---------------------------------


@needs_torch
@pytest.mark.parametrize("start_method", START_METHODS)
@pytest.mark.parametrize(
    ("recipe_id", "message"),
    [("rt-sys-exit", "SystemExit: 0"), ("rt-keyboard-interrupt", "KeyboardInterrupt")],
)
def test_sys_exit_or_keyboard_interrupt_in_a_snippet_is_its_error(
    recipe_id: str, message: str, start_method: str
) -> None:
    result = run_redteam(
        "run", recipe_id, "--device", "cpu", "--json", PITFALLS_START_METHOD=start_method
    )
    assert result.returncode == 4  # the snippet failed; not 130, not a runner crash
    error = json.loads(result.stdout)["error"]
    assert error["kind"] == "exception"
    assert error["stage"] == "problem"
    assert error["message"].startswith(message)
    assert "runner/child" not in error["traceback"]  # no frame of the runner itself


@needs_torch
def test_observations_nested_too_deeply_exit_4_clearly() -> None:
    result = run_redteam("run", "rt-deep-observation", "--device", "cpu")
    assert result.returncode == 4
    assert "problem() observation 'deep' is nested too deeply to report" in result.stderr


@needs_torch
@pytest.mark.parametrize("start_method", START_METHODS)
def test_a_snippet_that_closes_its_stdout_still_reports(start_method: str) -> None:
    result = run_redteam(
        "run", "rt-closes-stdout", "--device", "cpu", PITFALLS_START_METHOD=start_method
    )
    assert result.returncode == 0, result.stdout + result.stderr


# -- command-line input --------------------------------------------------------------------


@pytest.mark.parametrize("device", ["cpu\n", "cuda:0\n"])
def test_a_device_name_with_a_trailing_newline_is_a_usage_error(device: str) -> None:
    result = run_redteam("run", "rt-sys-exit", "--device", device)
    assert result.returncode == 2
    assert "is not a device name" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@needs_torch
def test_a_tiny_verify_timeout_times_out_recipes_not_the_device_probe() -> None:
    result = run_cli(
        "verify",
        "t-ok",
        "--device",
        "cpu",
        "--timeout",
        "0.01",
        env={"PITFALLS_PATH": str(ROBUST), "PITFALLS_START_METHOD": "spawn"},
    )
    assert_no_traceback(result.stdout + result.stderr)
    assert result.returncode == 4, result.stderr  # not 3, "the device probe failed"
    assert "timed out after 0.01 s" in result.stdout


def test_junit_to_a_folder_fails_before_running_anything(tmp_path: Path) -> None:
    started = time.monotonic()
    for target in (tmp_path, tmp_path / "missing" / "report.xml"):
        result = run_cli(
            "verify", "t-ok", "--junit", str(target), env={"PITFALLS_PATH": str(ROBUST)}
        )
        assert_no_traceback(result.stderr)
        assert result.returncode == 2
        assert result.stderr.strip().startswith(f"pitfalls: cannot write JUnit XML to {target}")
        assert result.stdout == ""
    assert time.monotonic() - started < 60


@needs_torch
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_junit_write_that_fails_keeps_the_report() -> None:
    result = run_cli(
        "verify",
        "t-ok",
        "--device",
        "cpu",
        "--junit",
        "/dev/full",
        env={"PITFALLS_PATH": str(ROBUST)},
    )
    assert_no_traceback(result.stderr)
    assert result.returncode == 2
    assert result.stdout.startswith("t-ok\theld\t")  # the verify results were not lost
    assert "cannot write JUnit XML to /dev/full" in result.stderr


@needs_torch
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork server: Linux")
def test_an_interpreter_that_never_answers_is_given_up_on(tmp_path: Path) -> None:
    from pitfalls.runner import ProcessPool, RunnerUnavailable

    pidfile = tmp_path / "pid"
    fake = tmp_path / "python"
    fake.write_text(f"#!/bin/sh\necho $$ > {pidfile}\nexec sleep 600\n")
    fake.chmod(0o755)
    pool = ProcessPool(python=str(fake), start_method="fork")
    started = time.monotonic()
    with pytest.raises(RunnerUnavailable, match="did not start the runner within 1 s"):
        pool.start(timeout=1)
    assert time.monotonic() - started < 10
    assert wait_gone(int(pidfile.read_text())), "the unanswering interpreter survived"


# -- the metadata cache --------------------------------------------------------------------


@pytest.mark.parametrize(
    "entries",
    [
        [1, 2],
        {"rt-not-utf8": 5},
        {"rt-not-utf8": {"key": None, "recipe": {}}},
        {"rt-not-utf8": {"key": "any", "recipe": {"id": 3}}},
    ],
)
def test_a_cache_file_of_the_wrong_shape_is_a_miss(tmp_path: Path, entries: object) -> None:
    env = {"XDG_CACHE_HOME": str(tmp_path), "PITFALLS_PATH": str(REDTEAM)}
    assert run_cli("list", env=env).returncode == 0  # writes the cache files
    files = list((tmp_path / "pitfalls").glob("recipes-*.marshal"))
    assert files
    for file in files:
        if isinstance(entries, dict) and any(isinstance(v, dict) for v in entries.values()):
            # Keep the real key, so that the damaged entry is the one looked up.
            real = marshal.loads(file.read_bytes())["entries"]
            damaged = {
                name: {**value, "key": real[name]["key"]} if name in real else value
                for name, value in entries.items()
            }
            file.write_bytes(
                marshal.dumps({"version": CACHE_VERSION, "entries": {**real, **damaged}})
            )
        else:
            file.write_bytes(marshal.dumps({"version": CACHE_VERSION, "entries": entries}))
    result = run_cli("list", env=env)
    assert_no_traceback(result.stdout + result.stderr)
    assert result.returncode == 0
    assert "rt-not-utf8\tTest recipe rt-not-utf8" in result.stdout


# -- special files on PITFALLS_PATH --------------------------------------------------------


def _copy_recipe(parent: Path, recipe_id: str) -> Path:
    folder = parent / recipe_id
    shutil.copytree(ROBUST / "t-ok", folder)
    text = (folder / "recipe.toml").read_text(encoding="utf-8").replace("t-ok", recipe_id)
    (folder / "recipe.toml").write_text(text, encoding="utf-8")
    return folder


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifos_and_symlink_loops_on_pitfalls_path_neither_hang_nor_crash(tmp_path: Path) -> None:
    toml_fifo = _copy_recipe(tmp_path, "rt-toml-fifo")
    (toml_fifo / "recipe.toml").unlink()
    os.mkfifo(toml_fifo / "recipe.toml")  # reading it would block forever
    snippet_fifo = _copy_recipe(tmp_path, "rt-snippet-fifo")
    (snippet_fifo / "snippet.py").unlink()
    os.mkfifo(snippet_fifo / "snippet.py")
    (tmp_path / "rt-loop").symlink_to(tmp_path / "rt-loop")  # ELOOP on every stat
    env = {"PITFALLS_PATH": str(tmp_path)}
    listed = run_cli("list", env=env, timeout=60)
    assert_no_traceback(listed.stdout + listed.stderr)
    assert listed.returncode == 0
    assert f"{toml_fifo}: recipe.toml is not a regular file" in listed.stderr
    shown = run_cli("show", "rt-snippet-fifo", env=env, timeout=60)
    assert_no_traceback(shown.stderr)
    assert shown.returncode == 1
    assert "snippet.py: not a regular file" in shown.stderr
    linted = run_cli("lint", str(toml_fifo), str(snippet_fifo), timeout=60)
    assert_no_traceback(linted.stdout + linted.stderr)
    assert linted.returncode == 1


@needs_torch
def test_a_snippet_that_kills_the_fork_server_is_a_crash_and_the_rest_still_run() -> None:
    result = run_redteam(
        "verify", "rt-kills-server", "rt-closes-stdout", "--device", "cpu", "--jobs", "1", "--json"
    )
    assert result.returncode == 4
    by_id = {r["id"]: r for r in json.loads(result.stdout)}
    assert by_id["rt-kills-server"]["status"] == "error"
    assert by_id["rt-kills-server"]["error"]["kind"] == "crash"
    assert "the runner process died" in by_id["rt-kills-server"]["error"]["message"]
    assert by_id["rt-closes-stdout"]["status"] == "held"  # the pool carried on without it


@needs_torch
def test_os_exit_is_reported_without_the_runners_own_markers() -> None:
    result = run_redteam("run", "rt-os-exit", "--device", "cpu")
    assert result.returncode == 4
    line = result.stderr.strip().splitlines()[-1]
    assert "exited with code 3 before reporting a result" in line
    assert "---" not in line
