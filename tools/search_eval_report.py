"""Measure `pitfalls search` on tests/search_eval.py: top-1/top-3 per kind, confident
right/wrong, unrelated queries answered confidently, and every miss with its top 3.

    .venv/bin/python tools/search_eval_report.py [--json out.json]
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from search_eval import ACCEPTABLE, CASES, UNRELATED  # noqa: E402

from pitfalls.catalogue.registry import Registry  # noqa: E402
from pitfalls.search.ranking import Query, search  # noqa: E402


def short(text: str, n: int = 90) -> str:
    one = " ".join(text.split())
    return one if len(one) <= n else one[: n - 1] + "…"


def main() -> None:
    recipes = list(Registry.load(packs=False))
    ids = {r.id for r in recipes}
    missing = sorted({e for _, e, _ in CASES} - ids)
    assert not missing, missing
    uncovered = sorted(ids - {e for _, e, _ in CASES})
    stats = defaultdict(lambda: defaultdict(int))
    misses, rows = [], []
    for query, expected, kind in CASES:
        hits = search(recipes, query, limit=3)
        top = [h.recipe.id for h in hits]
        s = stats[kind]
        s["n"] += 1
        first = hits[0] if hits else None
        right1 = bool(top) and top[0] == expected
        lenient1 = bool(top) and (right1 or top[0] in ACCEPTABLE.get(expected, ()))
        s["top1"] += right1
        s["top1_lenient"] += lenient1
        s["top3"] += expected in top
        if first is not None and first.confident:
            s["conf_right" if right1 else "conf_wrong"] += 1
            if not right1 and lenient1:
                s["conf_wrong_but_acceptable"] += 1
        else:
            s["not_confident"] += 1
            s["not_confident_but_right"] += right1
        row = {
            "kind": kind,
            "expected": expected,
            "query": query,
            "top3": [(h.recipe.id, h.score, h.confident, h.fields) for h in hits],
            "focus": Query.parse(query).focus if kind == "error" else "",
        }
        rows.append(row)
        if not right1:
            misses.append(row)

    print(f"{len(recipes)} recipes, {len(CASES)} cases, {len(UNRELATED)} unrelated")
    if uncovered:
        print("recipes without cases:", uncovered)
    header = (
        f"{'kind':6} {'n':>4} {'top1':>7} {'top1~':>7} {'top3':>7} "
        f"{'conf✓':>6} {'conf✗':>6} {'unsure':>7} {'unsure✓':>8}"
    )
    print(header)
    total = defaultdict(int)
    for kind in ("error", "en", "zh"):
        s = stats[kind]
        for k, v in s.items():
            total[k] += v
    for kind, s in [*((k, stats[k]) for k in ("error", "en", "zh")), ("all", total)]:
        n = s["n"]
        print(
            f"{kind:6} {n:>4} {s['top1'] / n:>7.1%} {s['top1_lenient'] / n:>7.1%} "
            f"{s['top3'] / n:>7.1%} {s['conf_right']:>6} {s['conf_wrong']:>6} "
            f"{s['not_confident']:>7} {s['not_confident_but_right']:>8}"
        )
    print(
        "(top1~ counts ACCEPTABLE alternates; conf✗ of which acceptable:",
        total["conf_wrong_but_acceptable"],
        ")",
    )

    confident_unrelated = []
    for query in UNRELATED:
        hits = search(recipes, query, limit=3)
        if hits and hits[0].confident:
            confident_unrelated.append((query, hits))
    print(f"\nunrelated answered confidently: {len(confident_unrelated)}/{len(UNRELATED)}")
    for query, hits in confident_unrelated:
        print("  ", short(query), "->", [(h.recipe.id, h.score) for h in hits])
    print("\nunrelated top scores:")
    for query in UNRELATED:
        hits = search(recipes, query, limit=1)
        top = (hits[0].recipe.id, hits[0].score, hits[0].confident) if hits else None
        print("  ", short(query, 70), "->", top)

    print(f"\nmisses ({len(misses)}):")
    for row in misses:
        print(f"- [{row['kind']}] expected {row['expected']}: {short(row['query'], 110)}")
        if row["focus"]:
            print(f"    focus: {short(row['focus'], 110)}")
        for rid, score, conf, fields in row["top3"]:
            mark = "*" if rid == row["expected"] else " "
            sure = "CONF" if conf else "    "
            print(f"   {mark} {rid:32} {score:7.3f} {sure} {','.join(fields)}")
    if "--json" in sys.argv:
        out = sys.argv[sys.argv.index("--json") + 1]
        Path(out).write_text(json.dumps(rows, ensure_ascii=False, indent=1, default=str))


if __name__ == "__main__":
    main()
