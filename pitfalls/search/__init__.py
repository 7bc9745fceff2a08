"""Search: from an error message or a question to the recipes that explain it. Tokens and the
per-recipe index (index), ranking and confidence (ranking), phrases that carry meaning
(phrases), and the Chinese tables (zh_words, zh_variants)."""
