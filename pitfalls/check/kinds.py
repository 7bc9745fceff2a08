"""The kinds of values the checker tracks, and what library names say about them.

A kind is a dotted string ("tensor", "tensor.softmax", "module.ce", "loader"...): a subkind
keeps its family's prefix, so a softmax output is still a tensor. This module is the one place
that knows torch, torchvision, transformers, timm and Lightning by name: which calls return a
tensor, a module, an optimizer or a loader, which methods keep or change the kind of their
receiver, which base classes make a class an nn.Module or a Dataset. Everything here is a pure
function of dotted names and kinds; `semantic` supplies the names (through the file's imports)
and the kinds of sub-expressions.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

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
ACCUMULATOR = "accumulator"  # "accumulator.<Class>": a class of the file that sums what it gets
INT = "int"
SELF = "self"
MODULE_SELF = "self.module"


def is_tensor(kind: str | None) -> bool:
    return kind is not None and kind.startswith(TENSOR) and kind != TENSORS


def is_module(kind: str | None) -> bool:
    return kind is not None and kind.startswith(MODULE) and kind != MODULES


MODULE_BASES = ("torch.nn.Module", "torch.nn.modules.module.Module")
TENSOR_ANNOTATIONS = frozenset({"torch.Tensor", "torch.FloatTensor", "torch.nn.Parameter"})
_NN_SUBKINDS = {
    "CrossEntropyLoss": CE_LOSS,
    "NLLLoss": NLL_LOSS,
    "BCELoss": BCE_LOSS,
    "Softmax": SOFTMAX_FN,
    "Sigmoid": SIGMOID_FN,
}
# What calling a module of each kind returns; any other module returns a tensor.
CALLED_MODULE_KINDS = {
    CE_LOSS: LOSS,
    NLL_LOSS: LOSS,
    BCE_LOSS: LOSS,
    LOSS_FN: LOSS,
    SOFTMAX_FN: SOFTMAX,
    SIGMOID_FN: SIGMOID,
}
# What a `for` loop over a value of each kind binds; "pair:" marks (name, value) items.
ELEMENT_KINDS = {
    PARAMS: TENSOR,
    NAMED_PARAMS: "pair:" + TENSOR,
    MODULES: MODULE,
    NAMED_MODULES: "pair:" + MODULE,
    LOADER: BATCH,
    LOADER_ITERATOR: BATCH,
    TENSORS: TENSOR,
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
NOT_TENSOR_METHODS = frozenset(
    "item tolist numpy size dim ndimension numel nelement data_ptr element_size stride "
    "get_device is_contiguous is_floating_point is_complex backward register_hook storage "
    "untyped_storage equal is_set_to is_shared is_pinned retain_grad allclose "
    "storage_offset dim_order __len__ type".split()
)
# Methods that reshape, select or move values without changing them: probabilities stay
# probabilities (a clamp or `+ eps` is a guard, and changes the kind).
_SAME_VALUES = frozenset(
    "view reshape squeeze unsqueeze flatten transpose permute t contiguous gather "
    "index_select masked_select take_along_dim narrow select to float double half bfloat16 "
    "cpu cuda type_as view_as reshape_as expand expand_as repeat clone".split()
)
# Methods that give a loss back still attached to its graph (`detach`, `item` do not).
_KEEPS_GRAPH = frozenset(
    "cpu cuda to float double half bfloat16 mean sum squeeze unsqueeze view reshape clone "
    "contiguous flatten mul div add sub".split()
)
# Module methods that return the module itself (`model.cuda()`, `model.eval()`).
MODULE_SELF_METHODS = frozenset(
    "cuda cpu to train eval float double half bfloat16 requires_grad_ apply type "
    "share_memory to_empty xpu ipu mps".split()
)
# Module methods that return something else, by what they return.
MODULE_METHOD_KINDS = {
    "parameters": PARAMS,
    "buffers": PARAMS,
    "named_parameters": NAMED_PARAMS,
    "named_buffers": NAMED_PARAMS,
    "modules": MODULES,
    "children": MODULES,
    "named_modules": NAMED_MODULES,
    "named_children": NAMED_MODULES,
    "state_dict": STATE_DICT,
    "forward": TENSOR,
}
# Wrappers that return (or iterate) what they are given.
PASSTHROUGH = frozenset({"tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm"})
# Calls whose result is known not to be a tensor with a graph, or is known by kind_of.
_KNOWN_PACKAGES = frozenset({"torch", "torchvision", "numpy", "math", "builtins", "time", "os"})
_BUILTINS = frozenset(
    "float int bool str len round abs sum min max list dict tuple set sorted range print repr "
    "format isinstance getattr hasattr type id hash any all divmod pow enumerate zip map "
    "filter iter next open vars".split()
)
# Model classes of transformers (`BertModel`, `AutoModelForCausalLM`, `T5ForConditionalGeneration`,
# `GPT2LMHeadModel`), not their TensorFlow or Flax twins, tokenizers or configs.
_HF_MODEL = re.compile(r"(?!TF[A-Z]|Flax[A-Z]|DataCollator)[A-Z]\w*(?:Model|For[A-Z]\w*)")
_MODULE_FACTORIES = frozenset({"timm.create_model", "timm.models.create_model"})


def is_model_factory(name: str) -> bool:
    """Whether calling `name` (outside torch) returns an nn.Module: `timm.create_model`, a
    transformers model class or its `from_pretrained`/`from_config`."""
    if name in _MODULE_FACTORIES:
        return True
    if not name.startswith("transformers."):
        return False
    parts = name.split(".")
    if parts[-1] in ("from_pretrained", "from_config", "_from_config"):
        parts.pop()
    return len(parts) >= 2 and _HF_MODEL.fullmatch(parts[-1]) is not None


def is_module_base(base: str) -> bool:
    """Whether a base class from outside torch is an nn.Module subclass: Lightning's
    `LightningModule`, transformers' `PreTrainedModel` and its model classes."""
    root = base.split(".", 1)[0]
    last = base.rsplit(".", 1)[-1]
    if root in ("pytorch_lightning", "lightning"):
        return last == "LightningModule"
    if root == "transformers":
        return last.endswith("PreTrainedModel") or is_model_factory(base)
    return False


