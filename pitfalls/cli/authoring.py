"""Authoring commands: `pitfalls new` scaffolds a recipe, `pitfalls lint` checks recipes."""

from __future__ import annotations

from typing import Optional

import typer


def new(
    recipe_id: str = typer.Argument(..., metavar="ID", help="The new recipe's id."),
    directory: Optional[str] = typer.Option(None, "--dir", help="Parent folder [default: .]."),
) -> None:
    """Scaffold a recipe folder: recipe.toml, en.md, zh.md and snippet.py."""
    raise typer.Exit(2)


def lint(
    paths: Optional[list[str]] = typer.Argument(None, help="Recipe folders or folders of them."),
) -> None:
    """Check recipes and report findings under numbered codes (PIT001 …)."""
    raise typer.Exit(2)
