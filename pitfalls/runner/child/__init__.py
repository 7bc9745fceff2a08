"""The runner's child: run by path as a script (`python .../runner/child`), never imported by
the parent. See __main__.py."""
