"""Ranking recipes for a query: a few words, a question, or a whole pasted traceback.

Two kinds of evidence, in this order:

1. Error fragments. A recipe's `errors` (proven by its own expectations) and `legacy_errors`
   are message fragments; one found verbatim in the query's final error (the last
   `SomeError: message` line and the lines under it) is the strongest evidence there is.
   Found elsewhere in the query (a warning printed before the error), it counts for less.
2. Words. Tokens of the query (Latin words, lightly stemmed, and character bigrams for
   Chinese) are matched against the recipe's questions, error texts, names, title, tags and
   summary, weighted by how rare each token is in the catalogue (IDF). The score is the
   share of the query's weight a recipe explains, so it means the same across queries.

Frames of a traceback, user code lines, paths, pids, numbers, shapes and addresses are noise.
`confident` is true only where the evidence is strong: search prefers "I don't know" to a
wrong answer. Nothing here imports torch, and the index is built from the metadata cache, so
searching a thousand recipes costs little more than listing them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pitfalls.model import LANGS, Recipe

# Scores are in [0, 1] for word evidence; an error fragment lifts a recipe above 1.
CONFIDENT_SCORE = 0.6
FRAGMENT_SCORE = 1.0
# The least IDF mass (about two distinctive words) a confident word match must explain.
CONFIDENT_MASS = 3.0

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
    "keep keeps even still".split()
)
# Bigrams of Chinese function words that say nothing about a pitfall.
_CJK_STOP = frozenset(
    "为什么 什么 怎么 怎样 一个 这个 那个 我的 我们 时候 的时 了一 是不 不是 没有 可以 "
    "如何 以后 之后 问题 出现 总是 一直 然后 但是 因为 所以 还是 就是".split()
)
# Characters too common in questions to say anything alone.
_CJK_STOP_CHARS = frozenset("的了是在我你他她它们这那有和就都也还把被吗呢吧啊么什怎为个一不")
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
    lowered = text.lower()
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
            if bigram not in _CJK_STOP
        )
    return found


def normalise_message(text: str) -> str:
    """A message as compared with error fragments: lower case, one space, digits as 0."""
    text = text.lower().replace("\u2018", "'").replace("\u2019", "'").replace("`", "'")
    text = text.replace("\u201c", '"').replace("\u201d", '"')
    text = re.sub(r"\d+", "0", text)
    return " ".join(text.split())


@dataclass(frozen=True)
class Query:
    """A query split into its final error (`focus`) and everything else that is not noise."""

    text: str
    focus: str
    rest: str
    is_error: bool

    @classmethod
    def parse(cls, text: str) -> Query:
        """Find the last `SomeError: message` block outside traceback frames."""
        lines = text.splitlines()
        kept: list[str] = []
        skip_code = False
        for line in lines:
            if _FRAME.match(line):
                skip_code = True  # the next, deeper-indented line is the user's code
                continue
            if skip_code and line.startswith((" ", "\t")) and line.strip():
                skip_code = False
                continue
            skip_code = False
            stripped = line.strip()
            if not stripped or set(stripped) <= set("^~ "):
                continue
            if stripped.startswith(("Traceback (most recent call last)", "During handling")):
                continue
            if stripped.startswith("The above exception was the direct cause"):
                continue
            kept.append(line)
        final = None
        for index, line in enumerate(kept):
            match = _EXCEPTION_LINE.search(line)
            if match and not match.group(1).endswith(_NOT_FINAL):
                final = index
        if final is None:
            joined = "\n".join(kept)
            # Only warnings: the warning is what the user has.
            return cls(text, joined, "", any(_EXCEPTION_LINE.search(k) for k in kept))
        focus = "\n".join(kept[final:])
        rest = "\n".join(kept[:final])
        return cls(text, focus, rest, True)


@dataclass(frozen=True)
class Hit:
    """A recipe that matched: its score, whether it is a confident answer, and why."""

    recipe: Recipe
    score: float
    fields: tuple[str, ...]
    confident: bool = False
    matched_error: str = ""


@dataclass
class _Entry:
    recipe: Recipe
    fields: dict[str, set[str]]
    questions: list[list[str]]
    pairs: set[tuple[str, str]]
    fragments: list[tuple[str, str]] = field(default_factory=list)  # (normalised, original)


# Field weights: how much a token found there says that the recipe is about the query.
FIELD_WEIGHTS = {
    "name": 1.0,
    "errors": 1.0,
    "questions": 0.9,
    "title": 0.9,
    "tags": 0.7,
    "summary": 0.7,
    "symptom": 0.6,
}


def _entry(recipe: Recipe) -> _Entry:
    questions = [tokens(q) for lang in LANGS for q in recipe.questions.get(lang, ())]
    error_texts = [e.text for e in recipe.errors] + [e.text for e in recipe.legacy_errors]
    texts = {
        "name": " ".join(
            [recipe.id.replace("-", " "), *(a.replace("-", " ") for a in recipe.aliases)]
        ),
        "errors": " ".join(error_texts),
        "title": " ".join(recipe.title.values()),
        "tags": " ".join(recipe.tags),
        "summary": " ".join(recipe.summary.values()),
    }
    if not questions:
        # A recipe without questions (an older pack): its Symptom section stands in.
        prose = [recipe.prose(lang) or "" for lang in LANGS]
        texts["symptom"] = " ".join(p.split("\n## ", 2)[1] if "\n## " in p else p for p in prose)
    sequences = {name: tokens(text) for name, text in texts.items()}
    fields = {name: set(seq) for name, seq in sequences.items()}
    fields["questions"] = {t for q in questions for t in q}
    words = [[t for t in seq if not t.startswith("#")] for seq in (*sequences.values(), *questions)]
    pairs = {pair for seq in words for pair in zip(seq, seq[1:])}
    fragments = [(normalise_message(text), text) for text in error_texts if text.strip()]
    return _Entry(recipe, fields, questions, pairs, fragments)


def _fragment_hit(entry: _Entry, query: Query) -> tuple[float, str]:
    """(strength, fragment): the longest fragment in the final error, or elsewhere (half)."""
    focus = normalise_message(query.focus)
    rest = normalise_message(query.rest)
    best, text = 0.0, ""
    for normalised, original in entry.fragments:
        if len(normalised) < 6:
            continue
        if normalised in focus:
            strength = 1.0 + len(normalised) / 1000
        elif rest and normalised in rest:
            strength = 0.5 + len(normalised) / 1000
        else:
            continue
        if strength > best:
            best, text = strength, original
    return best, text


def search(recipes: Iterable[Recipe], query: str, limit: int = 10) -> list[Hit]:
    """Rank `recipes` for `query`, best first; each hit says whether it is confident."""
    parsed = Query.parse(query)
    weighted: dict[str, float] = {}
    for token in tokens(parsed.focus):
        # A single Chinese character says less than a word or a bigram.
        weighted.setdefault(token, 0.4 if token.startswith("#") else 1.0)
    for token in tokens(parsed.rest):
        weighted.setdefault(token, 0.3)  # what came before the final error counts less
    entries = [_entry(recipe) for recipe in recipes]
    if not entries or not weighted:
        return []
    total = len(entries)
    frequency = {
        token: sum(1 for e in entries if any(token in f for f in e.fields.values()))
        for token in weighted
    }

    for token in weighted:
        if not frequency[token] and not token.isascii():
            # Chinese bigrams cross word boundaries (率调, 器的): one no recipe contains is
            # far more often such junk than a concept the catalogue lacks.
            weighted[token] *= 0.25

    def idf(token: str) -> float:
        # A word no recipe knows weighs most: it is what the catalogue cannot explain.
        return math.log((total + 1) / (frequency[token] + 0.5))

    query_mass = sum(w * idf(t) for t, w in weighted.items())
    sequence = [t for t in tokens(parsed.focus) or tokens(parsed.rest) if not t.startswith("#")]
    query_pairs = set(zip(sequence, sequence[1:]))
    compact = " ".join(query.lower().split())
    hits = []
    for entry in entries:
        recipe = entry.recipe
        strength, fragment = _fragment_hit(entry, parsed)
        matched_mass = 0.0
        matched_fields: set[str] = set()
        for token, weight in weighted.items():
            best = 0.0
            for name, tokens_of_field in entry.fields.items():
                if token in tokens_of_field:
                    best = max(best, FIELD_WEIGHTS[name])
                    matched_fields.add(name)
            matched_mass += weight * idf(token) * best
        coverage = matched_mass / query_mass if query_mass else 0.0
        pair_share = len(query_pairs & entry.pairs) / len(query_pairs) if query_pairs else 0.0
        question_similarity = max(
            (_similarity(weighted, q, idf) for q in entry.questions), default=0.0
        )
        score = max(0.8 * coverage + 0.2 * pair_share, question_similarity)
        confident = score >= CONFIDENT_SCORE and matched_mass >= CONFIDENT_MASS
        if compact in (recipe.id, *recipe.aliases):
            score, confident = FRAGMENT_SCORE + 1.0, True
            matched_fields.add("name")
        if strength:
            score = FRAGMENT_SCORE + strength
            confident = strength >= 1.0 or confident
            matched_fields.add("errors")
        if score <= 0.0 or not matched_fields:
            continue
        hits.append(
            Hit(recipe, round(score, 4), tuple(sorted(matched_fields)), confident, fragment)
        )
    hits.sort(key=lambda h: (-h.score, h.recipe.id))
    return hits[:limit]


def _similarity(weighted: dict[str, float], question: Sequence[str], idf) -> float:
    """IDF-weighted Dice overlap between the query and one question, in [0, 1]."""
    words = set(question)
    if not words:
        return 0.0
    common = sum(idf(t) for t in words if t in weighted and t in weighted)
    query_side = sum(idf(t) for t in weighted)
    question_side = sum(idf(t) if t in weighted else _default_idf(t) for t in words)
    if not query_side or not question_side:
        return 0.0
    return 2 * common / (query_side + question_side)


def _default_idf(token: str) -> float:
    # A question word the query lacks: weigh it like an average word.
    return 1.5


def best_match(recipes: Iterable[Recipe], text: str) -> Hit | None:
    """The confident top hit for `text` (a traceback, a message), or None: for `trace` and
    the notebook extension, which must stay silent rather than guess."""
    hits = search(recipes, text, limit=2)
    return hits[0] if hits and hits[0].confident else None


def per_field_text(recipe: Recipe) -> str:
    """The id and aliases as one lower-case string."""
    return " ".join([recipe.id, *recipe.aliases]).lower()
