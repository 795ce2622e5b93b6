"""Secret scanner: every rule's own examples and counter-examples, and the API around it.

Every secret below is rendered from a template by a seeded generator
(``[[alphabet:length]]`` slots), so no string in this file is a credential or
looks like one to a scanner reading it.
"""

from __future__ import annotations

import codecs
import os
import re
import string
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from memdir.errors import MemdirError, SecretDetected
from memdir.team.secret_rules import PLACEHOLDER, entropy, random_parts, render_example
from memdir.team.secrets import (
    RULES,
    Finding,
    Rule,
    ensure_no_secrets,
    redact,
    scan_bytes,
    scan_commit_message,
    scan_file,
    scan_name,
    scan_text,
    scan_tree,
)

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"


def rand(n: int, kind: str, seed: str) -> str:
    """``n`` random characters of one of the rule table's alphabets, fixed per ``seed``."""
    return render_example(f"[[{kind}:{n}]]", seed)


def pem(kind: str, *, headers: str = "", seed: str = "pem", newline: str = "\n") -> str:
    body = newline.join(rand(64, "b64", f"{seed}{i}") for i in range(6)) + newline + "AQAB"
    return f"-----BEGIN {kind}-----{newline}{headers}{body}{newline}-----END {kind}-----"


@dataclass(frozen=True)
class Case:
    """One rule's example, placed on line 4 of a small note."""

    rule_id: str
    secret: str  # the example's text, whose random parts must never be echoed
    before: str = ""
    near_misses: tuple[str, ...] = ()
    parts: tuple[str, ...] = field(default=(), compare=False)

    @property
    def text(self) -> str:
        return f"# Notes\n\nSome context first.\n{self.before}{self.secret}\nAfter.\n"


def _cases() -> tuple[Case, ...]:
    cases = []
    for rule in RULES:
        for i, template in enumerate(rule.examples):
            seed = f"{rule.id}-{i}"
            cases.append(
                Case(
                    rule.id,
                    render_example(template, seed),
                    near_misses=tuple(
                        render_example(t, f"{rule.id}-near-{j}")
                        for j, t in enumerate(rule.counter_examples)
                    ),
                    parts=random_parts(template, seed),
                )
            )
    return tuple(cases)


CASES = _cases()
CASE_IDS = [f"{case.rule_id}-{i}" for i, case in enumerate(CASES)]
NEAR_MISSES = [
    pytest.param(text, id=f"{rule.id}-{i}")
    for rule in RULES
    for i, text in enumerate(
        render_example(t, f"{rule.id}-near-{j}") for j, t in enumerate(rule.counter_examples)
    )
]


def test_every_rule_is_data_with_an_id_label_description_and_examples() -> None:
    ids = [rule.id for rule in RULES]
    assert len(ids) == len(set(ids))
    labels = [rule.label for rule in RULES]
    assert all(labels) and len(labels) == len(set(labels))
    for rule in RULES:
        assert rule.description and rule.examples and rule.counter_examples, rule.id
        assert rule.keywords or rule.trigger, rule.id


def test_the_table_covers_the_families_a_note_can_hold() -> None:
    ids = {rule.id for rule in RULES}
    expected = {
        "jwt",
        "postgres-url-password",
        "mysql-url-password",
        "mongodb-url-password",
        "redis-url-password",
        "amqp-url-password",
        "url-password",
        "azure-storage-account-key",
        "azure-shared-access-key",
        "slack-bot-token",
        "slack-webhook-url",
        "discord-bot-token",
        "discord-webhook-url",
        "telegram-bot-token",
        "teams-webhook-url",
        "vault-token",
        "doppler-token",
        "1password-service-account-token",
        "infisical-service-token",
        "webhook-signing-secret",
        "oauth-client-secret",
        "google-oauth-client-secret",
        "twilio-api-key",
        "sendgrid-api-key",
        "mailgun-api-key",
        "shopify-access-token",
        "atlassian-api-token",
        "linear-api-key",
        "notion-token",
        "airtable-pat",
        "postman-api-key",
        "npm-access-token",
        "pypi-upload-token",
        "huggingface-token",
        "databricks-token",
        "digitalocean-pat",
        "heroku-api-key",
        "flyio-token",
        "vercel-token",
        "netlify-token",
        "cloudflare-api-token",
        "datadog-api-key",
        "new-relic-key",
        "sentry-user-token",
        "grafana-service-account-token",
        "gitlab-pat",
        "bitbucket-app-password",
        "age-secret-key",
        "private-key-other",
        "aws-secret-access-key",
        "password-assignment",
        "generic-secret",
        "okta-ssws-token",
        "authorization-header",
    }
    assert expected <= ids
    assert len(RULES) >= 150


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_each_example_is_found_by_its_own_rule(case: Case) -> None:
    assert case.rule_id in {f.rule_id for f in scan_text(case.text)}


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_no_counter_example_is_found_by_any_rule(text: str) -> None:
    assert scan_text(f"Some prose.\n{text}\n") == []


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_the_refusal_never_echoes_the_secret(case: Case) -> None:
    with pytest.raises(SecretDetected) as caught:
        ensure_no_secrets(case.text, path="team/notes.md")
    err = caught.value
    rendered = " ".join([str(err), repr(err), repr(err.args), err.hint or "", *err.labels])
    rendered += repr(scan_text(case.text))
    for part in case.parts:
        for i in range(0, max(1, len(part) - 11), 4):
            chunk = part[i : i + 12]
            if len(chunk) >= 12:
                assert chunk not in rendered
    assert case.rule_id in err.message
    assert err.path == "team/notes.md"


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_redaction_removes_the_random_part_and_keeps_the_frame(case: Case) -> None:
    redacted = redact(case.text)
    assert "[REDACTED:" in redacted
    assert redacted.startswith("# Notes\n\nSome context first.\n")
    assert redacted.endswith("\nAfter.\n")
    assert scan_text(redacted) == []


