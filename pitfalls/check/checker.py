"""The single pass over one file: a dispatch table from node types to the enabled rules.

Like pyflakes and ruff, the checker binds names as it walks (so a rule sees every assignment
made before the node it looks at) and defers function bodies until the whole module level
has been bound, so a function may use a loader or model defined below it.

This is the API a rule is written against (with kinds and scopes): the `check` and
`documents` decorators that register it, and the `Checker` it is handed. The rules import
it; the registry (registry.py) imports the rules. Just over 400 lines as one cohesive thing:
the walk and the helpers rules call on it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from pitfalls.catalogue.rule_table import RULES
from pitfalls.check.findings import Edit, Finding, Options, split_lines
from pitfalls.check.kinds import INT, MODULE
from pitfalls.check.scopes import ClassInfo, Scope, module_chains, statements
from pitfalls.check.semantic import SemanticModel

CheckFn = Callable[["Checker", Any], None]
# node type -> [(codes the function may report, function)], filled by the rule modules.
CHECKS: dict[type, list[tuple[tuple[str, ...], CheckFn]]] = {}
# code -> its documentation (ruff's sections), from the docstring of the function that checks it.
DOCS: dict[str, str] = {}
DOC_START = "## What it does"


def documents(*codes: str) -> Callable[[CheckFn], CheckFn]:
    """Declare that `fn`'s docstring documents `codes` (for helpers of a shared dispatcher)."""

    def register(fn: CheckFn) -> CheckFn:
        for code in codes:
            DOCS[code] = fn.__doc__ or ""
        return fn

    return register


def check(codes: str | tuple[str, ...], *node_types: type) -> Callable[[CheckFn], CheckFn]:
    """Register a rule function for `node_types`; it runs when any of `codes` is enabled."""
    wanted = (codes,) if isinstance(codes, str) else codes

    def register(fn: CheckFn) -> CheckFn:
        for node_type in node_types:
            CHECKS.setdefault(node_type, []).append((wanted, fn))
        if (fn.__doc__ or "").startswith(DOC_START):
            for code in wanted:
                DOCS.setdefault(code, fn.__doc__ or "")
        return fn

    return register


@dataclass
class _Deferred:
    node: ast.AST
    cls: ClassInfo | None
    scope: Scope


