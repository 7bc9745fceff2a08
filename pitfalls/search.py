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
from collections.abc import Iterable
from dataclasses import dataclass

from pitfalls.model import Recipe
from pitfalls.search_index import (
    _EXCEPTION_LINE,
    _FRAME,
    _NOT_FINAL,
    attach_indexes,
    build_index,
    normalise_message,
    tokens,
    valid_index,
)

# Scores are in [0, 1] for word evidence; an error fragment lifts a recipe above 1.
FRAGMENT_SCORE = 1.0
# Word evidence is confident when it explains most of the query on its own...
CONFIDENT_SCORE = 0.6
# ...or a good part of it with a clear lead over the next recipe (a relative rule: a query in
# plain words rarely repeats a recipe's own phrasing).
LEADING_SCORE = 0.55
LEADING_MARGIN = 0.1
# The least IDF mass (about two distinctive words) a confident word match must explain.
CONFIDENT_MASS = 3.0
# A word no recipe contains keeps the full weight of a word seen nowhere: what the catalogue
# cannot explain must lower the confidence (capping it made unrelated queries confident).
UNKNOWN_WORD_IDF = float("inf")
# Only the end of a longer query is ranked: the final error is there, and ranking ten
# megabytes of pasted log (or a notebook error with a huge message) took half a minute.
MAX_QUERY_CHARS = 64 * 1024
MAX_LINE_CHARS = 4096


@dataclass(frozen=True)
class Query:
    """A query split into its final error (`focus`) and everything else that is not noise."""

    text: str
    focus: str
    rest: str
    is_error: bool
    causes: str = ""  # earlier exception lines in the same report (chained causes)

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
        causes = "\n".join(
            line
            for line in kept[:final]
            if (match := _EXCEPTION_LINE.search(line)) and not match.group(1).endswith(_NOT_FINAL)
        )
        return cls(text, focus, rest, True, causes)


@dataclass(frozen=True)
class Hit:
    """A recipe that matched: its score, whether it is a confident answer, and why."""

    recipe: Recipe
    score: float
    fields: tuple[str, ...]
    confident: bool = False
    matched_error: str = ""


# A question word the query lacks weighs like an average word.
_DEFAULT_IDF = 1.5


def _index(recipe: Recipe) -> dict:
    index = recipe.search_index
    if not valid_index(index):
        index = build_index(recipe)
    return index


def _fragment_hit(fragments: list, focus: str, causes: str, rest: str) -> tuple[float, str]:
    """(strength, fragment): the longest fragment in the final error (1), in an exception it
    was chained from (0.9: a DataLoader worker's cause, "The above exception..."), or
    elsewhere, such as a warning printed earlier (0.5)."""
    best, text = 0.0, ""
    for normalised, original in fragments:
        if len(normalised) < 6:
            continue
        if normalised in focus:
            strength = 1.0 + len(normalised) / 1000
        elif causes and normalised in causes:
            strength = 0.9 + len(normalised) / 1000
        elif rest and normalised in rest:
            strength = 0.5 + len(normalised) / 1000
        else:
            continue
        if strength > best:
            best, text = strength, original
    return best, text


