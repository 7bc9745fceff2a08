"""Reaching definitions: which bindings of a name can reach a use of it.

The checker binds names in source order as it walks, which is right for straight-line code
but not for what a name *can* hold: inside a loop a binding made further down reaches the
top of the body through the back edge, and after `if flag: model = DDP(model)` both the
wrapped and the bare model reach the next line. `Reaching(function)` runs the classic
may-analysis over the function's statements (branches joined, loops iterated to a fixed
point over their back edge, `break`/`continue` to the loop's exit and head, an exception
handler entered from anywhere in its `try`, `return` and `raise` ending a path) and records,
for every name read, the bindings that reach it. It is computed on demand, once per
function, by the rules that need it.

A binding is `(statement, value)`: the value is the assigned expression for `name = value`
(and `name: T = value`), None for anything else (a tuple target, a `for` or `with` target,
an augmented assignment, an import, a parameter).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

Binding = tuple[ast.AST, "ast.AST | None"]
State = dict[str, frozenset[Binding]]

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
# Python 3.10+ nodes, looked up so the module imports on 3.9.
_MATCH = getattr(ast, "Match", ())
_MATCH_NAMES = tuple(getattr(ast, n) for n in ("MatchAs", "MatchStar") if hasattr(ast, n))
_TRY = (ast.Try, *(getattr(ast, n) for n in ("TryStar",) if hasattr(ast, n)))
_MAX_ROUNDS = 4  # a loop's fixed point: bindings only grow, and few names chain


def _join(states: Iterable[State | None]) -> State | None:
    """The union of the bindings of states that are reachable (None: no path gets here)."""
    out: State | None = None
    for state in states:
        if state is None:
            continue
        if out is None:
            out = dict(state)
            continue
        for name, bindings in state.items():
            have = out.get(name)
            out[name] = bindings if have is None else have | bindings
    return out


class Reaching:
    """The bindings that reach each name read in one function (or module) body."""

    def __init__(self, function: ast.AST) -> None:
        self.uses: dict[int, frozenset[Binding]] = {}
        self._loops: list[tuple[list[State], list[State]]] = []  # (breaks, continues)
        state: State = {}
        args = getattr(function, "args", None)
        if isinstance(args, ast.arguments):
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                if arg is not None:
                    state[arg.arg] = frozenset({(arg, None)})
        body = getattr(function, "body", [])
        self._block(body if isinstance(body, list) else [], state)

    def at(self, name: ast.Name) -> frozenset[Binding] | None:
        """The bindings of this function that can reach the read `name`; None when the name
        is not bound in the function on any path to it (a global, a closure variable)."""
        return self.uses.get(id(name))

    # -- statements ------------------------------------------------------------------------
    def _block(self, body: list[ast.stmt], state: State | None) -> State | None:
        for stmt in body:
            if state is None:
                return None
            state = self._stmt(stmt, state)
        return state

    def _stmt(self, stmt: ast.stmt, state: State) -> State | None:  # noqa: C901 - one dispatch
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            value = stmt.value
            if value is not None:
                self._read(value, state)
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            single = len(targets) == 1 and isinstance(targets[0], ast.Name)
            for target in targets:
                self._read_target(target, state)
                self._bind_all(target, stmt, value if single else None, state)
            return state
        if isinstance(stmt, ast.AugAssign):
            self._read(stmt.value, state)
            if isinstance(stmt.target, ast.Name):
                self.uses[id(stmt.target)] = state.get(stmt.target.id, frozenset())
                state[stmt.target.id] = frozenset({(stmt, None)})
            else:
                self._read(stmt.target, state)
            return state
        if isinstance(stmt, ast.If):
            self._read(stmt.test, state)
            return _join([self._block(stmt.body, dict(state)), self._block(stmt.orelse, state)])
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
            return self._loop(stmt, state)
        if isinstance(stmt, _TRY):
            return self._try(stmt, state)  # type: ignore[arg-type]
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                self._read(item.context_expr, state)
                if item.optional_vars is not None:
                    self._bind_all(item.optional_vars, stmt, None, state)
            return self._block(stmt.body, state)
        if isinstance(stmt, (ast.Return, ast.Raise)):
            for child in ast.iter_child_nodes(stmt):
                self._read(child, state)
            return None
        if isinstance(stmt, ast.Break):
            if self._loops:
                self._loops[-1][0].append(dict(state))
            return None
        if isinstance(stmt, ast.Continue):
            if self._loops:
                self._loops[-1][1].append(dict(state))
            return None
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for decorator in stmt.decorator_list:
                self._read(decorator, state)
            state[stmt.name] = frozenset({(stmt, None)})
            return state
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for alias in stmt.names:
                name = alias.asname or alias.name.split(".", 1)[0]
                if name != "*":
                    state[name] = frozenset({(stmt, None)})
            return state
        if isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    state.pop(target.id, None)
                else:
                    self._read(target, state)
            return state
        if _MATCH and isinstance(stmt, _MATCH):
            self._read(stmt.subject, state)  # type: ignore[attr-defined]
            outs: list[State | None] = [state]
            for case in stmt.cases:  # type: ignore[attr-defined]
                branch = dict(state)
                self._bind_all(case.pattern, stmt, None, branch)
                outs.append(self._block(case.body, branch))
            return _join(outs)
        self._read(stmt, state)
        return state

    def _loop(self, stmt: ast.For | ast.AsyncFor | ast.While, state: State) -> State | None:
        head_read = stmt.iter if isinstance(stmt, (ast.For, ast.AsyncFor)) else stmt.test
        self._read(head_read, state)
        entry = dict(state)
        head: State | None = entry
        out: State | None = None
        for _ in range(_MAX_ROUNDS):
            self._loops.append(([], []))
            body_in = dict(head) if head is not None else {}
            if isinstance(stmt, (ast.For, ast.AsyncFor)):
                self._bind_all(stmt.target, stmt, None, body_in)
            end = self._block(stmt.body, body_in)
            breaks, continues = self._loops.pop()
            new_head = _join([entry, end, *continues])
            out = _join([new_head, *breaks])
            if new_head == head:
                break
            head = new_head
        if isinstance(stmt, ast.While):
            self._read(stmt.test, head or {})
        exit_state = _join([head])
        if stmt.orelse:
            exit_state = self._block(stmt.orelse, exit_state or {})
        return _join([exit_state, out]) if out is not None else exit_state

    def _try(self, stmt: ast.Try, state: State) -> State | None:
        seen: list[State | None] = [dict(state)]
        current: State | None = state
        for inner in stmt.body:
            if current is None:
                break
            current = self._stmt(inner, current)
            seen.append(dict(current) if current is not None else None)
        if stmt.orelse and current is not None:
            current = self._block(stmt.orelse, current)
        handler_in = _join(seen) or {}
        outs = [current]
        for handler in stmt.handlers:
            branch = dict(handler_in)
            if handler.type is not None:
                self._read(handler.type, branch)
            if handler.name:
                branch[handler.name] = frozenset({(handler, None)})
            outs.append(self._block(handler.body, branch))
        joined = _join(outs)
        if stmt.finalbody:
            return self._block(stmt.finalbody, joined if joined is not None else handler_in)
        return joined

    # -- expressions -----------------------------------------------------------------------
    def _read(self, node: ast.AST, state: State) -> None:
        """Record the bindings reaching each name read in `node` (not in nested functions;
        a comprehension's own variables are not the function's)."""
        stack = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, ast.Name):
                if isinstance(current.ctx, ast.Load) and current.id in state:
                    self.uses[id(current)] = state[current.id]
                continue
            if isinstance(current, _NESTED):
                continue
            if isinstance(current, ast.NamedExpr):
                stack.append(current.value)
                if isinstance(current.target, ast.Name):
                    state[current.target.id] = frozenset({(current, current.value)})
                continue
            if isinstance(current, _COMPREHENSIONS):
                local = {
                    n.id
                    for gen in current.generators  # type: ignore[attr-defined]
                    for n in ast.walk(gen.target)
                    if isinstance(n, ast.Name)
                }
                inner = {k: v for k, v in state.items() if k not in local}
                for child in ast.iter_child_nodes(current):
                    self._read(child, inner)
                continue
            stack.extend(ast.iter_child_nodes(current))

    def _read_target(self, target: ast.AST, state: State) -> None:
        """`x[i] = ...`, `x.a = ...` read `x`."""
        if isinstance(target, (ast.Attribute, ast.Subscript)):
            self._read(target, state)
        elif isinstance(target, (ast.Tuple, ast.List, ast.Starred)):
            for child in ast.iter_child_nodes(target):
                self._read_target(child, state)

    def _bind_all(
        self, target: ast.AST, stmt: ast.AST, value: ast.AST | None, state: State
    ) -> None:
        for node in ast.walk(target):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                state[node.id] = frozenset({(stmt, value)})
            elif _MATCH_NAMES and isinstance(node, _MATCH_NAMES) and node.name:  # type: ignore[attr-defined]
                state[node.name] = frozenset({(stmt, None)})  # type: ignore[attr-defined]
