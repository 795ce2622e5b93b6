"""Secret scanner: one true and one near-miss vector per rule, plus the API around it.

Every token below is assembled from parts by a seeded generator, so no string
in this file is a credential or looks like one to a scanner reading it.
"""

from __future__ import annotations

import os
import random
import re
import string
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from memdir.errors import MemdirError, SecretDetected
from memdir.team.secret_rules import MIN_TOKEN_RUN, TOKEN_CHARS
from memdir.team.secrets import (
    RULES,
    Finding,
    Rule,
    ensure_no_secrets,
    redact,
    scan_file,
    scan_text,
    scan_tree,
)

HEX = "0123456789abcdef"
UPPER_HEX = "0123456789ABCDEF"
DIGITS = string.digits
LETTERS = string.ascii_letters
UPPER_ALNUM = string.ascii_uppercase + string.digits
ALNUM = string.ascii_letters + string.digits
B64URL = ALNUM + "_-"
B64 = ALNUM + "+/"
BASE32_UPPER = string.ascii_uppercase + "234567"


def rand(n: int, alphabet: str, seed: str) -> str:
    """``n`` characters from ``alphabet``, the same every run for one ``seed``."""
    rng = random.Random(f"{seed}:{n}:{alphabet}")
    return "".join(rng.choice(alphabet) for _ in range(n))


def pem(kind: str, *, headers: str = "", seed: str = "pem", newline: str = "\n") -> str:
    body = newline.join(rand(64, B64, f"{seed}{i}") for i in range(6)) + newline + "AQAB"
    return f"-----BEGIN {kind}-----{newline}{headers}{body}{newline}-----END {kind}-----"


@dataclass(frozen=True)
class Case:
    rule_id: str
    secret: str  # the value that must be found and never echoed
    before: str = "token: "  # what precedes it on its line
    near_misses: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return f"# Notes\n\nSome context first.\n{self.before}{self.secret}\nAfter.\n"


def _sa_json(private_key: str) -> str:
    return '{"type": "service_account", "private_key": "' + private_key + '"}'


_SA_KEY = pem("PRIVATE KEY", seed="gcp", newline="\\n")
_WEBHOOK_PATH = (
    "T" + rand(8, UPPER_ALNUM, "wh1") + "/B" + rand(10, UPPER_ALNUM, "wh2") + "/"
) + rand(24, ALNUM, "wh3")
_SLACK_IDS = rand(11, DIGITS, "s1") + "-" + rand(12, DIGITS, "s2")
_TF_HEAD = rand(14, ALNUM, "tf")

