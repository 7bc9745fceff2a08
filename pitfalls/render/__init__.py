"""Rendering for terminals: run and verify results as text and Rich (results), recipe pages
(page), and chart drawing (charts)."""
