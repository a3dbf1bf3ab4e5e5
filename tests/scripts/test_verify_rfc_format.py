"""The in-file RFC format gate: one broken fixture per rule (scripts/verify_rfc_format.py).

Each failing fixture checks the exact report: file, line and rule name. The rules judge the
CommonMark document a reader sees, so the fixtures include the spellings a line-by-line
reader would miss (setext and indented headings, tabs, code blocks, emphasis, quotes).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from verify_rfc_format import (
    DEBT_MARKER,
    GRANDFATHER_COMMENT,
    PROPOSAL_ERA_TERMS,
    REQUIRED_SECTIONS,
    main,
    proposal_era_term,
)

from .rfc_fixtures import SECTIONS, STATUS, body, rfc_text, run_gate, valid_tree, write

EM = "\u2014"
REJECTED_EXPECTED = f'"Status: rejected {EM} <why>" (em dash U+2014, one space each side)'
IMPL_HEAD = f"# RFC: T\n\n{STATUS['implemented']}\n\n"
IMPL_BODY = body(SECTIONS["implemented"])
PASSED = "verify_rfc_format: 3 RFC(s) follow the format"
AFTER_PROBLEM = body(SECTIONS["implemented"][1:])
# Line numbers in IMPL_HEAD + IMPL_BODY: each section is heading, blank, text, blank.
END_OF_IMPL = 21  # the first line after the four sections

Rule = tuple[int | None, str]  # (line, "rule-name: detail")


def _with_problem(text: str) -> str:
    """An implemented RFC whose Problem section holds ``text`` (the other sections as sound)."""
    return f"{IMPL_HEAD}## Problem\n\n{text}\n\n{AFTER_PROBLEM}"


def _check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lifecycle: str, text: str
) -> tuple[int, list[str], str]:
    """Replace the sound tree's ``lifecycle`` RFC with ``text`` and run the gate."""
    rel = valid_tree(tmp_path)[lifecycle]
    write(tmp_path, rel, text)
    code, lines = run_gate(main, tmp_path, capsys)
    return code, lines, rel


def _fails_with(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    lifecycle: str,
    text: str,
    rules: list[Rule],
) -> None:
    code, lines, rel = _check(tmp_path, capsys, lifecycle, text)
    assert code == 1
    assert lines == [
        *(f"{rel}: {rule}" if line is None else f"{rel}:{line}: {rule}" for line, rule in rules),
        f"verify_rfc_format: {len(rules)} violation(s)",
    ]


def _passes(tmp_path: Path, capsys: pytest.CaptureFixture[str], lifecycle: str, text: str) -> None:
    code, lines, _ = _check(tmp_path, capsys, lifecycle, text)
    assert (code, lines) == (0, [PASSED])


def _syntax(line: int, label: str, source: str) -> Rule:
    return (
        line,
        f'heading-syntax: write "{label}" as an ATX heading at column 1 with one space after '
        f'the #s and no closing #s (found "{source}")',
    )


def _era(line: int, label: str, term: str) -> Rule:
    return (
        line,
        f'proposal-era: "{label}" reads as "{term}", a proposal-stage section; implemented/ '
        "describes what shipped (Decision, Consequences)",
    )


def _missing(section: str, lifecycle: str = "implemented") -> Rule:
    return (None, f'required-section: missing "## {section}" (required in {lifecycle}/)')


def _empty(line: int, label: str) -> Rule:
    return (line, f'empty-section: "{label}" has no content')


def _status_once(line: int, found: str) -> Rule:
    return (line, f'status-once: only line 3 states the status (found "{found}")')


# --- sound files -------------------------------------------------------------------------


def test_sound_tree_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    valid_tree(tmp_path)
    assert run_gate(main, tmp_path, capsys) == (0, [PASSED])


def test_extra_sections_in_any_order_after_problem_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sections = ("Problem", "Background", "Consequences", "Alternatives considered", "Decision")
    _passes(tmp_path, capsys, "implemented", f"{IMPL_HEAD}{body(sections)}")