CASES: tuple[Case, ...] = (
    # cloud
    Case(
        "aws-access-key-id",
        "AKIA" + rand(16, BASE32_UPPER, "aws"),
        near_misses=("AKIAIOSFODNN7" + "EXAMPLE", "AKIA" + rand(15, BASE32_UPPER, "aws")),
    ),
    Case(
        "aws-secret-access-key",
        rand(40, B64, "awss"),
        before="aws_secret_access_key = ",
        near_misses=(
            "checksum = " + rand(40, B64, "awss"),
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
            "AWS_SECRET_ACCESS_KEY=" + "x" * 40,
        ),
    ),
    Case(
        "gcp-api-key",
        "AIza" + rand(35, B64URL, "gcp"),
        near_misses=("AIza" + rand(34, B64URL, "gcp"), "an AIza-style key"),
    ),
    Case(
        "gcp-service-account-key",
        _SA_KEY,
        before='{"type": "service_account", "private_key": "',
        near_misses=(
            _sa_json("<paste the key here>"),
            '"private_key_id": "' + rand(40, HEX, "pkid") + '"',
        ),
    ),
    Case(
        "azure-ad-client-secret",
        rand(3, ALNUM, "az1") + "8Q~" + rand(34, B64URL + "~.", "az2"),
        before="client_secret: ",
        near_misses=("see Q~ in the table", rand(3, ALNUM, "az1") + "8Q~" + rand(20, ALNUM, "az")),
    ),
    Case(
        "digitalocean-pat",
        "dop_v1_" + rand(64, HEX, "do1"),
        near_misses=("dop_v1_" + rand(63, HEX, "do1"), "dop_v1_" + rand(64, UPPER_HEX, "do1")),
    ),
    Case(
        "digitalocean-oauth-token",
        "doo_v1_" + rand(64, HEX, "do2"),
        near_misses=("doo_v1_" + rand(65, HEX, "do2"),),
    ),
    Case(
        "digitalocean-refresh-token",
        "dor_v1_" + rand(64, HEX, "do3"),
        near_misses=("dor_v1_<refresh token>",),
    ),
    # AI
    Case(
        "anthropic-api-key",
        "sk-ant-api03-" + rand(93, B64URL, "ant") + "AA",
        near_misses=("sk-ant-api03-...", "sk-ant-api03-" + rand(93, B64URL, "ant") + "AB"),
    ),
    Case(
        "anthropic-admin-key",
        "sk-ant-admin01-" + rand(93, B64URL, "antadm") + "AA",
        near_misses=("sk-ant-admin01-" + rand(60, B64URL, "antadm") + "AA",),
    ),
    Case(
        "openai-api-key",
        "sk-" + rand(20, ALNUM, "oai1") + "T3BlbkFJ" + rand(20, ALNUM, "oai2"),
        near_misses=("sk-...", "sk-" + rand(48, ALNUM, "oai3")),
    ),
    Case(
        "openai-project-key",
        "sk-proj-" + rand(74, B64URL, "oap1") + "T3BlbkFJ" + rand(74, B64URL, "oap2"),
        near_misses=("sk-proj-" + rand(156, ALNUM, "oap3"),),
    ),
    Case(
        "huggingface-token",
        "hf_" + rand(34, LETTERS, "hf"),
        near_misses=("hf_hub_download", "hf_" + rand(30, LETTERS, "hf") + "1234"),
    ),
    Case(
        "huggingface-org-token",
        "api_org_" + rand(34, LETTERS, "hforg"),
        near_misses=("api_org_id = 7",),
    ),
    # git hosts
    Case(
        "github-pat",
        "ghp_" + rand(36, ALNUM, "ghp"),
        near_misses=("tokens start with ghp_", "ghp_" + rand(35, ALNUM, "ghp")),
    ),
    Case(
        "github-fine-grained-pat",
        "github_pat_" + rand(22, ALNUM, "fg1") + "_" + rand(59, ALNUM, "fg2"),
        near_misses=("github_pat_" + rand(40, ALNUM, "fg1"),),
    ),
    Case(
        "github-app-token",
        "ghs_" + rand(36, ALNUM, "ghs"),
        near_misses=("ghs_" + rand(37, ALNUM, "ghs"),),
    ),
    Case(
        "github-oauth-token",
        "gho_" + rand(36, ALNUM, "gho"),
        near_misses=("gho_" + rand(36, ALNUM, "gho")[:30] + "-" * 6,),
    ),
    Case(
        "github-refresh-token",
        "ghr_" + rand(36, ALNUM, "ghr"),
        near_misses=("ghr_" + "X" * 36,),
    ),
    Case(
        "gitlab-pat",
        "glpat-" + rand(20, B64URL, "glpat"),
        near_misses=("glpat-" + rand(19, ALNUM, "glpat"), "glpat-" + rand(24, ALNUM, "glpat")),
    ),
    Case(
        "gitlab-deploy-token",
        "gldt-" + rand(20, B64URL, "gldt"),
        near_misses=("gldt-" + rand(21, ALNUM, "gldt"),),
    ),
    Case(
        "gitlab-runner-token",
        "glrt-" + rand(20, B64URL, "glrt"),
        near_misses=("glrt-registration",),
    ),
    Case(
        "gitlab-pipeline-trigger-token",
        "glptt-" + rand(40, HEX, "glptt"),
        near_misses=("glptt-" + rand(40, ALNUM, "glptt") + "zz",),
    ),
    # messaging
    Case(
        "slack-bot-token",
        "xoxb-" + _SLACK_IDS + "-" + rand(24, ALNUM, "xoxb"),
        near_misses=("xoxb-your-bot-token", "xoxb-" + _SLACK_IDS),
    ),
    Case(
        "slack-user-token",
        "xoxp-" + _SLACK_IDS + "-" + rand(12, DIGITS, "s3") + "-" + rand(32, ALNUM, "xoxp"),
        near_misses=("xoxp-" + _SLACK_IDS + "-" + rand(32, ALNUM, "xoxp"),),
    ),
    Case(
        "slack-app-token",
        "xapp-1-A"
        + rand(10, UPPER_ALNUM, "xapp")
        + "-"
        + rand(13, DIGITS, "xa")
        + "-"
        + rand(64, HEX, "xapp"),
        near_misses=("xapp-1-ABC",),
    ),
    Case(
        "slack-webhook-url",
        "hooks.slack.com/services/" + _WEBHOOK_PATH,
        before="url: https://",
        near_misses=(
            "https://hooks.slack.com/services/T00000000/B00000000/" + "X" * 24,
            "https://hooks.slack.com/services/",
        ),
    ),
    Case(
        "twilio-api-key",
        "SK" + rand(32, HEX, "tw"),
        near_misses=("AC" + rand(32, HEX, "tw"), "ASK about the SKU"),
    ),
    Case(
        "sendgrid-api-key",
        "SG." + rand(22, B64URL, "sg1") + "." + rand(43, B64URL, "sg2"),
        near_misses=("SG.abc.def", "SG." + rand(22, ALNUM, "sg1")),
    ),
    # dev tooling
    Case(
        "npm-access-token",
        "npm_" + rand(36, ALNUM, "npm"),
        near_misses=("npm_config_registry=https://registry.npmjs.org/",),
    ),
    Case(
        "pypi-upload-token",
        "pypi-AgEIcHlwaS5vcmc" + rand(120, B64URL, "pypi"),
        near_misses=("pypi-AgEIcHlwaS5vcmc" + rand(20, ALNUM, "pypi"), "pypi-token"),
    ),
    Case(
        "databricks-token",
        "dapi" + rand(32, HEX, "dapi"),
        near_misses=("dapi tokens expire", "dapi" + rand(31, HEX, "dapi")),
    ),
    Case(
        "terraform-cloud-token",
        _TF_HEAD + ".atlasv1." + rand(67, B64URL + "=", "tf"),
        near_misses=("example.atlasv1.short", _TF_HEAD + ".atlasv1." + rand(30, ALNUM, "tf")),
    ),
    Case(
        "pulumi-access-token",
        "pul-" + rand(40, HEX, "pul"),
        near_misses=("pul-" + rand(39, HEX, "pul"),),
    ),
    Case(
        "postman-api-key",
        "PMAK-" + rand(24, HEX, "pm1") + "-" + rand(34, HEX, "pm2"),
        near_misses=("PMAK-" + rand(24, HEX, "pm1"),),
    ),
    # observability
    Case(
        "grafana-api-key",
        "eyJrIjoi" + rand(80, ALNUM, "graf"),
        near_misses=("eyJrIjoi" + rand(40, ALNUM, "graf"),),
    ),
    Case(
        "grafana-cloud-token",
        "glc_" + rand(120, B64, "glc") + "=",
        near_misses=("glc_" + rand(20, ALNUM, "glc"),),
    ),
    Case(
        "grafana-service-account-token",
        "glsa_" + rand(32, ALNUM, "glsa") + "_" + rand(8, HEX, "glsa"),
        near_misses=("glsa_" + rand(32, ALNUM, "glsa"),),
    ),
    Case(
        "sentry-org-token",
        "sntrys_eyJpYXQiO"
        + rand(40, B64, "sn1")
        + "LCJyZWdpb25fdXJs"
        + rand(40, B64, "sn2")
        + "_"
        + rand(43, B64, "sn3"),
        near_misses=("sntrys_" + rand(60, ALNUM, "sn1"),),
    ),
    Case(
        "sentry-user-token",
        "sntryu_" + rand(64, HEX, "sntryu"),
        near_misses=("sntryu_" + rand(63, HEX, "sntryu"),),
    ),
    # commerce
    Case(
        "stripe-secret-key",
        "sk_live_" + rand(32, ALNUM, "stripe"),
        near_misses=("sk_test_" + rand(32, ALNUM, "stripe"), "sk_live_..."),
    ),
    Case(
        "stripe-restricted-key",
        "rk_live_" + rand(32, ALNUM, "rk"),
        near_misses=("rk_test_" + rand(32, ALNUM, "rk"),),
    ),
    Case(
        "shopify-access-token",
        "shpat_" + rand(32, HEX, "shpat"),
        near_misses=("shpat_" + rand(31, HEX, "shpat"),),
    ),
    Case(
        "shopify-custom-app-token",
        "shpca_" + rand(32, HEX, "shpca"),
        near_misses=("shpca_" + rand(32, LETTERS, "shpca"),),
    ),
    Case(
        "shopify-private-app-token",
        "shppa_" + rand(32, HEX, "shppa"),
        near_misses=("shppa_" + rand(33, HEX, "shppa"),),
    ),
    Case(
        "shopify-shared-secret",
        "shpss_" + rand(32, HEX, "shpss"),
        near_misses=("shpss_" + "0" * 32,),
    ),
    # private keys
    Case(
        "private-key-rsa",
        pem("RSA PRIVATE KEY", seed="rsa"),
        before="",
        near_misses=(
            pem("RSA PUBLIC KEY", seed="rsa"),
            "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----",
        ),
    ),
    Case(
        "private-key-ec",
        pem("EC PRIVATE KEY", seed="ec"),
        before="",
        near_misses=(pem("EC PARAMETERS", seed="ec"),),
    ),
    Case(
        "private-key-dsa",
        pem("DSA PRIVATE KEY", seed="dsa"),
        before="",
        near_misses=("the line -----BEGIN DSA PRIVATE KEY----- opens a key",),
    ),
    Case(
        "private-key-openssh",
        pem("OPENSSH PRIVATE KEY", seed="ssh"),
        before="",
        near_misses=("ssh-ed25519 " + rand(68, B64, "ssh") + " user@host",),
    ),
    Case(
        "private-key-pgp",
        pem("PGP PRIVATE KEY BLOCK", headers="Version: GnuPG v2\n\n", seed="pgp"),
        before="",
        near_misses=(pem("PGP PUBLIC KEY BLOCK", seed="pgp"),),
    ),
    Case(
        "private-key-pkcs8",
        pem("PRIVATE KEY", seed="p8"),
        before="",
        near_misses=(pem("CERTIFICATE", seed="p8"), pem("PUBLIC KEY", seed="p8")),
    ),
    Case(
        "private-key-encrypted",
        pem("ENCRYPTED PRIVATE KEY", seed="enc"),
        before="",
        near_misses=(pem("CERTIFICATE REQUEST", seed="enc"),),
    ),
)

