"""English phrases that mean one thing, read the same in queries and in recipes.

Single words cannot carry them: "don't change" loses its `not` to the stopwords and leaves
`change`, a word a third of the catalogue uses; "not decreasing" and "stuck" share no word
with "stalls". Each phrase is kept and followed by one word that names what it means, so a
user's "weights don't update" meets a recipe's "weights never change", and its neighbours still
form the word pairs they did. Change this table and search_index.INDEX_VERSION must change.
"""

from __future__ import annotations

import re

# A negation as typed: not, never, no longer, and n't with or without its apostrophe.
_NOT = r"(?:\b(?:not|never|no\s+longer|dont|doesnt|didnt|wont|arent|isnt|cant)|n[’']t)"

# (pattern, the word it adds): each must be a word whose token is not a stopword.
_PHRASES = [
    # Values that do not move: weights not updating, a tensor that stays the same.
    (
        rf"{_NOT}\s+(?:(?:be|being|been|get|getting|got|seem\s+to|actually)\s+)?"
        r"(?:chang|updat|modif)\w*"
        r"|\b(?:stay|stays|stayed|remain|remains|remained)\s+(?:exactly\s+)?(?:the\s+)?"
        r"(?:same|constant|identical|unchanged)\b",
        "unchanged",
    ),
    # A loss that does not go down.
    (
        rf"{_NOT}\s+(?:(?:be|being|seem\s+to|really)\s+)?"
        r"(?:decreas|improv|converg|go(?:es|ing)?\s+down|goes\s+down|drop)\w*"
        r"|\b(?:stuck|plateau\w*)\b",
        "stalls",
    ),
    # Runs that disagree: the same code gives another result each time it runs.
    (
        r"\b(?:every|each|between|across|different|separate|two|multiple)\s+runs?\b"
        r"|\brun\s+to\s+run\b|\bnon[- ]?reproducible\b|\bnot\s+reproducible\b",
        "nondeterministic",
    ),
]
_PATTERN = re.compile("|".join(f"(?P<g{i}>{p})" for i, (p, _) in enumerate(_PHRASES)), re.I)
_WORDS = {f"g{i}": word for i, (_, word) in enumerate(_PHRASES)}


def mark_phrases(text: str) -> str:
    """`text` with each known phrase followed by the word that names it."""
    if not _PATTERN.search(text):
        return text
    return _PATTERN.sub(lambda m: f"{m.group(0)} {_WORDS[m.lastgroup or '']} ", text)


# How-to questions ask how to do something, not why something went wrong: "how do I count the
# parameters", "how to choose the learning rate". A recipe answers them only where one of its
# own questions asks the same (a pitfall recipe's words alone are about a failure).
_HOW_TO = re.compile(
    r"^\W*(?:how\s+(?:do|can|should|would)\s+(?:i|we|you|one)|how\s+to|what(?:'s|\s+is|\s+are)"
    r"\s+the\s+(?:best|right|correct|difference)|best\s+way|is\s+there\s+a\s+way)\b",
    re.I,
)
# ...unless it also reports a failure: "how to freeze layers, but they still train".
_FAILURE = re.compile(
    r"\b(?:but|yet|error|errors|wrong|fails?|failed|nan|crash\w*|instead|though|still|"
    r"never|not|n[’']?t|doesnt|dont|isnt)\b",
    re.I,
)
# Such a question is confident only where it is this like one of the recipe's questions...
HOW_TO_SIMILARITY = 0.6
# ...or where one of its words that at most this many recipes know is one of the recipe's own
# (its name, title, questions or errors).
HOW_TO_RARE = 6


def is_how_to(text: str) -> bool:
    """Whether `text` asks how to do something, with no failure reported."""
    return bool(_HOW_TO.search(text)) and not _FAILURE.search(text)
