"""`%load_ext pitfalls`: hints below a failing cell, and the `%pitfalls` line magic.

After a cell raises, IPython shows its traceback as always; if the error matches a recipe
confidently, a short hint follows it (the `post_run_cell` event, which leaves IPython's own
traceback display alone, unlike `set_custom_exc`). `%pitfalls show ID`, `%pitfalls run ID
[--device D]` and `%pitfalls search WORDS` read, run and find recipes. A recipe always runs
in a child process, never in the kernel: a snippet may change global state or crash.
"""

from __future__ import annotations

import shlex
import traceback
from typing import Any

from pitfalls.catalogue.registry import Registry
from pitfalls.i18n import choose_language, t

_STATE: dict[str, Any] = {"registry": None, "callback": None}
USAGE = "usage: %pitfalls show ID | run ID [--device D] | search WORDS  [--lang en|zh]"


def _registry() -> Registry:
    if _STATE["registry"] is None:
        _STATE["registry"] = Registry.load()
    return _STATE["registry"]


def _rich_frontend(ip: Any) -> bool:
    """Whether the shell displays HTML and Markdown (Jupyter), not a plain terminal."""
    return type(ip).__name__ == "ZMQInteractiveShell"


def _display_markdown(ip: Any, markdown: str) -> None:
    if _rich_frontend(ip):
        # lazy: IPython only inside a kernel
        from IPython.display import Markdown, display

        display(Markdown(markdown))
    else:
        print(markdown)


def hint_for(error: BaseException, lang: str | None = None) -> str | None:
    """The Markdown hint for an exception a cell raised, or None when no recipe is confident."""
    # lazy: search's index and tables only when searching
    from pitfalls.search.ranking import best_match

    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    hit = best_match(_registry(), text)
    if hit is None:
        return None
    lang = choose_language(lang)
    recipe = hit.recipe
    return "\n".join(
        [
            t("trace.hint", lang, id=recipe.id, title=recipe.text(recipe.title, lang)),
            "",
            f"- {t('trace.read', lang).strip()}: `%pitfalls show {recipe.id}`",
            f"- {t('trace.run', lang).strip()}: `%pitfalls run {recipe.id}`",
        ]
    )


def _post_run_cell(ip: Any):
    def callback(result: Any) -> None:
        error = getattr(result, "error_in_exec", None)
        if error is None:
            return
        try:
            hint = hint_for(error)
        except Exception:  # noqa: BLE001 - a hint must never add an error of its own
            return
        if hint:
            _display_markdown(ip, hint)

    return callback


def pitfalls_magic(line: str) -> None:
    """%pitfalls show ID | run ID [--device D] | search WORDS   [--lang en|zh]"""
    # lazy: IPython only inside a kernel
    from IPython import get_ipython

    ip = get_ipython()
    try:
        words = shlex.split(line)
    except ValueError as err:
        print(f"pitfalls: {err}")
        return
    lang = None
    if "--lang" in words:
        index = words.index("--lang")
        lang = words[index + 1] if index + 1 < len(words) else None
        del words[index : index + 2]
    lang = choose_language(lang)
    if not words or words[0] not in ("show", "run", "search"):
        print(USAGE)
        return
    verb, rest = words[0], words[1:]
    if not rest:
        print(USAGE)
        return
    if verb == "search":
        _search(ip, " ".join(rest), lang)
        return
    # lazy: the catalogue is loaded only by a command that needs recipes
    from pitfalls.catalogue.registry import ResolveError

    try:
        recipe = _registry().resolve(rest[0])
    except ResolveError as err:
        # As the CLI says it: the bare word alone read like a result.
        names = ", ".join(err.candidates)
        if err.kind == "ambiguous":
            print(f"pitfalls: {t('err.ambiguous', lang, word=err.word, names=names)}")
        else:
            hint = t("err.did_you_mean", lang, names=names) if names else t("err.see_list", lang)
            print(f"pitfalls: {t('err.unknown', lang, word=err.word)} {hint}")
        return
    if verb == "show":
        # lazy: rendering (and Rich) only when printing for a terminal
        from pitfalls.render.page import page_markdown

        used, prose = recipe.prose_with_fallback(lang)
        _display_markdown(ip, page_markdown(recipe, used, prose))
        return
    device = "auto"
    if "--device" in rest:
        index = rest.index("--device")
        if index + 1 < len(rest):
            device = rest[index + 1]
    _run(recipe, device, lang)


def _search(ip: Any, query: str, lang: str) -> None:
    # lazy: search's index and tables only when searching
    from pitfalls.search.ranking import search

    hits = [h for h in search(_registry(), query, limit=5) if h.confident]
    if not hits:
        print(f"pitfalls: {t('search.not_confident', lang, closest='—', query=query)}")
        return
    rows = [f"- `{h.recipe.id}`: {h.recipe.text(h.recipe.title, lang)}" for h in hits]
    _display_markdown(ip, "\n".join(rows))


def _run(recipe: Any, device: str, lang: str) -> None:
    # lazy: the runner only for what runs snippets
    from pitfalls.render.results import plain_lines
    from pitfalls.runner import RunnerUnavailable, run_recipe, valid_device

    if not valid_device(device):
        names = "auto, cpu, cuda, cuda:N, mps"
        print(f"pitfalls: {t('err.bad_device', lang, device=device, names=names)}")
        return
    try:
        result = run_recipe(recipe, device=device)
    except RunnerUnavailable as err:
        print(f"pitfalls: {err}")
        return
    print("\n".join(plain_lines(result, lang)))


def load(ip: Any) -> None:
    """Register the hint callback and the `%pitfalls` magic (idempotent)."""
    if _STATE["callback"] is not None:
        try:
            ip.events.unregister("post_run_cell", _STATE["callback"])
        except ValueError:
            pass
    _STATE["callback"] = _post_run_cell(ip)
    ip.events.register("post_run_cell", _STATE["callback"])
    ip.register_magic_function(pitfalls_magic, magic_kind="line", magic_name="pitfalls")


def unload(ip: Any) -> None:
    """Remove the hint callback (`%unload_ext pitfalls`)."""
    if _STATE["callback"] is not None:
        try:
            ip.events.unregister("post_run_cell", _STATE["callback"])
        except ValueError:
            pass
        _STATE["callback"] = None
