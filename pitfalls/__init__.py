"""pitfalls: a terminal explainer for PyTorch pitfalls, with recipes that run.

Subpackages by responsibility, in layers (README, "How it is built"; the contracts are in
pyproject.toml): the catalogue (recipes as data) at the bottom, search and the runner (the only
code that touches torch, always in a child process) above it, then rendering, authoring and
the static checker, and the faces on top: the CLI, the TUI, the notebook extension, trace.
"""

from pitfalls._version import __version__

__all__ = ["__version__", "load_ipython_extension", "unload_ipython_extension"]


def load_ipython_extension(ip) -> None:  # noqa: ANN001 - IPython's shell, not imported here
    """`%load_ext pitfalls`: hints under failing cells and the `%pitfalls` magic.

    Defined here because IPython looks for it on the module named in `%load_ext`; it imports
    the notebook support only when called, since every CLI run imports this file.
    """
    # lazy: the notebook support only on %load_ext (every CLI run imports this file)
    from pitfalls.notebook import load

    load(ip)


def unload_ipython_extension(ip) -> None:  # noqa: ANN001
    """`%unload_ext pitfalls`."""
    # lazy: the notebook support only on %load_ext (every CLI run imports this file)
    from pitfalls.notebook import unload

    unload(ip)
