"""Search tokens and the per-recipe search index, apart from ranking.

The index of a recipe (its fields as tokens, its questions, word pairs and normalised error
fragments) depends only on the recipe, so the registry's metadata cache stores it: a search
over a thousand recipes then tokenises the query, not the catalogue.

Tokens are the same for queries and recipes: terminal colours dropped, traditional Chinese
read as simplified (with Taiwan's words for memory, data, program...), English words stemmed
for plurals, verb forms and -ize/-ise, names split at CamelCase and `_` (parts kept apart, so
that a name counts as one mention), and Chinese as its known words (most as their English
word: 损失 is `loss`) and, between them, characters and bigrams (see zh_words). Change any of
it and INDEX_VERSION must change with it.
"""

from __future__ import annotations

import re
from typing import Any

from pitfalls.catalogue.cache import FolderCache
from pitfalls.catalogue.model import LANGS, Recipe
from pitfalls.search.phrases import mark_phrases
from pitfalls.search.zh_variants import as_simplified
from pitfalls.search.zh_words import chinese_runs, chinese_tokens

INDEX_VERSION = 8

_NOISE = [
    re.compile(r"0x[0-9a-fA-F]+"),  # addresses
    re.compile(r"(?:[A-Za-z]:)?(?:[\\/][\w.\-]+){2,}[\\/]?"),  # file paths
    re.compile(r"\b[\w.\-]+\.py\b"),  # file names in tracebacks
    re.compile(r"\b\d+(?:\.\d+)*(?:e[-+]?\d+)?\b"),  # numbers, versions, pids
]
_WORD = re.compile(r"[a-z][a-z0-9_]*")
_STOPWORDS = frozenset(
    "a an and are as at be by for from has have in is it its of on or that the this to was "
    "were with you your not no can do does did line file call last most recent traceback "
    "error my me i we our how why what when which who will would should could get got "
    "but if so then than there their they them one use using used after before all any "
    "some just only also into out up down very too much many more less about after again "
    "keep keeps even still between across among within each every "
    # contractions split at the apostrophe (doesn't -> doesn), and words every report has
    "doesn don didn isn wasn aren won couldn shouldn wouldn haven hasn weren "
    "bug work works working worked pytorch torch problem issue help please thanks "
    # the same contractions typed without the apostrophe
    "dont doesnt didnt isnt wasnt arent wont cant couldnt shouldnt wouldnt havent hasnt "
    "im ive".split()
)
# CamelCase type names (DoubleTensor, FloatTensor, BCELoss) also match their parts, acronyms
# included (BCE, MSE, NLL).
_CAMEL = re.compile(r"\b[A-Za-z]*(?:[a-z][A-Z]|[A-Z][A-Z][a-z])[A-Za-z0-9]*\b")
_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]{2,}")
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
# -ize, -izer, -izing, -ization as -ise...: normalize meets normalise (not size, seize).
_IZE = re.compile(r"(?<=[a-z]{3})iz(?=[eai])")
# Words whose -ing or -ed is not an inflection.
_NOT_INFLECTED = frozenset(
    "string during thing nothing something anything everything embed spring bring".split()
)
# Irregular past forms, as the verb: "frozen layers" meets "freeze layers".
_IRREGULAR = {
    "frozen": "freeze",
    "froze": "freeze",
    "broken": "break",
    "broke": "break",
    "written": "write",
    "wrote": "write",
    "hidden": "hide",
    "chosen": "choose",
    "taken": "take",
    "took": "take",
    "given": "give",
    "gave": "give",
    "ran": "run",
    "grew": "grow",
    "grown": "grow",
    "shrank": "shrink",
    "shrunk": "shrink",
    "thrown": "throw",
    "threw": "throw",
    "fell": "fall",
    "fallen": "fall",
}
# Terminal colours: IPython, Jupyter and Python 3.13 colour their tracebacks.
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
# A method or attribute whose name is a stopword (`x.to(device)`, `tensor.to`) still names an
# API: kept as a token where a name, `)` or `]` comes before its dot, or `(` after its name.
_CALL_BEFORE = re.compile(r"[\w)\]]")


