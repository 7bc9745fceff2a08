"""Helpers that make widgets follow the app's language: bindings and inline code in titles."""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from pitfalls.i18n import STRINGS, t

if TYPE_CHECKING:
    from rich.text import Text
    from textual.dom import DOMNode

_CODE_SPAN = re.compile(r"`([^`]+)`")


def binding_description(binding_id: str | None, lang: str, fallback: str = "") -> str:
    """The footer/help text for a binding id, such as `run`, in `lang`."""
    key = f"tui.key.{binding_id}"
    return t(key, lang) if binding_id and key in STRINGS else fallback


def localise_bindings(node: DOMNode, lang: str) -> None:
    """Rewrite the descriptions of `node`'s bindings in `lang`.

    Textual's bindings carry one fixed description, and the footer reads it from the node's
    own binding map, so switching language means replacing the bindings in that map.
    """
    bindings_map = node._bindings
    for key, bindings in bindings_map.key_to_bindings.items():
        bindings_map.key_to_bindings[key] = [
            dataclasses.replace(b, description=binding_description(b.id, lang, b.description))
            for b in bindings
        ]


def inline_code(text: str, style: str = "") -> Text:
    """`text` as rich Text with Markdown code spans (`x`) shown in bold without backticks."""
    # lazy: Rich loads only when something is drawn
    from rich.text import Text

    result = Text(style=style)
    position = 0
    for match in _CODE_SPAN.finditer(text):
        result.append(text[position : match.start()])
        result.append(match.group(1), "bold")
        position = match.end()
    result.append(text[position:])
    return result
