"""The tag chooser under the filter box."""

from __future__ import annotations

from textual.widgets import Select

from pitfalls.i18n import t

ALL_TAGS = ""  # the option meaning "any tag"; a real tag is never empty


class TagSelect(Select[str]):
    """Chooses one tag to narrow the list to, or all tags."""

    def __init__(self, tags: list[str], **kwargs: object) -> None:
        """Create the chooser.

        Args:
            tags: Every tag of the catalogue, sorted.
            **kwargs: Passed on to `Select`.
        """
        self._catalogue_tags = tags
        self._options_lang = "en"  # the language the options are labelled in
        super().__init__(
            self._tag_options("en"),
            allow_blank=False,
            value=ALL_TAGS,
            compact=True,
            type_to_search=False,  # letters are app bindings unless the overlay is open
            **kwargs,  # type: ignore[arg-type]
        )

    def _tag_options(self, lang: str) -> list[tuple[str, str]]:
        return [
            (t("tui.all_tags", lang), ALL_TAGS),
            *((f"#{tag}", tag) for tag in self._catalogue_tags),
        ]

    def on_mount(self) -> None:
        """Follow the app's language."""
        self.watch(self.app, "lang", self._language_changed)

    def _language_changed(self, lang: str) -> None:
        if lang == self._options_lang:  # called once on mount: nothing to relabel yet
            return
        self._options_lang = lang
        value = self.value
        with self.prevent(Select.Changed):  # relabelling is not a new choice
            self.set_options(self._tag_options(lang))
            if isinstance(value, str) and value in ("", *self._catalogue_tags):
                self.value = value
            # The shown label only refreshes when the value changes, and here it did not.
            self.mutate_reactive(Select.value)