CASE_IDS = [case.rule_id for case in CASES]
NEAR_MISSES = [
    pytest.param(text, id=f"{case.rule_id}-{i}")
    for case in CASES
    for i, text in enumerate(case.near_misses)
]
# Text that is neither secret nor near miss but looks random: a UUID, a git SHA,
# a SHA-256, base64 of a random blob, a JWT-less bearer placeholder.
LOOKALIKES = (
    "request id 123e4567-e89b-12d3-a456-426614174000",
    "fixed in commit " + rand(40, HEX, "sha1"),
    "sha256:" + rand(64, HEX, "sha256"),
    "integrity: sha512-" + rand(86, B64, "sri") + "==",
    "Authorization: Bearer <token>",
    "export GITHUB_TOKEN=$(gh auth token)",
)


def test_every_rule_has_a_vector_and_there_are_at_least_35_rules() -> None:
    rule_ids = [rule.id for rule in RULES]
    assert len(rule_ids) >= 35
    assert len(set(rule_ids)) == len(rule_ids)
    assert sorted(CASE_IDS) == sorted(rule_ids)
    assert all(case.near_misses for case in CASES)


def test_every_rule_has_its_own_label() -> None:
    labels = [rule.label for rule in RULES]
    assert all(labels)
    assert len(set(labels)) == len(labels)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_the_rule_finds_its_true_positive_and_nothing_else(case: Case) -> None:
    findings = scan_text(case.text)
    assert [f.rule_id for f in findings] == [case.rule_id]
    assert findings[0].line == 4
    assert findings[0].column == len(case.before) + 1


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_a_near_miss_yields_no_finding(text: str) -> None:
    assert scan_text(f"Some prose.\nvalue: {text}\n") == []


