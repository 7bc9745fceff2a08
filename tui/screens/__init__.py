"""The pitfalls Textual app, installed as `pitfalls.tui`."""