def strip_ansi(text: str) -> str:
    """`text` without terminal colours."""
    return _ANSI.sub("", text) if "\x1b" in text else text


def clean(text: str) -> str:
    """`text` without terminal colours, and with traditional Chinese as simplified."""
    text = strip_ansi(text)
    return text if text.isascii() else as_simplified(text)


_EXCEPTION_LINE = re.compile(
    r"(?:^|[\s:(])((?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception|Interrupt|Warning))(?::|$)"
)
_FRAME = re.compile(r'^\s*File "[^"]*", line \d+')
_NOT_FINAL = ("Warning",)


def _stem(word: str) -> str:
    """A light English suffix stemmer, the same for queries and recipes: plurals and verb
    forms meet (`gradients` -> `gradient`, `accumulates`, `accumulated`, `accumulating` and
    `accumulate` -> `accumulat`, `padded` -> `pad`), and US -ize meets UK -ise."""
    word = _IRREGULAR.get(word, word)
    if len(word) <= 3:
        return word
    if not word.isalpha():
        # Identifiers (`float16`, `num_workers`) only lose a plural s.
        return word[:-1] if word.endswith("s") and not word.endswith(("ss", "us", "is")) else word
    if "iz" in word:
        word = _IZE.sub("is", word)
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith(("ches", "shes", "sses", "xes", "zes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if word in _NOT_INFLECTED:
        return word
    if word.endswith("ied") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("ing") and len(word) >= 6 or word.endswith("ed") and len(word) >= 5:
        if not word.endswith("eed"):
            word = word[:-3] if word.endswith("ing") else word[:-2]
            if word[-1] == word[-2] and word[-1] not in "aeioulsz":
                word = word[:-1]  # padded -> padd -> pad, running -> run
    if word.endswith("e") and len(word) >= 4:
        word = word[:-1]  # accumulate meets accumulat(ed), cache meets cach(ing)
    return word


def tokens(text: str, parts_only: set[str] | None = None) -> list[str]:
    """Normalised search tokens of `text`, in order (see the module docstring). Where
    `parts_only` is given, the tokens found only as parts of identifiers (`bce` of
    `BCEWithLogitsLoss`, `hot` of `one_hot`) are added to it: one name is one mention."""
    text = clean(text)
    for pattern in _NOISE:
        text = pattern.sub(" ", text)
    text = mark_phrases(text)
    chinese: list[str] = []
    if not text.isascii():
        # Chinese words that are English words (损失: loss) are read as words of the text.
        english: list[str] = []
        for run in chinese_runs(text):
            words, found_here = chinese_tokens(run)
            english.extend(words)
            chinese.extend(found_here)
        if english:
            text += " " + " ".join(english)
    camel_parts = [
        part for name in _CAMEL.findall(text) for part in _CAMEL_PART.findall(name) if len(part) > 2
    ]
    lowered = text.lower()
    boundary = len(lowered)  # CamelCase parts come after it
    lowered += " " + " ".join(camel_parts).lower()
    found = []
    whole: set[str] = set()
    parts_found: list[str] = []
    for match in _WORD.finditer(lowered):
        word = match.group()
        if word in _STOPWORDS or len(word) < 2:
            start, end = match.start(), match.end()
            called = lowered[end : end + 1] == "("  # `calling .to('cuda')`: a method all the same
            if (
                start > 1
                and lowered[start - 1] == "."
                and (called or _CALL_BEFORE.match(lowered[start - 2]))
            ):
                found.append(word)  # `x.to(device)`: a method, not the word "to"
                whole.add(word)
            continue
        word = _SYNONYMS.get(word, word)
        parts = [p for p in re.split(r"[_\-]+", word) if len(p) > 1 and p not in _STOPWORDS]
        stem = _stem(word)
        if stem in _STOPWORDS:
            continue  # gets -> get, uses -> use
        found.append(stem)
        if match.start() > boundary:
            parts_found.append(stem)
        else:
            whole.add(stem)
        # Split identifiers too, so that `scatter_` and `one_hot` also match `scatter`, `hot`.
        if len(parts) > 1:
            split = [_stem(_SYNONYMS.get(p, p)) for p in parts]
            found.extend(split)
            parts_found.extend(split)
    if parts_only is not None:
        parts_only.update(t for t in parts_found if t not in whole)
    found.extend(chinese)
    return found


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def typo_candidates(token: str) -> set[str]:
    """Stems one edit away from `token` (a deletion, transposition, substitution or insertion):
    what a word the catalogue does not know may have been meant as (`memmory`, `gradiant`,
    `optimzer`, `weigths`). The caller keeps those the catalogue knows."""
    splits = [(token[:i], token[i:]) for i in range(len(token) + 1)]
    edits = {a + b[1:] for a, b in splits if b}
    edits |= {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    edits |= {a + c + b[1:] for a, b in splits if b for c in _LETTERS if c != b[0]}
    edits |= {a + c + b for a, b in splits for c in _LETTERS}
    # A stem much shorter than the word is another word (finder -> find), not a typo of it.
    return {stem for stem in map(_stem, edits) if len(stem) >= len(token) - 1} - {token}


# A part of a name (`bce`, `logit` of `BCEWithLogitsLoss`) says less than a word: one name
# is one mention, not four.
PART_WEIGHT = 0.5
# A Chinese character alone says less than a word, and so does a bigram: a stretch of n
# characters the word table does not cover holds about n/2 words but n - 1 bigrams.
CHARACTER_WEIGHT = 0.4
BIGRAM_WEIGHT = 0.5


def token_weight(token: str, is_part: bool = False) -> float:
    """How much one mention of `token` counts, the same in a query and in a question."""
    if token.startswith("#"):
        return CHARACTER_WEIGHT
    if is_part:
        return PART_WEIGHT
    return 1.0 if token.isascii() else BIGRAM_WEIGHT


def part_weights(text: str) -> dict[str, float]:
    """The tokens of `text`, each with its `token_weight` (PART_WEIGHT where it is only a part
    of a name)."""
    parts: set[str] = set()
    return {t: token_weight(t, t in parts) for t in tokens(text, parts)}


def normalise_message(text: str, keep_digits: bool = False) -> str:
    """A message as compared with error fragments: lower case, one space, digits as 0 (kept
    where `keep_digits`: to tell fragments apart that differ only in their numbers)."""
    text = text.lower().replace("\u2018", "'").replace("\u2019", "'").replace("`", "'")
    text = text.replace("\u201c", '"').replace("\u201d", '"')
    if not keep_digits:
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
    langs_of_questions = [lang for lang in LANGS for _ in recipe.questions.get(lang, ())]
    texts_of_questions = [q for lang in LANGS for q in recipe.questions.get(lang, ())]
    questions = [tokens(q) for q in texts_of_questions]
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
        "questions": [part_weights(q) for q in texts_of_questions],
        "question_langs": langs_of_questions,
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
        and all(isinstance(q, dict) for q in index["questions"])
        and isinstance(index.get("question_langs"), list)
        and len(index["question_langs"]) == len(index["questions"])
        and isinstance(index.get("weights"), dict)
        and isinstance(index.get("pairs"), dict)
        and isinstance(index.get("fragments"), list)
    )


def attach_indexes(recipes: list[Recipe]) -> None:
    """Give each recipe its search index: from the search cache when its recipe.toml is
    unchanged, else built (and cached when it depends on recipe.toml alone)."""
    # lazy: standard library only this path needs, kept off start-up
    import os

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
