"""Search tokens and the per-recipe search index, apart from ranking.

The index of a recipe (its fields as tokens, its questions, word pairs and normalised error
fragments) depends only on the recipe, so the registry's metadata cache stores it: a search
over a thousand recipes then tokenises the query, not the catalogue.
"""

from __future__ import annotations

import re
from typing import Any

from pitfalls.model import LANGS, Recipe

INDEX_VERSION = 3

_NOISE = [
    re.compile(r"0x[0-9a-fA-F]+"),  # addresses
    re.compile(r"(?:[A-Za-z]:)?(?:[\\/][\w.\-]+){2,}[\\/]?"),  # file paths
    re.compile(r"\b[\w.\-]+\.py\b"),  # file names in tracebacks
    re.compile(r"\b\d+(?:\.\d+)*(?:e[-+]?\d+)?\b"),  # numbers, versions, pids
]
_WORD = re.compile(r"[a-z][a-z0-9_]*")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")
_STOPWORDS = frozenset(
    "a an and are as at be by for from has have in is it its of on or that the this to was "
    "were with you your not no can do does did line file call last most recent traceback "
    "error my me i we our how why what when which who will would should could get got "
    "but if so then than there their they them one use using used after before all any "
    "some just only also into out up down very too much many more less about after again "
    "keep keeps even still "
    # contractions split at the apostrophe (doesn't -> doesn), and words every report has
    "doesn don didn isn wasn aren won couldn shouldn wouldn haven hasn weren "
    "bug work works working worked pytorch torch problem issue help please thanks".split()
)
# Bigrams of Chinese function words that say nothing about a pitfall.
_CJK_STOP = frozenset(
    "为什么 什么 怎么 怎样 一个 这个 那个 我的 我们 时候 的时 了一 是不 不是 没有 可以 "
    "如何 以后 之后 问题 出现 总是 一直 然后 但是 因为 所以 还是 就是".split()
)
# Characters too common in questions to say anything alone.
_CJK_STOP_CHARS = frozenset("的了是在我你他她它们这那有和就都也还把被吗呢吧啊么什怎为个一不")
# Function characters: a bigram holding one is almost always a cross-word fragment (被改, 也被).
_CJK_FUNCTION_CHARS = frozenset("的了也被都是在我你他她它就还把吗呢吧啊这那和很么来")
# CamelCase type names (DoubleTensor, FloatTensor) also match their parts.
_CAMEL = re.compile(r"\b[A-Za-z]*[a-z][A-Z][A-Za-z]*\b")
# A few spellings users write for the same thing.
_SYNONYMS = {
    "grad": "gradient",
    "grads": "gradient",
    "gpu": "cuda",
    "gpus": "cuda",
    "nans": "nan",
    "infs": "inf",
    "dataloaders": "dataloader",
}
_EXCEPTION_LINE = re.compile(
    r"(?:^|[\s:(])((?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception|Interrupt|Warning))(?::|$)"
)
_FRAME = re.compile(r'^\s*File "[^"]*", line \d+')
_NOT_FINAL = ("Warning",)


def _stem(word: str) -> str:
    """A light English plural stemmer: `gradients` -> `gradient`, `batches` -> `batch`."""
    if len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def tokens(text: str) -> list[str]:
    """Normalised search tokens of `text`, in order (see the module docstring)."""
    for pattern in _NOISE:
        text = pattern.sub(" ", text)
    camel_parts = [
        part
        for name in _CAMEL.findall(text)
        for part in re.findall(r"[A-Z]?[a-z]+", name)
        if len(part) > 2
    ]
    lowered = text.lower() + " " + " ".join(camel_parts).lower()
    found = []
    for word in _WORD.findall(lowered):
        if word in _STOPWORDS or len(word) < 2:
            continue
        word = _SYNONYMS.get(word, word)
        parts = [p for p in re.split(r"[_\-]+", word) if len(p) > 1 and p not in _STOPWORDS]
        found.append(_stem(word))
        # Split identifiers too, so that `scatter_` and `one_hot` also match `scatter`, `hot`.
        if len(parts) > 1:
            found.extend(_stem(_SYNONYMS.get(p, p)) for p in parts)
    for run in _CJK.findall(text):
        # Single characters too: Chinese users write 累加 where a recipe says 累积, and the
        # shared character still counts (IDF keeps common characters cheap).
        found.extend(f"#{char}" for char in run if char not in _CJK_STOP_CHARS)
        found.extend(
            bigram
            for bigram in (run[i : i + 2] for i in range(len(run) - 1))
            if bigram not in _CJK_STOP and not (_CJK_FUNCTION_CHARS & set(bigram))
        )
    return found


