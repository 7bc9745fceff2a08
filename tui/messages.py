"""Messages the workers post back to the UI thread, named as past events.

Thread workers must not touch widgets; they post one of these and the screen's handler,
which runs on the UI thread, updates the widgets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from pitfalls.runner import RunResult, VerifyReport
    from pitfalls.tui.backend import DeviceReport


class DevicesProbed(Message):
    """The device probe finished."""

    def __init__(self, report: DeviceReport) -> None:
        super().__init__()
        self.report = report


class ProseIndexed(Message):
    """Every recipe's prose has been read, so the filter can search it."""

    def __init__(self, texts: dict[str, str]) -> None:
        super().__init__()
        self.texts = texts  # recipe id -> lower-cased prose of both languages


class RunOutputReceived(Message):
    """A chunk of a running snippet's stdout or stderr."""

    def __init__(self, recipe_id: str, text: str) -> None:
        super().__init__()
        self.recipe_id = recipe_id
        self.text = text


class RunFinished(Message):
    """A run ended with a result (which may itself carry an error, a timeout or a cancel)."""

    def __init__(self, result: RunResult) -> None:
        super().__init__()
        self.result = result


class RunFailed(Message):
    """A run could not produce a result at all (no torch, no interpreter, runner broken)."""

    def __init__(self, recipe_id: str, kind: str, message: str) -> None:
        super().__init__()
        self.recipe_id = recipe_id
        self.kind = kind
        self.message = message


class VerifyProgressed(Message):
    """One recipe of a verify run has a result."""

    def __init__(self, result: RunResult) -> None:
        super().__init__()
        self.result = result


class VerifyFinished(Message):
    """A verify run ended; `report` is None when it failed before running anything."""

    def __init__(self, report: VerifyReport | None, problem: str = "") -> None:
        super().__init__()
        self.report = report
        self.problem = problem