def search(recipes: Iterable[Recipe], query: str, limit: int = 10) -> list[Hit]:
    """Rank `recipes` for `query`, best first; each hit says whether it is confident."""
    query = _tail(query)
    parsed = Query.parse(query)
    weighted: dict[str, float] = {}
    for token in tokens(parsed.focus):
        # A single Chinese character says less than a word or a bigram.
        weighted.setdefault(token, 0.4 if token.startswith("#") else 1.0)
    for token in tokens(parsed.rest):
        weighted.setdefault(token, 0.3)  # what came before the final error counts less
    recipes = list(recipes)
    attach_indexes(recipes)
    indexed = [(recipe, _index(recipe)) for recipe in recipes]
    if not indexed or not weighted:
        return []
    total = len(indexed)
    frequency = dict.fromkeys(weighted, 0)
    for _, index in indexed:
        token_weights = index["weights"]
        for token in weighted:
            if token in token_weights:
                frequency[token] += 1
    for token in weighted:
        if not frequency[token] and not token.isascii():
            # Chinese bigrams cross word boundaries (率调, 器的): one no recipe contains is
            # far more often such junk than a concept the catalogue lacks.
            weighted[token] *= 0.25
    # A word no recipe knows weighs much: it is what the catalogue cannot explain.
    idf = {
        t: math.log((total + 1) / (frequency[t] + 0.5))
        if frequency[t]
        else min(UNKNOWN_WORD_IDF, math.log((total + 1) / 0.5))
        for t in weighted
    }
    query_mass = sum(w * idf[t] for t, w in weighted.items())
    query_idf_sum = sum(idf.values())
    sequence = [t for t in tokens(parsed.focus) or tokens(parsed.rest) if not t.startswith("#")]
    query_pairs = {f"{a} {b}" for a, b in zip(sequence, sequence[1:])}
    focus, rest = normalise_message(parsed.focus), normalise_message(parsed.rest)
    causes = normalise_message(parsed.causes)
    compact = " ".join(query.lower().split())
    hits = []
    for recipe, index in indexed:
        token_weights = index["weights"]
        strength, fragment = _fragment_hit(index["fragments"], focus, causes, rest)
        matched_mass = 0.0
        for token, weight in weighted.items():
            best = token_weights.get(token)
            if best:
                matched_mass += weight * idf[token] * best
        is_name = compact in (recipe.id, *recipe.aliases)
        if not matched_mass and not strength and not is_name:
            continue
        coverage = matched_mass / query_mass if query_mass else 0.0
        pairs = index["pairs"]
        shared_pairs = sum(1 for pair in query_pairs if pair in pairs)
        pair_share = shared_pairs / len(query_pairs) if query_pairs else 0.0
        question_similarity = max(
            (_similarity(weighted, idf, query_idf_sum, q) for q in index["questions"]),
            default=0.0,
        )
        score = max(0.8 * coverage + 0.2 * pair_share, question_similarity)
        confident = score >= CONFIDENT_SCORE and matched_mass >= CONFIDENT_MASS
        if is_name:
            score, confident = FRAGMENT_SCORE + 1.0, True
        if strength:
            score = FRAGMENT_SCORE + strength
            confident = strength >= 0.9 or confident
        if score > 0.0:
            hits.append(
                (score, recipe, index, confident, fragment, strength, is_name, matched_mass)
            )
    hits.sort(key=lambda h: (-h[0], h[1].id))
    if hits and not hits[0][3] and hits[0][0] < FRAGMENT_SCORE:
        # The relative rule: a clear lead on word evidence alone.
        lead = hits[0][0] - (hits[1][0] if len(hits) > 1 else 0.0)
        first = hits[0]
        if first[0] >= LEADING_SCORE and lead >= LEADING_MARGIN and first[7] >= CONFIDENT_MASS:
            hits[0] = (*first[:3], True, *first[4:])
    return [
        Hit(
            recipe, round(score, 4), _matched_fields(index, weighted, strength, is_name), sure, frag
        )
        for score, recipe, index, sure, frag, strength, is_name, _ in hits[:limit]
    ]


def _tail(query: str) -> str:
    """The last lines of `query`, MAX_QUERY_CHARS in all, each cut to its first
    MAX_LINE_CHARS (an error's type and message start its line)."""
    if len(query) <= MAX_QUERY_CHARS:
        return query
    kept: list[str] = []
    size, end = 0, len(query)
    while end > 0 and size < MAX_QUERY_CHARS:
        start = query.rfind("\n", 0, end) + 1
        kept.append(query[start : min(end, start + MAX_LINE_CHARS)])
        size += len(kept[-1]) + 1
        end = start - 1
    return "\n".join(reversed(kept))


def _matched_fields(index: dict, weighted: dict[str, float], strength: float, is_name: bool):
    fields = {
        name for name, values in index["fields"].items() if any(t in weighted for t in values)
    }
    if strength:
        fields.add("errors")
    if is_name:
        fields.add("name")
    return tuple(sorted(fields))


def _similarity(
    weighted: dict[str, float], idf: dict[str, float], query_side: float, question: list[str]
) -> float:
    """IDF-weighted Dice overlap between the query and one question, in [0, 1]."""
    if not question or not query_side:
        return 0.0
    common = 0.0
    question_side = 0.0
    for token in set(question):
        if token in weighted:
            common += idf[token]
            question_side += idf[token]
        else:
            question_side += _DEFAULT_IDF
    return 2 * common / (query_side + question_side)


def best_match(recipes: Iterable[Recipe], text: str) -> Hit | None:
    """The confident top hit for `text` (a traceback, a message), or None: for `trace` and
    the notebook extension, which must stay silent rather than guess."""
    hits = search(recipes, text, limit=2)
    return hits[0] if hits and hits[0].confident else None


def per_field_text(recipe: Recipe) -> str:
    """The id and aliases as one lower-case string."""
    return " ".join([recipe.id, *recipe.aliases]).lower()
