"""The layers (pyproject.toml's import-linter contracts) hold, each of them can fail, and no
import cycle exists anywhere in `pitfalls/` and `tui/`, function-level imports included.

lint-imports runs through tools/lint-imports, which lays the tree out as it installs, so that
the TUI (`tui/`, installed as `pitfalls.tui`) is part of the graph the contracts are checked on.
"""

from __future__ import annotations

import ast
import importlib.machinery
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TOOL = REPO / "tools" / "lint-imports"

pytest.importorskip("importlinter")


def _tool():
    """tools/lint-imports as a module (a command, so it has no .py suffix)."""
    loader = importlib.machinery.SourceFileLoader("lint_imports_tool", str(TOOL))
    spec = importlib.util.spec_from_loader("lint_imports_tool", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def _copy_tree(dest: Path) -> Path:
    """The parts of the repository lint-imports reads, copied to `dest`."""
    ignore = shutil.ignore_patterns("__pycache__")
    for folder in ("pitfalls", "tui"):
        shutil.copytree(REPO / folder, dest / folder, ignore=ignore)
    shutil.copy(REPO / "pyproject.toml", dest / "pyproject.toml")
    return dest


def test_every_contract_is_kept() -> None:
    done = _lint(REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


# (file to add, its text, the contract it must break). Each file adds one import that only
# that contract forbids; the function-level one proves such imports are in the graph too.
VIOLATIONS = {
    "catalogue imports render": (
        "pitfalls/catalogue/_violation.py",
        "from pitfalls.render import page\n",
        "Layers",
    ),
    "i18n imports the catalogue, in a function": (
        "pitfalls/_violation_i18n.py",
        "",  # replaced below: i18n itself gains the import
        "Layers",
    ),
    "search imports the runner (siblings)": (
        "pitfalls/search/_violation.py",
        "import pitfalls.runner\n",
        "Layers",
    ),
    "render imports check (siblings)": (
        "pitfalls/render/_violation.py",
        "from pitfalls.check import driver\n",
        "independent",
    ),
    "a new top-level module outside every layer": (
        "pitfalls/unplaced.py",
        "X = 1\n",
        "Layers",
    ),
    "search imports rich": ("pitfalls/search/_violation.py", "import rich\n", "terminals"),
    "catalogue imports torch": (
        "pitfalls/catalogue/_violation.py",
        "def f():\n    import torch  # lazy: deliberate violation\n",
        "terminals",
    ),
    "check imports the runner": (
        "pitfalls/check/_violation.py",
        "from pitfalls.runner import ProcessPool\n",
        "runner",
    ),
    "tui imports the CLI": ("tui/_violation.py", "import pitfalls.cli.common\n", "CLI"),
    "the runner's child imports pitfalls": (
        "pitfalls/runner/child/_violation.py",
        "import pitfalls.i18n\n",
        "imports no pitfalls",
    ),
    "cycle between two modules of one package": (
        "pitfalls/check/_violation.py",
        "from pitfalls.check import driver\n",
        "cycle",
    ),
}


@pytest.mark.parametrize("name", sorted(VIOLATIONS))
def test_each_contract_fails_on_a_violation(tmp_path: Path, name: str) -> None:
    path, text, contract = VIOLATIONS[name]
    root = _copy_tree(tmp_path / "tree")
    if name.startswith("i18n"):
        target = root / "pitfalls" / "i18n.py"
        target.write_text(
            target.read_text() + "\n\ndef _f():\n    from pitfalls.catalogue import model\n"
        )
    else:
        target = root / path
        target.write_text(text)
    if name.startswith("cycle"):
        driver = root / "pitfalls" / "check" / "driver.py"
        driver.write_text(driver.read_text() + "\nfrom pitfalls.check import _violation\n")
    done = _lint(root)
    assert done.returncode != 0, done.stdout
    broken = [line for line in done.stdout.splitlines() if "BROKEN" in line]
    assert any(contract in line for line in broken), done.stdout
    # The untouched tree keeps every contract, so this failure is the violation's alone.


def test_the_tui_is_in_the_graph(tmp_path: Path) -> None:
    grimp = pytest.importorskip("grimp")
    tree = _tool().installed_layout(REPO, tmp_path)
    sys.path.insert(0, str(tree))
    saved = {
        name: module for name, module in sys.modules.items() if name.split(".")[0] == "pitfalls"
    }
    try:
        for name in saved:
            del sys.modules[name]
        graph = grimp.build_graph("pitfalls", cache_dir=None)
    finally:
        sys.path.remove(str(tree))
        sys.modules.update(saved)
    assert "pitfalls.tui.app" in graph.modules
    assert "pitfalls.tui.widgets.run_panel" in graph.modules
    assert "pitfalls.cli.tui_entry" in graph.find_modules_that_directly_import("pitfalls.tui.app")


# -- cycles, function-level imports included ------------------------------------------------


def _module_name(path: Path) -> str:
    rel = path.relative_to(REPO).with_suffix("")
    parts = list(rel.parts)
    if parts[0] == "tui":
        parts.insert(0, "pitfalls")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict[str, Path]:
    files = [*sorted((REPO / "pitfalls").rglob("*.py")), *sorted((REPO / "tui").rglob("*.py"))]
    return {_module_name(path): path for path in files}


def _imports(name: str, path: Path, modules: set[str]) -> list[tuple[str, int, bool]]:
    """(imported first-party module, line, whether inside a function) for every import
    statement of the module, wherever it stands (TYPE_CHECKING blocks excluded: they never
    run)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[tuple[str, int, bool]] = []

    def resolve(target: str) -> str | None:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        return target or None

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            nested = in_function or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
            )
            targets: list[str] = []
            if isinstance(child, ast.Import):
                targets = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    parts = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join([*parts, *([child.module] if child.module else [])])
                targets = [f"{base}.{alias.name}" for alias in child.names]
            for target in targets:
                resolved = resolve(target)
                if resolved is not None and resolved != name:
                    found.append((resolved, child.lineno, in_function))
            visit(child, nested)

    visit(tree, False)
    return found


def _graph() -> dict[str, set[str]]:
    sources = _sources()
    modules = set(sources)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in sources.items():
        for target, _, _ in _imports(name, path, modules):
            graph[name].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycles_even_through_function_level_imports() -> None:
    graph = _graph()
    assert "pitfalls.tui.app" in graph and "pitfalls.catalogue.model" in graph
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_function_level_cycle() -> None:
    graph = _graph()
    graph["pitfalls.catalogue.model"].add("pitfalls.catalogue.loader")  # as model.py once did
    assert ["pitfalls.catalogue.loader", "pitfalls.catalogue.model"] in [
        [m for m in cycle if m in ("pitfalls.catalogue.loader", "pitfalls.catalogue.model")]
        for cycle in _cycles(graph)
    ]


def _lazy_reason(lines: list[str], lineno: int) -> bool:
    """Whether the import at `lineno` (1-based) carries `# lazy: <reason>` on its own line(s)
    or on the comment line just above the run of imports it belongs to."""
    at = lineno - 1
    if "# lazy:" in lines[at]:
        return True
    while at > 0:
        above = lines[at - 1].strip()
        if above.startswith("# lazy:"):
            return len(above) > len("# lazy:") + 3
        if above.startswith(("import ", "from ")) or above in (")",) or above.endswith(","):
            at -= 1  # another import of the same run (or a wrapped one)
            continue
        return False
    return False


def test_function_level_imports_carry_a_lazy_reason() -> None:
    sources = _sources()
    modules = set(sources)
    missing = []
    for path in sources.values():
        lines = path.read_text(encoding="utf-8").splitlines()
        tree = ast.parse("\n".join(lines))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for child in ast.walk(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)) and not _lazy_reason(
                    lines, child.lineno
                ):
                    missing.append(f"{path.relative_to(REPO)}:{child.lineno}")
    assert sorted(set(missing)) == [], "function-level imports without `# lazy: <reason>`"
    assert modules  # the scan saw the sources


def test_every_package_is_listed_for_the_wheel() -> None:
    """pyproject.toml lists packages one by one (tui/ and recipes/ are mapped into pitfalls):
    a new subpackage left out would be missing from the wheel, and only a fresh install
    would show it."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib

    listed = set(
        tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {
        _module_name(init.parent / "__init__.py")
        for folder in ("pitfalls", "tui")
        for init in (REPO / folder).rglob("__init__.py")
    }
    assert found <= listed, sorted(found - listed)
    assert "pitfalls.recipes" in listed


def test_the_childs_contract_names_every_other_part() -> None:
    """The child's `forbidden` contract lists modules one by one (it cannot name `pitfalls`,
    which contains the child): a new part of the package must be added to it."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    contract = next(
        c
        for c in config["tool"]["importlinter"]["contracts"]
        if c.get("source_modules") == ["pitfalls.runner.child"]
    )
    parts = {name.split(".")[1] for name in _sources() if name.count(".") >= 1}
    parts -= {"runner", "__main__"}
    runner = {
        ".".join(name.split(".")[:3])
        for name in _sources()
        if name.startswith("pitfalls.runner.") and not name.startswith("pitfalls.runner.child")
    }
    assert {f"pitfalls.{part}" for part in parts} | runner == set(contract["forbidden_modules"])
