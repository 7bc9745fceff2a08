"""Ranking recipes for a query, which may be a few words or a whole pasted traceback.

Matching works on normalised tokens: Latin words in lower case, and character bigrams for
Chinese (which has no spaces). Numbers, pids, shapes, hex addresses and file paths are
dropped, so that `DataLoader worker (pid 4242) is killed` finds the same recipe for any pid.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from pitfalls.model import LANGS, Recipe

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
    "error".split()
)

# Where a match counts most: the id and aliases, then title and tags, then summary and prose.
FIELD_WEIGHTS = {
    "name": 6.0,
    "title": 4.0,
    "tags": 3.0,
    "symptom": 3.0,  # the first section quotes what users see: the error they paste
    "summary": 2.0,
    "prose": 1.0,
}


def tokens(text: str) -> list[str]:
    """Normalised search tokens of `text` (see the module docstring)."""
    for pattern in _NOISE:
        text = pattern.sub(" ", text)
    lowered = text.lower()
    found = [w for w in _WORD.findall(lowered) if w not in _STOPWORDS and len(w) > 1]
    # Split identifiers too, so that `scatter_` and `one_hot` also match `scatter`, `hot`.
    for word in list(found):
        parts = [p for p in re.split(r"[_\-]+", word) if len(p) > 1 and p not in _STOPWORDS]
        if len(parts) > 1:
            found.extend(parts)
    for run in _CJK.findall(text):
        found.extend(run[i : i + 2] for i in range(max(1, len(run) - 1)))
    return found


@dataclass(frozen=True)
class Hit:
    """A recipe that matched, with its score and the fields that matched."""

    recipe: Recipe
    score: float
    fields: tuple[str, ...]


def _fields(recipe: Recipe) -> dict[str, str]:
    texts = [recipe.prose(lang) or "" for lang in LANGS]
    prose = " ".join(texts)
    # Prose opens with `## Symptom`: everything before the second heading.
    symptom = " ".join(text.split("\n## ", 1)[0] for text in texts)
    return {
        "symptom": symptom,
        "name": " ".join([recipe.id, *recipe.aliases]),
        "title": " ".join(recipe.title.values()),
        "tags": " ".join(recipe.tags),
        "summary": " ".join(recipe.summary.values()),
        "prose": prose,
    }


def search(recipes: Iterable[Recipe], query: str, limit: int = 10) -> list[Hit]:
    """Rank `recipes` for `query`; rarer tokens weigh more (IDF), repeated ones less."""
    wanted = list(dict.fromkeys(tokens(query)))
    recipes = list(recipes)
    if not wanted or not recipes:
        return []
    wanted_pairs = set(zip(wanted_sequence := tokens(query), wanted_sequence[1:]))
    indexed = []
    pairs_of: dict[str, set[tuple[str, str]]] = {}
    symptom_pairs_of: dict[str, set[tuple[str, str]]] = {}
    for recipe in recipes:
        texts = _fields(recipe)
        sequences = {name: tokens(text) for name, text in texts.items()}
        per_field = {name: set(seq) for name, seq in sequences.items()}
        # Also match inside names, so that `clamp` finds `clamp-before-log`.
        per_field["name"] |= set(re.split(r"[-\s]+", per_field_text(recipe)))
        symptom = sequences["symptom"]
        symptom_pairs_of[recipe.id] = set(zip(symptom, symptom[1:]))
        pairs_of[recipe.id] = {pair for seq in sequences.values() for pair in zip(seq, seq[1:])}
        indexed.append((recipe, per_field))
    document_frequency = {
        token: sum(1 for _, fields in indexed if any(token in f for f in fields.values()))
        for token in wanted
    }
    total = len(indexed)
    compact_query = " ".join(re.sub(r"\s+", " ", query.lower()).split())
    hits = []
    for recipe, fields in indexed:
        score = 0.0
        matched: set[str] = set()
        for token in wanted:
            if not document_frequency[token]:
                continue
            idf = math.log(1 + total / document_frequency[token])
            best = max((FIELD_WEIGHTS[n] for n, f in fields.items() if token in f), default=0.0)
            if best:
                score += best * idf
                matched.update(n for n, f in fields.items() if token in f)
        if not score:
            continue
        coverage = sum(1 for t in wanted if any(t in f for f in fields.values())) / len(wanted)
        score *= 0.5 + coverage  # a recipe that explains most of the message ranks first
        # Word pairs in the query's order: a pasted error message quoted in the prose wins.
        score += 2.0 * len(wanted_pairs & pairs_of[recipe.id])
        score += 1.0 * len(wanted_pairs & symptom_pairs_of[recipe.id])
        if compact_query and compact_query in (recipe.id, *recipe.aliases):
            score += 100.0
        hits.append(Hit(recipe, round(score, 3), tuple(sorted(matched))))
    hits.sort(key=lambda h: (-h.score, h.recipe.id))
    return hits[:limit]


def per_field_text(recipe: Recipe) -> str:
    """The id and aliases as one lower-case string."""
    return " ".join([recipe.id, *recipe.aliases]).lower()
