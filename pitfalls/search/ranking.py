"""Ranking recipes for a query: a few words, a question, or a whole pasted traceback.
(About 400 lines as one cohesive thing: one scoring pass and the confidence rules it ends in.)

Two kinds of evidence, in this order:

1. Error fragments. A recipe's `errors` (proven by its own expectations) and `legacy_errors`
   are message fragments; one found verbatim in the query's final error (the last
   `SomeError: message` line and the lines under it) is the strongest evidence there is.
   Found elsewhere in the query (a warning printed before the error), it counts for less.
2. Words. Tokens of the query (Latin words with plural and verb endings stemmed, names with
   their CamelCase and snake_case parts; Chinese as its known words, most of them as their
   English word, and characters and bigrams between them; traditional read as simplified)
   are matched against the recipe's questions, error texts, names, title, tags and summary,
   weighted by how rare each token is in the catalogue (IDF). The score is the share of the
   query's weight a recipe explains, or its likeness to one of the recipe's questions in the
   query's language, so it means the same across queries; for a Chinese query both must
   agree. In a typed query (not a pasted error), a word no recipe knows is read as the
   known word one edit away: ranked, at a lower weight, but no ground for confidence.

Frames of a traceback (Python's, IPython's and Jupyter's, with their code lines and colours),
`[rank0]:` prefixes, paths, pids, numbers, shapes and addresses are noise.
`confident` is true only where the evidence is strong: search prefers "I don't know" to a
wrong answer. Nothing here imports torch, and the index is built from the metadata cache, so
searching a thousand recipes costs little more than listing them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from pitfalls.catalogue.model import Recipe
from pitfalls.search.index import (
    _EXCEPTION_LINE,
    _FRAME,
    _NOT_FINAL,
    attach_indexes,
    build_index,
    normalise_message,
    strip_ansi,
    token_weight,
    tokens,
    typo_candidates,
    valid_index,
)
from pitfalls.search.phrases import HOW_TO_RARE, HOW_TO_SIMILARITY, is_how_to
from pitfalls.search.zh_words import has_chinese

# Frames as IPython and Jupyter print them: `Cell In[5], line 3`, `Input In [5], in <cell
# line: 3>()`, `<ipython-input-5-...> in <module>`, `File ~/x.py:12, in f(x)`, and older
# IPython's `/path/x.py in f(x)`; each followed by numbered code lines.
_NOTEBOOK_FRAME = re.compile(
    r"^\s*(?:Cell In ?\[\d*\], line \d+|Input In ?\[\d*\], in |<ipython-input-[^>]*> in "
    r"|File \S.*:\d+, in \S|(?:[A-Za-z]:)?[\\/~]\S*\.py in [\w<>]+\()"
)
_NUMBERED_CODE = re.compile(r"^\s*(?:-*>\s*)?\d+\s")
# `[rank1]:` (torchrun), `[default0]:` (torchrun --tee) before every line of a worker's log.
_LOG_PREFIX = re.compile(r"^\[(?:rank|default)\d+\]:")
# `Traceback (most recent call last):` alone on its line, or after a name: a notebook's
# `RuntimeError      Traceback (most recent call last)`, a worker's `Original Traceback (...)`.
_TRACEBACK_HEADER = re.compile(r"^\s*(?:[\w.]+\s+)?Traceback \(most recent call last\):?\s*$")
# pytest repeats the exception type after the failing line: `tests/test_x.py:8: RuntimeError`.
_PYTEST_LOCATION = re.compile(r"^\S+\.py:\d+: [\w.]+$")

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
# ...and the share of the query's weight it must explain (the rest is what it cannot).
CONFIDENT_COVERAGE = 0.5
# A word no recipe contains keeps the full weight of a word seen nowhere: what the catalogue
# cannot explain must lower the confidence (capping it made unrelated queries confident).
UNKNOWN_WORD_IDF = float("inf")
# A word corrected from a typo counts for less than one typed right.
TYPO_WEIGHT = 0.7
# For a query in Chinese, the share of the score that the weaker of the two word scores (the
# whole recipe's, the best question's) decides.
CHINESE_AGREEMENT = 0.3
# ...and the least lead over the next recipe a confident answer to it needs.
CHINESE_CONFIDENT_LEAD = 0.05
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
        lines = strip_ansi(text).splitlines()
        kept: list[str] = []
        frame_indent = -1  # the indentation of the frame header whose code lines follow
        for line in lines:
            line = _LOG_PREFIX.sub("", line)
            if _FRAME.match(line) or _NOTEBOOK_FRAME.match(line):
                frame_indent = len(line) - len(line.lstrip())
                continue
            stripped = line.strip()
            if frame_indent >= 0:
                # The frame's code: deeper-indented lines (with Python 3.11's ^^^ markers),
                # or a notebook's numbered lines (`      1 x = f()`, `----> 3 y = g(x)`).
                indent = len(line) - len(line.lstrip())
                if not stripped or indent > frame_indent or _NUMBERED_CODE.match(line):
                    continue
                frame_indent = -1
            if not stripped or set(stripped) <= set("^~- "):
                continue
            if _TRACEBACK_HEADER.match(line) or _PYTEST_LOCATION.match(line):
                continue
            if stripped.startswith(("During handling", "The above exception was the direct cause")):
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
# Users write part of what a question says, in their own words: a question that explains
# half of a short query ("latin bytes" and "model file is only 130 bytes") is less like it
# than Dice says. The share of the query a question explains counts this many times the
# share of the question the query says (beta squared of an F-measure).
RECALL_WEIGHT = 2.0


def _index(recipe: Recipe) -> dict:
    index = recipe.search_index
    if not valid_index(index):
        index = build_index(recipe)
    return index


# A fragment found with its numbers as written ("3 channels, but got 1") outranks one of the
# same length found only with its numbers as 0 ("3 channels, but got 32"): half a character.
EXACT_DIGITS_BONUS = 0.0005


def _fragment_hit(
    fragments: list, focus: str, causes: str, rest: str, focus_digits: str = ""
) -> tuple[float, str]:
    """(strength, fragment): the longest fragment in the final error (1), in an exception it
    was chained from (0.9: a DataLoader worker's cause, "The above exception..."), or
    elsewhere, such as a warning printed earlier (0.5). In the final error, a fragment whose
    numbers are the query's own wins a tie (`focus_digits`: the focus with its digits)."""
    best, text = 0.0, ""
    for normalised, original in fragments:
        if len(normalised) < 6:
            continue
        if normalised in focus:
            strength = 1.0 + len(normalised) / 1000
            if focus_digits and normalise_message(original, keep_digits=True) in focus_digits:
                strength += EXACT_DIGITS_BONUS
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
    query = strip_ansi(_tail(query))
    parsed = Query.parse(query)
    weighted: dict[str, float] = {}
    parts: set[str] = set()
    for token in tokens(parsed.focus, parts):
        # A Chinese character or bigram says less than a word, and a part of a name (`bce` of
        # `BCEWithLogitsLoss`) less than the name.
        weight = token_weight(token, token in parts)
        weighted[token] = max(weighted.get(token, 0.0), weight)
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
    guessed = _correct_typos(weighted, frequency, indexed) if not parsed.is_error else set()
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
    # A question is compared on IDF times `token_weight`, the same on both sides (so earlier
    # lines count in full: weighing them down here ranked worse).
    query_side = {t: idf[t] * token_weight(t, t in parts) for t in weighted}
    query_side_sum = sum(query_side.values())
    sequence = [t for t in tokens(parsed.focus) or tokens(parsed.rest) if not t.startswith("#")]
    query_pairs = {f"{a} {b}" for a, b in zip(sequence, sequence[1:])}
    focus, rest = normalise_message(parsed.focus), normalise_message(parsed.rest)
    focus_digits = normalise_message(parsed.focus, keep_digits=True)
    causes = normalise_message(parsed.causes)
    compact = " ".join(query.lower().split())
    # A query in Chinese is compared with the questions in Chinese (an English one with those
    # in English): the other language's matches only on the few words both share.
    chinese = has_chinese(parsed.focus or parsed.rest)
    lang = "zh" if chinese else "en"
    # A how-to question is answered by a recipe that asks it too, not by its words alone.
    how_to = not chinese and not parsed.is_error and is_how_to(parsed.focus or parsed.rest)
    hits = []
    for recipe, index in indexed:
        token_weights = index["weights"]
        strength, fragment = _fragment_hit(index["fragments"], focus, causes, rest, focus_digits)
        matched_mass = guessed_mass = 0.0
        for token, weight in weighted.items():
            best = token_weights.get(token)
            if best:
                matched_mass += weight * idf[token] * best
                if token in guessed:
                    guessed_mass += weight * idf[token] * best
        is_name = compact in (recipe.id, *recipe.aliases)
        if not matched_mass and not strength and not is_name:
            continue
        coverage = matched_mass / query_mass if query_mass else 0.0
        pairs = index["pairs"]
        shared_pairs = sum(1 for pair in query_pairs if pair in pairs)
        pair_share = shared_pairs / len(query_pairs) if query_pairs else 0.0
        questions = index["questions"]
        if lang in index["question_langs"]:
            questions = [q for q, ql in zip(questions, index["question_langs"]) if ql == lang]
        question_similarity = max(
            (_similarity(query_side, idf, query_side_sum, q) for q in questions), default=0.0
        )
        word_score = 0.8 * coverage + 0.2 * pair_share
        score = max(word_score, question_similarity)
        if chinese:
            # Chinese words and phrases recur across recipes more than English ones do (每次,
            # 同一份代码, 会影响): a question sharing them is weaker evidence alone, and the
            # recipe as a whole must agree.
            low = min(word_score, question_similarity)
            score = (1 - CHINESE_AGREEMENT) * score + CHINESE_AGREEMENT * low
        # Enough of the query's words, and at least half of its weight, are the recipe's: a
        # question that shares two words with a recipe's question is not answered by it.
        # A word guessed from a typo ranks, but is no ground for a confident answer.
        sure_mass = matched_mass - guessed_mass
        explained = sure_mass >= CONFIDENT_MASS and sure_mass >= CONFIDENT_COVERAGE * query_mass
        if how_to and question_similarity < HOW_TO_SIMILARITY:
            # ...or where a rare word of it is in the recipe's name, title, questions or errors.
            explained = explained and any(
                frequency.get(t, total) <= HOW_TO_RARE and token_weights.get(t, 0.0) >= 0.9
                for t in weighted
                if t not in guessed
            )
        confident = score >= CONFIDENT_SCORE and explained
        if is_name:
            score, confident = FRAGMENT_SCORE + 1.0, True
        if strength:
            score = FRAGMENT_SCORE + strength
            confident = strength >= 0.9 or confident
        if score > 0.0:
            words = max(word_score, question_similarity)
            hits.append(
                (score, recipe, index, confident, fragment, strength, is_name, explained, words)
            )
    # Recipes tied on the same fragment (one message, two mistakes): the query's other words
    # decide between them.
    hits.sort(key=lambda h: (-h[0], -h[8], h[1].id))
    if chinese and len(hits) > 1 and hits[0][3] and hits[0][0] < FRAGMENT_SCORE:
        # Two recipes a hair apart on Chinese words: the words do not decide between them.
        if hits[0][0] - hits[1][0] < CHINESE_CONFIDENT_LEAD:
            hits[0] = (*hits[0][:3], False, *hits[0][4:])
    if hits and not hits[0][3] and hits[0][0] < FRAGMENT_SCORE and not parsed.is_error:
        # The relative rule: a clear lead on word evidence alone, for words a user typed. A
        # pasted message that no fragment matches shares its template's words with a recipe's
        # message ("Input type (X) and weight type (Y)..."), and what differs is the part that
        # decides: a lead on the shared words is no ground for confidence.
        lead = hits[0][0] - (hits[1][0] if len(hits) > 1 else 0.0)
        first = hits[0]
        if first[0] >= LEADING_SCORE and lead >= LEADING_MARGIN and first[7]:
            hits[0] = (*first[:3], True, *first[4:])
    return [
        Hit(
            recipe, round(score, 4), _matched_fields(index, weighted, strength, is_name), sure, frag
        )
        for score, recipe, index, sure, frag, strength, is_name, *_ in hits[:limit]
    ]


def _correct_typos(
    weighted: dict[str, float], frequency: dict[str, int], indexed: list
) -> set[str]:
    """Replace each word of a typed query that no recipe knows by the known word one edit
    away (`memmory` -> `memory`), the most common one where several are; at a lower weight,
    since it is a guess. Pasted errors are left alone: their unknown words are the user's
    names, not typos. Returns the guessed words."""
    unknown = [
        t for t in weighted if not frequency[t] and t.isascii() and t.isalpha() and len(t) >= 4
    ]
    guessed: set[str] = set()
    if not unknown:
        return guessed
    candidates = {token: typo_candidates(token) for token in unknown}
    wanted = set().union(*candidates.values())
    vocabulary: dict[str, int] = {}  # how many recipes know each candidate
    for _, index in indexed:
        for known in index["weights"].keys() & wanted:  # a C-level intersection
            vocabulary[known] = vocabulary.get(known, 0) + 1
    for token in unknown:
        known = [c for c in candidates[token] if c in vocabulary]
        if not known:
            continue
        best = max(known, key=lambda c: (vocabulary[c], c))
        weight = weighted.pop(token) * TYPO_WEIGHT
        frequency.pop(token)
        if best not in weighted:
            weighted[best] = weight
            frequency[best] = vocabulary[best]
            guessed.add(best)
    return guessed


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
    query: dict[str, float], idf: dict[str, float], query_sum: float, question: dict[str, float]
) -> float:
    """Weighted overlap between the query and one question, in [0, 1]: an F-measure that
    weighs how much of the query the question explains above how much of the question the
    query says (RECALL_WEIGHT; Dice at 1). A token counts its IDF times its `token_weight` on
    each side (the index holds the question's); `query` holds the query's, and a question word
    the query lacks weighs like an average word."""
    if not question or not query_sum:
        return 0.0
    common = 0.0
    question_sum = 0.0
    for token, weight in question.items():
        mine = query.get(token)
        if mine is None:
            question_sum += weight * _DEFAULT_IDF
        else:
            theirs = weight * idf[token]
            common += min(mine, theirs)
            question_sum += theirs
    return (1 + RECALL_WEIGHT) * common / (RECALL_WEIGHT * query_sum + question_sum)


def best_match(recipes: Iterable[Recipe], text: str) -> Hit | None:
    """The confident top hit for `text` (a traceback, a message), or None: for `trace` and
    the notebook extension, which must stay silent rather than guess."""
    hits = search(recipes, text, limit=2)
    return hits[0] if hits and hits[0].confident else None


def per_field_text(recipe: Recipe) -> str:
    """The id and aliases as one lower-case string."""
    return " ".join([recipe.id, *recipe.aliases]).lower()