@pytest.mark.parametrize(
    "extra",
    [
        "```\nStatus: implemented\n## Proposal\n# RFC: other\n```",
        "~~~markdown\n## Plans\nStatus: proposed\n~~~",
        "    Status: x\n    ## Proposal",
        "<!-- Status: draft\n## Proposal -->",
        "Use `Status: implemented` on line 3.",
        "The `## Plan` heading is banned here.",
    ],
    ids=["backtick fence", "tilde fence", "indented code", "html comment", "code span", "span"],
)
def test_code_and_comments_are_not_structure(
    extra: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _with_problem(f"Text.\n\n{extra}")
    _passes(tmp_path, capsys, "implemented", text)


def test_subsections_and_any_content_fill_a_section(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (
        f"{IMPL_HEAD}## Problem\n\n### Background\n\nWhy.\n\n"
        "## Decision\n\n- a list\n\n## Alternatives considered\n\n```\ncode\n```\n\n"
        "## Consequences\n\n> a quote\n"
    )
    _passes(tmp_path, capsys, "implemented", text)


def test_words_that_merely_start_like_plan_are_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = f"{IMPL_HEAD}{IMPL_BODY}## Planning notes\n\n- x\n\n### Explanation\n\nY.\n"
    _passes(tmp_path, capsys, "implemented", text)


@pytest.mark.parametrize("lifecycle", ["proposed", "rejected"])
def test_proposal_headings_belong_to_proposed_and_rejected(
    lifecycle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = rfc_text(lifecycle) + "## Migration plan\n\n- step\n\n### Rollout checklist\n\n- x\n"
    _passes(tmp_path, capsys, lifecycle, text)


# --- the header block --------------------------------------------------------------------


def test_line_2_must_be_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = f"# RFC: T\nsubtitle\n{STATUS['implemented']}\n\n{IMPL_BODY}"
    rules: list[Rule] = [(2, 'header-blank: must be empty (found "subtitle")')]
    _fails_with(tmp_path, capsys, "implemented", text, rules)


def test_line_4_must_be_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = f"# RFC: T\n\n{STATUS['implemented']}\nShipped in issue 2.\n{IMPL_BODY}"
    rules: list[Rule] = [(4, 'header-blank: must be empty (found "Shipped in issue 2.")')]
    _fails_with(tmp_path, capsys, "implemented", text, rules)


@pytest.mark.parametrize(
    ("lifecycle", "status", "expected"),
    [
        ("implemented", "Status: proposed", '"Status: implemented"'),
        ("implemented", "Status: Implemented", '"Status: implemented"'),
        ("implemented", "Status: implemented (2026-11-30)", '"Status: implemented"'),
        ("implemented", "Status: accepted", '"Status: implemented"'),
        ("implemented", "Status: *implemented*", '"Status: implemented"'),
        ("proposed", "Status: implemented", '"Status: proposed"'),
        ("proposed", "Status: draft", '"Status: proposed"'),
        ("rejected", "Status: rejected", REJECTED_EXPECTED),
        ("rejected", "Status: rejected - too slow", REJECTED_EXPECTED),
        ("rejected", f"Status: rejected {EM}", REJECTED_EXPECTED),
        ("rejected", f"Status: rejected{EM}too slow", REJECTED_EXPECTED),
        ("rejected", "Status: proposed", REJECTED_EXPECTED),
        ("rejected", "Rejected: too slow", REJECTED_EXPECTED),
    ],
)
def test_status_line_must_match_lifecycle_folder(
    lifecycle: str,
    status: str,
    expected: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = f"# RFC: T\n\n{status}\n\n{body(SECTIONS[lifecycle])}"
    rule = f'status-line: must be {expected} to match the {lifecycle}/ folder (found "{status}")'
    _fails_with(tmp_path, capsys, lifecycle, text, [(3, rule)])


@pytest.mark.parametrize("reason", ["2026-12-01", "rejected on 2026-12-01", "42", "- ?"])
def test_rejection_reason_is_words_not_a_date(
    reason: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = f"# RFC: T\n\nStatus: rejected {EM} {reason}\n\n{body(SECTIONS['rejected'])}"
    rule = (
        "status-line: the rejection reason must be words, not a date "
        "(the date lives in the file name)"
    )
    _fails_with(tmp_path, capsys, "rejected", text, [(3, rule)])


def test_truncated_file_reports_every_missing_part(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _fails_with(
        tmp_path,
        capsys,
        "rejected",
        "# RFC: T",
        [
            (2, "header-blank: must be empty (found end of file)"),
            (
                3,
                f"status-line: must be {REJECTED_EXPECTED} to match the rejected/ folder "
                "(found end of file)",
            ),
            (4, "header-blank: must be empty (found end of file)"),
            (None, 'problem-first: first section must be "## Problem" (found no section)'),
            _missing("Proposal", "rejected"),
            _missing("Alternatives considered", "rejected"),
        ],
    )


@pytest.mark.parametrize(
    ("extra", "found"),
    [
        ("Status: superseded", "Status: superseded"),
        ("Status:implemented", "Status:implemented"),
        ("> Status: implemented", "Status: implemented"),
        ("**Status:** implemented", "Status: implemented"),
        ("status: done", "status: done"),
        ("*STATUS* : shipped", "STATUS : shipped"),
        ("- Status: implemented", "Status: implemented"),
        ("| Status: implemented |\n|---|", "Status: implemented"),
        ("Shipped in issue 2,\nStatus: implemented", "Status: implemented"),
    ],
    ids=[
        "plain",
        "no space",
        "quote",
        "bold",
        "lowercase",
        "emphasis",
        "list item",
        "table cell",
        "paragraph line",
    ],
)
def test_no_other_rendered_line_states_a_status(
    extra: str, found: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _with_problem(f"Text.\n\n{extra}")
    line = 9 + extra.count("\n") if extra.startswith("Shipped") else 9
    _fails_with(tmp_path, capsys, "implemented", text, [_status_once(line, found)])


def test_status_heading_is_a_second_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = f"{IMPL_HEAD}{IMPL_BODY}## Status\n\nShipped.\n"
    _fails_with(tmp_path, capsys, "implemented", text, [_status_once(END_OF_IMPL, "## Status")])


def test_second_level_1_heading(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = f"{IMPL_HEAD}{IMPL_BODY}# Appendix\n\nMore.\n"
    _fails_with(
        tmp_path,
        capsys,
        "implemented",
        text,
        [
            (
                END_OF_IMPL,
                'title-once: "# Appendix" is a second level-1 heading; sections are ## headings',
            )
        ],
    )


# --- heading syntax: what a reader sees is a heading, and it must be written one way ----


@pytest.mark.parametrize(
    ("source", "label"),
    [
        ("Background\n----------", "## Background"),
        ("Background\n==========", "# Background"),
        ("   ## Background", "## Background"),
        (" ## Background", "## Background"),
        ("##\tBackground", "## Background"),
        ("##  Background", "## Background"),
        ("## Background ##", "## Background"),
        ("### Background #", "### Background"),
    ],
    ids=["setext 2", "setext 1", "indent 3", "indent 1", "tab", "two spaces", "closed", "closed 3"],
)
def test_heading_must_be_written_atx(
    source: str, label: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = f"{IMPL_HEAD}{IMPL_BODY}{source}\n\nMore.\n"
    rules = [_syntax(END_OF_IMPL, label, source.split("\n")[0])]
    if label.startswith("# "):
        rules.insert(
            0,
            (
                END_OF_IMPL,
                f'title-once: "{label}" is a second level-1 heading; sections are ## headings',
            ),
        )
    _fails_with(tmp_path, capsys, "implemented", text, rules)


def test_setext_problem_is_seen_as_the_opener(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = f"{IMPL_HEAD}Problem\n-------\n\nWhy.\n\n{AFTER_PROBLEM}"
    _fails_with(tmp_path, capsys, "implemented", text, [_syntax(5, "## Problem", "Problem")])


@pytest.mark.parametrize(
    ("source", "label"),
    [
        ("Plans\n-----", "## Plans"),
        ("   ## Proposal", "## Proposal"),
        ("##\tMigration plan", "## Migration plan"),
    ],
    ids=["setext", "indented", "tab"],
)
def test_hidden_spellings_of_proposal_headings_fail_twice(
    source: str, label: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = f"{IMPL_HEAD}{IMPL_BODY}{source}\n\n- step\n"
    term = proposal_era_term(label)
    assert term is not None
    _fails_with(
        tmp_path,
        capsys,
        "implemented",
        text,
        [_syntax(END_OF_IMPL, label, source.split("\n")[0]), _era(END_OF_IMPL, label, term)],
    )


# --- the body: opener, required sections, duplicates, empties ----------------------------


@pytest.mark.parametrize("lifecycle", ["proposed", "implemented", "rejected"])
def test_first_section_must_be_problem(
    lifecycle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sections = ("Context", *SECTIONS[lifecycle])
    text = f"# RFC: T\n\n{STATUS[lifecycle]}\n\n{body(sections)}"
    rule = 'problem-first: first section must be "## Problem" (found "## Context")'
    _fails_with(tmp_path, capsys, lifecycle, text, [(5, rule)])


def test_subsection_before_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = f"{IMPL_HEAD}### Summary\n\nShort.\n\n{IMPL_BODY}"
    rule = 'problem-first: first section must be "## Problem" (found "### Summary")'
    _fails_with(tmp_path, capsys, "implemented", text, [(5, rule)])


@pytest.mark.parametrize(
    "prose",
    ["A summary paragraph.", "- a list", "> a quote", "---\n\nx", "<div>html</div>"],
    ids=["paragraph", "list", "quote", "rule then text", "html"],
)
def test_prose_before_problem(
    prose: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = f"{IMPL_HEAD}{prose}\n\n{IMPL_BODY}"
    lines = [5, 7] if prose.startswith("---") else [5]
    rule = 'problem-first: content before "## Problem"; the body opens with it'
    _fails_with(tmp_path, capsys, "implemented", text, [(line, rule) for line in lines])


def test_comment_before_problem_is_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _passes(tmp_path, capsys, "implemented", f"{IMPL_HEAD}<!-- reviewed -->\n\n{IMPL_BODY}")


def test_problem_heading_needs_the_space(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = f"{IMPL_HEAD}##Problem\n\n{AFTER_PROBLEM}"
    _fails_with(
        tmp_path,
        capsys,
        "implemented",
        text,
        [
            (5, 'problem-first: content before "## Problem"; the body opens with it'),
            (7, 'problem-first: first section must be "## Problem" (found "## Decision")'),
        ],
    )


@pytest.mark.parametrize(
    ("lifecycle", "section"),
    [(lc, section) for lc, sections in REQUIRED_SECTIONS.items() for section in sections],
)
def test_required_section_missing(
    lifecycle: str, section: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = tuple(s for s in SECTIONS[lifecycle] if s != section)
    text = f"# RFC: T\n\n{STATUS[lifecycle]}\n\n{body(kept)}"
    _fails_with(tmp_path, capsys, lifecycle, text, [_missing(section, lifecycle)])


@pytest.mark.parametrize(
    "wrapper",
    [
        "```\n## Consequences\n\nText.\n```",
        "    ## Consequences\n\n    Text.",
        "<!--\n## Consequences\n\nText.\n-->",
        "> ## Consequences\n>\n> Text.",
    ],
    ids=["fenced", "indented code", "comment", "quoted"],
)
def test_section_inside_a_block_is_not_a_section(
    wrapper: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = body(("Problem", "Decision", "Alternatives considered"))
    text = f"{IMPL_HEAD}{kept}{wrapper}\n"
    _fails_with(tmp_path, capsys, "implemented", text, [_missing("Consequences")])


def test_required_sections_are_the_contract() -> None:
    assert REQUIRED_SECTIONS == {
        "proposed": ("Proposal", "Alternatives considered", "Acceptance criteria", "Risks"),
        "implemented": ("Decision", "Alternatives considered", "Consequences"),
        "rejected": ("Proposal", "Alternatives considered"),
    }


def test_duplicated_section(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = f"{IMPL_HEAD}{IMPL_BODY}## Decision\n\nA second one.\n"
    rule = 'duplicate-section: "## Decision" already opens a section on line 9'
    _fails_with(tmp_path, capsys, "implemented", text, [(END_OF_IMPL, rule)])


@pytest.mark.parametrize(
    ("section", "line"),
    [("Problem", 5), ("Decision", 9), ("Alternatives considered", 13), ("Consequences", 17)],
)
@pytest.mark.parametrize(
    "filler",
    ["", "<!-- to be written -->\n\n", "---\n\n", "### Details\n\n"],
    ids=["nothing", "comment", "thematic break", "empty subsection"],
)
def test_empty_section(
    section: str, line: int, filler: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = f"{IMPL_HEAD}{IMPL_BODY}".replace(
        f"## {section}\n\nText for {section.lower()}.\n\n", f"## {section}\n\n{filler}"
    )
    rules = [_empty(line, f"## {section}")]
    if filler.startswith("###"):
        rules.append(_empty(line + 2, "### Details"))
    _fails_with(tmp_path, capsys, "implemented", text, rules)


# --- lifecycle shapes --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("heading", "term"),
    [
        ("## Proposal", "proposal"),
        ("## Plan", "plan"),
        ("## Migration plan", "plan"),
        ("## Acceptance criteria", "acceptance criteria"),
        ("## Migration Plan", "plan"),
        ("## ACCEPTANCE CRITERIA", "acceptance criteria"),
        ("## Plan: rollout", "plan"),
        ("## Proposal (v2)", "proposal"),
        ("### Proposal", "proposal"),
        ("#### Test plan", "plan"),
        ("## Plans", "plan"),
        ("## Proposals", "proposal"),
        ("## Rollout checklist", "rollout"),
        ("## Test checklists", "checklist"),
        ("## Next steps", "next step"),
        ("## TODO", "todo"),
        ("## To-do", "to do"),
        ("## Open questions", "open question"),
        ("## Roadmap", "roadmap"),
        ("## Milestones", "milestone"),
        ("## `Acceptance` criteria", "acceptance criteria"),
    ],
)
def test_proposal_era_heading_rejected_in_implemented(
    heading: str, term: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = f"{IMPL_HEAD}{IMPL_BODY}{heading}\n\n- step\n"
    _fails_with(tmp_path, capsys, "implemented", text, [_era(END_OF_IMPL, heading, term)])


def test_proposal_era_heading_nested_in_a_quote(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = f"{IMPL_HEAD}{IMPL_BODY}> ### Migration plan\n>\n> - step\n"
    _fails_with(
        tmp_path, capsys, "implemented", text, [_era(END_OF_IMPL, "### Migration plan", "plan")]
    )


def test_synonyms_live_in_one_list() -> None:
    assert all(term == term.lower() and not term.endswith("s") for term in PROPOSAL_ERA_TERMS)
    assert proposal_era_term("Planning notes") is None
    assert proposal_era_term("Explanation") is None
    assert proposal_era_term("Consequences") is None


@pytest.mark.parametrize("section", ["Decision", "Consequences", "Decisions"])
def test_rejected_rfc_keeps_the_proposal_shape(
    section: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = rfc_text("rejected") + f"## {section}\n\nWe shipped it after all.\n"
    rule = (
        f'rejected-shape: "## {section}" does not belong in a rejected RFC; it keeps the '
        "proposal as written and gives the reason on line 3"
    )
    _fails_with(tmp_path, capsys, "rejected", text, [(17, rule)])


# --- markers in the source -----------------------------------------------------------------


DEBT_RULE = (
    "debt-marker: the legacy-format debt marker is retired; bring the body to the format instead"
)
GRANDFATHER_RULE = (
    "grandfather-comment: there is no exemption from "
    '"## Alternatives considered" (see the uniform-format RFC)'
)


@pytest.mark.parametrize(
    ("snippet", "line"),
    [
        (f"<!-- {DEBT_MARKER} -->", 7),
        (f"{DEBT_MARKER}: rewrite this section.", 7),
        ("```\n" + DEBT_MARKER.lower() + "\n```", 8),
    ],
    ids=["comment", "prose", "fenced, lowercase"],
)
def test_legacy_debt_marker_is_banned(
    snippet: str, line: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _with_problem(f"{snippet}\n\nWhy.")
    _fails_with(tmp_path, capsys, "implemented", text, [(line, DEBT_RULE)])


def test_general_todo_tags_are_not_an_rfc_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _with_problem("XXX: someday. TODO: soon. FIXME: now.")
    _passes(tmp_path, capsys, "implemented", text)


def test_grandfather_comment_is_not_an_exemption(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The deviation from the harness, pinned: see the uniform-format RFC's Alternatives."""
    kept = ("Problem", "Decision", "Consequences")
    text = f"{IMPL_HEAD}{GRANDFATHER_COMMENT}\n\n{body(kept)}"
    _fails_with(
        tmp_path,
        capsys,
        "implemented",
        text,
        [
            _missing("Alternatives considered"),
            (5, GRANDFATHER_RULE),
        ],
    )


def test_grandfather_comment_fails_even_beside_the_section(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = f"{IMPL_HEAD}{IMPL_BODY}{GRANDFATHER_COMMENT}\n"
    _fails_with(tmp_path, capsys, "implemented", text, [(END_OF_IMPL, GRANDFATHER_RULE)])


def test_violations_of_several_files_are_all_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = valid_tree(tmp_path)
    write(tmp_path, paths["proposed"], rfc_text("proposed").replace("## Risks", "## Dangers"))
    write(tmp_path, paths["rejected"], rfc_text("rejected").replace(EM, "-"))
    code, lines = run_gate(main, tmp_path, capsys)
    assert code == 1
    assert lines == [
        f'{paths["proposed"]}: required-section: missing "## Risks" (required in proposed/)',
        f"{paths['rejected']}:3: status-line: must be {REJECTED_EXPECTED} to match the "
        'rejected/ folder (found "Status: rejected - the cost outweighs the gain")',
        "verify_rfc_format: 2 violation(s)",
    ]
