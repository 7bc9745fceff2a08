"""PIT026's reading of snippet.py: which observations are fixed before anything runs.

An observation that problem() or fix() returns as a literal (`"called": True`), or computes
from literals alone with no torch or NumPy call on the way (`"bad": 1 < 2`, `"shape": [2, 3]`,
`n = 4` then `"steps": n * 2`, `"finite": math.isfinite(1.0)`), has the same value on every
torch: an expectation on it cannot fail. Only what the AST shows is judged, conservatively:

- the value must come from a `return {...}` dict display directly in problem() or fix();
- a name counts only when it is bound exactly once, by a plain `name = <literal-only>`, in
  that function, or else once at module level and never in the function (a parameter, a loop
  target, `with ... as`, augmented assignment and so on make it unknown);
- calls count only to a few pure builtins (len, str, int, ...) and to the `math` module's
  functions, with literal-only arguments, and only when the module does not rebind the name.
  Any other call (torch, NumPy, a helper of the snippet) ends the analysis: unknown.

`None` alone is not reported: it never satisfies a comparison, so it is a placeholder.
"""

from __future__ import annotations

import ast
from pathlib import Path

LITERAL = "literal"  # the value is a literal display
COMPUTED = "computed"  # the value is computed from literals alone

PURE_BUILTINS = frozenset(
    {"len", "str", "int", "float", "bool", "abs", "round", "min", "max", "sum", "tuple", "list",
     "sorted", "repr", "divmod", "pow", "set", "frozenset", "dict", "all", "any", "chr", "ord",
     "hex", "oct", "bin", "format"}
)  # fmt: skip
PURE_MODULES = frozenset({"math", "operator", "string"})


class _Scope:
    """What the module and one function bind, to resolve names to literal-only values."""

    def __init__(self, module: ast.Module, function: ast.FunctionDef) -> None:
        self.module_counts = _binding_counts(module)
        self.local_counts = _binding_counts(function)
        self.module_values = _single_assignments(module.body, self.module_counts)
        self.local_values = _single_assignments(function.body, self.local_counts)
        self.modules = _imported_modules(module)
        self.parents = {
            child: parent for parent in ast.walk(module) for child in ast.iter_child_nodes(parent)
        }
        self.tree = module
        self.resolving: set[str] = set()

    def name_is_literal(self, name: str) -> bool:
        if name in self.resolving:  # a cycle: unknown
            return False
        if name in self.local_counts:
            value = self.local_values.get(name)
        else:
            value = self.module_values.get(name)
        if value is None or (_mutable(value) and self.mutated(name)):
            return False
        self.resolving.add(name)
        try:
            return literal_only(value, self)
        finally:
            self.resolving.discard(name)

    def mutated(self, name: str) -> bool:
        """Whether a use of `name` anywhere could change a list, dict or set bound to it: a
        method call or attribute on it, an item assigned or deleted, or it passed to a call
        that is not pure."""
        for node in ast.walk(self.tree):
            if not (isinstance(node, ast.Name) and node.id == name):
                continue
            parent = self.parents.get(node)
            if isinstance(parent, ast.Attribute):
                return True
            if isinstance(parent, ast.Subscript) and not isinstance(parent.ctx, ast.Load):
                return True
            if isinstance(parent, (ast.Call, ast.keyword)):
                call = parent if isinstance(parent, ast.Call) else self.parents.get(parent)
                if not (isinstance(call, ast.Call) and self.pure_call(call.func)):
                    return True
        return False

    def pure_call(self, func: ast.expr) -> bool:
        if isinstance(func, ast.Name):
            name = func.id
            return (
                name in PURE_BUILTINS
                and name not in self.local_counts
                and name not in self.module_counts
            )
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            base = func.value.id
            return (
                self.modules.get(base) in PURE_MODULES
                and base not in self.local_counts
                and self.module_counts.get(base) == 1
            )
        return False


def _mutable(value: ast.expr) -> bool:
    if isinstance(value, (ast.List, ast.Dict, ast.Set)):
        return True
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in ("list", "dict", "set", "sorted")
    )


