"""The list of recipes: title in the current language, id and tags; filtered as you type."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from pitfalls.tui.localise import inline_code

if TYPE_CHECKING:
    from rich.text import Text

    from pitfalls.catalogue.model import Recipe


def metadata_haystack(recipe: Recipe) -> str:
    """Everything the filter matches before prose is read: ids, titles, tags, summaries."""
    parts = [recipe.id, *recipe.aliases, *recipe.title.values(), *recipe.tags]
    parts.extend(recipe.summary.values())
    return "\n".join(parts).casefold()


def matches(haystack: str, query: str) -> bool:
    """Whether every whitespace-separated word of `query` occurs in `haystack`.

    Plain substrings rather than the CLI's token search: a list that narrows as you type must
    match half-typed words, and Chinese has no spaces to split on.
    """
    return all(word in haystack for word in query.casefold().split())


def is_sentence(query: str) -> bool:
    """A query that is a message or a sentence rather than words being typed: several lines,
    or at least four words (Chinese: at least six characters)."""
    text = query.strip()
    if "\n" in text:
        return True
    return len(text.split()) >= 4 or sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff") >= 6


class RecipeList(OptionList):
    """Recipes as options whose ids are recipe ids; posts RecipeSelected on Enter or click."""

    class RecipeSelected(Message):
        """The user chose a recipe to open."""

        def __init__(self, recipe: Recipe) -> None:
            super().__init__()
            self.recipe = recipe

    def __init__(self, recipes: list[Recipe], **kwargs: object) -> None:
        """Create the list.

        Args:
            recipes: The catalogue, in display order.
            **kwargs: Passed on to `OptionList`.
        """
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._recipes = {r.id: r for r in recipes}
        self._haystacks = {r.id: metadata_haystack(r) for r in recipes}
        self._query = ""
        self._tag = ""
        self._lang = "en"
        self.shown: list[Recipe] = []

    def on_mount(self) -> None:
        """Follow the app's language."""
        self.watch(self.app, "lang", self._language_changed)

    def _language_changed(self, lang: str) -> None:
        self._lang = lang
        self._rebuild()

    def _prompt(self, recipe: Recipe) -> Text:
        text = inline_code(recipe.text(recipe.title, self._lang))
        text.append("\n")
        details = recipe.id + ("  #" + " #".join(recipe.tags) if recipe.tags else "")
        text.append(details, "dim")
        return text

    def add_prose(self, texts: dict[str, str]) -> None:
        """Let the filter search prose too, once a worker has read it.

        Args:
            texts: Recipe id to lower-cased prose of both languages.
        """
        for recipe_id, text in texts.items():
            if recipe_id in self._haystacks:
                self._haystacks[recipe_id] += "\n" + text
        if self._query:
            self._rebuild()

    def apply_filter(self, query: str, tag: str) -> None:
        """Show only recipes matching `query` and carrying `tag` (empty: any).

        Args:
            query: Words that must all occur in a recipe's ids, titles, tags or prose.
            tag: A tag the recipe must carry, or "".
        """
        self._query, self._tag = query, tag
        self._rebuild()

    def _rebuild(self) -> None:
        highlighted = self.highlighted_recipe
        self.shown = [
            recipe
            for recipe in self._recipes.values()
            if matches(self._haystacks[recipe.id], self._query)
            and (not self._tag or self._tag in recipe.tags)
        ]
        if not self.shown and is_sentence(self._query):
            self.shown = self._ranked(self._query)
        self.clear_options()
        options: list[Option | None] = []
        for recipe in self.shown:
            if options:
                options.append(None)  # a separator: titles wrap, so entries need a gap
            options.append(Option(self._prompt(recipe), id=recipe.id))
        self.add_options(options)
        ids = [r.id for r in self.shown]
        if highlighted is not None and highlighted.id in ids:
            self.highlighted = self.get_option_index(highlighted.id)
        elif ids:
            self.highlighted = 0

    def _ranked(self, query: str) -> list[Recipe]:
        """A pasted error or a sentence: ranked by `pitfalls search`, best first."""
        # lazy: search's index and tables only when searching
        from pitfalls.search.ranking import search

        hits = search(list(self._recipes.values()), query, limit=len(self._recipes))
        confident = [h for h in hits if h.confident]
        chosen = confident or hits[:5]  # nothing confident: the closest few, still ranked
        return [h.recipe for h in chosen if not self._tag or self._tag in h.recipe.tags]

    @property
    def highlighted_recipe(self) -> Recipe | None:
        """The recipe under the cursor, if any."""
        if self.highlighted is None or self.highlighted >= self.option_count:
            return None
        option_id = self.get_option_at_index(self.highlighted).id
        return self._recipes.get(option_id or "")

    def select_recipe(self, recipe_id: str) -> None:
        """Move the cursor to `recipe_id` if it is shown.

        Args:
            recipe_id: The recipe to highlight.
        """
        if recipe_id in (r.id for r in self.shown):
            self.highlighted = self.get_option_index(recipe_id)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Turn the generic option event into a RecipeSelected for the screen."""
        event.stop()
        recipe = self._recipes.get(event.option.id or "")
        if recipe is not None:
            self.post_message(self.RecipeSelected(recipe))
