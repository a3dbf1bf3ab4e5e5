"""The in-file RFC format gate: one broken fixture per rule (scripts/verify_rfc_format.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from verify_rfc_format import REQUIRED_SECTIONS, main

from .rfc_fixtures import SECTIONS, STATUS, body, rfc_text, run_gate, valid_tree, write

EM = "\u2014"
REJECTED_EXPECTED = f'"Status: rejected {EM} <why>" (em dash U+2014, one space each side)'
IMPL_BODY = body(SECTIONS["implemented"])
PASSED = "verify_rfc_format: 3 RFC(s) follow the format"
AFTER_PROBLEM = body(SECTIONS["implemented"][1:])


def _check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lifecycle: str, text: str
) -> tuple[int, list[str], str]:
    """Replace the sound tree's ``lifecycle`` RFC with ``text`` and run the gate."""
    rel = valid_tree(tmp_path)[lifecycle]
    write(tmp_path, rel, text)
    code, lines = run_gate(main, tmp_path, capsys)
    return code, lines, rel


def _fails_with(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lifecycle: str, text: str, rules: list[str]
) -> None:
    code, lines, rel = _check(tmp_path, capsys, lifecycle, text)
    assert code == 1
    assert lines == [
        *(f"{rel}: {rule}" for rule in rules),
        f"verify_rfc_format: {len(rules)} violation(s)",
    ]


def _passes(tmp_path: Path, capsys: pytest.CaptureFixture[str], lifecycle: str, text: str) -> None:
    code, lines, _ = _check(tmp_path, capsys, lifecycle, text)
    assert (code, lines) == (0, [PASSED])


def test_sound_tree_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    valid_tree(tmp_path)
    assert run_gate(main, tmp_path, capsys) == (0, [PASSED])


def test_extra_sections_in_any_order_after_problem_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sections = ("Problem", "Background", "Consequences", "Alternatives considered", "Decision")
    text = f"# RFC: Reordered\n\n{STATUS['implemented']}\n\n{body(sections)}"
    _passes(tmp_path, capsys, "implemented", text)


def test_line_2_must_be_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = f"# RFC: T\nsubtitle\n{STATUS['implemented']}\n\n{IMPL_BODY}"
    _fails_with(tmp_path, capsys, "implemented", text, ['line 2 must be empty (found "subtitle")'])


def test_line_4_must_be_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = f"# RFC: T\n\n{STATUS['implemented']}\nShipped in issue 2.\n{IMPL_BODY}"
    _fails_with(
        tmp_path,
        capsys,
        "implemented",
        text,
        ['line 4 must be empty (found "Shipped in issue 2.")'],
    )


