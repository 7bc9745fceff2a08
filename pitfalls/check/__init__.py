"""`pitfalls check`: a linter for PyTorch and NumPy pitfalls in the user's own code.

Built like ruff, in layers: `scopes` resolves imports and binds names, `flow` finds the
bindings that reach each use over a function's control flow, `kinds` and `semantic` infer what
names hold (and what the file's own functions return, one call deep), `optimizers` what the
file does with optimizers (the semantic model);
`findings` is what a check reports; `checker` walks a file once and dispatches each node to the
rules registered for its type (the API a rule is written against, with `kinds` and `scopes`);
`rules/` holds the rule families, one module each; `registry` imports every family, which
registers it. `driver` reads, suppresses and fixes, `files`, `config` and `notebook` find and
prepare input, and `output` renders findings.
The rule table itself (codes, names, the recipe each explains) is data, below both this and
the pages that mention it: `pitfalls.catalogue.rule_table`.
"""
