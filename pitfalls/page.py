"""A recipe as one Markdown page: what `show`, the notebook extension and the TUI render."""

from __future__ import annotations

from pitfalls.i18n import t
from pitfalls.model import Recipe


def page_markdown(recipe: Recipe, lang: str, prose: str, snippet: str | None = None) -> str:
    """The whole page as Markdown: title, summary, metadata, prose and the snippet."""
    lines = [f"# {recipe.text(recipe.title, lang)}", ""]
    from pitfalls.checked import summary, summary_line

    checked = summary_line(summary(recipe), lang)
    if checked:
        lines += [checked, ""]
    summary = recipe.text(recipe.summary, lang)
    if summary:
        lines += [f"*{summary}*", ""]
    meta = [f"**{t('col.id', lang)}**: `{recipe.id}`"]
    if recipe.aliases:
        meta.append(f"**{t('show.aliases', lang)}**: {', '.join(recipe.aliases)}")
    meta.append(f"**{t('show.tags', lang)}**: {', '.join(recipe.tags) or '—'}")
    meta.append(f"**{t('show.devices', lang)}**: {', '.join(recipe.devices)}")
    meta.append(f"**{t('show.torch', lang)}**: {recipe.torch or '—'}")
    from pitfalls.check.rules import RULES_LABEL, rules_line

    if rules_line(recipe.id):
        meta.append(f"**{RULES_LABEL.get(lang, RULES_LABEL['en'])}**: {rules_line(recipe.id)}")
    lines += [" · ".join(meta), "", prose.rstrip(), ""]
    code = recipe.snippet() if snippet is None else snippet
    lines += [f"## {t('show.snippet', lang)}", "", "```python", code.rstrip(), "```"]
    if recipe.related:
        lines += ["", f"## {t('show.related', lang)}", ""]
        lines += [f"- `{name}` (`pitfalls show {name}`)" for name in recipe.related]
    lines += ["", t("show.run_hint", lang, id=recipe.id), ""]
    return "\n".join(lines)
