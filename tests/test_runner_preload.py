"""The runner's preloaded fork server: forked from the main one, it imports what several
snippets share while the main server goes on running the others (issue 20)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from conftest import marked_processes, needs_torch
from pitfalls.runner.process import ProcessPool, Task

pytestmark = [
    needs_torch,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork server: Linux"),
]
SNIPPET = """
import os, sys

def problem(device):
    return {"server": os.getppid(), "wave": "wave" in sys.modules}

def fix(device):
    return {}
"""


def test_marked_tasks_run_in_the_preloaded_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = f"pitfalls-preload-{os.getpid()}"
    monkeypatch.setenv("PITFALLS_TEST_MARKER", marker)
    snippet = tmp_path / "snippet.py"
    snippet.write_text(SNIPPET, encoding="utf-8")
    tasks = [Task(i, f"t{i}", str(snippet), "cpu", 60) for i in range(6)]
    for task in tasks[::2]:
        task.preloaded = True
    pool = ProcessPool(start_method="fork")
    try:
        # `wave`: a module neither torch nor the runner imports; one that does not exist is
        # skipped (the snippet that needs it reports the ImportError itself).
        pool.preload(["wave", "no_such_module_anywhere"])
        outcomes = pool.run(tasks, jobs=2)
    finally:
        pool.close()
    servers = {True: set(), False: set()}
    for task, outcome in zip(tasks, outcomes):
        assert outcome.result and not outcome.result["error"], outcome.output
        observed = outcome.result["problem"]
        assert observed["wave"] is task.preloaded
        servers[task.preloaded].add(observed["server"])
    assert len(servers[True]) == len(servers[False]) == 1
    assert servers[True] != servers[False]
    assert not marked_processes(marker), "a server or a snippet outlived the pool"


def test_without_preload_every_task_runs_in_the_main_server(tmp_path: Path) -> None:
    snippet = tmp_path / "snippet.py"
    snippet.write_text(SNIPPET, encoding="utf-8")
    tasks = [Task(i, f"t{i}", str(snippet), "cpu", 60) for i in range(3)]
    tasks[0].preloaded = True  # nothing was preloaded: it runs in the main server
    with ProcessPool(start_method="fork") as pool:
        outcomes = pool.run(tasks, jobs=2)
    assert len({o.result["problem"]["server"] for o in outcomes}) == 1
    assert all(o.duration > 0 for o in outcomes)
