"""The static checker's rules, one module per family. Each imports the checker's API
(pitfalls.check.checker, kinds, scopes) and registers itself there when imported; the
registry (pitfalls.check.registry) imports them all."""