def literal_only(node: ast.AST, scope: _Scope) -> bool:
    """Whether `node` evaluates to the same value on every run: literals and pure operations
    on them (see the module docstring)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return all(literal_only(e, scope) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and literal_only(k, scope) for k in node.keys) and all(
            literal_only(v, scope) for v in node.values
        )
    if isinstance(node, ast.BinOp):
        return literal_only(node.left, scope) and literal_only(node.right, scope)
    if isinstance(node, ast.UnaryOp):
        return literal_only(node.operand, scope)
    if isinstance(node, ast.BoolOp):
        return all(literal_only(v, scope) for v in node.values)
    if isinstance(node, ast.Compare):
        return literal_only(node.left, scope) and all(
            literal_only(c, scope) for c in node.comparators
        )
    if isinstance(node, ast.IfExp):
        return all(literal_only(n, scope) for n in (node.test, node.body, node.orelse))
    if isinstance(node, ast.JoinedStr):
        return all(literal_only(v, scope) for v in node.values)
    if isinstance(node, ast.FormattedValue):
        spec = node.format_spec
        return literal_only(node.value, scope) and (spec is None or literal_only(spec, scope))
    if isinstance(node, ast.Subscript):
        return literal_only(node.value, scope) and literal_only(node.slice, scope)
    if isinstance(node, ast.Slice):
        parts = (node.lower, node.upper, node.step)
        return all(p is None or literal_only(p, scope) for p in parts)
    if isinstance(node, ast.Name):
        return scope.name_is_literal(node.id)
    if isinstance(node, ast.Call):
        return (
            scope.pure_call(node.func)
            and all(literal_only(a, scope) for a in node.args)
            and all(literal_only(k.value, scope) for k in node.keywords)
        )
    return False


def _binding_counts(owner: ast.Module | ast.FunctionDef) -> dict[str, int]:
    """How many times each name is bound in `owner`'s own scope: parameters, assignment and
    loop targets, imports, nested definitions, `except ... as`, `global`/`nonlocal`."""
    counts: dict[str, int] = {}
    if isinstance(owner, ast.FunctionDef):
        args = owner.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None:
                counts[arg.arg] = counts.get(arg.arg, 0) + 1
    for node in _scope_nodes(owner):
        for name in _binding_names(node):
            counts[name] = counts.get(name, 0) + 1
    return counts


def _single_assignments(body: list[ast.stmt], counts: dict[str, int]) -> dict[str, ast.expr]:
    """Names bound exactly once in the scope, by a plain `name = value` statement directly
    in `body` (not in a branch or loop): name -> value."""
    values = {}
    for statement in body:
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            target, value = statement.targets[0].id, statement.value
        elif (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and statement.value is not None
        ):
            target, value = statement.target.id, statement.value
        else:
            continue
        if counts.get(target) == 1:
            values[target] = value
    return values


def _scope_nodes(owner: ast.AST) -> list[ast.AST]:
    """Every node of `owner`'s own scope (nested functions and classes excluded)."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = list(getattr(owner, "body", []))
    while stack:
        node = stack.pop()
        found.append(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return found


def _binding_names(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
        return [node.id]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    if isinstance(node, ast.ExceptHandler) and node.name:
        return [node.name]
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return list(node.names) * 2  # never a plain single binding
    return []


def _imported_modules(module: ast.Module) -> dict[str, str]:
    """Top-level `import math` / `import math as m`: the name bound -> the module."""
    found = {}
    for node in module.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if "." not in alias.name:
                    found[alias.asname or alias.name] = alias.name
    return found


def fixed_observations(snippet: Path) -> dict[tuple[str, str], str]:
    """(side, key) -> LITERAL or COMPUTED, for each observation problem()/fix() returns in a
    dict display whose value is fixed before anything runs."""
    try:
        if not snippet.is_file():  # missing, a folder, or a FIFO that would block
            return {}
        tree = ast.parse(snippet.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return {}
    found: dict[tuple[str, str], str] = {}
    for node in tree.body:
        if not (isinstance(node, ast.FunctionDef) and node.name in ("problem", "fix")):
            continue
        scope = _Scope(tree, node)
        for sub in _scope_nodes(node):
            if not (isinstance(sub, ast.Return) and isinstance(sub.value, ast.Dict)):
                continue
            for key, value in zip(sub.value.keys, sub.value.values):
                if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                    continue
                if isinstance(value, ast.Constant):
                    # None never satisfies a comparison: a placeholder, not a claim.
                    if value.value is not None:
                        found.setdefault((node.name, key.value), LITERAL)
                elif literal_only(value, scope):
                    found.setdefault((node.name, key.value), COMPUTED)
    return found