def test_findings_report_line_and_column_of_each_secret() -> None:
    github = "ghp_" + rand(36, "alnum", "lines")
    stripe = "sk_live_" + rand(30, "alnum", "lines")
    text = f"line one\n\nsee {github} here\n\n\n\n  key={stripe}\n"
    assert scan_text(text) == [
        Finding(rule_id="github-pat", label="GitHub personal access token", line=3, column=5),
        Finding(rule_id="stripe-secret-key", label="Stripe live secret key", line=7, column=7),
    ]


def test_a_context_rule_reports_the_value_not_its_name() -> None:
    value = rand(16, "alnum", "ctx")
    (finding,) = scan_text(f"the staging db password is {value}.")
    assert finding.rule_id == "password-assignment"
    assert finding.column == len("the staging db password is ") + 1
    assert redact(f"password: {value}.") == "password: [REDACTED:password-assignment]."


def test_a_token_rule_wins_over_a_context_rule_on_the_same_value() -> None:
    token = "ghp_" + rand(36, "alnum", "prio")
    assert [f.rule_id for f in scan_text(f"api key: {token}")] == ["github-pat"]


def test_a_finding_holds_no_part_of_the_secret() -> None:
    token = "glpat-" + rand(20, "alnum", "repr")
    (finding,) = scan_text(token)
    assert token[6:] not in repr(finding)
    assert set(vars(finding)) == {"rule_id", "label", "line", "column"}


def test_a_pem_block_spanning_lines_is_one_finding_on_its_begin_line() -> None:
    key = pem("RSA PRIVATE KEY", headers="Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,AB\n\n")
    text = "# Deploy\n\nThe old key was:\n\n```\n" + key + "\n```\nDone.\n"
    findings = scan_text(text)
    assert [(f.rule_id, f.line, f.column) for f in findings] == [("private-key-rsa", 6, 1)]
    assert (
        redact(text)
        == "# Deploy\n\nThe old key was:\n\n```\n[REDACTED:private-key-rsa]\n```\nDone.\n"
    )


def test_a_pem_block_cut_before_its_end_line_is_still_found() -> None:
    key = pem("OPENSSH PRIVATE KEY").split("-----END")[0]
    assert [f.rule_id for f in scan_text("pasted:\n" + key)] == ["private-key-openssh"]


@pytest.mark.parametrize(
    "kind", ["ANY PRIVATE KEY", "SSH2 ENCRYPTED PRIVATE KEY", "X25519 PRIVATE KEY"]
)
def test_a_pem_private_key_of_any_kind_is_found(kind: str) -> None:
    assert [f.rule_id for f in scan_text(pem(kind))] == ["private-key-other"]


def test_a_service_account_file_is_one_finding_not_also_a_bare_key() -> None:
    key = pem("PRIVATE KEY", seed="gcp", newline="\\n")
    text = '{"type": "service_account", "private_key": "' + key + '"}'
    assert [f.rule_id for f in scan_text(text)] == ["gcp-service-account-key"]


def test_the_aws_secret_is_redacted_but_its_key_name_is_kept() -> None:
    text = 'aws_secret_access_key: "' + rand(40, "b64", "keep") + '"'
    assert redact(text) == 'aws_secret_access_key: "[REDACTED:aws-secret-access-key]"'


