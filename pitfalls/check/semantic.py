"""What a name holds, without a type checker: imports, aliases, and the kinds of values.

`resolve` turns an expression into the dotted name it refers to, following the file's imports
(`import torch as tr`, `from torch import load`), so `tr.nn.functional.softmax` and
`F.softmax` both become `torch.nn.functional.softmax`. `kind_of` answers a narrower question
than a type checker: is this a tensor, a module, a DataLoader, an iterator over it, an
optimizer, a scheduler, a dataset? Kinds come only from evidence in the file (torch calls,
module calls, `iter(...)`, constructors, class bases, `self.` attributes set anywhere in the
class); a name alone ("a variable called loss") never makes a kind.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field

# Kinds are dotted strings; a subkind keeps its family's prefix (a softmax output is a tensor).
TENSOR = "tensor"
TENSOR_PARAM = "tensor.param"
SOFTMAX = "tensor.softmax"
SIGMOID = "tensor.sigmoid"
LOSS = "tensor.loss"
TENSORS = "tensors"  # a tuple of tensors: unpacking gives tensors
MODULE = "module"
CE_LOSS = "module.ce"
NLL_LOSS = "module.nll"
BCE_LOSS = "module.bce"
LOSS_FN = "module.loss"
SOFTMAX_FN = "module.softmax"
SIGMOID_FN = "module.sigmoid"
LOADER = "loader"
BATCH = "batch"  # one item of a loader: a tensor, a tuple, a dict... unpacking gives tensors
ITERATOR = "iterator"
LOADER_ITERATOR = "iterator.loader"
OPTIMIZER = "optimizer"
SCHEDULER = "scheduler"
DATASET = "dataset"
PARAMS = "params"  # an iterable of tensors (.parameters())
NAMED_PARAMS = "params.named"
MODULES = "modules"
NAMED_MODULES = "modules.named"
STATE_DICT = "state_dict"
INT = "int"
SELF = "self"
MODULE_SELF = "self.module"


def is_tensor(kind: str | None) -> bool:
    return kind is not None and kind.startswith(TENSOR) and kind != TENSORS


def is_module(kind: str | None) -> bool:
    return kind is not None and kind.startswith(MODULE) and kind != MODULES


MODULE_BASES = ("torch.nn.Module", "torch.nn.modules.module.Module")
_NN_SUBKINDS = {
    "CrossEntropyLoss": CE_LOSS,
    "NLLLoss": NLL_LOSS,
    "BCELoss": BCE_LOSS,
    "Softmax": SOFTMAX_FN,
    "Sigmoid": SIGMOID_FN,
}
_LOSS_FUNCTIONS = {"cross_entropy", "nll_loss", "binary_cross_entropy", "kl_div"}
# torch namespaces whose functions do not return tensors (or whose results we do not track).
_NOT_TENSOR_NAMESPACES = (
    "torch.cuda.",
    "torch.distributed.",
    "torch.utils.",
    "torch.backends.",
    "torch.jit.",
    "torch.onnx.",
    "torch.hub.",
    "torch.optim.",
    "torch.multiprocessing.",
    "torch.profiler.",
    "torch.amp.",
    "torch.fx.",
    "torch.export.",
    "torch.testing.",
    "torch.library.",
    "torch.overrides.",
    "torch.autograd.",
    "torch.nn.utils.",
    "torch.nn.parallel.",
    "torch._",
    "torch.distributions.",
    "torch.ao.",
    "torch.quantization.",
    "torch.compiler.",
)
_NOT_TENSOR_FUNCTIONS = frozenset(
    "device dtype load save no_grad enable_grad set_grad_enabled inference_mode manual_seed "
    "seed initial_seed is_tensor is_storage is_floating_point is_complex is_nonzero numel "
    "get_default_dtype set_default_dtype set_default_tensor_type set_printoptions typename "
    "compile use_deterministic_algorithms set_num_threads get_num_threads finfo iinfo "
    "broadcast_shapes set_rng_state result_type promote_types can_cast is_grad_enabled "
    "set_float32_matmul_precision autocast get_device set_anomaly_enabled".split()
)
_TUPLE_FUNCTIONS = frozenset(
    "chunk split unbind meshgrid sort topk kthvalue median mode tensor_split "
    "split_with_sizes broadcast_tensors svd qr eig lstsq unique std_mean var_mean "
    "aminmax frexp slogdet histogram".split()
)
# Tensor methods whose result is not a tensor.
_NOT_TENSOR_METHODS = frozenset(
    "item tolist numpy size dim ndimension numel nelement data_ptr element_size stride "
    "get_device is_contiguous is_floating_point is_complex backward register_hook storage "
    "untyped_storage equal is_set_to is_shared is_pinned retain_grad allclose "
    "storage_offset dim_order __len__ type".split()
)
_MODULE_SELF_METHODS = frozenset(
    "cuda cpu to train eval float double half bfloat16 requires_grad_ apply type "
    "share_memory to_empty xpu ipu mps".split()
)
_PASSTHROUGH = frozenset({"tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm"})
TENSOR_ANNOTATIONS = frozenset({"torch.Tensor", "torch.FloatTensor", "torch.nn.Parameter"})


@dataclass
class ClassInfo:
    """A class of this file: whether it is an nn.Module or a Dataset, and its `self.` attrs."""

    name: str
    bases: list[str]
    is_module: bool = False
    is_dataset: bool = False
    attrs: dict[str, str] = field(default_factory=dict)


@dataclass
class Scope:
    """Names bound in one function (or the module), in the order the checker met them."""

    names: dict[str, str | None] = field(default_factory=dict)
    parent: Scope | None = None
    cls: ClassInfo | None = None  # the class of a method
    self_name: str | None = None  # its first parameter
    function: ast.AST | None = None
    params: frozenset[str] = frozenset()
    _evidence: dict[str, str] | None = None

    def evidence(self, source_of: Callable[[ast.AST], str] | None) -> dict[str, str]:
        """Kinds of this function's parameters shown by their use: only a module has
        `.parameters()`, `.named_modules()` or `.eval()`. Computed once, on first need, with
        a regex over the function's text (far cheaper than another walk of its tree)."""
        if self._evidence is None:
            found: dict[str, str] = {}
            if self.function is not None and self.params and source_of is not None:
                for name in MODULE_EVIDENCE_CALL.findall(source_of(self.function)):
                    if name in self.params:
                        found[name] = MODULE
            self._evidence = found
        return self._evidence

    def lookup(self, name: str) -> tuple[bool, str | None]:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return True, scope.names[name]
            scope = scope.parent
        return False, None


