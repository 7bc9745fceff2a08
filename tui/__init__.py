"""The pitfalls Textual app, installed as `pitfalls.tui`."""

# Garbage collection tuned for the start-up (see pitfalls._startup): the main screen goes back
# to the interpreter's defaults once its first frame is out.
from pitfalls import _startup  # noqa: F401
