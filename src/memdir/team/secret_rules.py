"""The rule table of the secret scanner: one high-confidence rule per token format.

Each :class:`Rule` encodes a format a provider documents or that the gitleaks
default configuration (``config/gitleaks.toml``) encodes: a fixed prefix, a
length and an alphabet, anchored at word boundaries. There is deliberately no
generic high-entropy or ``password = ...`` rule: memories are prose, and such
rules fire on hashes, ids and ordinary words.

Patterns run on UTF-8 bytes, so ``\\b``, ``\\w`` and ``\\s`` are ASCII-only, as
every token alphabet is. ``anchors`` are literals every match contains at
``anchor_at`` bytes from its start; the scanner runs a rule only where an
anchor occurs (Python's regex engine skips ahead fast only for patterns that
start with a literal, which ``\\b`` is not). A token rule's match is a run of
at least 20 token characters (``[A-Za-z0-9_.~+/=-]``), so its anchors are
looked for only inside such runs; ``whole_text`` rules (context before the
value, PEM armour with spaces) look everywhere. ``allow`` matches documented
example values that are never valid credentials; ``placeholder_check``
rejects runs like ``XXXXXXXX`` or ``12345678`` that mark a value as made up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["MIN_TOKEN_RUN", "RULES", "TOKEN_CHARS", "Rule"]

# Every token rule's match is at least this many of these characters in a row.
TOKEN_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.~+/=-"
MIN_TOKEN_RUN = 20


@dataclass(frozen=True, kw_only=True)
class Rule:
    """One token format: what it is called, what it looks like, where to look."""

    id: str
    label: str
    pattern: str
    anchors: tuple[str, ...]
    anchor_at: int = 0
    whole_text: bool = False
    ignore_case: bool = False
    allow: str | None = None
    placeholder_check: bool = True
    regex: re.Pattern[bytes] = field(init=False, repr=False, compare=False)
    allow_regex: re.Pattern[bytes] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        flags = re.IGNORECASE if self.ignore_case else 0
        object.__setattr__(self, "regex", re.compile(self.pattern.encode(), flags))
        allow = re.compile(self.allow.encode()) if self.allow is not None else None
        object.__setattr__(self, "allow_regex", allow)


def _prefixed(rule_id: str, label: str, prefix: str, body: str) -> Rule:
    r"""A token that starts with a fixed prefix: ``\b<prefix><body>``, anchored on the prefix."""
    pattern = r"\b" + re.escape(prefix) + body
    return Rule(id=rule_id, label=label, pattern=pattern, anchors=(prefix,))


# A PEM block: armour headers (Proc-Type, DEK-Info, Version, Comment), then a
# base64 body of at least 32 characters (lines may be indented), then the END
# line. Newlines may be real or JSON-escaped (``\n``) so keys pasted from JSON
# are found too. A block cut short before its END line is still reported.
_PEM_HEADERS = r"(?:(?:\s|\\[nr])*[A-Za-z][A-Za-z-]*:[^\r\n\\]*)*"
_PEM_BODY = r"(?:\s|\\[nr])*[A-Za-z0-9+/=]{32,}(?:[A-Za-z0-9+/=]|\r?\n[ \t]*|\\[nr])*"


def _pem(kind: str) -> str:
    return f"-----BEGIN {kind}-----{_PEM_HEADERS}{_PEM_BODY}(?:-----END {kind}-----)?"


def _pem_rule(rule_id: str, label: str, kind: str) -> Rule:
    return Rule(
        id=rule_id,
        label=label,
        pattern=_pem(kind),
        anchors=("-----BEGIN ",),  # shared by all kinds: one search per scan
        whole_text=True,
        placeholder_check=False,  # DER encodes zero bytes as long runs of "A"
    )


_HEX = "[0-9a-f]"
_ALNUM = "[0-9A-Za-z]"
# Trailing boundary for alphabets that include "-": \b would accept a cut in
# the middle of a longer token.
_END_DASH = r"(?![\w-])"

_CLOUD: tuple[Rule, ...] = (
    # gitleaks aws-access-token: AKIA (long-term) / ASIA (STS) / ABIA / ACCA /
    # A3T? + 16 of base32 upper [A-Z2-7]. The AWS documentation example ends in
    # EXAMPLE (AKIAIOSFODNN7EXAMPLE) and is never a valid key.
    Rule(
        id="aws-access-key-id",
        label="AWS access key ID",
        pattern=r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b",
        anchors=("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
        allow=r"EXAMPLE$",
    ),
    # gitleaks aws-secret-access-key (a sub-rule): 40 of [A-Za-z0-9/+], only
    # with context, since 40 base64 characters alone are any hash. Context:
    # a key named aws..secret/private.. followed by = : => or :=. The
    # documentation example ends in EXAMPLEKEY.
    Rule(
        id="aws-secret-access-key",
        label="AWS secret access key",
        pattern=(
            r"\baws[\w.-]{0,20}?(?:secret|private)[\w.-]{0,20}?[\"']?[ \t]*(?:=>|:=|[:=])"
            r"[ \t]*[\"']?(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        anchors=("aws",),
        whole_text=True,
        ignore_case=True,
        allow=r"EXAMPLEKEY$",
    ),
    # gitleaks gcp-api-key: AIza + 35 of [A-Za-z0-9_-].
    _prefixed("gcp-api-key", "Google Cloud API key", "AIza", r"[\w-]{35}" + _END_DASH),
    # Google service-account key file (JSON): "private_key": "-----BEGIN PRIVATE
    # KEY-----\n..." with JSON-escaped newlines (gitleaks gcp-service-account-key).
    # It wins over the bare PKCS#8 rule, which finds the same span.
    Rule(
        id="gcp-service-account-key",
        label="Google Cloud service-account private key",
        pattern=r"\"private_key\"\s*:\s*\"(?P<secret>" + _pem("PRIVATE KEY") + ")",
        anchors=('"private_key"',),
        whole_text=True,
        placeholder_check=False,
    ),
    # gitleaks azure-ad-client-secret: 3 of [A-Za-z0-9_~.] + digit + "Q~" + 31-34
    # of [A-Za-z0-9_~.-]; the "Q~" marker sits 4 characters in.
    Rule(
        id="azure-ad-client-secret",
        label="Azure AD client secret",
        pattern=r"(?<![\w~.-])[\w~.]{3}\dQ~[\w~.-]{31,34}(?![\w~.-])",
        anchors=("Q~",),
        anchor_at=4,
    ),
    # gitleaks digitalocean-pat / -access-token / -refresh-token:
    # dop_v1_ / doo_v1_ / dor_v1_ + 64 lowercase hex.
    _prefixed(
        "digitalocean-pat", "DigitalOcean personal access token", "dop_v1_", _HEX + r"{64}\b"
    ),
    _prefixed("digitalocean-oauth-token", "DigitalOcean OAuth token", "doo_v1_", _HEX + r"{64}\b"),
    _prefixed(
        "digitalocean-refresh-token", "DigitalOcean refresh token", "dor_v1_", _HEX + r"{64}\b"
    ),
)

_AI: tuple[Rule, ...] = (
    # gitleaks anthropic-api-key: sk-ant-api03- + 93 of [A-Za-z0-9_-] + "AA".
    _prefixed(
        "anthropic-api-key", "Anthropic API key", "sk-ant-api03-", r"[\w-]{93}AA" + _END_DASH
    ),
    # gitleaks anthropic-admin-api-key: sk-ant-admin01- + 93 of [A-Za-z0-9_-] + "AA".
    _prefixed(
        "anthropic-admin-key",
        "Anthropic admin API key",
        "sk-ant-admin01-",
        r"[\w-]{93}AA" + _END_DASH,
    ),
    # gitleaks openai-api-key (legacy user key): sk- + 20 alphanumerics +
    # "T3BlbkFJ" (base64 of "OpenAI") + 20 alphanumerics.
    _prefixed(
        "openai-api-key", "OpenAI API key", "sk-", _ALNUM + r"{20}T3BlbkFJ" + _ALNUM + r"{20}\b"
    ),
    # gitleaks openai-api-key (project, service-account, admin keys):
    # sk-proj- / sk-svcacct- / sk-admin- + [A-Za-z0-9_-] around "T3BlbkFJ"
    # (58 or 74 each side today; a range keeps future lengths).
    Rule(
        id="openai-project-key",
        label="OpenAI project or service-account key",
        pattern=r"\bsk-(?:proj|svcacct|admin)-[\w-]{20,100}T3BlbkFJ[\w-]{20,100}" + _END_DASH,
        anchors=("sk-proj-", "sk-svcacct-", "sk-admin-"),
    ),
    # gitleaks huggingface-access-token: hf_ + 34 ASCII letters.
    _prefixed("huggingface-token", "Hugging Face access token", "hf_", r"[A-Za-z]{34}\b"),
    # gitleaks huggingface-organization-api-token: api_org_ + 34 ASCII letters.
    _prefixed(
        "huggingface-org-token", "Hugging Face organization token", "api_org_", r"[A-Za-z]{34}\b"
    ),
)

_GIT_HOSTS: tuple[Rule, ...] = (
    # gitleaks github-pat: ghp_ + 36 alphanumerics.
    _prefixed("github-pat", "GitHub personal access token", "ghp_", _ALNUM + r"{36}\b"),
    # gitleaks github-fine-grained-pat: github_pat_ + 82 of [A-Za-z0-9_]
    # (22 + "_" + 59).
    _prefixed(
        "github-fine-grained-pat",
        "GitHub fine-grained personal access token",
        "github_pat_",
        r"\w{82}\b",
    ),
    # gitleaks github-app-token: ghu_ (user-to-server) / ghs_ (server-to-server)
    # + 36 alphanumerics.
    Rule(
        id="github-app-token",
        label="GitHub App token",
        pattern=r"\bgh[us]_" + _ALNUM + r"{36}\b",
        anchors=("ghu_", "ghs_"),
    ),
    # gitleaks github-oauth: gho_ + 36 alphanumerics.
    _prefixed("github-oauth-token", "GitHub OAuth access token", "gho_", _ALNUM + r"{36}\b"),
    # gitleaks github-refresh-token: ghr_ + 36 alphanumerics.
    _prefixed("github-refresh-token", "GitHub refresh token", "ghr_", _ALNUM + r"{36}\b"),
    # gitleaks gitlab-pat / gitlab-pat-routable: glpat- + 20 of [A-Za-z0-9_-],
    # or the routable form: 27+ of them + "." + 9 lowercase alphanumerics.
    _prefixed(
        "gitlab-pat",
        "GitLab personal access token",
        "glpat-",
        r"(?:[\w-]{27,300}\.[0-9a-z]{9}|[\w-]{20})" + _END_DASH,
    ),
    # gitleaks gitlab-deploy-token: gldt- + 20 of [A-Za-z0-9_-].
    _prefixed("gitlab-deploy-token", "GitLab deploy token", "gldt-", r"[\w-]{20}" + _END_DASH),
    # gitleaks gitlab-runner-authentication-token(-routable): glrt- + 20 of
    # [A-Za-z0-9_-], or glrt-t<digit>_ + 27+ of them + "." + 9.
    _prefixed(
        "gitlab-runner-token",
        "GitLab runner authentication token",
        "glrt-",
        r"(?:t\d_[\w-]{27,300}\.[0-9a-z]{9}|[\w-]{20})" + _END_DASH,
    ),
    # gitleaks gitlab-ptt: glptt- + 40 lowercase hex.
    _prefixed(
        "gitlab-pipeline-trigger-token",
        "GitLab pipeline trigger token",
        "glptt-",
        _HEX + r"{40}\b",
    ),
)

_MESSAGING: tuple[Rule, ...] = (
    # gitleaks slack-bot-token / slack-legacy-bot-token: xoxb- + 10-13 digit
    # team id + 10-13 digit bot id + 24 alphanumerics, or the legacy
    # xoxb- + 8-14 digits + 18-26 alphanumerics.
    _prefixed(
        "slack-bot-token",
        "Slack bot token",
        "xoxb-",
        r"\d{8,14}-(?:\d{10,13}-" + _ALNUM + r"{24,34}|" + _ALNUM + r"{18,26})\b",
    ),
    # gitleaks slack-user-token: xoxp- + three 10-13 digit ids + 28-34
    # alphanumerics.
    _prefixed(
        "slack-user-token",
        "Slack user token",
        "xoxp-",
        r"(?:\d{10,13}-){3}" + _ALNUM + r"{28,34}\b",
    ),
    # gitleaks slack-app-token: xapp- + digit + app id (A + uppercase
    # alphanumerics) + digits + lowercase hex.
    _prefixed(
        "slack-app-token",
        "Slack app-level token",
        "xapp-",
        r"\d-A[A-Z0-9]{7,14}-\d{8,16}-[a-f0-9]{32,80}\b",
    ),
    # gitleaks slack-webhook-url: hooks.slack.com/services|workflows|triggers/
    # + 43-100 of [A-Za-z0-9+/] (T.../B.../24 characters for services).
    Rule(
        id="slack-webhook-url",
        label="Slack incoming webhook URL",
        pattern=r"\bhooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,100}",
        anchors=("hooks.slack.com/",),
    ),
    # gitleaks twilio-api-key: SK + 32 hex (the account SID, AC + 32 hex, is an
    # identifier, not a secret).
    _prefixed("twilio-api-key", "Twilio API key", "SK", r"[0-9a-fA-F]{32}\b"),
    # gitleaks sendgrid-api-token: SG. + 22 + "." + 43 of [A-Za-z0-9_-].
    _prefixed("sendgrid-api-key", "SendGrid API key", "SG.", r"[\w-]{22}\.[\w-]{43}" + _END_DASH),
)

_DEV_TOOLING: tuple[Rule, ...] = (
    # gitleaks npm-access-token: npm_ + 36 alphanumerics.
    _prefixed("npm-access-token", "npm access token", "npm_", _ALNUM + r"{36}\b"),
    # gitleaks pypi-upload-token: pypi- + the macaroon header "AgEIcHlwaS5vcmc"
    # (base64 of the location "pypi.org"; "AgENdGVzdC5weXBpLm9yZw" for
    # test.pypi.org) + 50 or more of [A-Za-z0-9_-].
    Rule(
        id="pypi-upload-token",
        label="PyPI upload token",
        pattern=r"\bpypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[\w-]{50,1000}",
        anchors=("pypi-AgEIcHlwaS5vcmc", "pypi-AgENdGVzdC5weXBpLm9yZw"),
    ),
    # gitleaks databricks-api-token: dapi + 32 lowercase hex, optional -<digit>.
    _prefixed("databricks-token", "Databricks access token", "dapi", _HEX + r"{32}(?:-\d)?\b"),
    # gitleaks hashicorp-tf-api-token: 14 alphanumerics + ".atlasv1." + 60-70
    # of [A-Za-z0-9_=-]; the marker sits 14 characters in.
    Rule(
        id="terraform-cloud-token",
        label="Terraform Cloud / HCP Terraform API token",
        pattern=r"\b" + _ALNUM + r"{14}\.atlasv1\.[\w=-]{60,70}(?![\w=-])",
        anchors=(".atlasv1.",),
        anchor_at=14,
    ),
    # gitleaks pulumi-api-token: pul- + 40 lowercase hex.
    _prefixed("pulumi-access-token", "Pulumi access token", "pul-", _HEX + r"{40}\b"),
    # gitleaks postman-api-token: PMAK- + 24 hex + "-" + 34 hex.
    _prefixed(
        "postman-api-key",
        "Postman API key",
        "PMAK-",
        r"[0-9a-fA-F]{24}-[0-9a-fA-F]{34}\b",
    ),
)

_OBSERVABILITY: tuple[Rule, ...] = (
    # gitleaks grafana-api-key: legacy API keys are base64 JSON {"k":"...
    # i.e. eyJrIjoi + 70-400 alphanumerics + up to 3 "=".
    _prefixed(
        "grafana-api-key",
        "Grafana API key",
        "eyJrIjoi",
        r"[A-Za-z0-9]{70,400}={0,3}(?![A-Za-z0-9=])",
    ),
    # gitleaks grafana-cloud-api-token: glc_ + 32-400 of base64 + up to 3 "=".
    _prefixed(
        "grafana-cloud-token",
        "Grafana Cloud access policy token",
        "glc_",
        r"[A-Za-z0-9+/]{32,400}={0,3}(?![A-Za-z0-9+/=])",
    ),
    # gitleaks grafana-service-account-token: glsa_ + 32 alphanumerics + "_" +
    # 8 hex (a checksum).
    _prefixed(
        "grafana-service-account-token",
        "Grafana service account token",
        "glsa_",
        _ALNUM + r"{32}_[A-Fa-f0-9]{8}\b",
    ),
    # gitleaks sentry-org-token: sntrys_ + base64 JSON starting {"iat": and
    # holding "region_url", + "_" + 43 of base64.
    _prefixed(
        "sentry-org-token",
        "Sentry organization auth token",
        "sntrys_",
        r"eyJpYXQiO[A-Za-z0-9+/]{10,200}(?:LCJyZWdpb25fdXJs|InJlZ2lvbl91cmwi|cmVnaW9uX3VybCI6)"
        r"[A-Za-z0-9+/]{10,200}={0,2}_[A-Za-z0-9+/]{43}(?![A-Za-z0-9+/])",
    ),
    # gitleaks sentry-user-token: sntryu_ + 64 lowercase hex.
    _prefixed("sentry-user-token", "Sentry user auth token", "sntryu_", _HEX + r"{64}\b"),
)

_COMMERCE: tuple[Rule, ...] = (
    # gitleaks stripe-access-token, live mode only: sk_live_ + 24-99
    # alphanumerics (test-mode keys move no money and fill tutorials).
    _prefixed("stripe-secret-key", "Stripe live secret key", "sk_live_", _ALNUM + r"{24,99}\b"),
    # gitleaks stripe-access-token, restricted live keys: rk_live_ + 24-99.
    _prefixed(
        "stripe-restricted-key", "Stripe live restricted key", "rk_live_", _ALNUM + r"{24,99}\b"
    ),
    # gitleaks shopify-access-token / -custom-access-token /
    # -private-app-access-token / -shared-secret: shpat_ / shpca_ / shppa_ /
    # shpss_ + 32 hex.
    _prefixed("shopify-access-token", "Shopify access token", "shpat_", r"[a-fA-F0-9]{32}\b"),
    _prefixed(
        "shopify-custom-app-token", "Shopify custom app token", "shpca_", r"[a-fA-F0-9]{32}\b"
    ),
    _prefixed(
        "shopify-private-app-token", "Shopify private app token", "shppa_", r"[a-fA-F0-9]{32}\b"
    ),
    _prefixed("shopify-shared-secret", "Shopify shared secret", "shpss_", r"[a-fA-F0-9]{32}\b"),
)

# gitleaks private-key: -----BEGIN <kind> PRIVATE KEY----- + body (+ END).
_PRIVATE_KEYS: tuple[Rule, ...] = (
    _pem_rule("private-key-rsa", "RSA private key", "RSA PRIVATE KEY"),
    _pem_rule("private-key-ec", "EC private key", "EC PRIVATE KEY"),
    _pem_rule("private-key-dsa", "DSA private key", "DSA PRIVATE KEY"),
    _pem_rule("private-key-openssh", "OpenSSH private key", "OPENSSH PRIVATE KEY"),
    _pem_rule("private-key-pgp", "PGP private key block", "PGP PRIVATE KEY BLOCK"),
    _pem_rule("private-key-pkcs8", "PKCS#8 private key", "PRIVATE KEY"),
    _pem_rule("private-key-encrypted", "Encrypted PKCS#8 private key", "ENCRYPTED PRIVATE KEY"),
)

RULES: tuple[Rule, ...] = (
    *_CLOUD,
    *_AI,
    *_GIT_HOSTS,
    *_MESSAGING,
    *_DEV_TOOLING,
    *_OBSERVABILITY,
    *_COMMERCE,
    *_PRIVATE_KEYS,
)