@pytest.mark.parametrize("text", LOOKALIKES)
def test_random_looking_identifiers_are_not_secrets(text: str) -> None:
    assert scan_text(text) == []


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_the_refusal_never_echoes_the_secret(case: Case) -> None:
    with pytest.raises(SecretDetected) as caught:
        ensure_no_secrets(case.text, path="team/notes.md")
    err = caught.value
    rendered = " ".join([str(err), repr(err), repr(err.args), err.hint or "", *err.labels])
    rendered += repr(scan_text(case.text))
    for i in range(0, len(case.secret) - 12, 4):
        chunk = case.secret[i : i + 12]
        if "-----" not in chunk:  # PEM armour is not the secret
            assert chunk not in rendered
    assert "line 4" in err.message
    assert case.rule_id in err.message
    assert err.path == "team/notes.md"


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_redaction_replaces_the_secret_and_keeps_the_rest(case: Case) -> None:
    redacted = redact(case.text)
    assert case.secret not in redacted
    assert f"[REDACTED:{case.rule_id}]" in redacted
    assert redacted.startswith("# Notes\n\nSome context first.\n" + case.before)
    assert redacted.endswith("\nAfter.\n")
    assert scan_text(redacted) == []


def test_findings_report_line_and_column_of_each_secret() -> None:
    github = "ghp_" + rand(36, ALNUM, "lines")
    stripe = "sk_live_" + rand(30, ALNUM, "lines")
    text = f"line one\n\nsee {github} here\n\n\n\n  key={stripe}\n"
    assert scan_text(text) == [
        Finding(rule_id="github-pat", label="GitHub personal access token", line=3, column=5),
        Finding(rule_id="stripe-secret-key", label="Stripe live secret key", line=7, column=7),
    ]


