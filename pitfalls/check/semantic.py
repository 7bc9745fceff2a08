"""What a value is, without a type checker: the kinds of expressions, and binding by them.

`kind_of` answers a narrower question than a type checker: is this a tensor, a module, a
DataLoader, an iterator over it, an optimizer, a scheduler, a dataset? Kinds come only from
evidence in the file (torch calls, module calls, `iter(...)`, constructors, class bases,
`self.` attributes set anywhere in the class); a name alone ("a variable called loss") never
makes a kind. An assignment or a `for` loop then binds its targets with the kinds of what it
assigns (`bind_target`, `bind_loop`).

Names are resolved through the file's imports by `scopes.FileScopes`, which also holds its
classes and scopes; what a resolved library name returns is in `kinds`.
"""

from __future__ import annotations

import ast

from pitfalls.check.kinds import (
    ACCUMULATOR,
    BATCH,
    CALLED_MODULE_KINDS,
    DATASET,
    ELEMENT_KINDS,
    INT,
    LOSS,
    MODULE,
    MODULE_METHOD_KINDS,
    MODULE_SELF,
    MODULE_SELF_METHODS,
    NOT_TENSOR_METHODS,
    PASSTHROUGH,
    SELF,
    SIGMOID,
    SIGMOID_FN,
    SOFTMAX,
    SOFTMAX_FN,
    TENSOR,
    TENSOR_PARAM,
    TENSORS,
    annotation_name_kind,
    is_known_callable,
    is_loss_function,
    is_module,
    is_tensor,
    qualified_call_kind,
    tensor_method_kind,
)
from pitfalls.check.scopes import ClassInfo, FileScopes, Scope, statements


