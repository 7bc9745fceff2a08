"""`pitfalls check`: a linter for PyTorch and NumPy pitfalls in the user's own code.

`rules` is the registry (codes, names, recipes), `scopes` resolves imports and binds names,
`kinds` and `semantic` infer what they hold, `checker` walks a file once and dispatches to the
rule families (`rules_api`, `rules_tensor`, `rules_registration`, `rules_snapshot`,
`rules_numeric`, `rules_loop`), `driver` reads,
suppresses and fixes, `files`, `config` and `notebook` find and prepare input, and `output`
renders findings.
"""
