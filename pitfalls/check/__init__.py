"""`pitfalls check`: a linter for PyTorch and NumPy pitfalls in the user's own code.

Built like ruff, in layers: `scopes` resolves imports and binds names, `kinds` and `semantic`
infer what they hold, `optimizers` what the file does with optimizers (the semantic model);
`findings` is what a check reports; `checker` walks a file once and dispatches each node to the
rules registered for its type (the API a rule is written against, with `kinds` and `scopes`);
`rules/` holds the rule families, one module each; `registry` imports every family, which
registers it. `driver` reads, suppresses and fixes, `files`, `config` and `notebook` find and
prepare input, and `output` renders findings.
The rule table itself (codes, names, the recipe each explains) is data, below both this and
the pages that mention it: `pitfalls.catalogue.rule_table`.
"""