def test_several_secrets_are_refused_together_by_label_and_line() -> None:
    text = "\n".join(
        [
            "ghp_" + rand(36, "alnum", "a"),
            "x",
            "ghp_" + rand(36, "alnum", "b"),
            "npm_" + rand(36, "alnum", "c"),
        ]
    )
    with pytest.raises(SecretDetected) as caught:
        ensure_no_secrets(text)
    err = caught.value
    assert err.labels == ("GitHub personal access token", "npm access token")
    assert "3 likely secrets" in err.message
    assert "GitHub personal access token (github-pat) on lines 1, 3" in err.message
    assert "npm access token (npm-access-token) on line 4" in err.message
    assert err.path is None
    assert isinstance(err, MemdirError)


def test_clean_text_passes_the_check() -> None:
    ensure_no_secrets("We deploy on Thursdays; the token lives in 1Password.", path="team/a.md")


def test_tokens_glued_to_other_words_are_not_reported() -> None:
    token = rand(36, "alnum", "glued")
    assert scan_text(f"xghp_{token}") == []
    assert scan_text(f"ghp_{token}x") == []
    assert scan_text(f"(ghp_{token})")[0].rule_id == "github-pat"


@pytest.mark.parametrize(
    "value",
    [
        "AKIAIOSFODNN7EXAMPLE",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "xxxxxxxxxxxxxxxx",
        "<token>",
        "${API_TOKEN}",
        "$API_TOKEN",
        "{{ api_token }}",
        "changeme",
        "your-api-key",
        "example-key-123",
        "dummy-value-9",
        "redacted",
        "***",
        "GITHUB_TOKEN",
    ],
)
def test_documented_placeholders_are_on_the_allow_list(value: str) -> None:
    assert PLACEHOLDER.search(value.encode())


def test_entropy_is_zero_for_one_repeated_character_and_grows_with_variety() -> None:
    assert entropy(b"aaaaaaaa") == 0.0
    assert entropy(b"abababab") == pytest.approx(1.0)
    assert entropy(b"0123456789abcdef") == pytest.approx(4.0)


_PASSWORD_WORDS = re.compile(r"(?i)pass|pw|secret|token|key|credential|bearer|basic")


@given(
    st.lists(
        st.text(alphabet=string.ascii_letters + string.digits, min_size=1, max_size=15),
        max_size=200,
    ),
    st.lists(st.sampled_from([" ", ", ", ". ", "\n", "; ", "! ", " (", ") ", ": "]), min_size=1),
)
def test_random_prose_without_credential_words_has_no_findings(
    words: list[str], separators: list[str]
) -> None:
    text = "".join(word + separators[i % len(separators)] for i, word in enumerate(words))
    assume(not _PASSWORD_WORDS.search(text))
    assert scan_text(text) == []
    assert redact(text) == text


@given(st.text(max_size=300), st.sampled_from(CASES), st.text(max_size=300))
@settings(suppress_health_check=[HealthCheck.too_slow])
def test_a_secret_is_found_wherever_it_sits_in_arbitrary_text(
    head: str, case: Case, tail: str
) -> None:
    text = f"{head}\n{case.secret}\n{tail}"
    assert case.rule_id in {f.rule_id for f in scan_text(text)}


def _prefix_rules() -> list[Rule]:
    # Token rules whose whole pattern is "\b<prefix><body>": hypothesis can
    # draw any string of their shape.
    return [
        rule
        for rule in RULES
        if not rule.generic
        and rule.keywords
        and rule.keyword_at == 0
        and not rule.lookback
        and "secret" not in rule.regex.groupindex
        and rule.pattern.startswith(r"\b" + re.escape(rule.keywords[0]))
        and len(rule.keywords) == 1
    ]


_MADE_UP_LOOKING = re.compile(
    r"(.)\1{7}|"
    + "|".join(
        a[i : i + 8]
        for a in (string.digits, string.ascii_lowercase, string.ascii_uppercase)
        for i in range(len(a) - 7)
    ),
    re.DOTALL,
)