MODULE_EVIDENCE_CALL = re.compile(
    r"\b([A-Za-z_]\w*)\.(?:parameters|named_parameters|modules|named_modules|children|"
    r"named_children|buffers|register_buffer|eval)\("
)


class SemanticModel:
    """Imports, classes and the scope stack of one file."""

    def __init__(self) -> None:
        self.imports: dict[str, str] = {}
        self.classes: dict[str, ClassInfo] = {}
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

    def bind(self, name: str, kind: str | None) -> None:
        self.scope.names[name] = kind

    # -- classes -------------------------------------------------------------------------
    def declare_class(self, node: ast.ClassDef) -> ClassInfo:
        info = ClassInfo(node.name, [])
        for expr in node.bases:
            local = self.classes.get(expr.id) if isinstance(expr, ast.Name) else None
            if local is not None:
                info.is_module |= local.is_module
                info.is_dataset |= local.is_dataset
                continue
            base = self.resolve(expr)
            if base is None:
                continue
            info.bases.append(base)
            last = base.rsplit(".", 1)[-1]
            if base.startswith(("torch.nn.", "torchvision.models.")) and last[:1].isupper():
                info.is_module = True
            elif base.startswith("torch.utils.data.") and base.endswith("Dataset"):
                info.is_dataset = True
            elif base.startswith("torchvision.datasets."):
                info.is_dataset = True
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

    # -- kinds ---------------------------------------------------------------------------
    def kind_of(self, node: ast.AST) -> str | None:
        """The kind of value `node` evaluates to, or None when the file gives no evidence."""
        if isinstance(node, ast.Name):
            cls = self.class_of_self(node)
            if cls is not None:
                return MODULE_SELF if cls.is_module else SELF
            found, kind = self.scope.lookup(node.id)
            if kind is None and found and node.id in self.scope.params:
                return self.scope.evidence(self.source_of).get(node.id)
            return kind if found else None
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
            if is_tensor(base) or base in (TENSORS, BATCH):
                return TENSOR
            return None
        if isinstance(node, ast.Constant):
            return INT if type(node.value) is int else None
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
            return None
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

    def _call_kind(self, node: ast.Call) -> str | None:
        func = node.func
        name = self.resolve(func)
        if name is not None:
            kind = self.qualified_call_kind(name, node)
            if kind is not None or name.startswith(("torch.", "torchvision.")):
                return kind
        if isinstance(func, ast.Name) and func.id in self.classes:
            info = self.classes[func.id]
            return MODULE if info.is_module else DATASET if info.is_dataset else None
        if isinstance(func, ast.Attribute):
            receiver = self.kind_of(func.value)
            method = func.attr
            if is_tensor(receiver):
                if method == "softmax":
                    return SOFTMAX
                if method == "sigmoid":
                    return SIGMOID
                if method in _TUPLE_FUNCTIONS or method in ("max", "min") and node.args:
                    return TENSORS
                return None if method in _NOT_TENSOR_METHODS else TENSOR
            if is_module(receiver) or receiver == MODULE_SELF:
                if method in _MODULE_SELF_METHODS:
                    return receiver if receiver != MODULE_SELF else None
                if method in ("parameters", "buffers"):
                    return PARAMS
                if method in ("named_parameters", "named_buffers"):
                    return NAMED_PARAMS
                if method in ("modules", "children"):
                    return MODULES
                if method in ("named_modules", "named_children"):
                    return NAMED_MODULES
                if method == "state_dict":
                    return STATE_DICT
                if method == "forward":
                    return TENSOR
        callee = self.kind_of(func)
        if is_module(callee):
            return {
                CE_LOSS: LOSS,
                NLL_LOSS: LOSS,
                BCE_LOSS: LOSS,
                LOSS_FN: LOSS,
                SOFTMAX_FN: SOFTMAX,
                SIGMOID_FN: SIGMOID,
            }.get(callee, TENSOR)
        return None

    def qualified_call_kind(self, name: str, node: ast.Call) -> str | None:
        """The kind returned by calling the function or class `name` (a dotted name)."""
        if name == "iter" and node.args:
            inner = self.kind_of(node.args[0])
            return LOADER_ITERATOR if inner == LOADER else ITERATOR
        if name in _PASSTHROUGH and node.args:
            return self.kind_of(node.args[0])
        if not name.startswith(("torch.", "torchvision.")):
            return None
        last = name.rsplit(".", 1)[-1]
        if name.endswith("DataLoader"):
            return LOADER
        if name in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
            return TENSOR_PARAM
        if name in ("torch.autograd.Variable", "torch.autograd.variable.Variable"):
            return TENSOR
        if name.startswith("torchvision.datasets."):
            return DATASET if last[:1].isupper() else None
        if name.startswith("torchvision.models."):
            return MODULE if last[:1].islower() and not last.startswith("get_") else None
        if name.startswith("torch.optim.lr_scheduler."):
            return SCHEDULER if last[:1].isupper() else None
        if name.startswith("torch.optim."):
            return OPTIMIZER if last[:1].isupper() else None
        if name.startswith("torch.nn.") and last[:1].isupper() and ".functional." not in name:
            if name.startswith(("torch.nn.utils.", "torch.nn.parallel.")):
                return MODULE if last.endswith("Parallel") else None
            if last in _NN_SUBKINDS:
                return _NN_SUBKINDS[last]
            return LOSS_FN if last.endswith("Loss") else MODULE
        if last[:1].isupper():
            return TENSOR if last.endswith("Tensor") else None
        if name.startswith("torch.nn.functional."):
            if last == "softmax":
                return SOFTMAX
            if last == "sigmoid":
                return SIGMOID
            if last in _LOSS_FUNCTIONS or last.endswith("_loss"):
                return LOSS
            return TENSOR
        if name.startswith("torch.nn.init."):
            return TENSOR
        if name.startswith(_NOT_TENSOR_NAMESPACES) or last in _NOT_TENSOR_FUNCTIONS:
            return None
        if name.count(".") > 1 and not name.startswith(
            ("torch.linalg.", "torch.fft.", "torch.special.")
        ):
            return None
        if last == "softmax":
            return SOFTMAX
        if last == "sigmoid":
            return SIGMOID
        if last in _TUPLE_FUNCTIONS or last in ("max", "min") and len(node.args) > 1:
            return TENSORS
        return TENSOR

    def annotation_kind(self, annotation: ast.AST | None) -> str | None:
        """The kind a parameter annotation promises (torch.Tensor, nn.Module, DataLoader)."""
        if annotation is None:
            return None
        name = self.resolve(annotation)
        if name is None:
            return None
        if name in TENSOR_ANNOTATIONS:
            return TENSOR
        if name in MODULE_BASES:
            return MODULE
        if name.endswith("DataLoader"):
            return LOADER
        if name.startswith("torch.optim.") and name.endswith("Optimizer"):
            return OPTIMIZER
        return None

    # -- binding -------------------------------------------------------------------------
    def bind_target(self, target: ast.AST, kind: str | None, value: ast.AST | None) -> None:
        """Record what an assignment binds: names in this scope, `self.x` on the class."""
        if isinstance(target, ast.Name):
            self.bind(target.id, kind)
        elif isinstance(target, ast.Attribute):
            cls = self.class_of_self(target.value)
            if cls is not None and kind is not None:
                cls.attrs[target.attr] = kind
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
                for sub, item in zip(target.elts, value.elts):
                    self.bind_target(sub, self.kind_of(item), item)
                return
            element = TENSOR if kind in (TENSORS, BATCH) or is_tensor(kind) else None
            for sub in target.elts:
                self.bind_target(sub, element, None)
        elif isinstance(target, ast.Starred):
            self.bind_target(target.value, None, None)

    def bind_loop(self, target: ast.AST, iterable: ast.AST) -> None:
        """Bind a `for` target from what it iterates: parameters, modules, a loader."""
        self.bind_pair(target, self.element_kind(iterable))

    def element_kind(self, iterable: ast.AST) -> str | None:
        if isinstance(iterable, ast.Call):
            name = self.resolve(iterable.func)
            if name == "enumerate" and iterable.args:
                return "pair:" + (self.element_kind(iterable.args[0]) or "")
            if name in _PASSTHROUGH and iterable.args:
                return self.element_kind(iterable.args[0])
            if name == "range":
                return INT
        kind = self.kind_of(iterable)
        return {
            PARAMS: TENSOR,
            NAMED_PARAMS: "pair:" + TENSOR,
            MODULES: MODULE,
            NAMED_MODULES: "pair:" + MODULE,
            LOADER: BATCH,
            LOADER_ITERATOR: BATCH,
        }.get(kind or "")

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