@pytest.mark.parametrize(
    ("lifecycle", "status", "expected"),
    [
        ("implemented", "Status: proposed", '"Status: implemented"'),
        ("implemented", "Status: Implemented", '"Status: implemented"'),
        ("implemented", "Status: implemented (2026-11-30)", '"Status: implemented"'),
        ("implemented", "Status: accepted", '"Status: implemented"'),
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
    rule = f'line 3 must be {expected} to match the {lifecycle}/ folder (found "{status}")'
    _fails_with(tmp_path, capsys, lifecycle, text, [rule])


def test_truncated_file_reports_every_missing_part(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _fails_with(
        tmp_path,
        capsys,
        "rejected",
        "# RFC: T",
        [
            "line 2 must be empty (found end of file)",
            f"line 3 must be {REJECTED_EXPECTED} to match the rejected/ folder (found end of file)",
            "line 4 must be empty (found end of file)",
            'first section must be "## Problem" (found no "## " section)',
            'missing section "## Proposal" (required in rejected/)',
            'missing section "## Alternatives considered" (required in rejected/)',
        ],
    )


@pytest.mark.parametrize(
    "extra",
    [
        "Status: superseded",
        "Status:implemented",
        "```\nStatus: implemented\n```",  # no code-fence awareness: fenced lines count too
    ],
)
def test_no_other_line_may_start_with_status(
    extra: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = f"# RFC: T\n\n{STATUS['implemented']}\n\n## Problem\n\n{extra}\n\n{AFTER_PROBLEM}"
    status_line = 8 if extra.startswith("```") else 7
    _fails_with(
        tmp_path,
        capsys,
        "implemented",
        text,
        [f'line {status_line}: only line 3 may start with "Status:"'],
    )


def test_indented_status_example_is_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = f"# RFC: T\n\n{STATUS['implemented']}\n\n## Problem\n\n    Status: x\n\n{AFTER_PROBLEM}"
    _passes(tmp_path, capsys, "implemented", text)


@pytest.mark.parametrize("lifecycle", ["proposed", "implemented", "rejected"])
def test_first_section_must_be_problem(
    lifecycle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sections = ("Context", *SECTIONS[lifecycle])
    text = f"# RFC: T\n\n{STATUS[lifecycle]}\n\n{body(sections)}"
    _fails_with(
        tmp_path,
        capsys,
        lifecycle,
        text,
        ['first section must be "## Problem" (found "## Context" on line 5)'],
    )


def test_problem_heading_needs_the_space(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = f"# RFC: T\n\n{STATUS['implemented']}\n\n##Problem\n\n{AFTER_PROBLEM}"
    _fails_with(
        tmp_path,
        capsys,
        "implemented",
        text,
        ['first section must be "## Problem" (found "## Decision" on line 7)'],
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
    _fails_with(
        tmp_path,
        capsys,
        lifecycle,
        text,
        [f'missing section "## {section}" (required in {lifecycle}/)'],
    )


def test_required_sections_are_the_contract() -> None:
    assert REQUIRED_SECTIONS == {
        "proposed": ("Proposal", "Alternatives considered", "Acceptance criteria", "Risks"),
        "implemented": ("Decision", "Alternatives considered", "Consequences"),
        "rejected": ("Proposal", "Alternatives considered"),
    }


def test_grandfather_comment_is_not_an_exemption(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = ("Problem", "Decision", "Consequences")
    comment = "<!-- rfc-format: alternatives-not-recorded (pre-format RFC) -->\n\n"
    text = f"# RFC: T\n\n{STATUS['implemented']}\n\n{comment}{body(kept)}"
    _fails_with(
        tmp_path,
        capsys,
        "implemented",
        text,
        ['missing section "## Alternatives considered" (required in implemented/)'],
    )


@pytest.mark.parametrize(
    "heading",
    [
        "## Proposal",
        "## Plan",
        "## Migration plan",
        "## Acceptance criteria",
        "## Migration Plan",
        "## ACCEPTANCE CRITERIA",
        "## Plan: rollout",
        "## Proposal (v2)",
    ],
)
def test_proposal_era_heading_rejected_in_implemented(
    heading: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = f"# RFC: T\n\n{STATUS['implemented']}\n\n{IMPL_BODY}{heading}\n\n- step\n"
    _fails_with(
        tmp_path,
        capsys,
        "implemented",
        text,
        [
            f'line 21: proposal-era section "{heading}" is not allowed in implemented/ '
            "(describe what shipped under Decision and Consequences)"
        ],
    )


def test_words_that_merely_start_like_plan_are_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = f"# RFC: T\n\n{STATUS['implemented']}\n\n{IMPL_BODY}## Planning notes\n\n- x\n"
    _passes(tmp_path, capsys, "implemented", text)


@pytest.mark.parametrize("lifecycle", ["proposed", "rejected"])
def test_proposal_headings_belong_to_proposed_and_rejected(
    lifecycle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = rfc_text(lifecycle) + "## Migration plan\n\n- step\n"
    _passes(tmp_path, capsys, lifecycle, text)


def test_violations_of_several_files_are_all_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = valid_tree(tmp_path)
    write(tmp_path, paths["proposed"], rfc_text("proposed").replace("## Risks", "## Dangers"))
    write(tmp_path, paths["rejected"], rfc_text("rejected").replace(EM, "-"))
    code, lines = run_gate(main, tmp_path, capsys)
    assert code == 1
    assert lines == [
        f'{paths["proposed"]}: missing section "## Risks" (required in proposed/)',
        f"{paths['rejected']}: line 3 must be {REJECTED_EXPECTED} to match the rejected/ folder "
        '(found "Status: rejected - the cost outweighs the gain")',
        "verify_rfc_format: 2 violation(s)",
    ]
