"""The list of recipes, grouped by theme under collapsible headings, filtered as you type."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from pitfalls.catalogue.model import THEMES
from pitfalls.i18n import t
from pitfalls.tui.localise import inline_code

if TYPE_CHECKING:
    from rich.text import Text

    from pitfalls.catalogue.model import Recipe

# A heading's option id: recipe ids are kebab-case, so they never contain the colon.
HEADING_PREFIX = "theme:"
# The group of recipes that declare no theme (packs may not have given one yet), listed last.
NO_THEME = ""


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


def theme_name(theme: str, lang: str) -> str:
    """The display name of a theme id ("" is the group of recipes without one)."""
    return t(f"theme.{theme}" if theme else "list.no_theme", lang)


def by_theme(recipes: list[Recipe]) -> list[tuple[str, list[Recipe]]]:
    """`recipes` grouped by theme, in the order of THEMES (no theme last); each group keeps
    the order it was given, and empty groups are left out."""
    groups: dict[str, list[Recipe]] = {theme: [] for theme in (*THEMES, NO_THEME)}
    for recipe in recipes:
        groups.get(recipe.theme, groups[NO_THEME]).append(recipe)
    return [(theme, members) for theme, members in groups.items() if members]


class RecipeList(OptionList):
    """Theme headings and, under each expanded one, its recipes (two lines: title, id).

    Option ids are recipe ids, or HEADING_PREFIX + theme for a heading. Enter or a click on a
    recipe posts RecipeSelected; on a heading it folds or unfolds the theme. While a filter is
    active every group that has a match is shown unfolded, so the filter searches everything;
    a pasted error or sentence is listed flat, ranked best first.
    """

    DEFAULT_CSS = """
    RecipeList {
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "fold", "Fold theme", show=False),
        Binding("right", "unfold", "Unfold theme", show=False),
    ]

    class RecipeSelected(Message):
        """The user chose a recipe to open."""

        def __init__(self, recipe: Recipe) -> None:
            super().__init__()
            self.recipe = recipe

    def __init__(self, recipes: list[Recipe], **kwargs: object) -> None:
        """Create the list.

        Args:
            recipes: The catalogue, in display order within each theme.
            **kwargs: Passed on to `OptionList`.
        """
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._recipes = {r.id: r for r in recipes}
        self._haystacks = {r.id: metadata_haystack(r) for r in recipes}
        self._query = ""
        self._tag = ""
        self._lang = "en"
        self._folded: set[str] = set()  # themes whose recipes are hidden
        self._ranked_view = False
        self.shown: list[Recipe] = []  # every recipe that matches, folded or not, in order

    def on_mount(self) -> None:
        """Follow the app's language."""
        self.watch(self.app, "lang", self._language_changed)

    def _language_changed(self, lang: str) -> None:
        self._lang = lang
        self._rebuild()

    def _prompt(self, recipe: Recipe) -> Text:
        text = inline_code(recipe.text(recipe.title, self._lang))
        text.append("\n")
        text.append(recipe.id, "dim")
        return text

    def _heading(self, theme: str, count: int) -> Text:
        # lazy: Rich loads only when something is drawn
        from rich.text import Text

        marker = "▸ " if theme in self._folded else "▾ "
        text = Text(marker, "bold")
        text.append(theme_name(theme, self._lang), "bold")
        text.append(f"  {count}", "dim")
        return text

    @property
    def filtering(self) -> bool:
        """Whether a query or a tag narrows the list."""
        return bool(self._query.strip() or self._tag)

    @property
    def all_folded(self) -> bool:
        """Whether every theme shown is folded."""
        return all(theme in self._folded for theme, _ in by_theme(self.shown))

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
        if (query.strip(), tag) != (self._query.strip(), self._tag):
            self._folded.clear()  # a new filter shows every match
        self._query, self._tag = query, tag
        self._rebuild()

    def _rebuild(self) -> None:
        highlighted = self.highlighted_recipe
        theme_heading = self.highlighted_theme if highlighted is None else None
        self.shown = [
            recipe
            for recipe in self._recipes.values()
            if matches(self._haystacks[recipe.id], self._query)
            and (not self._tag or self._tag in recipe.tags)
        ]
        self._ranked_view = not self.shown and is_sentence(self._query)
        options: list[Option] = []
        if self._ranked_view:
            self.shown = self._ranked(self._query)
            options = [Option(self._prompt(recipe), id=recipe.id) for recipe in self.shown]
        else:
            groups = by_theme(self.shown)
            self.shown = [recipe for _, members in groups for recipe in members]
            for theme, members in groups:
                options.append(
                    Option(self._heading(theme, len(members)), id=HEADING_PREFIX + theme)
                )
                if theme not in self._folded:
                    options.extend(Option(self._prompt(r), id=r.id) for r in members)
        self.clear_options()
        self.add_options(options)
        self._restore_highlight(highlighted, theme_heading)

    def _restore_highlight(self, recipe: Recipe | None, heading: str | None) -> None:
        """Put the cursor back where it was: the same recipe, else its theme's heading (it
        was folded), else the same heading, else the first recipe shown."""
        ids = {option.id for option in self.options}
        if recipe is not None and recipe.id in ids:
            self.highlighted = self.get_option_index(recipe.id)
            return
        theme = recipe.theme if recipe is not None else heading
        if theme is not None and HEADING_PREFIX + theme in ids:
            self.highlighted = self.get_option_index(HEADING_PREFIX + theme)
            return
        first = next((i for i, o in enumerate(self.options) if o.id in self._recipes), None)
        self.highlighted = first if first is not None else (0 if self.options else None)

    def _ranked(self, query: str) -> list[Recipe]:
        """A pasted error or a sentence: ranked by `pitfalls search`, best first."""
        # lazy: search's index and tables only when searching
        from pitfalls.search.ranking import search

        hits = search(list(self._recipes.values()), query, limit=len(self._recipes))
        confident = [h for h in hits if h.confident]
        chosen = confident or hits[:5]  # nothing confident: the closest few, still ranked
        return [h.recipe for h in chosen if not self._tag or self._tag in h.recipe.tags]

    @property
    def _highlighted_id(self) -> str:
        if self.highlighted is None or self.highlighted >= self.option_count:
            return ""
        return self.get_option_at_index(self.highlighted).id or ""

    @property
    def highlighted_recipe(self) -> Recipe | None:
        """The recipe under the cursor, if a recipe (not a heading) is."""
        return self._recipes.get(self._highlighted_id)

    @property
    def highlighted_theme(self) -> str | None:
        """The theme of the heading under the cursor, or None when no heading is."""
        option_id = self._highlighted_id
        return option_id[len(HEADING_PREFIX) :] if option_id.startswith(HEADING_PREFIX) else None

    def select_recipe(self, recipe_id: str) -> None:
        """Move the cursor to `recipe_id` if it is shown, unfolding its theme.

        Args:
            recipe_id: The recipe to highlight.
        """
        recipe = next((r for r in self.shown if r.id == recipe_id), None)
        if recipe is None:
            return
        if not self._ranked_view and recipe.theme in self._folded:
            self._folded.discard(recipe.theme)
            self._rebuild()
        self.highlighted = self.get_option_index(recipe_id)

    def set_folded(self, themes: set[str]) -> None:
        """Fold exactly `themes` (the others unfold); the cursor stays on its group.

        Args:
            themes: The theme ids to fold ("" for recipes without a theme).
        """
        self._folded = set(themes)
        self._rebuild()

    def toggle_all(self) -> None:
        """Fold every theme, or unfold them all when every one is folded already."""
        themes = {theme for theme, _ in by_theme(self.shown)}
        self.set_folded(set() if self.all_folded else themes)

    def _theme_at_cursor(self) -> str | None:
        recipe = self.highlighted_recipe
        if recipe is not None:
            return None if self._ranked_view else recipe.theme
        return self.highlighted_theme

    def action_fold(self) -> None:
        """Fold the theme under the cursor (the cursor moves to its heading)."""
        theme = self._theme_at_cursor()
        if theme is not None and theme not in self._folded:
            self.set_folded(self._folded | {theme})

    def action_unfold(self) -> None:
        """Unfold the theme whose heading is under the cursor."""
        theme = self.highlighted_theme
        if theme is not None and theme in self._folded:
            self.set_folded(self._folded - {theme})

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Open a recipe (posting RecipeSelected), or fold or unfold a heading's theme."""
        event.stop()
        recipe = self._recipes.get(event.option.id or "")
        if recipe is not None:
            self.post_message(self.RecipeSelected(recipe))
            return
        option_id = event.option.id or ""
        if option_id.startswith(HEADING_PREFIX):
            self.set_folded(self._folded ^ {option_id[len(HEADING_PREFIX) :]})