# Classes under torch.nn whose subclasses are tensors, not modules.
_TENSOR_BASES = frozenset(
    {
        "torch.nn.Parameter",
        "torch.nn.parameter.Parameter",
        "torch.nn.Buffer",
        "torch.nn.parameter.Buffer",
        "torch.nn.UninitializedParameter",
        "torch.nn.parameter.UninitializedParameter",
        "torch.nn.UninitializedBuffer",
        "torch.nn.parameter.UninitializedBuffer",
    }
)


def base_class_kind(base: str) -> str | None:
    """MODULE or DATASET when a class deriving from `base` (a dotted name) is one."""
    last = base.rsplit(".", 1)[-1]
    if base in _TENSOR_BASES:
        return None  # `class FlatParameter(nn.Parameter)`: its instances are tensors
    if base.startswith(("torch.nn.", "torchvision.models.")) and last[:1].isupper():
        return MODULE
    if is_module_base(base):
        return MODULE
    if base.startswith("torch.utils.data.") and base.endswith("Dataset"):
        return DATASET
    if base.startswith("torchvision.datasets."):
        return DATASET
    return None


def annotation_name_kind(name: str) -> str | None:
    """The kind a parameter annotation (a dotted name) promises: torch.Tensor, nn.Module,
    DataLoader, an optimizer."""
    if name in TENSOR_ANNOTATIONS:
        return TENSOR
    if name in MODULE_BASES:
        return MODULE
    if name.endswith("DataLoader"):
        return LOADER
    if name.startswith("torch.optim.") and name.endswith("Optimizer"):
        return OPTIMIZER
    return None


def is_loss_function(name: str) -> bool:
    """Whether `name` (in `torch.nn.functional`) computes a loss."""
    last = name.rsplit(".", 1)[-1]
    return last in _LOSS_FUNCTIONS or last.endswith("_loss")


def is_known_callable(name: str) -> bool:
    """Whether calling `name` gives a value known not to be a tensor with a graph, or one
    whose kind `qualified_call_kind` tells: a builtin, or a function of torch, NumPy, math..."""
    return name.split(".", 1)[0] in _KNOWN_PACKAGES or name in _BUILTINS


def tensor_method_kind(receiver: str, method: str, node: ast.Call) -> str | None:
    """The kind returned by `method` called on a tensor of kind `receiver`."""
    if receiver == LOSS and method in _KEEPS_GRAPH:
        return LOSS  # `loss.cpu()`, `loss.mean()`: still the loss, graph and all
    if method == "softmax":
        return SOFTMAX
    if method == "sigmoid":
        return SIGMOID
    if receiver in (SOFTMAX, SIGMOID) and method in _SAME_VALUES:
        return receiver  # `probs.gather(1, y)`, `torch.sigmoid(x).squeeze()`
    if method in _TUPLE_FUNCTIONS or method in ("max", "min") and node.args:
        return TENSORS
    return None if method in NOT_TENSOR_METHODS else TENSOR


def qualified_call_kind(
    name: str, node: ast.Call, kind_of: Callable[[ast.AST], str | None]
) -> str | None:
    """The kind returned by calling the function or class `name` (a dotted name, resolved
    through the imports); `kind_of` gives the kinds of the call's arguments."""
    if name == "iter" and node.args:
        inner = kind_of(node.args[0])
        return LOADER_ITERATOR if inner == LOADER else ITERATOR
    if name == "int":
        return INT
    if name in PASSTHROUGH and node.args:
        return kind_of(node.args[0])
    if not name.startswith(("torch.", "torchvision.")):
        return MODULE if is_model_factory(name) else None
    last = name.rsplit(".", 1)[-1]
    if (last.endswith("Parallel") or name == "torch.compile") and node.args:
        inner = kind_of(node.args[0])  # `nn.DataParallel(net)` computes what `net` does
        if is_module(inner) and inner != MODULE:
            return inner
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
        if last == "Sequential" and node.args and not node.keywords:
            final = kind_of(node.args[-1])  # `nn.Sequential(..., nn.Softmax(dim=1))`
            return final if final in (SOFTMAX_FN, SIGMOID_FN) else MODULE
        return LOSS_FN if last.endswith("Loss") else MODULE
    if last[:1].isupper():
        return TENSOR if last.endswith("Tensor") else None
    if name.startswith("torch.nn.functional."):
        if last == "softmax":
            return SOFTMAX
        if last == "sigmoid":
            return SIGMOID
        if is_loss_function(name):
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
    if last in _SAME_VALUES and node.args:
        inner = kind_of(node.args[0])
        if inner in (SOFTMAX, SIGMOID):
            return inner  # `torch.gather(probs, 1, y)`
    return TENSOR