def test_a_finding_holds_no_part_of_the_secret() -> None:
    token = "glpat-" + rand(20, ALNUM, "repr")
    (finding,) = scan_text(token)
    assert token[6:] not in repr(finding)
    assert set(vars(finding)) == {"rule_id", "label", "line", "column"}


def test_a_pem_block_spanning_lines_is_one_finding_on_its_begin_line() -> None:
    key = pem("RSA PRIVATE KEY", headers="Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,AB\n\n")
    text = "# Deploy\n\nThe old key was:\n\n```\n" + key + "\n```\nDone.\n"
    findings = scan_text(text)
    assert [(f.rule_id, f.line, f.column) for f in findings] == [("private-key-rsa", 6, 1)]
    redacted = redact(text)
    assert "-----END RSA PRIVATE KEY-----" not in redacted
    assert (
        redacted == "# Deploy\n\nThe old key was:\n\n```\n[REDACTED:private-key-rsa]\n```\nDone.\n"
    )


def test_a_pem_block_cut_before_its_end_line_is_still_found() -> None:
    key = pem("OPENSSH PRIVATE KEY").split("-----END")[0]
    assert [f.rule_id for f in scan_text("pasted:\n" + key)] == ["private-key-openssh"]


def test_a_service_account_file_is_one_finding_not_also_a_bare_key() -> None:
    text = _sa_json(_SA_KEY)
    assert [f.rule_id for f in scan_text(text)] == ["gcp-service-account-key"]
    assert redact(text) == _sa_json("[REDACTED:gcp-service-account-key]")


def test_the_aws_secret_is_redacted_but_its_key_name_is_kept() -> None:
    text = 'aws_secret_access_key: "' + rand(40, B64, "keep") + '"'
    assert redact(text) == 'aws_secret_access_key: "[REDACTED:aws-secret-access-key]"'