class Checker:
    """Walks one module once, binding names and calling the enabled rules per node type."""

    def __init__(self, text: str, tree: ast.Module, enabled: Iterable[str], options: Options):
        self.text = text
        self.tree = tree
        self.enabled = frozenset(enabled)
        self.options = options
        self.model = SemanticModel()
        self.model.source_of = self.source_lines
        self.model.module_scope.function = tree
        for stmt in tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.model.functions[stmt.name] = stmt
        self.findings: list[Finding] = []
        self.parents: list[ast.AST] = []
        self.loops: list[ast.AST] = []
        self.function: ast.AST | None = None
        self.cls: ClassInfo | None = None
        self._deferred: list[_Deferred] = []
        self._lines: list[str] | None = None
        self._line_starts: list[int] | None = None
        self._cache: dict[tuple[int, str], Any] = {}
        self._callee_node: ast.AST | None = None
        self._callee_name: str | None = None
        self.table: dict[type, list[CheckFn]] = {}
        for node_type, entries in CHECKS.items():
            fns = [fn for codes, fn in entries if self.enabled.intersection(codes)]
            if fns:
                self.table[node_type] = fns
        self._special: dict[type, Callable[[Any], None]] = {
            ast.Import: self._import,
            ast.ImportFrom: self._import,
            ast.Assign: self._assign,
            ast.AnnAssign: self._assign,
            ast.AugAssign: self._aug_assign,
            ast.For: self._for,
            ast.AsyncFor: self._for,
            ast.While: self._while,
            ast.FunctionDef: self._function,
            ast.AsyncFunctionDef: self._function,
            ast.Lambda: self._lambda,
            ast.ClassDef: self._class,
            ast.ListComp: self._comprehension,
            ast.SetComp: self._comprehension,
            ast.GeneratorExp: self._comprehension,
            ast.DictComp: self._comprehension,
            ast.Call: self._call,
            ast.NamedExpr: self._named_expr,
        }

    # -- driving ---------------------------------------------------------------------------
    def run(self) -> list[Finding]:
        for stmt in self.tree.body:
            self.visit(stmt)
        while self._deferred:
            pending, self._deferred = self._deferred, []
            for item in pending:
                self._function_body(item.node, item.cls, item.scope)
        return self.findings

    def visit(self, node: ast.AST) -> None:
        cls = node.__class__
        handlers = self.table.get(cls)
        if handlers is not None:
            for fn in handlers:
                fn(self, node)
        special = self._special.get(cls)
        if special is not None:
            special(node)
        elif cls not in _LEAVES:
            self._children(node)

    def _children(self, node: ast.AST) -> None:
        # Hand-rolled ast.iter_child_nodes: skips contexts and operators (no rule looks at
        # them), which is a third of all nodes.
        self.parents.append(node)
        visit = self.visit
        for name in _fields(node.__class__):
            value = getattr(node, name, None)
            if value is None:
                continue
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast.AST):
                        visit(item)
            elif isinstance(value, ast.AST):
                visit(value)
        self.parents.pop()

    def _visit_all(self, nodes: Iterable[ast.AST | None], parent: ast.AST) -> None:
        self.parents.append(parent)
        for node in nodes:
            if node is not None:
                self.visit(node)
        self.parents.pop()

    # -- statements that bind ------------------------------------------------------------
    def _import(self, node: ast.Import | ast.ImportFrom) -> None:
        self.model.bind_import(node)

    def _assign(self, node: ast.Assign | ast.AnnAssign) -> None:
        value = node.value
        self._visit_all([value], node)
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        self._visit_all(targets, node)
        kind = self.model.kind_of(value) if value is not None else None
        if isinstance(node, ast.AnnAssign):
            self._visit_all([node.annotation], node)
            kind = self.model.annotation_kind(node.annotation) or kind
        for target in targets:
            self.model.bind_target(target, kind, value)

    def _named_expr(self, node: ast.NamedExpr) -> None:
        self._visit_all([node.value], node)
        self.model.bind_target(node.target, self.model.kind_of(node.value), node.value)

    def _aug_assign(self, node: ast.AugAssign) -> None:
        self._children(node)
        if isinstance(node.target, ast.Name):
            found, before = self.model.scope.lookup(node.target.id)
            # `total = 0` then `total += loss`: the total is a tensor from now on.
            if before in (None, INT) and isinstance(node.op, ast.Add):
                added = self.model.kind_of(node.value)
                if added is not None and added.startswith("tensor"):
                    self.model.bind(node.target.id, added)

    def _for(self, node: ast.For | ast.AsyncFor) -> None:
        self._visit_all([node.iter], node)
        self.model.bind_loop(node.target, node.iter)
        self._visit_all([node.target], node)
        self.model.bind_back_edge(node.body)
        self.loops.append(node)
        self._visit_all(node.body, node)
        self.loops.pop()
        self._visit_all(node.orelse, node)

    def _while(self, node: ast.While) -> None:
        self.model.bind_back_edge(node.body)
        self._visit_all([node.test], node)
        self.loops.append(node)
        self._visit_all(node.body, node)
        self.loops.pop()
        self._visit_all(node.orelse, node)

    def _comprehension(self, node: ast.AST) -> None:
        self.parents.append(node)
        for generator in node.generators:  # type: ignore[attr-defined]
            self.visit(generator.iter)
            self.model.bind_loop(generator.target, generator.iter)
            for condition in generator.ifs:
                self.visit(condition)
        if isinstance(node, ast.DictComp):
            self.visit(node.key)
            self.visit(node.value)
        else:
            self.visit(node.elt)  # type: ignore[attr-defined]
        self.parents.pop()

    def _call(self, node: ast.Call) -> None:
        # `isinstance(m, nn.Conv2d)` tells what `m` is inside the branch it guards.
        if (
            isinstance(node.func, ast.Name)
            and node.func.id == "isinstance"
            and len(node.args) == 2
            and isinstance(node.args[0], ast.Name)
        ):
            classes = node.args[1]
            elements = classes.elts if isinstance(classes, ast.Tuple) else [classes]
            names = [self.model.resolve(e) or "" for e in elements]
            found, kind = self.model.scope.lookup(node.args[0].id)
            if kind is None and names and all(n.startswith("torch.nn.") for n in names):
                self.model.bind(node.args[0].id, "module")
            elif kind is None and names and all(n == "torch.Tensor" for n in names):
                self.model.bind(node.args[0].id, "tensor")
        self._children(node)
        if node.args:  # `criterion(outputs, labels)`: both are tensors
            self.model.note_loss_arguments(node, self.callee(node))

    def _class(self, node: ast.ClassDef) -> None:
        self._visit_all([*node.decorator_list, *node.bases, *node.keywords], node)
        info = self.model.declare_class(node)
        self._prescan_class(node, info)
        outer = self.cls
        self.cls = info
        self._visit_all(node.body, node)
        self.cls = outer

    def _prescan_class(self, node: ast.ClassDef, info: ClassInfo) -> None:
        """Kinds of `self.x` assigned in any method, so that one method sees another's."""
        saved = self.model.scope
        for method in node.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            params = [*method.args.posonlyargs, *method.args.args]
            if not params:
                continue
            scope = Scope(parent=self.model.module_scope, cls=info, self_name=params[0].arg)
            for arg in params[1:]:
                scope.names[arg.arg] = None
            self.model.scope = scope
            for stmt in statements(method.body):
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                    target = stmt.targets[0]
                    if isinstance(target, ast.Attribute):
                        self.model.bind_target(target, self.model.kind_of(stmt.value), None)
        self.model.scope = saved
        # `self.model.eval()`, `self.encoder.parameters()` in any method: those are modules.
        for chain in module_chains(self.source_lines(node)):
            head, _, attr = chain.partition(".")
            if head == "self" and attr.isidentifier():
                info.attrs.setdefault(attr, MODULE)
        for method in node.body:
            if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if method.name == "forward" and info.is_module:
                    info.output = self.model.output_kind(method, info)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        args = node.args
        self._visit_all([*node.decorator_list, *args.defaults, *args.kw_defaults], node)
        if self.cls is None:
            self.model.bind(node.name, None)
        item = _Deferred(node, self.cls, self.model.scope)
        if self.function is None:
            self._deferred.append(item)  # module or class level: after the module is bound
        else:
            self._function_body(node, self.cls, self.model.scope)

    def _lambda(self, node: ast.Lambda) -> None:
        saved = self.model.scope
        scope = Scope(parent=saved)
        for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
            scope.names[arg.arg] = None
        self.model.scope = scope
        self._visit_all([node.body], node)
        self.model.scope = saved

    def _function_body(self, node: Any, cls: ClassInfo | None, parent: Scope) -> None:
        scope = Scope(parent=parent, cls=cls, function=node)
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        static = any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list
        )
        if cls is not None and positional and not static and parent.cls is None:
            scope.self_name = positional[0].arg
        for arg in [*positional, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None:
                scope.names[arg.arg] = self.model.annotation_kind(arg.annotation)
        scope.params = frozenset(n for n, k in scope.names.items() if k is None)
        saved = (self.model.scope, self.loops, self.function, self.cls, self.parents)
        self.model.scope, self.loops, self.function, self.cls = scope, [], node, None
        self.parents = [node]
        for stmt in node.body:
            self.visit(stmt)
        self.model.scope, self.loops, self.function, self.cls, self.parents = saved

    # -- services for rules ----------------------------------------------------------------
    @property
    def parent(self) -> ast.AST | None:
        return self.parents[-1] if self.parents else None

    def cached(self, node: ast.AST, key: str, compute: Callable[[], Any]) -> Any:
        """A per-node memo for sub-walks that several findings may need."""
        slot = (id(node), key)
        if slot not in self._cache:
            self._cache[slot] = compute()
        return self._cache[slot]

    def callee(self, node: ast.Call) -> str | None:
        """The dotted name a call's function resolves to (memoised for the node at hand,
        since every call rule asks for it)."""
        if self._callee_node is not node:
            func = node.func
            resolvable = isinstance(func, (ast.Name, ast.Attribute))
            self._callee_name = self.model.resolve(func) if resolvable else None
            self._callee_node = node
        return self._callee_name

    def source_lines(self, node: Any) -> str:
        """The whole lines `node` spans (cheap: no column arithmetic)."""
        return "".join(self.lines[node.lineno - 1 : node.end_lineno])

    def segment(self, node: ast.AST) -> str:
        """The source text of `node`."""
        start, end = self.offsets(node)
        return self.text[start:end]

    def offsets(self, node: Any) -> tuple[int, int]:
        """Character offsets of `node` in the source."""
        return (
            self.offset(node.lineno, node.col_offset),
            self.offset(node.end_lineno, node.end_col_offset),
        )

    def offset(self, line: int, byte_col: int) -> int:
        if self._line_starts is None:
            starts, total = [], 0
            for text in self.lines:
                starts.append(total)
                total += len(text)
            starts.append(total)
            self._line_starts = starts
        return self._line_starts[line - 1] + self.char_col(line, byte_col)

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = split_lines(self.text)
        return self._lines

    def char_col(self, line: int, byte_col: int) -> int:
        """`col_offset` counts UTF-8 bytes; editors and output count characters."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if text.isascii():
            return byte_col
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="replace"))

    def report(
        self,
        code: str,
        node: Any,
        message: str | None = None,
        edits: tuple[Edit, ...] = (),
        fix_title: str | None = None,
    ) -> None:
        """Record a finding at `node` when `code` is enabled."""
        if code not in self.enabled:
            return
        line, end_line = node.lineno, node.end_lineno or node.lineno
        col = self.char_col(line, node.col_offset) + 1
        end_col = self.char_col(end_line, node.end_col_offset or node.col_offset) + 1
        text = message or RULES[code].summary
        self.findings.append(
            Finding(code, text, line, col, end_line, end_col, edits=edits, fix_title=fix_title)
        )


_SKIPPED_FIELDS = frozenset({"ctx", "op", "ops", "type_comment"})
_FIELDS: dict[type, tuple[str, ...]] = {}
# Nodes without children worth visiting, unless a rule handles them.
_LEAVES = frozenset({ast.Constant, ast.Pass, ast.Break, ast.Continue, ast.Global, ast.Nonlocal})


def _fields(cls: type) -> tuple[str, ...]:
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = tuple(f for f in cls._fields if f not in _SKIPPED_FIELDS)
    return fields


def walk_local(node: ast.AST) -> Iterable[ast.AST]:
    """Like ast.walk, without entering nested functions, lambdas and classes."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        current = stack.pop()
        yield current
        if not isinstance(
            current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
        ):
            stack.extend(ast.iter_child_nodes(current))


__all__ = ["Checker", "Edit", "Finding", "Options", "check", "field", "walk_local"]
