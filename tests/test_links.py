"""[[name]] links: found outside code, resolved by name, slug, index title, then file."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memdir.storage.links import Linkable, LinkIndex, link_targets


def test_links_are_found_in_order_once_each_with_labels_and_parts_dropped() -> None:
    body = (
        "See [[deploy-freeze]], [[Testing policy|the tests]] and [[ci#setup]]; [[deploy-freeze]]."
    )
    assert link_targets(body) == ("deploy-freeze", "Testing policy", "ci")


def test_code_blocks_and_code_spans_hold_no_links() -> None:
    body = (
        "Run `[[not-a-link]]` first.\n"
        "```bash\n[[ -f x ]] && echo [[inside-fence]]\n```\n"
        "~~~~\n[[tilde-fence]]\n~~~\n[[still-fenced]]\n~~~~\n"
        "Then [[after-the-fences]]."
    )
    assert link_targets(body) == ("after-the-fences",)


def test_a_shell_test_in_prose_is_no_link() -> None:
    assert link_targets("check with [[ -n $x ]] before [[real-one]]") == ("real-one",)


def test_a_body_without_brackets_has_no_links() -> None:
    assert link_targets("plain text [single] brackets") == ()


INDEX = LinkIndex(
    [
        Linkable(ref="deploy.md", name="deploy-freeze", title="Deploy freeze"),
        Linkable(ref="testing_policy.md", name="Testing database policy"),
        Linkable(ref="runbook.md", name="ci-notes", title="CI runbook"),
        Linkable(ref="team/shared_tips.md", name="Tips"),
        Linkable(ref="team/deploy.md", name="deploy-freeze"),
    ]
)


def test_a_link_resolves_by_name_then_slug_then_title_then_file() -> None:
    assert INDEX.resolve("deploy-freeze") == "deploy.md"  # the first of two names wins
    assert INDEX.resolve("testing-database-policy") == "testing_policy.md"  # the name's slug
    assert INDEX.resolve("TESTING DATABASE POLICY") == "testing_policy.md"
    assert INDEX.resolve("CI runbook") == "runbook.md"  # the index title
    assert INDEX.resolve("ci-runbook") == "runbook.md"  # the title's slug
    assert INDEX.resolve("shared-tips") == "team/shared_tips.md"  # the file stem's slug
    assert INDEX.resolve("team/shared_tips.md") == "team/shared_tips.md"  # a path


def test_a_name_beats_a_file_stem_that_looks_the_same() -> None:
    index = LinkIndex(
        [Linkable(ref="alpha.md", name="beta"), Linkable(ref="other.md", name="alpha")]
    )
    assert index.resolve("alpha") == "other.md"
    assert index.resolve("beta") == "alpha.md"


def test_a_link_to_nothing_resolves_to_none() -> None:
    assert INDEX.resolve("ci-database-setup") is None
    assert LinkIndex([Linkable(ref="x.md", name="")]).resolve("") is None


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_any_text_yields_targets_that_are_trimmed_and_bracket_free(body: str) -> None:
    for target in link_targets(body):
        assert target == target.strip() and target
        assert not {"[", "]", "\n", "|", "#"} & set(target)
