"""The names of one file and where they are bound: imports, classes, scopes, evidence of use.

`FileScopes` is the file's symbol table: its imports (so `resolve` can turn `tr.load` into
`torch.load`), its classes (an nn.Module? a Dataset? which `self.` attributes?) and the stack
of `Scope`s the checker enters and leaves. A `Scope` records the names one function (or the
module) binds, in the order the checker meets them, with their kinds. A name bound to a value
nothing is known about may still get a kind from how the scope uses it: only a module has
`.parameters()` or `.eval()`, only a tensor has `.backward()`. That `Evidence` comes from a
few regexes over the scope's source text, run once per scope on first need, because a second
walk of the tree would cost far more.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from pitfalls.check.flow import Reaching
from pitfalls.check.kinds import DATASET, LOSS, MODULE, base_class_kind


@dataclass
class ClassInfo:
    """A class of this file: whether it is an nn.Module or a Dataset, and its `self.` attrs."""

    name: str
    bases: list[str]
    is_module: bool = False
    is_dataset: bool = False
    attrs: dict[str, str] = field(default_factory=dict)
    output: str = MODULE  # what calling an instance gives: a module.softmax returns probabilities
    node: ast.ClassDef | None = field(default=None, repr=False)
    _accumulates: frozenset[str] | None = field(default=None, repr=False)

    @property
    def accumulates(self) -> frozenset[str]:
        """Methods that sum their argument onto `self` (see `accumulating_methods`); none for
        modules and datasets. Computed on first need: few classes are asked."""
        if self._accumulates is None:
            plain = self.node is not None and not self.is_module and not self.is_dataset
            self._accumulates = accumulating_methods(self.node) if plain else frozenset()  # type: ignore[arg-type]
        return self._accumulates


@dataclass
class Scope:
    """Names bound in one function (or the module), in the order the checker met them."""

    names: dict[str, str | None] = field(default_factory=dict)
    parent: Scope | None = None
    cls: ClassInfo | None = None  # the class of a method
    self_name: str | None = None  # its first parameter
    function: ast.AST | None = None  # the function, or the ast.Module of the module scope
    params: frozenset[str] = frozenset()
    # Names whose latest binding is a value we know nothing about (a call of a local function,
    # `outputs.loss`, `out[0]`), with the line of that binding: how they are used may tell
    # their kind. A name bound to a constant, `.item()` or `float(...)` is known not to be a
    # tensor, whatever follows.
    opaque: dict[str, int] = field(default_factory=dict)
    # Names whose latest binding is an instance of a class of this file: name -> class.
    instances: dict[str, str] = field(default_factory=dict)
    # Names whose kind reached them only over a loop's back edge (`SemanticModel.
    # bind_back_edge`): on the first iteration they may still hold something else.
    carried: set[str] = field(default_factory=set)
    _evidence: Evidence | None = None
    _reaching: Reaching | None = None

    def reaching(self) -> Reaching | None:
        """Reaching definitions over this function's body (see `flow`), computed on first
        need; None for a scope without a body of its own (a lambda, a summary's scratch)."""
        if self._reaching is None and self.function is not None:
            self._reaching = Reaching(self.function)
        return self._reaching

    def evidence(self, source_of: Callable[[ast.AST], str] | None) -> Evidence:
        """Kinds shown by use in this function's text: only a module has `.parameters()`,
        `.named_modules()` or `.eval()`, and only a tensor has `.backward()`. Computed once,
        on first need, with a regex over the function's text (far cheaper than another walk
        of its tree); for the module scope, over its statements outside functions and
        classes."""
        if self._evidence is None:
            self._evidence = Evidence()
            function = self.function
            if function is not None and source_of is not None:
                if isinstance(function, ast.Module):
                    for stmt in function.body:
                        if not isinstance(stmt, _DEFS):
                            self._evidence.scan(source_of(stmt), stmt.lineno)
                else:
                    self._evidence.scan(source_of(function), function.lineno)  # type: ignore[attr-defined]
        return self._evidence

    def evidence_kind(
        self, name: str, line: int, source_of: Callable[[ast.AST], str] | None
    ) -> str | None:
        """The kind that use shows for `name`, unknown in this scope, at `line`. A module is
        a module wherever it is used; `name.backward()` shows a tensor only between the
        binding it follows and `line` (a name may be reused for a number later)."""
        evidence = self.evidence(source_of)
        since = self.opaque.get(name, 0)
        if any(since <= at <= line for at in evidence.losses.get(name, ())):
            return LOSS
        return evidence.modules.get(name)

    def find(self, name: str) -> Scope | None:
        """The innermost scope that binds `name`."""
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope
            scope = scope.parent
        return None

    def lookup(self, name: str) -> tuple[bool, str | None]:
        scope = self.find(name)
        if scope is None:
            return False, None
        return True, scope.names[name]

    def unknown(self, name: str) -> bool:
        """Whether this scope binds `name` to a value of unknown kind (a parameter without
        annotation, or an opaque value), so that evidence of use may tell it."""
        return self.names.get(name, "") is None and (name in self.params or name in self.opaque)


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def statements(body: list[ast.stmt]) -> Iterable[ast.stmt]:
    """Every statement in `body`, entering compound statements but not nested definitions."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, _DEFS):
            continue
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, name, None)
            if inner:
                yield from statements(inner)
        for handler in getattr(stmt, "handlers", ()):
            yield from statements(handler.body)


def accumulating_methods(node: ast.ClassDef) -> frozenset[str]:
    """Methods that add their first argument to a running total on `self`: `self.sum += val *
    n`, `self.total = self.total + val`, `self.values.append(val)` (an AverageMeter's
    `update`). A method that rebinds the argument (`val = val.item()`) converts it first."""
    found = set()
    for method in node.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        params = [*method.args.posonlyargs, *method.args.args]
        if len(params) < 2:
            continue
        self_name, value = params[0].arg, params[1].arg
        summed = False
        for stmt in statements(method.body):
            if _binds(stmt, value):
                break
            summed = summed or _adds_to_self(stmt, self_name, value)
        else:
            if summed:
                found.add(method.name)
    return frozenset(found)


def _binds(stmt: ast.stmt, name: str) -> bool:
    targets = []
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign, ast.For)):
        targets = [stmt.target]
    return any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t))


def _adds_to_self(stmt: ast.stmt, self_name: str, value: str) -> bool:
    """`self.x += value...`, `self.x = self.x + value...` or `self.x.append(value...)`."""
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add):
        target, added = stmt.target, stmt.value
    elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target, added = stmt.targets[0], stmt.value
        if not (isinstance(added, ast.BinOp) and isinstance(added.op, ast.Add)):
            return False
        if ast.dump(added.left) != ast.dump(target):
            return False
        added = added.right
    elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr == "append" and call.args):
            return False
        target, added = func.value, call.args[0]
    else:
        return False
    on_self = (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == self_name
    )
    return on_self and value in operand_names(added)


def short_dotted(node: ast.AST) -> str | None:
    """`name` or `name.attr` (one level: `self.total`, `meter.sum`), else None; a key for
    matching the same short target in two places of a loop."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


def operand_names(node: ast.AST) -> list[str]:
    """The names that `node` adds up or scales: `loss`, `val * n`, `-loss` (not `f(loss)`)."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.BinOp):
        return operand_names(node.left) + operand_names(node.right)
    if isinstance(node, ast.UnaryOp):
        return operand_names(node.operand)
    return []


# Calls only a module has; `.eval()` and `.train()` only without arguments (`df.eval("a + b")`
# is pandas). Found first, then the name or attribute chain before each is read backwards:
# far cheaper than trying a chain pattern at every identifier.
_MODULE_METHOD = re.compile(
    r"\.(?:(?:parameters|named_parameters|modules|named_modules|children|named_children|"
    r"buffers|named_buffers|register_buffer|register_parameter)\(|(?:eval|train)\(\s*\))"
)
# A name or attribute chain that is not itself the attribute of something else, at the end.
_CHAIN_BEFORE = re.compile(r"(?<![\w.])(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*\Z")


def module_chains(text: str) -> list[str]:
    """The names and chains that `text` calls a module-only method on: `model` in
    `model.eval()`, `self.encoder` in `self.encoder.parameters()`."""
    found = []
    for match in _MODULE_METHOD.finditer(text):
        end = match.start()
        line = text[text.rfind("\n", 0, end) + 1 : end]
        chain = _CHAIN_BEFORE.search(line)
        if chain is not None:
            found.append(chain.group())
    return found


# `loss.backward()` (no positional argument), `accelerator.backward(loss)`,
# `self.manual_backward(loss)`, `scaler.scale(loss).backward()`: `loss` is a tensor.
LOSS_EVIDENCE_CALL = re.compile(
    r"(?<![\w.])([A-Za-z_]\w*)\.backward\(\s*(?:\)|[A-Za-z_]\w*\s*=)"
    r"|\.(?:manual_)?backward\(\s*([A-Za-z_]\w*)\s*[,)]"
    r"|\.scale\(\s*([A-Za-z_]\w*)\s*\)\.backward\("
)


@dataclass
class Evidence:
    """What use shows in one function: names and attribute chains (`model.fc`) that are
    modules, and the lines where a name is backpropagated (so is a tensor, a loss)."""

    modules: dict[str, str] = field(default_factory=dict)
    losses: dict[str, list[int]] = field(default_factory=dict)

    def scan(self, text: str, first_line: int) -> None:
        for chain in module_chains(text):
            self.modules.setdefault(chain, MODULE)
        if "backward" not in text:
            return
        for match in LOSS_EVIDENCE_CALL.finditer(text):
            name = match.group(1) or match.group(2) or match.group(3)
            line = first_line + text.count("\n", 0, match.start())
            self.losses.setdefault(name, []).append(line)


class FileScopes:
    """Imports, classes and the scope stack of one file: what each name refers to and
    where it is bound. `semantic.SemanticModel` adds the kinds of what they hold."""

    def __init__(self) -> None:
        self.imports: dict[str, str] = {}
        self.classes: dict[str, ClassInfo] = {}
        # Module-level functions, by name (the checker fills it before the walk), and what
        # calling each gives (`SemanticModel.call_summary`), by id of its node.
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self._summaries: dict[int, str | None] = {}
        self.module_scope = Scope()
        self.scope = self.module_scope
        self.imports_torch = False
        self.imports_numpy = False
        self.source_of: Callable[[ast.AST], str] | None = None

    # -- imports -------------------------------------------------------------------------
    def bind_import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.imports[alias.asname] = alias.name
                else:
                    root = alias.name.split(".", 1)[0]
                    self.imports[root] = root
                self._note_root(alias.name)
            return
        if node.level or not node.module:
            return
        self._note_root(node.module)
        for alias in node.names:
            if alias.name != "*":
                self.imports[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def _note_root(self, module: str) -> None:
        root = module.split(".", 1)[0]
        if root == "torch" or root == "torchvision":
            self.imports_torch = True
        elif root == "numpy":
            self.imports_numpy = True

    # -- names ---------------------------------------------------------------------------
    def resolve(self, node: ast.AST) -> str | None:
        """The dotted name `node` refers to through the imports: `tr.load` -> `torch.load`.
        A name bound locally is not an import, whatever it is called."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        head = self.imports.get(node.id)
        if head is None:
            found, _ = self.scope.lookup(node.id)
            if found or node.id in self.classes:
                return None
            head = node.id  # a builtin such as iter, or an unimported name
        elif node.id in self.scope.names and self.scope is not self.module_scope:
            return None  # shadowed inside this function
        if parts:
            return head + "." + ".".join(reversed(parts))
        return head

    def bind(self, name: str, kind: str | None, opaque_at: int | None = None) -> None:
        """Bind `name` in this scope; `opaque_at` is the line of a binding to a value of
        unknown kind (see `Scope.opaque`)."""
        self.scope.names[name] = kind
        self.scope.instances.pop(name, None)
        self.scope.carried.discard(name)
        if opaque_at is not None:
            self.scope.opaque[name] = opaque_at
        else:
            self.scope.opaque.pop(name, None)

    # -- classes -------------------------------------------------------------------------
    def declare_class(self, node: ast.ClassDef) -> ClassInfo:
        info = ClassInfo(node.name, [])
        for expr in node.bases:
            local = self.classes.get(expr.id) if isinstance(expr, ast.Name) else None
            if local is not None:
                info.is_module |= local.is_module
                info.is_dataset |= local.is_dataset
                if info.output == MODULE:
                    info.output = local.output
                continue
            base = self.resolve(expr)
            if base is None:
                continue
            info.bases.append(base)
            kind = base_class_kind(base)
            if kind == MODULE:
                info.is_module = True
            elif kind == DATASET:
                info.is_dataset = True
        info.node = node
        self.classes[node.name] = info
        return info

    def class_of_self(self, node: ast.AST) -> ClassInfo | None:
        """The class whose instance `node` is, when `node` is the method's `self`."""
        scope: Scope | None = self.scope
        while scope is not None:
            if scope.self_name is not None:
                if isinstance(node, ast.Name) and node.id == scope.self_name:
                    return scope.cls
                return None
            scope = scope.parent
        return None