def normalise_message(text: str) -> str:
    """A message as compared with error fragments: lower case, one space, digits as 0."""
    text = text.lower().replace("\u2018", "'").replace("\u2019", "'").replace("`", "'")
    text = text.replace("\u201c", '"').replace("\u201d", '"')
    text = re.sub(r"\d+", "0", text)
    return " ".join(text.split())


# Field weights: how much a token found there says that the recipe is about the query.
FIELD_WEIGHTS = {
    "name": 1.0,
    "errors": 1.0,
    "questions": 0.9,
    "title": 0.9,
    "tags": 0.7,
    "summary": 0.7,
    "symptom": 0.4,
}


def build_index(recipe: Recipe) -> dict[str, Any]:
    """The recipe's search index as plain, marshal-able data."""
    questions = [tokens(q) for lang in LANGS for q in recipe.questions.get(lang, ())]
    error_texts = [e.text for e in recipe.errors] + [e.text for e in recipe.legacy_errors]
    names = [recipe.id, *recipe.aliases]
    texts = {
        "name": " ".join(name.replace("-", " ") for name in names),
        "errors": " ".join(error_texts),
        "title": " ".join(recipe.title.values()),
        "tags": " ".join(recipe.tags),
        "summary": " ".join(recipe.summary.values()),
    }
    # The Symptom section says what users see, in the words they search with.
    texts["symptom"] = " ".join(_symptom(recipe.prose(lang) or "") for lang in LANGS)
    sequences = {name: tokens(text) for name, text in texts.items()}
    fields = {name: sorted(set(seq)) for name, seq in sequences.items()}
    fields["questions"] = sorted({t for q in questions for t in q})
    words = [[t for t in seq if not t.startswith("#")] for seq in (*sequences.values(), *questions)]
    pairs = {f"{a} {b}": 1 for seq in words for a, b in zip(seq, seq[1:])}
    fragments = [[normalise_message(text), text] for text in error_texts if text.strip()]
    weights: dict[str, float] = {}
    for name, values in fields.items():
        for token in values:
            weights[token] = max(weights.get(token, 0.0), FIELD_WEIGHTS[name])
    return {
        "version": INDEX_VERSION,
        "fields": fields,
        "weights": weights,  # each token's best field weight: one lookup while ranking
        "questions": [sorted(set(q)) for q in questions],
        "pairs": pairs,
        "fragments": fragments,
    }


def _symptom(prose: str) -> str:
    """The first `##` section of a recipe's prose (Symptom / 现象), without code blocks."""
    body = prose.split("\n## ", 2)
    section = body[0] if not prose.startswith("## ") else prose[3:].split("\n## ", 1)[0]
    if len(body) > 1 and not prose.startswith("## "):
        section = body[1]
    return re.sub(r"```.*?```", " ", section, flags=re.S)


def valid_index(index: Any) -> bool:
    """Whether cached data has the shape `build_index` writes."""
    return (
        isinstance(index, dict)
        and index.get("version") == INDEX_VERSION
        and isinstance(index.get("fields"), dict)
        and isinstance(index.get("questions"), list)
        and isinstance(index.get("weights"), dict)
        and isinstance(index.get("pairs"), dict)
        and isinstance(index.get("fragments"), list)
    )


def attach_indexes(recipes: list[Recipe]) -> None:
    """Give each recipe its search index: from the search cache when its recipe.toml is
    unchanged, else built (and cached when it depends on recipe.toml alone)."""
    import os

    from pitfalls.cache import FolderCache

    caches: dict[str, FolderCache] = {}
    for recipe in recipes:
        if recipe.search_index is not None:
            continue
        parent = recipe.path.parent
        cache = caches.get(str(parent))
        if cache is None:
            cache = caches[str(parent)] = FolderCache(parent, "search", INDEX_VERSION)
        key: list | None = [recipe.id]
        for name in ("recipe.toml", "en.md", "zh.md"):
            try:
                stat = os.stat(recipe.path / name)
                key.extend([stat.st_mtime_ns, stat.st_size])
            except FileNotFoundError:
                key.append(None)
            except OSError:
                key = None
                break
        index = cache.get_data(recipe.path.name, key) if key else None
        if not valid_index(index):
            index = build_index(recipe)
            if key:
                cache.put_data(recipe.path.name, key, index)
        recipe.search_index = index
    for cache in caches.values():
        cache.save()
