"""pitfalls: a terminal explainer for PyTorch pitfalls, with recipes that run.

The package splits into a registry (recipes as data), a runner (the only code that touches
torch, always in a child process) and two faces over them: the CLI and the TUI.
"""

__version__ = "0.1.0"