class SemanticModel(FileScopes):
    """The kinds of what the names of one file hold, and the binding of new ones."""

    # -- kinds ---------------------------------------------------------------------------
    def kind_of(self, node: ast.AST) -> str | None:
        """The kind of value `node` evaluates to, or None when the file gives no evidence."""
        if isinstance(node, ast.Name):
            cls = self.class_of_self(node)
            if cls is not None:
                return MODULE_SELF if cls.is_module else SELF
            scope = self.scope.find(node.id)
            if scope is None:
                return None
            kind = scope.names[node.id]
            if kind is None and scope.unknown(node.id):
                return scope.evidence_kind(node.id, node.lineno, self.source_of)
            return kind
        if isinstance(node, ast.Attribute):
            return self._attribute_kind(node)
        if isinstance(node, ast.Call):
            return self._call_kind(node)
        if isinstance(node, ast.BinOp):
            left, right = self.kind_of(node.left), self.kind_of(node.right)
            if LOSS in (left, right):
                return LOSS
            if is_tensor(left) or is_tensor(right):
                return TENSOR
            if left == INT and right == INT:
                return INT
            return None
        if isinstance(node, ast.UnaryOp):
            return self.kind_of(node.operand)
        if isinstance(node, ast.Subscript):
            base = self.kind_of(node.value)
            if base in (SOFTMAX, SIGMOID):
                return base  # `probs[:, 1]`: still probabilities
            if is_tensor(base) or base in (TENSORS, BATCH):
                return TENSOR
            return None
        if isinstance(node, ast.Constant):
            return INT if type(node.value) is int else None
        if isinstance(node, (ast.List, ast.Tuple)) and node.elts:
            # `parameters = [C, W1, b1]`: a literal of tensors, which a loop hands out one
            # by one (a list with anything else in it is not).
            if all(is_tensor(self.kind_of(elt)) for elt in node.elts):
                return TENSORS
        return None

    def _attribute_kind(self, node: ast.Attribute) -> str | None:
        cls = self.class_of_self(node.value)
        if cls is not None:
            kind = cls.attrs.get(node.attr)
            if kind is None and cls.is_module and node.attr in ("weight", "bias"):
                return TENSOR_PARAM
            return kind
        base = self.kind_of(node.value)
        if is_tensor(base):
            if node.attr in ("data", "grad", "T", "mT", "H", "real", "imag"):
                return TENSOR
            if node.attr == "loss" and base == TENSOR:
                return LOSS  # `model(**batch).loss`: a model output that carries its loss
            return None
        if base is None or is_module(base):
            kind = self._chain_kind(node)
            if kind is not None:
                return kind
        if is_module(base):
            if node.attr in ("weight", "bias"):
                return TENSOR_PARAM
            if node.attr in ("running_mean", "running_var"):
                return TENSOR
            return None
        if base is None and node.attr in ("weight", "bias", "grad") and self.imports_torch:
            # `m.weight`, `p.grad`: only modules and tensors carry these in a torch file.
            if (
                isinstance(node.value, (ast.Name, ast.Attribute))
                and self.resolve(node.value) not in self.imports.values()
            ):
                return TENSOR
        return None

    def _chain_kind(self, node: ast.Attribute) -> str | None:
        """The kind of `model.fc` shown by a binding (`model.fc = nn.Linear(...)`) or by use
        (`model.fc.parameters()`) in the scope that binds `model`."""
        dotted = self.dotted(node)
        if dotted is None:
            return None
        root = dotted.split(".", 1)[0]
        if root in self.imports:
            return None
        scope = self.scope.find(root) or self.scope
        kind = scope.names.get(dotted)
        if kind is None:
            kind = scope.evidence(self.source_of).modules.get(dotted)
        return kind

    @staticmethod
    def dotted(node: ast.AST) -> str | None:
        """`a.b.c` for an attribute chain on a plain name, else None."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or not parts:
            return None
        parts.append(node.id)
        return ".".join(reversed(parts))

    def _call_kind(self, node: ast.Call) -> str | None:
        func = node.func
        name = self.resolve(func)
        if name is not None:
            kind = qualified_call_kind(name, node, self.kind_of)
            if kind is not None or name.startswith(("torch.", "torchvision.")):
                return kind
        if isinstance(func, ast.Name) and func.id in self.functions and self._is_local(func.id):
            return self.call_summary(self.functions[func.id], None)
        if isinstance(func, ast.Name) and func.id in self.classes:
            info = self.classes[func.id]
            if info.is_module or info.is_dataset:
                return info.output if info.is_module else DATASET
            return f"{ACCUMULATOR}.{info.name}" if info.accumulates else None
        if isinstance(func, ast.Attribute):
            summary = self._method_summary(func.value, func.attr)
            if summary is not None:
                return summary
            receiver = self.kind_of(func.value)
            method = func.attr
            if is_tensor(receiver):
                return tensor_method_kind(receiver, method, node)
            if is_module(receiver) or receiver == MODULE_SELF:
                if method in MODULE_SELF_METHODS:
                    return receiver if receiver != MODULE_SELF else None
                if method in MODULE_METHOD_KINDS:
                    return MODULE_METHOD_KINDS[method]
            if receiver is None and method in ("softmax", "sigmoid") and self.imports_torch:
                # Only torch tensors have these methods (NumPy and JAX arrays do not), and a
                # submodule of that name (`self.model.softmax(x)`) computes the same.
                root = _chain_root(func.value)
                if not (isinstance(root, ast.Name) and root.id in self.imports):
                    return SOFTMAX if method == "softmax" else SIGMOID
        callee = self.kind_of(func)
        if callee == MODULE_SELF:
            return TENSOR  # `self(x)` in a module
        if is_module(callee):
            return CALLED_MODULE_KINDS.get(callee, TENSOR)
        return None

    def output_kind(self, forward: ast.FunctionDef | ast.AsyncFunctionDef, info: ClassInfo) -> str:
        """What calling an instance of a module class gives: SOFTMAX_FN or SIGMOID_FN when
        every `return` of its `forward` returns probabilities (`return F.softmax(x, dim=1)`),
        else MODULE (see `_returned_kind`)."""
        returned = self._returned_kind(forward, info)
        return {SOFTMAX: SOFTMAX_FN, SIGMOID: SIGMOID_FN}.get(returned or "", MODULE)

    def call_summary(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef, info: ClassInfo | None
    ) -> str | None:
        """What calling a function or method of this file gives, one call deep: probabilities
        (a softmax, a sigmoid), a loss still attached to its graph, or a module, when every
        `return` of it agrees; None for anything else. Computed once per function, on first
        call; a function that calls itself is unknown while its summary is computed. A loss
        computed under `no_grad`/`inference_mode` is an evaluation's number, not a loss."""
        key = id(function)
        if key in self._summaries:
            return self._summaries[key]
        self._summaries[key] = None
        kind = self._returned_kind(function, info)
        if kind == LOSS and self.source_of is not None:
            text = self.source_of(function)
            if "no_grad" in text or "inference_mode" in text:
                kind = None
        if not (kind in (SOFTMAX, SIGMOID, LOSS) or is_module(kind)):
            kind = None
        self._summaries[key] = kind
        return kind

    def _returned_kind(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef, info: ClassInfo | None
    ) -> str | None:
        """The one kind every `return` of `function` gives, else None. Only straight-line
        bindings of the body count; a name bound inside a branch or loop is unknown (`if
        self.training: return logits` stays unknown). For a method, `info` is its class and
        its first parameter is `self`."""
        params = [*function.args.posonlyargs, *function.args.args]
        self_name = None
        if info is not None:
            if not params:
                return None
            self_name = params[0].arg
            params = params[1:]
        saved = self.scope
        self.scope = Scope(parent=self.module_scope, cls=info, self_name=self_name)
        for arg in [*params, *function.args.kwonlyargs]:
            self.scope.names[arg.arg] = None
        returned: set[str | None] = set()
        try:
            for stmt in function.body:
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                    if isinstance(stmt.targets[0], ast.Name):
                        self.bind(stmt.targets[0].id, self.kind_of(stmt.value))
                        continue
                inner = list(_local_nodes(stmt))
                for node in inner:
                    if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                        self.bind(node.id, None)
                for node in inner:
                    if isinstance(node, ast.Return):
                        returned.add(self.kind_of(node.value) if node.value else None)
        finally:
            self.scope = saved
        return returned.pop() if len(returned) == 1 else None

    def _method_summary(self, receiver: ast.AST, method: str) -> str | None:
        """`call_summary` of `receiver.method(...)` where the receiver's class is one of this
        file's: `self` in a method, or a name bound to `Classifier(...)`."""
        info = self.class_of_self(receiver)
        if info is None and isinstance(receiver, ast.Name):
            scope = self.scope.find(receiver.id)
            name = scope.instances.get(receiver.id) if scope is not None else None
            info = self.classes.get(name) if name is not None else None
        if info is None or info.node is None:
            return None
        for stmt in info.node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == method:
                if any(_decorator_name(d) in _NOT_METHODS for d in stmt.decorator_list):
                    return None
                return self.call_summary(stmt, info)
        return None

    def note_loss_arguments(self, node: ast.Call, name: str | None) -> None:
        """A name of unknown kind passed to a loss (`criterion(outputs, labels)` with a known
        loss module, `F.nll_loss(output, target)`) holds a tensor from here on. `name` is
        what the call's function resolves to."""
        names = [
            arg
            for arg in node.args[:2]
            if isinstance(arg, ast.Name) and self.scope.names.get(arg.id, "") is None
        ]
        if not names or not self._is_loss(node.func, name):
            return
        for arg in names:
            if self.kind_of(arg) is None:  # not a loss shown by `.backward()`
                self.bind(arg.id, TENSOR)

    def _is_loss(self, func: ast.AST, name: str | None) -> bool:
        """Whether calling `func` computes a loss: a torch loss function, or a name or
        `self.` attribute bound to a loss module (looked up without evidence scans)."""
        if name is not None and name.startswith("torch."):
            return name.startswith("torch.nn.functional.") and is_loss_function(name)
        kind: str | None = None
        if isinstance(func, ast.Name):
            kind = self.scope.lookup(func.id)[1]
        elif isinstance(func, ast.Attribute):
            cls = self.class_of_self(func.value)
            kind = cls.attrs.get(func.attr) if cls is not None else None
        return CALLED_MODULE_KINDS.get(kind or "") == LOSS

    def reaching(self, name: ast.Name) -> frozenset[tuple[ast.AST, ast.AST | None]] | None:
        """The bindings `(statement, value)` of the function at hand that can reach the read
        `name` over its control flow (see `flow`); None where none of them does (a global,
        a closure variable, a name the function never binds)."""
        scope = self.scope
        while scope.function is None and scope.parent is not None:
            scope = scope.parent  # a lambda: its body reads the enclosing function's names
        reaching = scope.reaching()
        return None if reaching is None else reaching.at(name)

    def annotation_kind(self, annotation: ast.AST | None) -> str | None:
        """The kind a parameter annotation promises (torch.Tensor, nn.Module, DataLoader)."""
        if annotation is None:
            return None
        name = self.resolve(annotation)
        return None if name is None else annotation_name_kind(name)

    # -- binding -------------------------------------------------------------------------
    def is_opaque(self, value: ast.AST) -> bool:
        """Whether nothing is known of `value`: a call of a function of this file or of another
        package, a method of an unknown object, an attribute or item of one. A constant,
        `.item()`, `float(...)`, a container, or a torch or NumPy call whose kind is not a
        tensor are known, and so is anything whose kind the model already gives."""
        if isinstance(value, ast.Name):
            scope = self.scope.find(value.id)
            return scope is not None and scope.unknown(value.id)
        if isinstance(value, ast.Subscript):
            return self.is_opaque(value.value) or isinstance(value.value, ast.Call)
        if isinstance(value, ast.Attribute):
            return self.resolve(value) is None
        if isinstance(value, ast.BinOp):
            return self.is_opaque(value.left) or self.is_opaque(value.right)
        if not isinstance(value, ast.Call):
            return False
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr in NOT_TENSOR_METHODS:
            return False
        if isinstance(func, ast.Name) and func.id in self.classes and self._is_local(func.id):
            # An instance of a class of this file: known by its class, never by use. A
            # teaching autograd engine's `Value` or a `Record` with `.data` and `.grad`, an
            # MLP of its own with `.parameters()`, is not a tensor or an nn.Module.
            return False
        name = self.resolve(func) if isinstance(func, (ast.Name, ast.Attribute)) else None
        if name is None:
            return True
        return not is_known_callable(name)

    def _is_local(self, name: str) -> bool:
        """Whether `name` here is the module-level definition of that name (not shadowed
        by a local binding or an import)."""
        scope = self.scope.find(name)
        return (scope is None or scope is self.module_scope) and name not in self.imports

    def bind_target(self, target: ast.AST, kind: str | None, value: ast.AST | None) -> None:
        """Record what an assignment binds: names in this scope, `self.x` on the class."""
        opaque = kind is None and value is not None and self.is_opaque(value)
        self._bind_target(target, kind, value, opaque)

    def _bind_target(
        self, target: ast.AST, kind: str | None, value: ast.AST | None, opaque: bool
    ) -> None:
        if isinstance(target, ast.Name):
            self.bind(target.id, kind, target.lineno if opaque else None)
            if (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Name)
                and value.func.id in self.classes
                and self._is_local(value.func.id)
            ):
                self.scope.instances[target.id] = value.func.id  # for its methods' summaries
        elif isinstance(target, ast.Attribute):
            cls = self.class_of_self(target.value)
            if cls is not None and kind is not None:
                cls.attrs[target.attr] = kind
            elif cls is None and is_module(kind):
                # `model.fc = nn.Linear(...)`: kept on the scope that binds `model`.
                dotted = self.dotted(target)
                if dotted is not None and self.class_of_self(_chain_root(target)) is None:
                    root = dotted.split(".", 1)[0]
                    (self.scope.find(root) or self.scope).names[dotted] = kind
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
                for sub, item in zip(target.elts, value.elts):
                    self.bind_target(sub, self.kind_of(item), item)
                return
            element = TENSOR if kind in (TENSORS, BATCH) or is_tensor(kind) else None
            for sub in target.elts:
                self._bind_target(sub, element, None, opaque and element is None)
        elif isinstance(target, ast.Starred):
            self._bind_target(target.value, None, None, False)

    def bind_back_edge(self, body: list[ast.stmt]) -> None:
        """Before a loop's body is walked: a name that the body binds to a known kind
        (`it = iter(loader)` in an `except StopIteration:`) reaches the top of the body
        through the loop's back edge, so a use above that binding (`batch = it.next()`)
        may see it from the second iteration on. Such names take that kind for the body
        when nothing before the loop gave them one; a kind the name already has stays."""
        scope = self.scope
        saved_names, saved_opaque = dict(scope.names), dict(scope.opaque)
        carried: dict[str, str] = {}
        try:
            for stmt in statements(body):
                if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
                    continue
                target = stmt.targets[0]
                if not isinstance(target, ast.Name):
                    continue
                kind = self.kind_of(stmt.value)
                self.bind(target.id, kind)
                if kind is None:
                    carried.pop(target.id, None)
                else:
                    carried[target.id] = kind
        finally:
            scope.names, scope.opaque = saved_names, saved_opaque
        for name, kind in carried.items():
            if self.scope.lookup(name)[1] is None:
                self.bind(name, kind)
                self.scope.carried.add(name)

    def only_carried(self, node: ast.AST) -> bool:
        """Whether `node` is a name whose kind comes only over a loop's back edge, so that
        on the first iteration it may hold something else (`None`, nothing at all)."""
        if not isinstance(node, ast.Name):
            return False
        scope = self.scope.find(node.id)
        return scope is not None and node.id in scope.carried

    def bind_loop(self, target: ast.AST, iterable: ast.AST) -> None:
        """Bind a `for` target from what it iterates: parameters, modules, a loader; for
        `zip(a, b)` and a tuple target, each name from its own iterable."""
        if (
            isinstance(iterable, ast.Call)
            and isinstance(target, (ast.Tuple, ast.List))
            and len(target.elts) == len(iterable.args)
            and not iterable.keywords
            and self.resolve(iterable.func) == "zip"
        ):
            for sub, arg in zip(target.elts, iterable.args):
                if isinstance(arg, ast.Starred):
                    self.bind_target(sub, None, None)
                else:
                    self.bind_loop(sub, arg)
            return
        self.bind_pair(target, self.element_kind(iterable))

    def element_kind(self, iterable: ast.AST) -> str | None:
        if isinstance(iterable, ast.Call):
            name = self.resolve(iterable.func)
            if name == "enumerate" and iterable.args:
                return "pair:" + (self.element_kind(iterable.args[0]) or "")
            if name in PASSTHROUGH and iterable.args:
                return self.element_kind(iterable.args[0])
            if name == "range":
                return INT
        return ELEMENT_KINDS.get(self.kind_of(iterable) or "")

    def bind_pair(self, target: ast.AST, kind: str | None) -> None:
        """Bind a loop target whose kind may be `pair:<second>` (enumerate, named_parameters)."""
        if kind is not None and kind.startswith("pair:"):
            second = kind[5:] or None
            if isinstance(target, ast.Tuple) and len(target.elts) == 2:
                self.bind_target(target.elts[0], None, None)
                self.bind_target(target.elts[1], second, None)
                return
            kind = None
        self.bind_target(target, kind, None)


_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _local_nodes(stmt: ast.AST) -> list[ast.AST]:
    """`stmt` and the nodes below it, without entering nested functions and classes."""
    if isinstance(stmt, _NESTED):
        return []
    found, stack = [], [stmt]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, _NESTED))
    return found


# Decorators after which a method's summary does not tell what calling it gives.
_NOT_METHODS = frozenset({"property", "staticmethod", "classmethod", "cached_property"})


def _decorator_name(node: ast.AST) -> str:
    """`property` for `@property`, `cached_property` for `@functools.cached_property`."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _chain_root(node: ast.AST) -> ast.AST:
    """`model` in `model.fc.weight`."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node
