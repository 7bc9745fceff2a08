"""PFL206, PFL207 and PFL208: attention and masking: a fill value float16 cannot hold, a
boolean mask with the other API's polarity, and a masked mean that counts the padding."""

from __future__ import annotations

import ast
import re

from pitfalls.check.checker import Checker, check, documents
from pitfalls.check.rules.checkpoints import value_before

FP16_MAX = 65504.0
FILLS = frozenset({"masked_fill", "masked_fill_"})
# Text that shows the file runs in float16 somewhere.
FP16_TEXT = re.compile(r"\bautocast\b|\.half\(\)|float16|\bfp16\b|torch\.half\b")
FLOAT32 = ("float()", "float32", "torch.float")


def _number(node: ast.AST) -> float | None:
    sign = 1.0
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        sign, node = -1.0, node.operand
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return sign * float(node.value)
    return None


# -- PFL206 -------------------------------------------------------------------------------
@check("PFL206", ast.Call)
@documents("PFL206")
def fp16_fill_overflow(checker: Checker, node: ast.Call) -> None:
    """## What it does
    Finds `scores.masked_fill(mask, -1e9)` (or `masked_fill_`, `torch.masked_fill`) with a
    finite literal larger in size than float16's largest value, 65504, in a file that runs in
    float16 somewhere (it mentions `autocast`, `.half()` or `float16`). A receiver cast to
    float32 first (`scores.float().masked_fill(...)`) is not reported.

    ## Why is this bad?
    Under float16 autocast the attention scores are float16, and `masked_fill` refuses a
    value it cannot represent: "value cannot be converted to type c10::Half without
    overflow". The additive form (`mask * -1e9`) overflows silently to `-inf`, and a row with
    every position masked then turns into NaN after the softmax.

    ## Example
    `scores = scores.masked_fill(mask, -1e9)`

    Use instead: `scores.masked_fill(mask, torch.finfo(scores.dtype).min)`, or do the masked
    softmax in float32.
    """
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr not in FILLS:
        return
    args = node.args
    if checker.callee(node) == "torch.masked_fill":
        args = args[1:]
    value = args[1] if len(args) > 1 else None
    for keyword in node.keywords:
        if keyword.arg == "value":
            value = keyword.value
    number = _number(value) if value is not None else None
    if number is None or abs(number) <= FP16_MAX:
        return
    if not FP16_TEXT.search(checker.text):
        return
    receiver = checker.segment(func.value)
    if any(text in receiver[-20:] for text in FLOAT32):
        return
    checker.report(
        "PFL206",
        value,
        f"`{checker.segment(value)}` does not fit in float16 (largest 65504): under fp16 "
        f"autocast or `.half()` this `masked_fill` raises; use "
        f"`torch.finfo(scores.dtype).min`",
    )


# -- PFL207 -------------------------------------------------------------------------------
SDPA = frozenset(
    {
        "torch.nn.functional.scaled_dot_product_attention",
        "torch._C._nn.scaled_dot_product_attention",
    }
)
HF_MASK = re.compile(r"(?:^|_)attention_mask$")


def _resolve_value(checker: Checker, value: ast.AST, line: int) -> ast.AST:
    for _ in range(3):
        if not isinstance(value, ast.Name):
            break
        bound = value_before(checker, value.id, line)
        if bound is None:
            break
        value = bound
    return value


def _is_bool_triu(checker: Checker, value: ast.AST) -> bool:
    """`torch.triu(...).bool()` or `torch.triu(torch.ones(..., dtype=torch.bool))`: True on
    the future positions (not inverted with `~` or `logical_not`)."""
    if isinstance(value, ast.UnaryOp):
        return False
    text = checker.segment(value)
    if "triu" not in text or "logical_not" in text or "~" in text:
        return False
    if ".bool()" not in text and "torch.bool" not in text:
        return False
    return (
        any(
            isinstance(inner, ast.Call)
            and (checker.model.resolve(inner.func) or "") in ("torch.triu", "torch.Tensor.triu")
            for inner in ast.walk(value)
        )
        or ".triu(" in text
    )


