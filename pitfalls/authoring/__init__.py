"""Writing recipes: the content linter (findings, lint, lint_checks, findability), the
scaffold of a new recipe, and the prose's code blocks (prose)."""
