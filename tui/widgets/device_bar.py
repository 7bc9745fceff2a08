"""The device chooser and the runner's status: which torch, which devices are present."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label, Select

from pitfalls.i18n import t
from pitfalls.tui.backend import DEVICE_CHOICES, DeviceReport


class DeviceBar(Horizontal):
    """`device: [auto ▾]  torch 2.x` — unavailable devices stay listed, marked as such."""

    DEFAULT_CSS = """
    DeviceBar {
        height: 1;
        margin: 0 0 1 0;
    }
    DeviceBar > #device-label {
        padding: 0 1 0 0;
    }
    DeviceBar > Select {
        width: 24;
    }
    DeviceBar > #device-status {
        padding: 0 0 0 2;
        color: $text-muted;
        width: 1fr;
    }
    """

    def __init__(self, **kwargs: object) -> None:
        """Create the bar; devices are unknown until `set_report` is called.

        Args:
            **kwargs: Passed on to `Horizontal`.
        """
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.report: DeviceReport | None = None
        self._lang = "en"

    def compose(self) -> ComposeResult:
        """The label, the chooser and the status line."""
        yield Label(id="device-label")
        yield Select(
            self._device_options(),
            allow_blank=False,
            value="auto",
            compact=True,
            type_to_search=False,  # letters are app bindings
            id="device-select",
        )
        yield Label(id="device-status")

    def on_mount(self) -> None:
        """Follow the app's language."""
        self.watch(self.app, "lang", self._language_changed)

    @property
    def device(self) -> str:
        """The chosen device: auto, cpu, cuda or mps."""
        value = self.query_one("#device-select", Select).value
        return value if isinstance(value, str) else "auto"

    def _device_options(self) -> list[tuple[str, str]]:
        options = []
        for device in DEVICE_CHOICES:
            label = device
            if self.report is not None and not self.report.is_available(device):
                label = f"{device} ({t('tui.unavailable', self._lang)})"
            options.append((label, device))
        return options

    def _language_changed(self, lang: str) -> None:
        self._lang = lang
        self._refresh_labels()

    def set_report(self, report: DeviceReport) -> None:
        """Show what the probe found.

        Args:
            report: The probe's findings.
        """
        self.report = report
        self._refresh_labels()

    def _refresh_labels(self) -> None:
        self.query_one("#device-label", Label).update(t("tui.device", self._lang))
        select = self.query_one("#device-select", Select)
        value = self.device
        with select.prevent(Select.Changed):
            select.set_options(self._device_options())
            select.value = value if value in DEVICE_CHOICES else "auto"
            # The shown label only refreshes when the value changes; relabel it anyway.
            select.mutate_reactive(Select.value)
        self.query_one("#device-status", Label).update(self._status())

    def _status(self) -> str:
        report = self.report
        if report is None:
            return t("tui.probing", self._lang)
        if report.problem:
            return t("tui.no_torch", self._lang, reason=report.problem)
        return t("tui.torch_version", self._lang, version=report.torch or "?")

    def cycle(self) -> str:
        """Choose the next available device; returns it."""
        select = self.query_one("#device-select", Select)
        current = DEVICE_CHOICES.index(self.device)
        for step in range(1, len(DEVICE_CHOICES) + 1):
            candidate = DEVICE_CHOICES[(current + step) % len(DEVICE_CHOICES)]
            if self.report is None or self.report.is_available(candidate):
                select.value = candidate
                return candidate
        return self.device