def _hf_mask_name(value: ast.AST) -> str | None:
    """`attention_mask`, `batch.attention_mask`, `attention_mask.bool()`: the name."""
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "bool"
        and not value.args
    ):
        value = value.func.value
    if isinstance(value, ast.Name) and HF_MASK.search(value.id):
        return value.id
    if isinstance(value, ast.Attribute) and HF_MASK.search(value.attr):
        return value.attr
    if (
        isinstance(value, ast.Subscript)
        and isinstance(value.slice, ast.Constant)
        and value.slice.value == "attention_mask"
    ):
        return "attention_mask"
    return None


@check("PFL207", ast.Call)
@documents("PFL207")
def attention_mask_polarity(checker: Checker, node: ast.Call) -> None:
    """## What it does
    Finds a boolean mask given with the other API's meaning of True:
    `F.scaled_dot_product_attention(..., attn_mask=m)` where `m` is an upper triangle made
    boolean (`torch.triu(..., diagonal=1).bool()`, the mask `nn.Transformer` code builds),
    directly or through a name bound in the same function; and `key_padding_mask=` given a
    Hugging Face `attention_mask` (1 for a real token), as it is or with `.bool()`.

    ## Why is this bad?
    The two APIs read a boolean mask the opposite way: for `scaled_dot_product_attention`
    True means "may attend", for `nn.MultiheadAttention` and `nn.Transformer` True means
    "masked out". The upper triangle given to SDPA lets every position attend only to the
    future; a tokenizer's `attention_mask` given as `key_padding_mask` masks the real tokens
    and attends to the padding. Neither raises.

    ## Example
    `F.scaled_dot_product_attention(q, k, v, attn_mask=torch.triu(ones, 1).bool())`,
    `mha(x, x, x, key_padding_mask=attention_mask.bool())`

    Use instead: `is_causal=True` (or `attn_mask=~future`) for SDPA;
    `key_padding_mask=attention_mask == 0` for MultiheadAttention.
    """
    keywords = {k.arg: k.value for k in node.keywords if k.arg}
    mask = keywords.get("attn_mask")
    if mask is not None and checker.callee(node) in SDPA:
        if _is_bool_triu(checker, _resolve_value(checker, mask, node.lineno)):
            checker.report(
                "PFL207",
                mask,
                "an upper-triangular boolean mask marks the future, but "
                '`scaled_dot_product_attention` reads True as "may attend": every position '
                "attends only to the future; pass `is_causal=True` or `attn_mask=~mask`",
            )
    padding = keywords.get("key_padding_mask")
    if padding is not None:
        name = _hf_mask_name(padding)
        if name is not None:
            checker.report(
                "PFL207",
                padding,
                f"`{name}` is 1 (True) for real tokens, but `key_padding_mask` reads True as "
                f'"ignore": the real tokens are masked and the padding attended; pass '
                f"`{name} == 0`",
            )


# -- PFL208 -------------------------------------------------------------------------------
MASK_NAME = re.compile(r"mask", re.I)


def _is_mask(node: ast.AST) -> bool:
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr not in ("float", "to", "type_as", "half", "bfloat16", "unsqueeze"):
            return False
        node = node.func.value
    while isinstance(node, ast.Subscript):
        node = node.value
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
    return isinstance(name, str) and bool(MASK_NAME.search(name))


@check("PFL208", ast.Call)
@documents("PFL208")
def masked_mean(checker: Checker, node: ast.Call) -> None:
    """## What it does
    Finds `(values * mask).mean()` (or `torch.mean(values * mask)`) with no `dim`, where one
    factor is named like a mask: a per-token loss averaged over every position.

    ## Why is this bad?
    Multiplying by the mask zeroes the padded positions, but `mean()` still divides by all of
    them: the loss shrinks with the amount of padding, so batches with more padding count
    less and the effective learning rate depends on how the data was padded.

    ## Example
    `loss = (per_token * mask).mean()`

    Use instead: `loss = (per_token * mask).sum() / mask.sum()`
    """
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr != "mean" or node.keywords:
        return
    if checker.callee(node) == "torch.mean":
        if len(node.args) != 1:
            return  # `torch.mean(x, dim)`: a mean over some dimensions
        product = node.args[0]
    elif node.args:
        return
    else:
        product = func.value
    if not (isinstance(product, ast.BinOp) and isinstance(product.op, ast.Mult)):
        return
    if not (_is_mask(product.left) or _is_mask(product.right)):
        return
    checker.report(
        "PFL208",
        node,
        "`mean()` of a masked product divides by every position, padding included: divide "
        "the sum by the number of real positions, `(x * mask).sum() / mask.sum()`",
    )