@pytest.mark.parametrize("rule", _prefix_rules(), ids=[r.id for r in _prefix_rules()])
@settings(max_examples=15, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(data=st.data())
def test_any_token_of_a_prefixed_rules_shape_is_found_where_it_stands(
    rule: Rule, data: st.DataObject
) -> None:
    value = data.draw(st.from_regex(rule.regex, fullmatch=True))
    text = value.decode()
    assume(rule.allow_regex is None or not rule.allow_regex.search(value))
    assume(not (rule.placeholder_check and _MADE_UP_LOOKING.search(text)))
    assume(not rule.entropy or entropy(value) >= rule.entropy)
    findings = scan_text(f"see\n  {text}\nend")
    assert (2, 3) in [(f.line, f.column) for f in findings]


# -- bytes in any encoding, names and commit messages ---------------------------------------

_TOKEN = "ghp_" + rand(36, "alnum", "bytes")
_NOTE = f"# Deploy\n\nstep one\nuse {_TOKEN} here\n"


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(_NOTE.encode(), id="utf-8"),
        pytest.param(codecs.BOM_UTF8 + _NOTE.encode(), id="utf-8-bom"),
        pytest.param(_NOTE.encode("utf-16"), id="utf-16-bom"),
        pytest.param(codecs.BOM_UTF16_BE + _NOTE.encode("utf-16-be"), id="utf-16-be-bom"),
        pytest.param(_NOTE.encode("utf-16-le"), id="utf-16-le-no-bom"),
        pytest.param(_NOTE.encode("utf-16-be"), id="utf-16-be-no-bom"),
        pytest.param(_NOTE.encode("utf-32"), id="utf-32-bom"),
        pytest.param(_NOTE.replace("step", "caf\u00e9").encode("latin-1"), id="latin-1"),
        pytest.param(b"\x00\x01\x02" + _NOTE.encode(), id="nul-in-first-block"),
        pytest.param(_NOTE.encode().replace(b"\n", b"\x00\n"), id="nuls-everywhere"),
    ],
)
def test_scan_bytes_finds_the_secret_on_its_line_in_any_encoding(data: bytes) -> None:
    assert [(f.rule_id, f.line) for f in scan_bytes(data)] == [("github-pat", 4)]


def test_a_utf16_secret_inside_binary_bytes_is_found() -> None:
    data = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) + _TOKEN.encode("utf-16-le") + b"\xff" * 64
    assert "github-pat" in {f.rule_id for f in scan_bytes(data)}


def test_scan_file_reads_bytes_and_keeps_line_numbers(tmp_path: Path) -> None:
    token = "dapi" + rand(32, "hex", "latin")
    path = tmp_path / "notes.md"
    path.write_bytes(b"caf\xe9\n\xff\xfe\x00\n" + token.encode() + b"\n")
    assert [(f.rule_id, f.line) for f in scan_file(path)] == [("databricks-token", 3)]


def test_a_token_used_as_a_file_name_is_found() -> None:
    assert [f.rule_id for f in scan_name(f"team/{_TOKEN}.png")] == ["github-pat"]
    assert [f.rule_id for f in scan_name(f"notes/{_TOKEN}")] == ["github-pat"]
    assert scan_name("team/deploy-notes.md") == []


def test_a_commit_message_is_scanned_with_its_own_line_numbers() -> None:
    message = f"Add deploy notes\n\nThe token was {_TOKEN}, now rotated.\n"
    assert [(f.rule_id, f.line) for f in scan_commit_message(message)] == [("github-pat", 3)]
    assert scan_commit_message(b"Fix typo in the index\n") == []


def _write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")
    return path


def test_scan_tree_reports_files_with_secrets_and_skips_git_and_links(tmp_path: Path) -> None:
    token = "ghp_" + rand(36, "alnum", "tree")
    team = tmp_path / "team"
    leaky = _write(team / "deploy.md", f"# Deploy\n\nuse {token}\n")
    nested = _write(team / "ops" / "keys.md", pem("EC PRIVATE KEY"))
    image = _write(team / "image.png", b"\x89PNG\x00\x00" + token.encode())
    _write(team / "clean.md", "# Clean\n\nnothing here\n")
    _write(team / ".git" / "config", f"[remote]\n\turl = https://{token}@github.com/x/y\n")
    outside = _write(tmp_path / "outside.md", token)
    os.symlink(outside, team / "link.md")

    found = scan_tree(team)

    assert list(found) == [leaky, image, nested]
    assert found[leaky] == [
        Finding(rule_id="github-pat", label="GitHub personal access token", line=3, column=5)
    ]
    assert [f.rule_id for f in found[nested]] == ["private-key-ec"]


def test_scan_tree_of_a_clean_tree_is_empty(tmp_path: Path) -> None:
    _write(tmp_path / "a.md", "nothing\n")
    assert scan_tree(tmp_path) == {}


# Shapes that make backtracking regexes or a keyword pass blow up: a file from
# a teammate is untrusted, so each must scan in one pass (a regression here
# shows as a test that never ends, not as a timing).
HOSTILE = {
    "pem headers": "-----BEGIN RSA PRIVATE KEY-----\n" + "a:" * 3000 + "\x01",
    "pem header lines": "-----BEGIN RSA PRIVATE KEY-----" + "\na: b" * 3000 + "!",
    "long run of one letter": "basic " + "A" * 100_000,
    "long token after a name": "token: " + "a1" * 50_000,
    "names without values": ("token" + " ." * 15) * 3000,
    "url of colons": "://" + "a:" * 10_000 + "b",
    "unterminated jwt": "eyJ" + "a" * 50_000 + ".eyJ" + "b" * 50_000,
}


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_shapes_are_scanned_in_one_pass(text: str) -> None:
    assert isinstance(scan_text(text), list)