def test_several_secrets_are_refused_together_by_label_and_line() -> None:
    text = "\n".join(
        [
            "ghp_" + rand(36, ALNUM, "a"),
            "x",
            "ghp_" + rand(36, ALNUM, "b"),
            "npm_" + rand(36, ALNUM, "c"),
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
    token = rand(36, ALNUM, "glued")
    assert scan_text(f"xghp_{token}") == []
    assert scan_text(f"ghp_{token}x") == []
    assert scan_text(f"(ghp_{token})")[0].rule_id == "github-pat"


@given(
    st.lists(
        st.text(alphabet=string.ascii_letters + string.digits, min_size=1, max_size=15),
        max_size=200,
    ),
    st.lists(st.sampled_from([" ", ", ", ". ", "\n", "; ", "! ", " (", ") ", ": "]), min_size=1),
)
def test_random_prose_without_token_prefixes_has_no_findings(
    words: list[str], separators: list[str]
) -> None:
    text = "".join(word + separators[i % len(separators)] for i, word in enumerate(words))
    assert scan_text(text) == []
    assert redact(text) == text


@given(st.text(max_size=300), st.sampled_from(CASES), st.text(max_size=300))
def test_a_secret_is_found_wherever_it_sits_in_arbitrary_text(
    head: str, case: Case, tail: str
) -> None:
    text = f"{head}\n{case.before}{case.secret}\n{tail}"
    line = head.count("\n") + 2
    assert (case.rule_id, line) in {(f.rule_id, f.line) for f in scan_text(text)}


def _write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")
    return path


def test_scan_tree_reports_files_with_secrets_and_skips_git_binaries_and_links(
    tmp_path: Path,
) -> None:
    token = "ghp_" + rand(36, ALNUM, "tree")
    team = tmp_path / "team"
    leaky = _write(team / "deploy.md", f"# Deploy\n\nuse {token}\n")
    nested = _write(team / "ops" / "keys.md", pem("EC PRIVATE KEY"))
    _write(team / "clean.md", "# Clean\n\nnothing here\n")
    _write(team / ".git" / "config", f"[remote]\n\turl = https://{token}@github.com/x/y\n")
    _write(team / ".git" / "objects" / "ab" / "cd.md", token)
    _write(team / "image.png", b"\x89PNG\x00\x00" + token.encode())
    outside = _write(tmp_path / "outside.md", token)
    os.symlink(outside, team / "link.md")

    found = scan_tree(team)

    assert list(found) == [leaky, nested]
    assert found[leaky] == [
        Finding(rule_id="github-pat", label="GitHub personal access token", line=3, column=5)
    ]
    assert [f.rule_id for f in found[nested]] == ["private-key-ec"]


def test_scan_tree_of_a_clean_tree_is_empty(tmp_path: Path) -> None:
    _write(tmp_path / "a.md", "nothing\n")
    assert scan_tree(tmp_path) == {}


def test_scan_file_keeps_line_numbers_across_bytes_that_are_not_utf8(tmp_path: Path) -> None:
    token = "dapi" + rand(32, HEX, "latin")
    path = _write(tmp_path / "notes.md", b"caf\xe9\n\xff\xfe\n" + token.encode() + b"\n")
    assert [(f.rule_id, f.line) for f in scan_file(path)] == [("databricks-token", 3)]


def test_scan_file_ignores_binary_files(tmp_path: Path) -> None:
    path = _write(tmp_path / "blob.bin", b"\x00\x01" + ("ghp_" + rand(36, ALNUM, "bin")).encode())
    assert scan_file(path) == []


_MADE_UP_LOOKING = re.compile(
    r"(.)\1{7}|"
    + "|".join(
        a[i : i + 8]
        for a in (DIGITS, string.ascii_lowercase, string.ascii_uppercase)
        for i in range(len(a) - 7)
    ),
    re.DOTALL,
)


TOKEN_RULES = [rule for rule in RULES if not rule.whole_text]


@pytest.mark.parametrize("rule", TOKEN_RULES, ids=[rule.id for rule in TOKEN_RULES])
@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(data=st.data())
def test_any_token_of_a_rules_shape_is_found_where_it_stands(
    rule: Rule, data: st.DataObject
) -> None:
    value = data.draw(st.from_regex(rule.regex, fullmatch=True))
    # The scanner looks for token rules' anchors only in runs of token characters.
    assert len(value) >= MIN_TOKEN_RUN
    assert all(byte in TOKEN_CHARS for byte in value)
    text = value.decode()
    assume(rule.allow_regex is None or not rule.allow_regex.search(value))
    assume(not (rule.placeholder_check and _MADE_UP_LOOKING.search(text)))
    findings = scan_text(f"see\n  {text}\nend")
    assert [(f.line, f.column) for f in findings][:1] == [(2, 3)]
