"""The rule registry: stable codes, docs, recipes that exist, and the README table."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from conftest import FIXTURES, REPO
from pitfalls.catalogue.rule_table import (
    CODE_SHAPE,
    PREFIX,
    RULES,
    SYNTAX_ERROR,
    lookup,
    resolve_selection,
    rules_for_recipe,
    rules_table,
)
from pitfalls.check.driver import Settings, check_text
from pitfalls.check.registry import DOC_START, DOCS

SECTIONS = ("## What it does", "## Why is this bad?", "## Example", "Use instead:")


def test_codes_are_well_formed_and_names_unique() -> None:
    assert all(CODE_SHAPE.match(code) and code.startswith(PREFIX) for code in RULES)
    assert not CODE_SHAPE.match("detach") and CODE_SHAPE.match(SYNTAX_ERROR)
    names = [rule.name for rule in RULES.values()]
    assert len(names) == len(set(names))
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name) for name in names)
    assert all(rule.fix in ("always", "sometimes", "never") for rule in RULES.values())


def test_every_rule_is_checked_and_documented_with_ruffs_sections() -> None:
    for code in RULES:
        doc = DOCS.get(code, "")
        assert doc.startswith(DOC_START), code
        for section in SECTIONS:
            assert section in doc, (code, section)


def test_every_rules_recipe_exists_in_the_catalogue() -> None:
    from pitfalls.catalogue.registry import Registry

    registry = Registry.load()
    known = set(registry.recipes)
    missing = sorted({rule.recipe for rule in RULES.values()} - known)
    assert missing == [], f"rules point at recipes that do not exist: {missing}"


def test_lookup_accepts_any_case_and_rules_for_recipe() -> None:
    assert lookup("pfl101") is RULES["PFL101"]
    assert lookup("PFL999") is None
    assert [r.code for r in rules_for_recipe("detach")] == ["PFL101", "PFL102"]


def test_selection_precedence_follows_ruff() -> None:
    defaults = {code for code, rule in RULES.items() if rule.default}
    assert resolve_selection(None, [], []) == defaults
    assert resolve_selection(["PFL1"], [], ["PFL101"]) == {
        c for c in defaults if c.startswith("PFL1") and c != "PFL101"
    }
    assert resolve_selection(["PFL101"], [], ["PFL"]) == {"PFL101"}  # more specific wins
    assert resolve_selection(["PFL"], [], ["PFL"]) == set()  # a tie goes to ignore
    assert "PFL105" in resolve_selection(["ALL"], [], [])
    assert "PFL105" not in resolve_selection(["PFL1"], [], [])
    assert "PFL105" in resolve_selection(None, ["PFL105"], [])


def test_readme_rule_table_matches_the_registry() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- rules:start[^\n]*-->\n(.*?)<!-- rules:end -->", readme, re.S)
    assert match, "README.md has no generated rule table"
    assert match.group(1) == rules_table(), (
        "README rule table is stale; paste in `python -c 'from pitfalls.catalogue.rule_table "
        'import rules_table; print(rules_table(), end="")\'`'
    )


def test_declared_fix_availability_matches_what_rules_emit() -> None:
    settings = Settings(enabled=resolve_selection(["ALL"], [], []), root=Path("."))
    fixed: set[str] = set()
    reported: set[str] = set()
    for path in (FIXTURES / "check").glob("*.py"):
        result = check_text(path.read_text(encoding="utf-8"), path, path.name, settings)
        for finding in result.findings:
            reported.add(finding.code)
            if finding.edits:
                assert finding.fix_title, finding.code
                fixed.add(finding.code)
    always = {code for code, rule in RULES.items() if rule.fix == "always"}
    never = {code for code, rule in RULES.items() if rule.fix == "never"}
    sometimes = {code for code, rule in RULES.items() if rule.fix == "sometimes"}
    assert always <= fixed <= always | sometimes
    assert not fixed & never
    unfixed_always = {
        f.code
        for path in (FIXTURES / "check").glob("*.py")
        for f in check_text(path.read_text(encoding="utf-8"), path, path.name, settings).findings
        if f.code in always and not f.edits
    }
    assert not unfixed_always


def test_lint_forbids_aliases_shaped_like_rule_codes(tmp_path: Path) -> None:
    from pitfalls.authoring.lint_checks import check_recipe

    folder = tmp_path / "narrow"
    shutil.copytree(REPO / "recipes" / "narrow", folder)
    toml = folder / "recipe.toml"
    text = toml.read_text(encoding="utf-8")
    if "aliases" in text:
        text = re.sub(r"aliases\s*=\s*\[[^\]]*\]", 'aliases = ["pfl101", "narrowing"]', text)
    else:
        text = text.replace('id = "narrow"', 'id = "narrow"\naliases = ["pfl101", "narrowing"]')
    toml.write_text(text, encoding="utf-8")
    findings, _, _ = check_recipe(folder)
    shaped = [f for f in findings if f.code == "PIT004"]
    assert len(shaped) == 1 and "'pfl101'" in shaped[0].message
    assert "rule code" in shaped[0].message
