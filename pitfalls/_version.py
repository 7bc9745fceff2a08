"""The package's version: a leaf that imports nothing, read by every layer that prints it and by
pyproject.toml's dynamic version."""

__version__ = "0.1.0"
