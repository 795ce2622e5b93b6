"""The rule table of the secret scanner: one rule per credential family, as data.

Each :class:`Rule` names a family (``id``, ``label``, ``description``), says
what it looks like (``pattern``, a Python regex run on UTF-8 bytes, so ``\\b``
and ``\\w`` are ASCII-only) and where to look: ``keywords`` are literals every
match holds (matched case-insensitively, ``keyword_at`` bytes from the match's
start, or anywhere in the ``lookback`` bytes before it). The scanner finds all
keywords in one pass and runs a rule only where one of its keywords stands. A
``trigger`` (a lowercase RE2 regex that starts with one of the keywords, or
stands alone when there is none) replaces the keywords in that pass when a
bare keyword is too common: a context rule's trigger holds the name, the
assignment and the value's first characters, so prose that merely mentions
tokens and passwords costs no regex work at all.

Families were taken from the providers' documented token formats and the
gitleaks default configuration (``config/gitleaks.toml``), then written anew.
Two kinds of rule:

* token rules: a format with a fixed prefix or marker (``ghp_``, ``AKIA``,
  ``-----BEGIN ... PRIVATE KEY-----``, ``postgres://user:pass@``). High
  confidence; ``allow`` drops documented example values.
* context rules (``generic=True``): a credential word (``password``,
  ``secret``, ``token``, ``api key``...) followed by an assignment or by
  "is", then a value that must look random: Shannon entropy at least
  ``entropy`` bits per character, not a placeholder (:data:`PLACEHOLDER`),
  checked by ``check``. They give way to any token rule on the same span.

Every rule carries ``examples`` (text that must yield a finding of this rule)
and ``counter_examples`` (text that must yield no finding at all), checked by
the tests. Random parts are written as ``[[alphabet:length]]`` and filled by
:func:`render_example`, so no literal in this file looks like a credential to
a scanner reading it.
"""

from __future__ import annotations

import base64
import binascii
import math
import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

__all__ = [
    "ALPHABETS",
    "PLACEHOLDER",
    "RULES",
    "Rule",
    "entropy",
    "looks_random",
    "random_parts",
    "render_example",
]

Check = Callable[[bytes], bool]


@dataclass(frozen=True, kw_only=True)
class Rule:
    """One credential family: what it is called, what it looks like, where to look."""

    id: str
    label: str
    description: str
    pattern: str
    keywords: tuple[str, ...] = ()
    keyword_at: int = 0
    lookback: int = 0
    trigger: str | None = None
    ignore_case: bool = False
    entropy: float = 0.0
    allow: str | None = None
    placeholder_check: bool = True
    generic: bool = False
    name_allow: str | None = None
    check: Check | None = None
    examples: tuple[str, ...]
    counter_examples: tuple[str, ...]
    regex: re.Pattern[bytes] = field(init=False, repr=False, compare=False)
    allow_regex: re.Pattern[bytes] | None = field(init=False, repr=False, compare=False)
    name_allow_regex: re.Pattern[bytes] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        flags = re.IGNORECASE if self.ignore_case else 0
        object.__setattr__(self, "regex", re.compile(self.pattern.encode(), flags))
        allow = re.compile(self.allow.encode()) if self.allow is not None else None
        object.__setattr__(self, "allow_regex", allow)
        name_allow = re.compile(self.name_allow.encode()) if self.name_allow else None
        object.__setattr__(self, "name_allow_regex", name_allow)
        if not self.keywords and self.trigger is None:
            raise ValueError(f"rule {self.id} needs keywords or a trigger")


# -- helpers for the checks -------------------------------------------------------


def entropy(value: bytes) -> float:
    """Shannon entropy of ``value`` in bits per character."""
    if not value:
        return 0.0
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in Counter(value).values())


# Values that mark a credential as made up or as a reference to one kept
# elsewhere: documentation words, template and shell variables, masks.
PLACEHOLDER = re.compile(
    rb"(?i)example|sample|dummy|placeholder|change[_-]?(?:me|it)|redacted|your[_-]|"
    rb"<[^>]*>|\[[^\]]*\]|x{4,}|\*{3,}|\.\.\.|\$\{|\$\(|\{\{|\{[a-z_]+\}|%\(|^[$%@&]|"
    rb"passw(?:or)?d|secret|token|fake|lorem|foobar|^(?:test|none|null|nil|true|false|"
    rb"undefined|empty|unset|required|optional|string)$|testing|qwerty|letmein|hunter2|"
    rb"insert|replace|(?-i:^[A-Z][A-Z0-9]*_[A-Z0-9_]+$)|^[a-z]+(?:_[a-z]+)+$|environ|getenv|"
    rb"^(?:postgres|root|admin|guest|user|pass|mysql|redis|rabbitmq|mongo|sa)$"
)

_CLASSES = (
    re.compile(rb"[a-z]"),
    re.compile(rb"[A-Z]"),
    re.compile(rb"[0-9]"),
    re.compile(rb"[^A-Za-z0-9]"),
)
_SEGMENT_SPLIT = re.compile(rb"[-_./:]+")


def looks_random(value: bytes) -> bool:
    """True when some segment of ``value`` mixes character classes, as issued values do.

    ``prod-db-credentials-2024`` or ``12-characters`` are words and numbers
    joined, not a credential; ``Xy7pQ2mR`` mixes classes inside one segment.
    """
    for segment in _SEGMENT_SPLIT.split(value):
        if sum(1 for c in _CLASSES if c.search(segment)) >= 2:
            return True
    return False


def _token_check(value: bytes) -> bool:
    # A token after a credential word: random-looking, with a digit and a
    # letter (identifiers and words have no digits; hashes after "sha256:"
    # carry no credential word).
    return (
        looks_random(value)
        and re.search(rb"[0-9]", value) is not None
        and re.search(rb"[A-Za-z]", value) is not None
        and PLACEHOLDER.search(value) is None
    )


def _password_check(value: bytes) -> bool:
    return looks_random(value) and PLACEHOLDER.search(value) is None


def _url_password_check(value: bytes) -> bool:
    # ``value`` is the password part of scheme://user:password@host.
    return len(value) >= 4 and PLACEHOLDER.search(value) is None and entropy(value) >= 1.5


def _basic_auth_check(value: bytes) -> bool:
    # An Authorization: Basic header is base64 of "user:password".
    try:
        decoded = base64.b64decode(value + b"=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    user, sep, password = decoded.partition(b":")
    if not sep or len(password) < 4 or not password.isascii():
        return False
    return PLACEHOLDER.search(password) is None and password != user


# -- example rendering ------------------------------------------------------------

ALPHABETS: dict[str, str] = {
    "hex": "0123456789abcdef",
    "HEX": "0123456789ABCDEF",
    "alnum": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
    "lalnum": "abcdefghijklmnopqrstuvwxyz0123456789",
    "ualnum": "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    "letters": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "lower": "abcdefghijklmnopqrstuvwxyz",
    "digits": "0123456789",
    "b64": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
    "b64url": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
    "base32": "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
    "lbase32": "abcdefghijklmnopqrstuvwxyz234567",
    "bech32": "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
    "pw": "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!#*+-=?^_~",
}
_SLOT = re.compile(r"\[\[(\w+)(?::(\d+))?\]\]")


def render_example(template: str, seed: int | str = 0) -> str:
    """``template`` with each ``[[alphabet:n]]`` filled with ``n`` random characters.

    ``[[uuid]]`` gives a random UUID. The same template and seed always give
    the same text, so examples are reproducible.
    """
    return _render(template, seed)[0]


def random_parts(template: str, seed: int | str = 0) -> tuple[str, ...]:
    """The random fills :func:`render_example` puts in ``template`` for ``seed``."""
    return _render(template, seed)[1]


def _render(template: str, seed: int | str) -> tuple[str, tuple[str, ...]]:
    rng = random.Random(f"{seed}|{template}")
    parts: list[str] = []

    def fill(match: re.Match[str]) -> str:
        name, length = match.group(1), match.group(2)
        if name == "uuid":
            hexdigits = ALPHABETS["hex"]
            groups = ("".join(rng.choice(hexdigits) for _ in range(n)) for n in (8, 4, 4, 4, 12))
            part = "-".join(groups)
        else:
            alphabet = ALPHABETS[name]
            part = "".join(rng.choice(alphabet) for _ in range(int(length or 0)))
        parts.append(part)
        return part

    return _SLOT.sub(fill, template), tuple(parts)


# -- pattern pieces ---------------------------------------------------------------

# Trailing boundary for alphabets that include "-": \b would accept a cut in
# the middle of a longer token.
_END_DASH = r"(?![\w-])"
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_HEX = "[0-9a-f]"
_ALNUM = "[0-9A-Za-z]"
# Between a credential word and its value: more of the name on the same line
# ("password for the staging db"), then an assignment or a copula.
_GAP = r"[\w .-]{0,30}?"
_SEP = (
    r"[\"'`]?[ \t]*(?:=>|->|:=|[:=]|(?<![\w])(?:is|was|are|equals|set to)\b:?)[ \t]*"
    r"(?:[\"'`]|\bBearer[ \t]+)?[ \t]*"
)
# The prefilter's view of "name, then an assignment": loose (a superset of
# what _GAP + _SEP accept) and lazy, so the automaton stops at the first
# assignment instead of reading to the end of a long run of word characters.
_CONTEXT_TRIGGER = (
    r"[\w .-]*?(?:[\"'`]?[ \t]*[:=>]+|[ \t\"'`](?:is|was|are|equals|set to):?)[ \t]*[\"'`]?"
    r"[ \t]*(?:bearer[ \t]+)?"
)
# The first characters of a value each kind of context rule accepts.
_TOKEN_HEAD = r"[a-z0-9+/][a-z0-9_.~+/=-]{15}"
_PASSWORD_HEAD = r"[^\s'\"`;&,<>]{8}"
_KEYED_HEAD = r"[a-z0-9_.~+/=:-]{16}"
# Values are taken possessively (no backtracking into them); the scanner
# trims the sentence's closing punctuation off a context rule's value.
_TOKEN_VALUE = r"(?P<secret>[A-Za-z0-9+/][\w.~+/=-]{15,250}+)(?![\w.~+/=-])"


def _prefixed(
    rule_id: str,
    label: str,
    description: str,
    prefix: str,
    body: str,
    examples: tuple[str, ...],
    counter_examples: tuple[str, ...],
    **extra: object,
) -> Rule:
    r"""A token that starts with a fixed prefix: ``\b<prefix><body>``, found by the prefix."""
    return Rule(
        id=rule_id,
        label=label,
        description=description,
        pattern=r"\b" + re.escape(prefix) + body,
        keywords=(prefix,),
        examples=examples,
        counter_examples=counter_examples,
        **extra,  # type: ignore[arg-type]
    )


def _keyed(
    rule_id: str,
    label: str,
    description: str,
    names: tuple[str, ...],
    value: str,
    examples: tuple[str, ...],
    counter_examples: tuple[str, ...],
    *,
    entropy_min: float = 3.0,
) -> Rule:
    """A value of a known shape that is only a credential next to a service's name."""
    words = "|".join(re.escape(n) for n in names)
    return Rule(
        id=rule_id,
        label=label,
        description=description,
        pattern=f"(?i:{words}){_GAP}{_SEP}(?P<secret>{value})" + r"(?![\w.~+/=-])",
        keywords=names,
        trigger=f"(?:{words.lower()}){_CONTEXT_TRIGGER}{_KEYED_HEAD}",
        entropy=entropy_min,
        examples=examples,
        counter_examples=counter_examples,
    )


_URL_PASSWORD = (
    r"://(?:[^\s:/@'\"`<>]{0,64}):(?P<secret>[^\s/@'\"`<>]{1,128})@"
    r"(?=[\w\[\].-]*[\w\]])"
)


def _url_rule(
    rule_id: str,
    label: str,
    schemes: tuple[str, ...],
    examples: tuple[str, ...],
    counter_examples: tuple[str, ...],
) -> Rule:
    r"""``scheme://user:password@host`` for the given schemes (``+srv``, ``+driver`` too)."""
    alternatives = "|".join(re.escape(s) for s in schemes)
    return Rule(
        id=rule_id,
        label=label,
        description=f"{label}: a connection URL with the password written in it.",
        pattern=rf"\b(?i:{alternatives})(?:\+[a-z0-9]+)?{_URL_PASSWORD}",
        keywords=schemes,
        check=_url_password_check,
        placeholder_check=False,
        examples=examples,
        counter_examples=counter_examples,
    )


# A PEM block: up to 8 armour headers (Proc-Type, DEK-Info, Version,
# Comment), each on its own line, then a base64 body of at least 32 characters (lines may be
# indented), then the END line. Quantifiers are possessive: a teammate's file
# is untrusted, and no input may make the scan backtrack. Newlines may be real
# or JSON-escaped (``\n``) so keys pasted from JSON are found too. A block cut
# short before its END line is still reported.
_PEM_HEADERS = r"(?:(?:\r?\n|\\[nr])[ \t]*[A-Za-z][A-Za-z-]{0,40}+:[^\r\n\\]{0,300}+){0,8}+"
_PEM_BODY = r"(?:\s|\\[nr])*+[A-Za-z0-9+/=]{32}(?:[A-Za-z0-9+/=]|\r?\n[ \t]*|\\[nr])*+"


def _pem(kind: str) -> str:
    return f"-----BEGIN {kind}-----{_PEM_HEADERS}{_PEM_BODY}(?:-----END {kind}-----)?"


_PEM_EXAMPLE_BODY = "\n".join(["[[b64:64]]"] * 5) + "\n[[b64:20]]=="


def _pem_rule(rule_id: str, label: str, kind: str, counter: str) -> Rule:
    return Rule(
        id=rule_id,
        label=label,
        description=f"A {label.lower()} in PEM armour: whoever holds it is the key's owner.",
        pattern=_pem(kind),
        keywords=("-----BEGIN ",),  # shared by all kinds: one keyword for all
        placeholder_check=False,  # DER encodes zero bytes as long runs of "A"
        examples=(f"-----BEGIN {kind}-----\n{_PEM_EXAMPLE_BODY}\n-----END {kind}-----",),
        counter_examples=(
            f"-----BEGIN {kind}-----\n...\n-----END {kind}-----",
            f"the line -----BEGIN {kind}----- opens the file",
            counter,
        ),
    )


# -- cloud ------------------------------------------------------------------------

_CLOUD: tuple[Rule, ...] = (
    # AKIA (long-term) / ASIA (STS) / ABIA / ACCA / A3T? + 16 of base32 upper.
    Rule(
        id="aws-access-key-id",
        label="AWS access key ID",
        description="An AWS access key ID; the documentation example ends in EXAMPLE.",
        pattern=r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b",
        keywords=("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
        allow=r"EXAMPLE$",
        examples=("deploy user key id AKIA[[base32:16]]", "aws_access_key_id = ASIA[[base32:16]]"),
        counter_examples=("key id AKIAIOSFODNN7EXAMPLE", "AKIA[[base32:15]]", "trip to Asia"),
    ),
    # 40 of base64 only after a name that says AWS secret, in code or in prose.
    Rule(
        id="aws-secret-access-key",
        label="AWS secret access key",
        description="An AWS secret access key written after its name, in code or prose.",
        pattern=(
            r"(?i:\baws[\w .-]{0,30}?(?:secret|private)|\bsecret_?access_?key)[\w .-]{0,20}?"
            + _SEP
            + r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        keywords=("aws", "secretaccesskey", "secret_access_key"),
        trigger=r"aws[\w .-]*?(?:secret|private)|secret_?access_?key",
        entropy=3.5,
        allow=r"EXAMPLEKEY$",
        examples=(
            "aws_secret_access_key = [[b64:40]]",
            "the aws secret key is [[b64:40]]",
            '"SecretAccessKey": "[[b64:40]]"',
        ),
        counter_examples=(
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "checksum = [[b64:40]]",
            "AWS_SECRET_ACCESS_KEY=" + "x" * 40,
            "the aws secret lives in 1Password",
        ),
    ),
    _prefixed(
        "gcp-api-key",
        "Google Cloud API key",
        "A Google API key (Maps, Gemini, Firebase...).",
        "AIza",
        r"[\w-]{35}" + _END_DASH,
        ("maps key AIza[[b64url:35]]",),
        ("AIza[[b64url:34]]", "an AIza-style key"),
    ),
    Rule(
        id="gcp-service-account-key",
        label="Google Cloud service-account private key",
        description="The private key of a service-account JSON key file.",
        pattern=r"\"private_key\"\s*:\s*\"(?P<secret>" + _pem("PRIVATE KEY") + ")",
        keywords=('"private_key"',),
        placeholder_check=False,
        examples=(
            '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\n'
            '[[b64:64]]\\n[[b64:64]]\\n[[b64:30]]==\\n-----END PRIVATE KEY-----\\n"}',
        ),
        counter_examples=(
            '{"type": "service_account", "private_key": "<paste the key here>"}',
            '"private_key_id": "[[hex:40]]"',
        ),
    ),
    _prefixed(
        "google-oauth-client-secret",
        "Google OAuth client secret",
        "The client secret of a Google OAuth client.",
        "GOCSPX-",
        r"[\w-]{28}" + _END_DASH,
        ("client secret GOCSPX-[[b64url:28]]",),
        ("GOCSPX-<client secret>", "GOCSPX-[[b64url:12]]"),
    ),
    _prefixed(
        "google-oauth-access-token",
        "Google OAuth access token",
        "A Google OAuth 2.0 access token.",
        "ya29.",
        r"[\w-]{50,2000}" + _END_DASH,
        ("curl -H 'Authorization: Bearer ya29.[[b64url:120]]'",),
        ("ya29.<access token>", "ya29.[[b64url:20]]"),
    ),
    Rule(
        id="azure-ad-client-secret",
        label="Azure AD client secret",
        description="An Entra ID (Azure AD) application client secret: 'Q~' sits 4 characters in.",
        pattern=r"(?<![\w~.-])[\w~.]{3}\dQ~[\w~.-]{31,34}(?![\w~.-])",
        keywords=("Q~",),
        keyword_at=4,
        examples=("client_secret: [[alnum:3]]8Q~[[b64url:34]]",),
        counter_examples=("see Q~ in the table", "[[alnum:3]]8Q~[[alnum:20]]"),
    ),
    Rule(
        id="azure-storage-account-key",
        label="Azure storage account key",
        description="AccountKey= in a storage connection string; the emulator's key is public.",
        pattern=r"(?i:AccountKey)\s*=\s*(?P<secret>[A-Za-z0-9+/]{86}==)",
        keywords=("accountkey",),
        allow=r"^Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq",
        examples=(
            "DefaultEndpointsProtocol=https;AccountName=prodlogs;AccountKey=[[b64:86]]==;"
            "EndpointSuffix=core.windows.net",
        ),
        counter_examples=(
            "AccountKey=<storage-account-key>",
            "AccountKey=${STORAGE_KEY}",
            "AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6"
            "IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
        ),
    ),
    Rule(
        id="azure-shared-access-key",
        label="Azure shared access key",
        description="SharedAccessKey= in a Service Bus, Event Hubs or IoT Hub connection string.",
        pattern=r"(?i:SharedAccessKey)\s*=\s*(?P<secret>[A-Za-z0-9+/]{42,88}={0,2})(?![\w+/=])",
        keywords=("sharedaccesskey",),
        examples=(
            "Endpoint=sb://orders.servicebus.windows.net/;SharedAccessKeyName=RootManage"
            "SharedAccessKey;SharedAccessKey=[[b64:43]]=",
        ),
        counter_examples=("SharedAccessKey=<key>", "SharedAccessKeyName=RootManageSharedAccessKey"),
    ),
    Rule(
        id="azure-sas-token",
        label="Azure shared access signature",
        description="A SAS URL or token: sv=<version>&...&sig=<signature>.",
        pattern=(
            r"\bsv=\d{4}-\d\d-\d\d&[^\s\"'<>]{0,400}?\bsig=(?P<secret>[A-Za-z0-9%+/]{40,}"
            r"(?:%3D|=){0,2})"
        ),
        keywords=("sv=",),
        examples=(
            "download https://acct.blob.core.windows.net/c/f.zip?sv=2022-11-02&ss=b&srt=o&sp=r"
            "&se=2026-01-01T00:00:00Z&spr=https&sig=[[alnum:43]]%3D",
        ),
        counter_examples=("?sv=2022-11-02&sig=<signature>", "sv=2022-11-02&sp=r&sig=..."),
    ),
    _keyed(
        "azure-devops-pat",
        "Azure DevOps personal access token",
        "An Azure DevOps PAT (52 characters of lowercase base32) named as such.",
        ("azure devops", "azure_devops", "azdo", "ado_pat", "ado pat", "devops pat"),
        "[a-z2-7]{52}",
        ("our Azure DevOps PAT is [[lbase32:52]]", "AZURE_DEVOPS_PAT=[[lbase32:52]]"),
        ("Azure DevOps PAT: see the vault", "azure devops org is contoso-engineering-2024"),
    ),
    _prefixed(
        "digitalocean-pat",
        "DigitalOcean personal access token",
        "A DigitalOcean personal access token.",
        "dop_v1_",
        _HEX + r"{64}\b",
        ("doctl auth init -t dop_v1_[[hex:64]]",),
        ("dop_v1_[[hex:63]]", "dop_v1_[[HEX:64]]"),
    ),
    _prefixed(
        "digitalocean-oauth-token",
        "DigitalOcean OAuth token",
        "A DigitalOcean OAuth access token.",
        "doo_v1_",
        _HEX + r"{64}\b",
        ("doo_v1_[[hex:64]]",),
        ("doo_v1_[[hex:65]]",),
    ),
    _prefixed(
        "digitalocean-refresh-token",
        "DigitalOcean refresh token",
        "A DigitalOcean OAuth refresh token.",
        "dor_v1_",
        _HEX + r"{64}\b",
        ("dor_v1_[[hex:64]]",),
        ("dor_v1_<refresh token>",),
    ),
    _prefixed(
        "alibaba-access-key-id",
        "Alibaba Cloud AccessKey ID",
        "An Alibaba Cloud AccessKey ID.",
        "LTAI",
        _ALNUM + r"{20}\b",
        ("aliyun key LTAI[[alnum:20]]",),
        ("LTAI[[alnum:12]]",),
    ),
    _prefixed(
        "heroku-api-key",
        "Heroku API key",
        "A Heroku platform API key (HRKU-AA prefix).",
        "HRKU-AA",
        r"[\w-]{58}" + _END_DASH,
        ("HEROKU_API_KEY=HRKU-AA[[b64url:58]]",),
        ("HRKU-AA<token>",),
    ),
    _keyed(
        "heroku-api-key-uuid",
        "Heroku legacy API key",
        "A legacy Heroku API key: a UUID named as a Heroku key.",
        ("heroku",),
        _UUID,
        ("HEROKU_API_KEY=[[uuid]]", "the heroku api key is [[uuid]]"),
        ("heroku app: acme-staging", "heroku api key: <uuid>"),
    ),
    Rule(
        id="flyio-token",
        label="Fly.io access token",
        description="A Fly.io deploy, org or macaroon token.",
        pattern=(
            r"\b(?:fo1_[\w-]{43}|fm1[ar]_[A-Za-z0-9+/]{100,}={0,3}|fm2_[A-Za-z0-9+/]{100,}={0,3})"
        ),
        keywords=("fo1_", "fm1a_", "fm1r_", "fm2_"),
        examples=("FLY_API_TOKEN=FlyV1 fm2_[[b64:140]]", "fo1_[[b64url:43]]"),
        counter_examples=("fm2_<token>", "fo1_[[alnum:20]]"),
    ),
    _keyed(
        "vercel-token",
        "Vercel access token",
        "A Vercel access token named as such.",
        ("vercel",),
        r"[A-Za-z0-9]{24}",
        ("VERCEL_TOKEN=[[alnum:24]]", "the vercel token is [[alnum:24]]"),
        ("vercel project: acme-web", "vercel team id: team_[[alnum:24]]"),
    ),
    _keyed(
        "netlify-token",
        "Netlify access token",
        "A Netlify personal access token named as such.",
        ("netlify",),
        r"(?:nfp_)?[\w-]{40,46}",
        ("NETLIFY_AUTH_TOKEN=nfp_[[alnum:40]]", "netlify token: [[b64url:43]]"),
        ("netlify site id: [[uuid]]", "netlify token: <token>"),
    ),
    _keyed(
        "cloudflare-api-token",
        "Cloudflare API token or key",
        "A Cloudflare API token (40) or global API key (37 hex) named as such.",
        ("cloudflare", "cf_api_token", "cf_api_key"),
        r"[\w-]{40}|[a-f0-9]{37}",
        ("CLOUDFLARE_API_TOKEN=[[b64url:40]]", "cloudflare global key: [[hex:37]]"),
        ("cloudflare zone id: [[hex:32]]", "cloudflare token: ${CF_TOKEN}"),
    ),
    _prefixed(
        "cloudflare-origin-ca-key",
        "Cloudflare Origin CA key",
        "A Cloudflare Origin CA service key.",
        "v1.0-",
        r"[a-f0-9]{24}-[a-f0-9]{146}\b",
        ("origin ca key v1.0-[[hex:24]]-[[hex:146]]",),
        ("v1.0-[[hex:24]]", "release v1.0-rc1"),
    ),
    Rule(
        id="supabase-token",
        label="Supabase access token or secret key",
        description="A Supabase personal access token (sbp_) or secret API key (sb_secret_).",
        pattern=r"\b(?:sbp_[a-f0-9]{40}|sb_secret_[\w-]{30,64})" + _END_DASH,
        keywords=("sbp_", "sb_secret_"),
        examples=("supabase login --token sbp_[[hex:40]]", "sb_secret_[[b64url:32]]"),
        counter_examples=("sbp_<token>", "sb_publishable_[[b64url:32]]"),
    ),
    _prefixed(
        "databricks-token",
        "Databricks access token",
        "A Databricks personal access token.",
        "dapi",
        _HEX + r"{32}(?:-\d)?\b",
        ("DATABRICKS_TOKEN=dapi[[hex:32]]",),
        ("dapi tokens expire", "dapi[[hex:31]]"),
    ),
)

# -- AI providers -----------------------------------------------------------------

_AI: tuple[Rule, ...] = (
    _prefixed(
        "anthropic-api-key",
        "Anthropic API key",
        "An Anthropic API key: sk-ant-api03- + 93 + 'AA'.",
        "sk-ant-api03-",
        r"[\w-]{93}AA" + _END_DASH,
        ("ANTHROPIC_API_KEY=sk-ant-api03-[[b64url:93]]AA",),
        ("sk-ant-api03-...", "sk-ant-api03-[[b64url:93]]AB"),
    ),
    _prefixed(
        "anthropic-admin-key",
        "Anthropic admin API key",
        "An Anthropic admin API key.",
        "sk-ant-admin01-",
        r"[\w-]{93}AA" + _END_DASH,
        ("sk-ant-admin01-[[b64url:93]]AA",),
        ("sk-ant-admin01-[[b64url:60]]AA",),
    ),
    # Legacy user keys: sk- + 20 + "T3BlbkFJ" (base64 of "OpenAI") + 20.
    Rule(
        id="openai-api-key",
        label="OpenAI API key",
        description="A legacy OpenAI user key; the marker T3BlbkFJ sits 23 characters in.",
        pattern=r"\bsk-" + _ALNUM + r"{20}T3BlbkFJ" + _ALNUM + r"{20}\b",
        keywords=("T3BlbkFJ",),
        keyword_at=23,
        examples=("OPENAI_API_KEY=sk-[[alnum:20]]T3BlbkFJ[[alnum:20]]",),
        counter_examples=("sk-...", "sk-[[alnum:48]]"),
    ),
    Rule(
        id="openai-project-key",
        label="OpenAI project or service-account key",
        description="An OpenAI project, service-account or admin key.",
        pattern=r"\bsk-(?:proj|svcacct|admin)-[\w-]{20,100}T3BlbkFJ[\w-]{20,100}" + _END_DASH,
        keywords=("sk-proj-", "sk-svcacct-", "sk-admin-"),
        examples=("sk-proj-[[b64url:74]]T3BlbkFJ[[b64url:74]]",),
        counter_examples=("sk-proj-[[alnum:156]]", "sk-proj-..."),
    ),
    _prefixed(
        "huggingface-token",
        "Hugging Face access token",
        "A Hugging Face user access token.",
        "hf_",
        r"[A-Za-z]{34}\b",
        ("HF_TOKEN=hf_[[letters:34]]",),
        ("hf_hub_download", "hf_[[letters:30]]1234"),
    ),
    _prefixed(
        "huggingface-org-token",
        "Hugging Face organization token",
        "A Hugging Face organization API token.",
        "api_org_",
        r"[A-Za-z]{34}\b",
        ("api_org_[[letters:34]]",),
        ("api_org_id = 7",),
    ),
    _prefixed(
        "perplexity-api-key",
        "Perplexity API key",
        "A Perplexity API key.",
        "pplx-",
        _ALNUM + r"{48}\b",
        ("PPLX_API_KEY=pplx-[[alnum:48]]",),
        ("pplx-<key>",),
    ),
    _prefixed(
        "groq-api-key",
        "Groq API key",
        "A Groq API key.",
        "gsk_",
        _ALNUM + r"{52}\b",
        ("GROQ_API_KEY=gsk_[[alnum:52]]",),
        ("gsk_[[alnum:20]]",),
    ),
    _prefixed(
        "replicate-api-token",
        "Replicate API token",
        "A Replicate API token.",
        "r8_",
        _ALNUM + r"{37}\b",
        ("REPLICATE_API_TOKEN=r8_[[alnum:37]]",),
        ("r8_[[alnum:10]]",),
    ),
    _prefixed(
        "xai-api-key",
        "xAI API key",
        "An xAI (Grok) API key.",
        "xai-",
        _ALNUM + r"{80}\b",
        ("XAI_API_KEY=xai-[[alnum:80]]",),
        ("xai-<key>",),
    ),
    Rule(
        id="langsmith-api-key",
        label="LangSmith API key",
        description="A LangSmith personal or service key.",
        pattern=r"\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b",
        keywords=("lsv2_pt_", "lsv2_sk_"),
        examples=("LANGSMITH_API_KEY=lsv2_pt_[[hex:32]]_[[hex:10]]",),
        counter_examples=("lsv2_pt_<key>",),
    ),
    _prefixed(
        "pinecone-api-key",
        "Pinecone API key",
        "A Pinecone API key.",
        "pcsk_",
        r"\w{40,100}\b",
        ("PINECONE_API_KEY=pcsk_[[alnum:5]]_[[alnum:60]]",),
        ("pcsk_<key>",),
    ),
    _keyed(
        "cohere-api-key",
        "Cohere API key",
        "A Cohere API key (40 alphanumerics) named as such.",
        ("cohere", "co_api_key"),
        r"[A-Za-z0-9]{40}",
        ("CO_API_KEY=[[alnum:40]]", "cohere key is [[alnum:40]]"),
        ("cohere model: command-r-plus-08-2024",),
        entropy_min=4.0,
    ),
)

# -- git hosts and code tooling ------------------------------------------------------

_GIT_HOSTS: tuple[Rule, ...] = (
    _prefixed(
        "github-pat",
        "GitHub personal access token",
        "A classic GitHub personal access token.",
        "ghp_",
        _ALNUM + r"{36}\b",
        ("use ghp_[[alnum:36]] for the CI bot",),
        ("tokens start with ghp_", "ghp_[[alnum:35]]"),
    ),
    _prefixed(
        "github-fine-grained-pat",
        "GitHub fine-grained personal access token",
        "A fine-grained GitHub personal access token.",
        "github_pat_",
        r"\w{82}\b",
        ("github_pat_[[alnum:22]]_[[alnum:59]]",),
        ("github_pat_[[alnum:40]]",),
    ),
    Rule(
        id="github-app-token",
        label="GitHub App token",
        description="A GitHub App user-to-server (ghu_) or server-to-server (ghs_) token.",
        pattern=r"\bgh[us]_" + _ALNUM + r"{36}\b",
        keywords=("ghu_", "ghs_"),
        examples=("https://x-access-token:ghs_[[alnum:36]]@github.com/acme/app.git",),
        counter_examples=("ghs_[[alnum:37]]",),
    ),
    _prefixed(
        "github-oauth-token",
        "GitHub OAuth access token",
        "A GitHub OAuth access token.",
        "gho_",
        _ALNUM + r"{36}\b",
        ("gho_[[alnum:36]]",),
        ("gho_[[alnum:30]]------",),
    ),
    _prefixed(
        "github-refresh-token",
        "GitHub refresh token",
        "A GitHub refresh token.",
        "ghr_",
        _ALNUM + r"{36}\b",
        ("ghr_[[alnum:36]]",),
        ("ghr_" + "X" * 36,),
    ),
    _prefixed(
        "gitlab-pat",
        "GitLab personal access token",
        "A GitLab personal access token, plain or routable.",
        "glpat-",
        r"(?:[\w-]{27,300}\.[0-9a-z]{9}|[\w-]{20})" + _END_DASH,
        ("GITLAB_TOKEN=glpat-[[b64url:20]]", "glpat-[[b64url:30]].01[[lalnum:7]]"),
        ("glpat-[[alnum:19]]", "glpat-[[alnum:24]]"),
    ),
    _prefixed(
        "gitlab-deploy-token",
        "GitLab deploy token",
        "A GitLab deploy token.",
        "gldt-",
        r"[\w-]{20}" + _END_DASH,
        ("gldt-[[b64url:20]]",),
        ("gldt-[[alnum:21]]",),
    ),
    _prefixed(
        "gitlab-runner-token",
        "GitLab runner authentication token",
        "A GitLab runner authentication token.",
        "glrt-",
        r"(?:t\d_[\w-]{27,300}\.[0-9a-z]{9}|[\w-]{20})" + _END_DASH,
        ("glrt-[[b64url:20]]",),
        ("glrt-registration",),
    ),
    _prefixed(
        "gitlab-pipeline-trigger-token",
        "GitLab pipeline trigger token",
        "A GitLab pipeline trigger token.",
        "glptt-",
        _HEX + r"{40}\b",
        ("glptt-[[hex:40]]",),
        ("glptt-[[alnum:40]]zz",),
    ),
    _prefixed(
        "gitlab-runner-registration-token",
        "GitLab runner registration token",
        "A legacy GitLab runner registration token.",
        "GR1348941",
        r"[\w-]{20}" + _END_DASH,
        ("gitlab-runner register --registration-token GR1348941[[b64url:20]]",),
        ("GR1348941<token>",),
    ),
    Rule(
        id="gitlab-other-token",
        label="GitLab CI job, feed, mail, agent, OAuth, SCIM or feature-flag token",
        description="One of GitLab's other prefixed tokens.",
        pattern=(
            r"\bgl(?:cbt-[0-9a-zA-Z]{1,5}_[\w-]{20}|ft-[\w-]{20}|imt-[\w-]{25}|agent-[\w-]{50}"
            r"|oas-[\w-]{64}|soat-[\w-]{20}|ffct-[\w-]{20})" + _END_DASH
        ),
        keywords=("glcbt-", "glft-", "glimt-", "glagent-", "gloas-", "glsoat-", "glffct-"),
        examples=("glagent-[[b64url:50]]", "feed token glft-[[b64url:20]]"),
        counter_examples=("glagent-<token>", "glft-[[alnum:10]]"),
    ),
    _prefixed(
        "gitlab-session-cookie",
        "GitLab session cookie",
        "A GitLab session cookie value.",
        "_gitlab_session=",
        r"[0-9a-z]{32}\b",
        ("Cookie: _gitlab_session=[[lalnum:32]]",),
        ("_gitlab_session=<cookie>",),
    ),
    _prefixed(
        "atlassian-api-token",
        "Atlassian API token",
        "An Atlassian (Jira, Confluence) API token.",
        "ATATT3",
        r"[\w=-]{150,250}" + _END_DASH,
        ("JIRA_API_TOKEN=ATATT3xFfGF0[[b64url:180]]",),
        ("ATATT3<token>",),
    ),
    _keyed(
        "atlassian-legacy-token",
        "Atlassian legacy API token",
        "A 24-character Jira or Confluence API token named as such.",
        ("jira", "confluence", "atlassian"),
        r"[A-Za-z0-9]{24}",
        ("JIRA_TOKEN=[[alnum:24]]",),
        ("jira project: PLATFORM-2024", "jira ticket is OPS-1234"),
        entropy_min=3.5,
    ),
    _prefixed(
        "bitbucket-app-password",
        "Bitbucket app password",
        "A Bitbucket app password.",
        "ATBB",
        _ALNUM + r"{28,40}\b",
        ("BITBUCKET_APP_PASSWORD=ATBB[[alnum:32]]",),
        ("ATBB<password>",),
    ),
    _prefixed(
        "bitbucket-access-token",
        "Bitbucket access token",
        "A Bitbucket repository, project or workspace access token.",
        "ATCTT3",
        r"[\w=-]{150,250}" + _END_DASH,
        ("ATCTT3xFfGN0[[b64url:180]]",),
        ("ATCTT3<token>",),
    ),
    _keyed(
        "bitbucket-client-secret",
        "Bitbucket OAuth consumer secret",
        "A Bitbucket OAuth consumer secret named as such.",
        ("bitbucket",),
        r"[\w=-]{32,64}",
        ("BITBUCKET_CLIENT_SECRET=[[alnum:32]]",),
        ("bitbucket workspace: acme-engineering",),
        entropy_min=3.5,
    ),
    Rule(
        id="sourcegraph-token",
        label="Sourcegraph access token",
        description="A Sourcegraph access token.",
        pattern=r"\bsgp_(?:(?:[a-f0-9]{16}|local)_)?[a-f0-9]{40}\b",
        keywords=("sgp_",),
        examples=("SRC_ACCESS_TOKEN=sgp_[[hex:16]]_[[hex:40]]",),
        counter_examples=("sgp_<token>",),
    ),
)

# -- secret managers ------------------------------------------------------------------

_SECRET_MANAGERS: tuple[Rule, ...] = (
    Rule(
        id="vault-token",
        label="HashiCorp Vault token",
        description="A Vault service (hvs.), batch (hvb.) or recovery (hvr.) token.",
        pattern=r"\bhv[sbr]\.[\w-]{90,300}" + _END_DASH,
        keywords=("hvs.", "hvb.", "hvr."),
        examples=("VAULT_TOKEN=hvs.[[b64url:95]]", "hvb.[[b64url:140]]"),
        counter_examples=("hvs.<token>", "hvs.[[alnum:24]]"),
    ),
    _keyed(
        "vault-legacy-token",
        "HashiCorp Vault legacy token",
        "A legacy Vault token (s. + 24) named as a Vault token.",
        ("vault_token", "vault token", "x-vault-token"),
        r"s\.[A-Za-z0-9]{24}",
        ("VAULT_TOKEN=s.[[alnum:24]]", "the vault token is s.[[alnum:24]]"),
        ("vault token: s.<token>",),
    ),
    Rule(
        id="doppler-token",
        label="Doppler token",
        description="A Doppler personal, service, CLI, service-account, SCIM or audit token.",
        pattern=r"\bdp\.(?:pt|st|ct|sa|scim|audit)\.(?:[\w-]{1,40}\.)?[A-Za-z0-9]{40,44}\b",
        keywords=("dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."),
        examples=("DOPPLER_TOKEN=dp.st.prd.[[alnum:43]]", "dp.pt.[[alnum:43]]"),
        counter_examples=("dp.st.<token>",),
    ),
    _prefixed(
        "1password-service-account-token",
        "1Password service account token",
        "A 1Password service account token (ops_ + base64 JSON).",
        "ops_eyJ",
        r"[A-Za-z0-9+/]{250,}={0,3}",
        ("OP_SERVICE_ACCOUNT_TOKEN=ops_eyJ[[b64:300]]",),
        ("ops_eyJ<token>",),
    ),
    Rule(
        id="1password-secret-key",
        label="1Password account secret key",
        description="A 1Password account Secret Key (A3-...).",
        pattern=(
            r"\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}"
            r"-[A-Z0-9]{5}\b"
        ),
        keywords=("A3-",),
        allow=r"X{5}",
        examples=(
            "secret key A3-[[ualnum:6]]-[[ualnum:11]]-[[ualnum:5]]-[[ualnum:5]]-[[ualnum:5]]",
        ),
        counter_examples=("A3-XXXXXX-XXXXXX-XXXXX-XXXXX-XXXXX-XXXXX", "paper size A3-landscape"),
    ),
    Rule(
        id="infisical-service-token",
        label="Infisical service token",
        description="An Infisical service token: st.<id>.<secret>.<key>.",
        pattern=r"\bst\.[a-f0-9]{24,36}\.[a-f0-9]{32}\.[a-f0-9]{32}\b",
        trigger=r"st\.[0-9a-f]{24}",
        examples=("INFISICAL_TOKEN=st.[[hex:24]].[[hex:32]].[[hex:32]]",),
        counter_examples=("st.<token>", "1st.[[hex:24]]"),
    ),
    _keyed(
        "infisical-client-secret",
        "Infisical machine identity client secret",
        "An Infisical universal-auth client secret (64 hex) named as such.",
        ("infisical",),
        r"[a-f0-9]{64}",
        ("INFISICAL_CLIENT_SECRET=[[hex:64]]",),
        ("infisical project: backend-2024",),
    ),
    Rule(
        id="bitwarden-access-token",
        label="Bitwarden Secrets Manager access token",
        description="A Bitwarden Secrets Manager machine-account access token.",
        pattern=r"\b0\." + _UUID + r"\.[A-Za-z0-9]{30}:[A-Za-z0-9+/]{22}==",
        trigger=r"0\.[0-9a-f]{8}-[0-9a-f]{4}-",
        examples=("BWS_ACCESS_TOKEN=0.[[uuid]].[[alnum:30]]:[[b64:22]]==",),
        counter_examples=("version 0.[[uuid]]",),
    ),
)

# -- chat, mail and messaging -----------------------------------------------------------

_MESSAGING: tuple[Rule, ...] = (
    _prefixed(
        "slack-bot-token",
        "Slack bot token",
        "A Slack bot token (current or legacy form).",
        "xoxb-",
        r"\d{8,14}-(?:\d{10,13}-" + _ALNUM + r"{24,34}|" + _ALNUM + r"{18,26})\b",
        ("SLACK_BOT_TOKEN=xoxb-[[digits:11]]-[[digits:12]]-[[alnum:24]]",),
        ("xoxb-your-bot-token", "xoxb-[[digits:11]]-[[digits:12]]"),
    ),
    _prefixed(
        "slack-user-token",
        "Slack user token",
        "A Slack user token.",
        "xoxp-",
        r"(?:\d{10,13}-){3}" + _ALNUM + r"{28,34}\b",
        ("xoxp-[[digits:11]]-[[digits:11]]-[[digits:12]]-[[alnum:32]]",),
        ("xoxp-<user token>",),
    ),
    _prefixed(
        "slack-app-token",
        "Slack app-level token",
        "A Slack app-level token.",
        "xapp-",
        r"\d-A[A-Z0-9]{7,14}-\d{8,16}-[a-f0-9]{32,80}\b",
        ("xapp-1-A[[ualnum:10]]-[[digits:13]]-[[hex:64]]",),
        ("xapp-1-<token>",),
    ),
    Rule(
        id="slack-legacy-token",
        label="Slack legacy or configuration token",
        description="A Slack legacy workspace, refresh or configuration token.",
        pattern=(
            r"\bxox(?:[os]-\d+-\d+-\d+-[a-fA-F\d]{8,64}|[ar]-(?:\d-)?[0-9a-zA-Z]{8,48}"
            r"|e\.xox[bp]-\d-[A-Z0-9]{163,166}|e-\d-[A-Z0-9]{146})\b"
        ),
        keywords=("xoxo-", "xoxs-", "xoxa-", "xoxr-", "xoxe"),
        examples=("xoxe-1-[[ualnum:146]]", "xoxa-2-[[alnum:40]]"),
        counter_examples=("xoxa-<token>", "xoxo-hugs"),
    ),
    Rule(
        id="slack-webhook-url",
        label="Slack incoming webhook URL",
        description="A Slack incoming webhook or workflow trigger URL.",
        pattern=r"\bhooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,100}",
        keywords=("hooks.slack.com/",),
        examples=(
            "alerts go to https://hooks.slack.com/services/T[[ualnum:8]]/B[[ualnum:10]]/"
            "[[alnum:24]]",
        ),
        counter_examples=("https://hooks.slack.com/services/T000/B000/XXXXXXXX",),
    ),
    Rule(
        id="discord-bot-token",
        label="Discord bot token",
        description="A Discord bot token: base64 user id . timestamp . HMAC.",
        pattern=r"\b[MNO][\w-]{23,27}\.[\w-]{6}\.[\w-]{27,40}" + _END_DASH,
        trigger=r"[mno][a-z0-9_-]{23,27}\.[a-z0-9_-]{6}\.[a-z0-9_-]{27}",
        examples=("DISCORD_TOKEN=M[[b64url:25]].[[b64url:6]].[[b64url:38]]",),
        counter_examples=("M.<token>.<hmac>", "see docs/Makefile.example.txt"),
    ),
    Rule(
        id="discord-webhook-url",
        label="Discord webhook URL",
        description="A Discord webhook URL (id and token).",
        pattern=r"\bdiscord(?:app)?\.com/api/webhooks/\d{17,20}/[\w-]{60,68}" + _END_DASH,
        keywords=("discord.com/api/webhooks/", "discordapp.com/api/webhooks/"),
        examples=("post to https://discord.com/api/webhooks/[[digits:19]]/[[b64url:68]]",),
        counter_examples=("https://discord.com/api/webhooks/<id>/<token>",),
    ),
    Rule(
        id="telegram-bot-token",
        label="Telegram bot token",
        description="A Telegram bot token: bot id, ':', then 35 characters starting 'AA'.",
        pattern=r"\b\d{8,10}:AA[\w-]{33}" + _END_DASH,
        keywords=(":AA",),
        lookback=11,
        examples=("TELEGRAM_BOT_TOKEN=[[digits:10]]:AA[[b64url:33]]",),
        counter_examples=("[[digits:10]]:AA<rest of token>", "meeting at 10:AA"),
    ),
    Rule(
        id="teams-webhook-url",
        label="Microsoft Teams incoming webhook URL",
        description="A Microsoft Teams (Office 365 connector) incoming webhook URL.",
        pattern=(
            r"\bwebhook\.office\.com/webhookb2/"
            + _UUID
            + "@"
            + _UUID
            + r"/IncomingWebhook/[a-zA-Z0-9]{32}/"
            + _UUID
        ),
        keywords=("webhook.office.com/webhookb2/",),
        examples=(
            "https://acme.webhook.office.com/webhookb2/[[uuid]]@[[uuid]]/IncomingWebhook/"
            "[[hex:32]]/[[uuid]]",
        ),
        counter_examples=("https://acme.webhook.office.com/webhookb2/<id>",),
    ),
    Rule(
        id="teams-workflow-webhook-url",
        label="Power Automate / Teams workflow webhook URL",
        description="A signed Power Automate (Teams workflow) trigger URL.",
        pattern=(
            r"\blogic\.azure\.com(?::443)?/workflows/[0-9a-f]{32}/triggers/[^\s\"'<>]{0,300}?"
            r"[?&]sig=(?P<secret>[\w%-]{40,})"
        ),
        keywords=("logic.azure.com",),
        examples=(
            "https://prod-12.westus.logic.azure.com:443/workflows/[[hex:32]]/triggers/manual/"
            "paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&"
            "sig=[[b64url:43]]",
        ),
        counter_examples=("https://prod-12.westus.logic.azure.com/workflows/<id>/triggers",),
    ),
    _prefixed(
        "twilio-api-key",
        "Twilio API key",
        "A Twilio API key SID (SK + 32 hex); the account SID (AC...) is an identifier.",
        "SK",
        r"[0-9a-fA-F]{32}\b",
        ("TWILIO_API_KEY=SK[[hex:32]]",),
        ("TWILIO_ACCOUNT_SID=AC[[hex:32]]",),
        trigger=r"sk[0-9a-f]{32}",
    ),
    _keyed(
        "twilio-auth-token",
        "Twilio auth token",
        "A Twilio account auth token (32 hex) named as such.",
        ("twilio",),
        r"[a-f0-9]{32}",
        ("TWILIO_AUTH_TOKEN=[[hex:32]]",),
        ("twilio number: +1-555-0100",),
    ),
    _prefixed(
        "sendgrid-api-key",
        "SendGrid API key",
        "A SendGrid API key.",
        "SG.",
        r"[\w-]{22}\.[\w-]{43}" + _END_DASH,
        ("SENDGRID_API_KEY=SG.[[b64url:22]].[[b64url:43]]",),
        ("SG.<key>", "SG.[[b64url:22]]"),
    ),
    _prefixed(
        "mailgun-api-key",
        "Mailgun API key",
        "A Mailgun private API key.",
        "key-",
        r"[0-9a-f]{32}\b",
        ("MAILGUN_API_KEY=key-[[hex:32]]",),
        ("key-value store", "key-<hex>"),
        trigger=r"key-[0-9a-f]{32}",
    ),
    _keyed(
        "mailgun-signing-key",
        "Mailgun webhook signing key",
        "A Mailgun webhook signing key named as such.",
        ("mailgun",),
        r"[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}",
        ("mailgun signing key: [[hex:32]]-[[hex:8]]-[[hex:8]]",),
        ("mailgun domain: mg.example.org",),
    ),
    Rule(
        id="mailchimp-api-key",
        label="Mailchimp API key",
        description="A Mailchimp API key: 32 hex + '-us' + data-center number.",
        pattern=r"\b[0-9a-f]{32}-us\d{1,2}\b",
        trigger=r"[0-9a-f]{32}-us[0-9]",
        examples=("MAILCHIMP_API_KEY=[[hex:32]]-us21",),
        counter_examples=("[[hex:32]]-user", "locale en-us1"),
    ),
    _prefixed(
        "brevo-api-key",
        "Brevo (Sendinblue) API key",
        "A Brevo (formerly Sendinblue) API key.",
        "xkeysib-",
        r"[a-f0-9]{64}-[A-Za-z0-9]{16}\b",
        ("BREVO_API_KEY=xkeysib-[[hex:64]]-[[alnum:16]]",),
        ("xkeysib-<key>",),
    ),
    _keyed(
        "postmark-server-token",
        "Postmark server token",
        "A Postmark server or account token (a UUID) named as such.",
        ("postmark",),
        _UUID,
        ("POSTMARK_SERVER_TOKEN=[[uuid]]",),
        ("postmark stream: outbound",),
    ),
    _keyed(
        "mattermost-token",
        "Mattermost access token",
        "A Mattermost personal or bot access token named as such.",
        ("mattermost",),
        r"[a-z0-9]{26}",
        ("MATTERMOST_TOKEN=[[lalnum:26]]",),
        ("mattermost channel: town-square",),
        entropy_min=3.5,
    ),
    _keyed(
        "intercom-token",
        "Intercom access token",
        "An Intercom access token named as such.",
        ("intercom",),
        r"[\w=-]{60}",
        ("INTERCOM_ACCESS_TOKEN=dG9rOj[[b64url:54]]",),
        ("intercom app id: abc123",),
    ),
)

# -- developer tooling and SaaS APIs -------------------------------------------------------

_DEV_TOOLING: tuple[Rule, ...] = (
    _prefixed(
        "npm-access-token",
        "npm access token",
        "An npm access token.",
        "npm_",
        _ALNUM + r"{36}\b",
        ("//registry.npmjs.org/:_authToken=npm_[[alnum:36]]",),
        ("npm_config_cache", "npm_[[alnum:20]]"),
    ),
    Rule(
        id="pypi-upload-token",
        label="PyPI upload token",
        description="A PyPI or TestPyPI upload token (a macaroon for pypi.org).",
        pattern=r"\bpypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[\w-]{50,1000}+",
        keywords=("pypi-AgEIcHlwaS5vcmc", "pypi-AgENdGVzdC5weXBpLm9yZw"),
        examples=("TWINE_PASSWORD=pypi-AgEIcHlwaS5vcmc[[b64url:120]]",),
        counter_examples=("pypi-<token>", "pypi-AgEIcHlwaS5vcmc"),
    ),
    _prefixed(
        "rubygems-api-key",
        "RubyGems API key",
        "A RubyGems.org API key.",
        "rubygems_",
        r"[a-f0-9]{48}\b",
        ("GEM_HOST_API_KEY=rubygems_[[hex:48]]",),
        ("rubygems_<key>",),
    ),
    _prefixed(
        "nuget-api-key",
        "NuGet API key",
        "A nuget.org API key.",
        "oy2",
        r"[a-z0-9]{43}\b",
        ("dotnet nuget push -k oy2[[lalnum:43]]",),
        ("oy2<key>",),
    ),
    _prefixed(
        "clojars-token",
        "Clojars deploy token",
        "A Clojars deploy token.",
        "CLOJARS_",
        r"[a-z0-9]{60}\b",
        ("CLOJARS_[[lalnum:60]]",),
        ("CLOJARS_USERNAME",),
    ),
    _prefixed(
        "docker-hub-pat",
        "Docker Hub personal access token",
        "A Docker Hub personal access token.",
        "dckr_pat_",
        r"[\w-]{27}" + _END_DASH,
        ("docker login -u acme -p dckr_pat_[[b64url:27]]",),
        ("dckr_pat_<token>",),
    ),
    Rule(
        id="jfrog-token",
        label="JFrog Artifactory API key or reference token",
        description="A JFrog Artifactory API key (AKCp) or reference token (cmVmd).",
        pattern=r"\b(?:AKCp[A-Za-z0-9]{69}|cmVmd[A-Za-z0-9]{59})\b",
        keywords=("AKCp", "cmVmd"),
        examples=("ARTIFACTORY_API_KEY=AKCp[[alnum:69]]", "cmVmd[[alnum:59]]"),
        counter_examples=("AKCp<key>",),
    ),
    Rule(
        id="sonarqube-token",
        label="SonarQube token",
        description="A SonarQube project, user or analysis token.",
        pattern=r"\bsq[pua]_[a-f0-9]{40}\b",
        keywords=("sqp_", "squ_", "sqa_"),
        examples=("SONAR_TOKEN=sqp_[[hex:40]]",),
        counter_examples=("sqp_<token>",),
    ),
    _keyed(
        "snyk-token",
        "Snyk API token",
        "A Snyk API token (a UUID) named as such.",
        ("snyk",),
        _UUID,
        ("SNYK_TOKEN=[[uuid]]",),
        ("snyk org: acme",),
    ),
    _keyed(
        "codecov-token",
        "Codecov upload token",
        "A Codecov upload token named as such.",
        ("codecov",),
        _UUID + "|[a-z0-9]{32}",
        ("CODECOV_TOKEN=[[uuid]]",),
        ("codecov flags: unit",),
    ),
    _prefixed(
        "circleci-token",
        "CircleCI personal API token",
        "A CircleCI personal API token.",
        "CCIPAT_",
        r"[A-Za-z0-9]{22}_[a-f0-9]{40}\b",
        ("CIRCLE_TOKEN=CCIPAT_[[alnum:22]]_[[hex:40]]",),
        ("CCIPAT_<token>",),
    ),
    _prefixed(
        "buildkite-token",
        "Buildkite API token",
        "A Buildkite user API access token.",
        "bkua_",
        r"[a-f0-9]{40}\b",
        ("BUILDKITE_API_TOKEN=bkua_[[hex:40]]",),
        ("bkua_<token>",),
    ),
    _keyed(
        "travis-token",
        "Travis CI token",
        "A Travis CI API token named as such.",
        ("travis",),
        r"[A-Za-z0-9]{22}",
        ("TRAVIS_TOKEN=[[alnum:22]]",),
        ("travis stage: deploy-production",),
        entropy_min=3.5,
    ),
    Rule(
        id="terraform-cloud-token",
        label="Terraform Cloud / HCP Terraform API token",
        description="An HCP Terraform user, team or organization token: 14 + .atlasv1. + 60-70.",
        pattern=r"\b" + _ALNUM + r"{14}\.atlasv1\.[\w=-]{60,70}(?![\w=-])",
        keywords=(".atlasv1.",),
        keyword_at=14,
        examples=("TF_TOKEN_app_terraform_io=[[alnum:14]].atlasv1.[[b64url:67]]",),
        counter_examples=("example.atlasv1.short", "[[alnum:14]].atlasv1.[[alnum:30]]"),
    ),
    _prefixed(
        "pulumi-access-token",
        "Pulumi access token",
        "A Pulumi Cloud access token.",
        "pul-",
        _HEX + r"{40}\b",
        ("PULUMI_ACCESS_TOKEN=pul-[[hex:40]]",),
        ("pul-[[hex:39]]",),
    ),
    _prefixed(
        "postman-api-key",
        "Postman API key",
        "A Postman API key.",
        "PMAK-",
        r"[0-9a-fA-F]{24}-[0-9a-fA-F]{34}\b",
        ("POSTMAN_API_KEY=PMAK-[[hex:24]]-[[hex:34]]",),
        ("PMAK-[[hex:24]]",),
    ),
    _prefixed(
        "prefect-api-key",
        "Prefect API key",
        "A Prefect Cloud API key.",
        "pnu_",
        _ALNUM + r"{36}\b",
        ("PREFECT_API_KEY=pnu_[[alnum:36]]",),
        ("pnu_<key>",),
    ),
    _prefixed(
        "readme-api-key",
        "ReadMe API key",
        "A ReadMe API key.",
        "rdme_",
        r"[a-z0-9]{70}\b",
        ("rdme_[[lalnum:70]]",),
        ("rdme_<key>",),
    ),
    Rule(
        id="planetscale-token",
        label="PlanetScale token or password",
        description="A PlanetScale service token, OAuth token or database password.",
        pattern=r"\bpscale_(?:tkn|pw|oauth)_[\w=.-]{32,64}" + _END_DASH,
        keywords=("pscale_tkn_", "pscale_pw_", "pscale_oauth_"),
        examples=("PLANETSCALE_PASSWORD=pscale_pw_[[b64url:43]]",),
        counter_examples=("pscale_pw_<password>",),
    ),
    _prefixed(
        "scalingo-token",
        "Scalingo API token",
        "A Scalingo API token.",
        "tk-us-",
        r"[\w-]{48}" + _END_DASH,
        ("tk-us-[[b64url:48]]",),
        ("tk-us-<token>",),
    ),
    _prefixed(
        "infracost-token",
        "Infracost API key",
        "An Infracost API key.",
        "ico-",
        _ALNUM + r"{32}\b",
        ("INFRACOST_API_KEY=ico-[[alnum:32]]",),
        ("ico-<key>",),
    ),
    Rule(
        id="harness-token",
        label="Harness access token",
        description="A Harness personal (pat.) or service (sat.) access token.",
        pattern=r"\b(?:pat|sat)\.[\w-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}\b",
        keywords=("pat.", "sat."),
        trigger=r"(?:pat|sat)\.[a-z0-9_-]{22}\.",
        examples=("HARNESS_TOKEN=pat.[[b64url:22]].[[alnum:24]].[[alnum:20]]",),
        counter_examples=("pat.<token>",),
    ),
    _prefixed(
        "octopus-deploy-api-key",
        "Octopus Deploy API key",
        "An Octopus Deploy API key.",
        "API-",
        r"[A-Z0-9]{26}\b",
        ("OCTOPUS_API_KEY=API-[[ualnum:26]]",),
        ("API-GATEWAY", "API-[[ualnum:10]]"),
        trigger=r"api-[a-z0-9]{26}",
    ),
    Rule(
        id="linear-api-key",
        label="Linear API key",
        description="A Linear personal API key or OAuth token.",
        pattern=r"\blin_(?:api_[A-Za-z0-9]{40}|oauth_[a-f0-9]{64})\b",
        keywords=("lin_api_", "lin_oauth_"),
        examples=("LINEAR_API_KEY=lin_api_[[alnum:40]]",),
        counter_examples=("lin_api_<key>",),
    ),
    Rule(
        id="notion-token",
        label="Notion integration token",
        description="A Notion integration token (ntn_, or the older secret_ form).",
        pattern=r"\b(?:ntn_\d{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})\b",
        keywords=("ntn_", "secret_"),
        trigger=r"ntn_|secret_[a-z0-9]{43}",
        examples=("NOTION_TOKEN=ntn_[[digits:11]][[alnum:35]]", "secret_[[alnum:43]]"),
        counter_examples=("secret_key_base", "ntn_<token>"),
    ),
    Rule(
        id="airtable-pat",
        label="Airtable personal access token",
        description="An Airtable personal access token: pat + 14 + '.' + 64 hex.",
        pattern=r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b",
        trigger=r"pat[a-z0-9]{14}\.[0-9a-f]{8}",
        examples=("AIRTABLE_TOKEN=pat[[alnum:14]].[[hex:64]]",),
        counter_examples=("pattern.md", "pat<id>.<secret>"),
    ),
    _keyed(
        "asana-token",
        "Asana personal access token",
        "An Asana personal access token named as such.",
        ("asana",),
        r"[0-9]/[0-9]{13,17}(?:/[0-9]{13,17})?:[a-f0-9]{32}",
        ("ASANA_TOKEN=2/[[digits:16]]/[[digits:16]]:[[hex:32]]",),
        ("asana project: 1200000000000000",),
    ),
    _prefixed(
        "figma-token",
        "Figma personal access token",
        "A Figma personal access token.",
        "figd_",
        r"[\w-]{40}" + _END_DASH,
        ("FIGMA_TOKEN=figd_[[b64url:40]]",),
        ("figd_<token>",),
    ),
    _prefixed(
        "typeform-token",
        "Typeform personal access token",
        "A Typeform personal access token.",
        "tfp_",
        r"[\w.=-]{59}" + _END_DASH,
        ("tfp_[[b64url:59]]",),
        ("tfp_<token>",),
    ),
    _keyed(
        "pagerduty-token",
        "PagerDuty API key",
        "A PagerDuty REST API key named as such.",
        ("pagerduty",),
        r"u\+[\w-]{18}|[\w+-]{20}",
        ("PAGERDUTY_TOKEN=u+[[b64url:18]]",),
        ("pagerduty service: checkout-api-prod",),
        entropy_min=3.5,
    ),
)

# -- observability -------------------------------------------------------------------------

_OBSERVABILITY: tuple[Rule, ...] = (
    _prefixed(
        "grafana-api-key",
        "Grafana API key",
        'A legacy Grafana API key (base64 JSON starting {"k":).',
        "eyJrIjoi",
        r"[A-Za-z0-9]{70,400}={0,3}(?![A-Za-z0-9=])",
        ("GRAFANA_API_KEY=eyJrIjoi[[alnum:80]]",),
        ("eyJrIjoi[[alnum:40]]",),
    ),
    _prefixed(
        "grafana-cloud-token",
        "Grafana Cloud access policy token",
        "A Grafana Cloud access policy token.",
        "glc_",
        r"[A-Za-z0-9+/]{32,400}={0,3}(?![A-Za-z0-9+/=])",
        ("glc_[[b64:120]]=",),
        ("glc_[[alnum:20]]",),
    ),
    _prefixed(
        "grafana-service-account-token",
        "Grafana service account token",
        "A Grafana service account token.",
        "glsa_",
        _ALNUM + r"{32}_[A-Fa-f0-9]{8}\b",
        ("glsa_[[alnum:32]]_[[hex:8]]",),
        ("glsa_[[alnum:32]]",),
    ),
    _prefixed(
        "sentry-org-token",
        "Sentry organization auth token",
        "A Sentry organization auth token.",
        "sntrys_",
        r"eyJpYXQiO[A-Za-z0-9+/]{10,200}(?:LCJyZWdpb25fdXJs|InJlZ2lvbl91cmwi|cmVnaW9uX3VybCI6)"
        r"[A-Za-z0-9+/]{10,200}={0,2}_[A-Za-z0-9+/]{43}(?![A-Za-z0-9+/])",
        ("sntrys_eyJpYXQiO[[b64:40]]LCJyZWdpb25fdXJs[[b64:40]]_[[b64:43]]",),
        ("sntrys_[[alnum:60]]",),
    ),
    _prefixed(
        "sentry-user-token",
        "Sentry user auth token",
        "A Sentry user auth token.",
        "sntryu_",
        _HEX + r"{64}\b",
        ("SENTRY_AUTH_TOKEN=sntryu_[[hex:64]]",),
        ("sntryu_[[hex:63]]",),
    ),
    _keyed(
        "datadog-api-key",
        "Datadog API or application key",
        "A Datadog API key (32 hex) or application key (40 hex) named as such.",
        ("datadog", "dd_api_key", "dd_app_key", "dd-api-key", "dd-application-key"),
        r"[a-f0-9]{40}|[a-f0-9]{32}",
        ("DD_API_KEY=[[hex:32]]", "datadog app key is [[hex:40]]"),
        ("datadog site: datadoghq.eu", "datadog dashboard id: abc-123-xyz"),
    ),
    Rule(
        id="new-relic-key",
        label="New Relic key",
        description="A New Relic user API key, browser key or insert key.",
        pattern=r"\bNR(?:AK-[A-Z0-9]{27}|JS-[a-f0-9]{19}|II-[\w-]{32})" + _END_DASH,
        keywords=("NRAK-", "NRJS-", "NRII-"),
        examples=("NEW_RELIC_API_KEY=NRAK-[[ualnum:27]]",),
        counter_examples=("NRAK-<key>",),
    ),
    _keyed(
        "new-relic-license-key",
        "New Relic license key",
        "A New Relic ingest license key named as such.",
        ("new_relic_license", "newrelic", "new relic", "new_relic"),
        r"[a-f0-9]{36}NRAL|[a-f0-9]{40}",
        ("NEW_RELIC_LICENSE_KEY=[[hex:36]]NRAL",),
        ("new relic account: 1234567",),
    ),
    Rule(
        id="dynatrace-token",
        label="Dynatrace API token",
        description="A Dynatrace API token.",
        pattern=r"\bdt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}\b",
        keywords=("dt0c01.",),
        examples=("DT_API_TOKEN=dt0c01.[[ualnum:24]].[[ualnum:64]]",),
        counter_examples=("dt0c01.<token>",),
    ),
    _keyed(
        "splunk-hec-token",
        "Splunk HEC token",
        "A Splunk HTTP Event Collector token (a UUID) named as such.",
        ("splunk",),
        _UUID,
        ("SPLUNK_HEC_TOKEN=[[uuid]]",),
        ("splunk index: main",),
    ),
)

# -- payments and commerce -------------------------------------------------------------------

_COMMERCE: tuple[Rule, ...] = (
    # Live mode only: test-mode keys move no money and fill tutorials.
    _prefixed(
        "stripe-secret-key",
        "Stripe live secret key",
        "A Stripe live-mode secret key.",
        "sk_live_",
        _ALNUM + r"{24,99}\b",
        ("STRIPE_SECRET_KEY=sk_live_[[alnum:32]]",),
        ("sk_test_[[alnum:32]]", "sk_live_..."),
    ),
    _prefixed(
        "stripe-restricted-key",
        "Stripe live restricted key",
        "A Stripe live-mode restricted key.",
        "rk_live_",
        _ALNUM + r"{24,99}\b",
        ("rk_live_[[alnum:32]]",),
        ("rk_test_[[alnum:32]]",),
    ),
    _prefixed(
        "webhook-signing-secret",
        "Webhook signing secret (whsec_)",
        "A Stripe, Svix or Clerk webhook signing secret.",
        "whsec_",
        r"[A-Za-z0-9+/]{32,88}={0,2}(?![\w+/=])",
        ("STRIPE_WEBHOOK_SECRET=whsec_[[alnum:32]]", "whsec_[[b64:32]]"),
        ("whsec_...", "whsec_<signing secret>"),
    ),
    _prefixed(
        "shopify-access-token",
        "Shopify access token",
        "A Shopify Admin API access token.",
        "shpat_",
        r"[a-fA-F0-9]{32}\b",
        ("shpat_[[hex:32]]",),
        ("shpat_[[hex:31]]",),
    ),
    _prefixed(
        "shopify-custom-app-token",
        "Shopify custom app token",
        "A Shopify custom app access token.",
        "shpca_",
        r"[a-fA-F0-9]{32}\b",
        ("shpca_[[hex:32]]",),
        ("shpca_[[letters:32]]",),
    ),
    _prefixed(
        "shopify-private-app-token",
        "Shopify private app token",
        "A Shopify private app access token.",
        "shppa_",
        r"[a-fA-F0-9]{32}\b",
        ("shppa_[[hex:32]]",),
        ("shppa_[[hex:33]]",),
    ),
    _prefixed(
        "shopify-shared-secret",
        "Shopify shared secret",
        "A Shopify app shared secret.",
        "shpss_",
        r"[a-fA-F0-9]{32}\b",
        ("shpss_[[hex:32]]",),
        ("shpss_" + "0" * 32,),
    ),
    Rule(
        id="square-token",
        label="Square access token or OAuth secret",
        description="A Square access token (EAAA, sq0atp-) or OAuth application secret (sq0csp-).",
        pattern=r"\b(?:EAAA[\w-]{60}|sq0atp-[\w-]{22}|sq0csp-[\w-]{43})" + _END_DASH,
        keywords=("EAAA", "sq0atp-", "sq0csp-"),
        examples=("SQUARE_ACCESS_TOKEN=EAAA[[b64url:60]]", "sq0csp-[[b64url:43]]"),
        counter_examples=("EAAA<token>",),
    ),
    _prefixed(
        "braintree-access-token",
        "PayPal Braintree access token",
        "A PayPal Braintree production access token.",
        "access_token$production$",
        r"[a-z0-9]{16}\$[a-f0-9]{32}\b",
        ("access_token$production$[[lalnum:16]]$[[hex:32]]",),
        ("access_token$production$<id>$<secret>",),
    ),
    Rule(
        id="shippo-token",
        label="Shippo API token",
        description="A Shippo live or test API token.",
        pattern=r"\bshippo_(?:live|test)_[a-fA-F0-9]{40}\b",
        keywords=("shippo_live_", "shippo_test_"),
        examples=("shippo_live_[[hex:40]]",),
        counter_examples=("shippo_live_<token>",),
    ),
    Rule(
        id="easypost-token",
        label="EasyPost API key",
        description="An EasyPost production or test API key.",
        pattern=r"\bEZ[AT]K[A-Za-z0-9]{54}\b",
        keywords=("EZAK", "EZTK"),
        examples=("EASYPOST_API_KEY=EZAK[[alnum:54]]",),
        counter_examples=("EZAK<key>",),
    ),
    Rule(
        id="duffel-token",
        label="Duffel API token",
        description="A Duffel live or test API token.",
        pattern=r"\bduffel_(?:test|live)_[\w=-]{43}" + _END_DASH,
        keywords=("duffel_test_", "duffel_live_"),
        examples=("duffel_live_[[b64url:43]]",),
        counter_examples=("duffel_live_<token>",),
    ),
    Rule(
        id="flutterwave-secret-key",
        label="Flutterwave secret key",
        description="A Flutterwave secret or encryption key.",
        pattern=r"\bFLWSECK(?:_TEST)?-[a-hA-H0-9]{32}-X\b",
        keywords=("FLWSECK",),
        examples=("FLWSECK-[[hex:32]]-X",),
        counter_examples=("FLWSECK-<key>-X",),
    ),
    _keyed(
        "plaid-secret",
        "Plaid secret or access token",
        "A Plaid secret (30) or access token named as such.",
        ("plaid",),
        r"access-(?:sandbox|development|production)-" + _UUID + r"|[a-z0-9]{30}",
        ("PLAID_SECRET=[[lalnum:30]]", "plaid access token: access-production-[[uuid]]"),
        ("plaid env: sandbox",),
    ),
    _keyed(
        "coinbase-token",
        "Coinbase access token",
        "A Coinbase API access token named as such.",
        ("coinbase",),
        r"[\w-]{64}",
        ("COINBASE_ACCESS_TOKEN=[[b64url:64]]",),
        ("coinbase account: trading",),
        entropy_min=3.5,
    ),
)

# -- private keys ----------------------------------------------------------------------------

_PRIVATE_KEYS: tuple[Rule, ...] = (
    _pem_rule("private-key-rsa", "RSA private key", "RSA PRIVATE KEY", "RSA PUBLIC KEY"),
    _pem_rule("private-key-ec", "EC private key", "EC PRIVATE KEY", "EC PARAMETERS"),
    _pem_rule("private-key-dsa", "DSA private key", "DSA PRIVATE KEY", "DSA PARAMETERS"),
    _pem_rule(
        "private-key-openssh",
        "OpenSSH private key",
        "OPENSSH PRIVATE KEY",
        "ssh-ed25519 [[b64:68]] user@host",
    ),
    _pem_rule(
        "private-key-pgp", "PGP private key block", "PGP PRIVATE KEY BLOCK", "PGP PUBLIC KEY BLOCK"
    ),
    _pem_rule("private-key-pkcs8", "PKCS#8 private key", "PRIVATE KEY", "CERTIFICATE"),
    _pem_rule(
        "private-key-encrypted",
        "Encrypted PKCS#8 private key",
        "ENCRYPTED PRIVATE KEY",
        "CERTIFICATE REQUEST",
    ),
    # Any other kind: OPENVPN STATIC KEY, SSH2 ENCRYPTED PRIVATE KEY, X509 CRL's key...
    Rule(
        id="private-key-other",
        label="Private key (PEM, other kinds)",
        description="A PEM block of any other private or secret key kind.",
        pattern=(
            r"-----BEGIN (?:[A-Z0-9]+ )*(?:PRIVATE|SECRET|STATIC) KEY(?: [A-Z0-9]+)?-----"
            + _PEM_HEADERS
            + _PEM_BODY
            + r"(?:-----END [A-Z0-9 ]+-----)?"
        ),
        keywords=("-----BEGIN ",),
        placeholder_check=False,
        examples=(
            "-----BEGIN OpenVPN Static key V1-----\n".upper()
            + _PEM_EXAMPLE_BODY
            + "\n-----END OPENVPN STATIC KEY V1-----",
            "-----BEGIN SSH2 ENCRYPTED PRIVATE KEY-----\n"
            + _PEM_EXAMPLE_BODY
            + "\n-----END SSH2 ENCRYPTED PRIVATE KEY-----",
        ),
        counter_examples=("-----BEGIN CERTIFICATE-----\n[[b64:64]]\n-----END CERTIFICATE-----",),
    ),
    Rule(
        id="putty-private-key",
        label="PuTTY private key",
        description="A PuTTY .ppk private key file's private lines.",
        pattern=r"PuTTY-User-Key-File-[23]:[^\n]*\n(?:[^\n]*\n){0,40}?Private-Lines: \d+\s+"
        r"[A-Za-z0-9+/=]{32,}",
        keywords=("PuTTY-User-Key-File-",),
        placeholder_check=False,
        examples=(
            "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\n"
            "Public-Lines: 2\n[[b64:64]]\n[[b64:20]]\nPrivate-Lines: 1\n[[b64:44]]\n",
        ),
        counter_examples=("PuTTY-User-Key-File-3: ssh-ed25519 (see the wiki)",),
    ),
    _prefixed(
        "age-secret-key",
        "age secret key",
        "An age encryption identity (secret key).",
        "AGE-SECRET-KEY-1",
        r"[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b",
        ("# created: 2025-01-01\nAGE-SECRET-KEY-1[[bech32:58]]",),
        ("recipient age1[[lbase32:58]]", "AGE-SECRET-KEY-1..."),
    ),
    Rule(
        id="jwt",
        label="JSON Web Token",
        description="A signed JSON Web Token (header.payload.signature, base64url JSON).",
        pattern=(
            r"\beyJ[\w-]{15,4096}+={0,2}\.eyJ[\w-]{15,16384}+={0,2}\.[\w-]{16,2048}+={0,2}"
            r"(?![\w=-])"
        ),
        keywords=("eyJ",),
        examples=(
            "session cookie eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ[[b64url:60]].[[b64url:43]]",
        ),
        counter_examples=("header eyJhbGciOiJIUzI1NiJ9", "eyJ<header>.eyJ<payload>.<signature>"),
    ),
)

# -- connection strings ------------------------------------------------------------------------

_CONNECTION_STRINGS: tuple[Rule, ...] = (
    _url_rule(
        "postgres-url-password",
        "PostgreSQL connection URL with a password",
        ("postgresql", "postgres"),
        (
            "the staging db is postgres://app:[[alnum:16]]@db.internal:5432/app",
            "DATABASE_URL=postgresql+psycopg://svc:[[pw:12]]@10.0.0.5/orders",
        ),
        (
            "postgres://user:password@localhost:5432/db",
            "postgres://app:${DB_PASSWORD}@db:5432/app",
            "postgres://postgres:postgres@localhost/test",
            "postgres://localhost:5432/app",
        ),
    ),
    _url_rule(
        "mysql-url-password",
        "MySQL or MariaDB connection URL with a password",
        ("mysql", "mariadb"),
        ("mysql://root:[[alnum:14]]@127.0.0.1:3306/shop",),
        ("mysql://root:<password>@localhost/shop", "mysql://localhost/shop"),
    ),
    _url_rule(
        "mongodb-url-password",
        "MongoDB connection URL with a password",
        ("mongodb",),
        (
            "MONGO_URL=mongodb+srv://api:[[alnum:20]]@cluster0.ab1cd.mongodb.net/prod",
            "mongodb://admin:[[pw:16]]@mongo-0:27017/?authSource=admin",
        ),
        ("mongodb+srv://<user>:<password>@cluster0.mongodb.net", "mongodb://localhost:27017"),
    ),
    _url_rule(
        "redis-url-password",
        "Redis connection URL with a password",
        ("rediss", "redis"),
        ("REDIS_URL=rediss://default:[[alnum:32]]@cache.internal:6380/0",),
        ("redis://:@localhost:6379", "redis://localhost:6379/0", "redis://:***@cache:6379"),
    ),
    _url_rule(
        "amqp-url-password",
        "AMQP (RabbitMQ) connection URL with a password",
        ("amqps", "amqp"),
        ("broker: amqps://orders:[[alnum:18]]@rabbit.internal:5671/vhost",),
        ("amqp://guest:guest@localhost:5672/", "amqp://user:pass@host"),
    ),
    _url_rule(
        "database-url-password",
        "Database connection URL with a password",
        (
            "sqlserver",
            "mssql",
            "oracle",
            "clickhouse",
            "cockroachdb",
            "couchbase",
            "cassandra",
            "neo4j",
            "bolt",
            "snowflake",
            "redshift",
            "kafka",
            "nats",
        ),
        ("clickhouse://etl:[[alnum:20]]@ch.internal:9000/events",),
        ("clickhouse://default:@localhost:9000",),
    ),
    _url_rule(
        "service-url-password",
        "FTP, SMTP, IMAP or LDAP URL with a password",
        ("sftp", "ftps", "ftp", "smtps", "smtp", "imaps", "imap", "ldaps", "ldap", "ssh"),
        ("mail relay smtp://alerts:[[alnum:16]]@smtp.mailhost.net:587",),
        ("smtp://user:secret@mail.example.com", "ftp://anonymous:@ftp.gnu.org"),
    ),
)

# -- context rules for generic credentials --------------------------------------------------------

# A name that describes a credential rather than holding one: its id, where it
# lives, how long it lasts, a hash of it.
_NAME_ALLOW = (
    r"(?i)(?:\b|_)(?:id|ids|name|names|url|uri|urls|endpoint|path|file|type|length|size|"
    r"version|count|expiry|expires?|expiration|ttl|header|prefix|format|field|env|var|"
    r"variable|hash|sha\d*|md5|checksum|digest|fingerprint|rotation|policy|scopes?|arn|"
    r"ref|reference|kind|usage|limit|budget|window|refresh_url|issuer|audience)s?\b"
)
_VALUE_END = r"(?![^\s'\"`;&,<>])"
_PASSWORD_VALUE = r"(?P<secret>[^\s'\"`;&,<>]{8,128}+)" + _VALUE_END

_GENERIC: tuple[Rule, ...] = (
    Rule(
        id="url-password",
        label="URL with an embedded password",
        description="A scheme://user:password@host URL whose password is not a placeholder.",
        pattern=_URL_PASSWORD,
        keywords=("://",),
        trigger=r"://[^\s/@'\"`<>]*?:[^\s/@'\"`<>]*?@",
        check=_url_password_check,
        placeholder_check=False,
        generic=True,
        examples=(
            "clone with https://deploy:[[alnum:24]]@git.internal/acme/app.git",
            "proxy http://svc:[[pw:14]]@proxy.corp:3128",
        ),
        counter_examples=(
            "https://user:password@example.com/",
            "https://${USER}:${TOKEN}@host/x",
            "https://github.com/acme/app",
            "ssh://git@github.com:22/acme/app.git",
            "https://user@host/path",
        ),
    ),
    Rule(
        id="oauth-client-secret",
        label="OAuth client secret",
        description="A client, consumer or app secret after its name.",
        pattern=(
            r"(?i:client[_ .-]?secret|consumer[_ .-]?secret|app(?:lication)?[_ .-]?secret)"
            + _GAP
            + _SEP
            + _TOKEN_VALUE
        ),
        keywords=(
            "client_secret",
            "client-secret",
            "client secret",
            "client.secret",
            "clientsecret",
            "consumer_secret",
            "consumer secret",
            "app_secret",
            "app secret",
            "appsecret",
            "application secret",
            "application_secret",
        ),
        trigger=(
            r"(?:client[_ .-]?secret|consumer[_ .-]?secret|app(?:lication)?[_ .-]?secret)"
            + _CONTEXT_TRIGGER
            + _TOKEN_HEAD
        ),
        entropy=3.0,
        generic=True,
        name_allow=_NAME_ALLOW,
        check=_token_check,
        examples=(
            "GITHUB_CLIENT_SECRET=[[hex:40]]",
            "the oauth client secret is [[b64url:32]]",
            '"client_secret": "[[alnum:24]]"',
        ),
        counter_examples=(
            "client_secret: <from the console>",
            "client secret is stored in Vault",
            "client_secret_expiry: 2026-01-01T00:00:00Z",
        ),
    ),
    Rule(
        id="password-assignment",
        label="Password",
        description="A password written after its name (password:, DB_PASSWORD=, 'password is').",
        pattern=r"(?i:passw(?:or)?d|passphrase|\bpwd?\b|\bpass\b)" + _GAP + _SEP + _PASSWORD_VALUE,
        keywords=("password", "passwd", "passphrase", "pwd", "pw", "pass"),
        trigger=r"(?:password|passwd|passphrase|pwd?|pass)" + _CONTEXT_TRIGGER + _PASSWORD_HEAD,
        entropy=2.5,
        generic=True,
        name_allow=_NAME_ALLOW,
        check=_password_check,
        examples=(
            "the staging db password is [[pw:14]]",
            "DB_PASSWORD=[[alnum:20]]",
            "pw for the build box: [[pw:12]]",
            '"password": "[[pw:16]]"',
            "Server=tcp:sql.internal;User ID=app;Password=[[alnum:18]];Encrypt=True",
        ),
        counter_examples=(
            "password: changeme",
            "password: ${DB_PASSWORD}",
            "DB_PASSWORD=$DB_PASSWORD",
            "password: <your password>",
            "the password is stored in 1Password",
            "passwords are rotated every 90 days",
            "the password policy is 12-characters",
            "password: ********",
            'password = os.environ["DB_PASSWORD"]',
            "password: {{ db_password }}",
            "password: your-password-here",
            "password: hunter2",
            "pass the flag: --strict-mode",
            "pw: see the team vault",
            "password_hash = $2b$12$[[b64:53]]",
        ),
    ),
    Rule(
        id="generic-secret",
        label="Secret, token or API key",
        description="A random-looking value after secret, token, api key, access key or auth key.",
        pattern=(
            r"(?i:secret|token|api[_ .-]?key|apikey|access[_ .-]?key|auth[_ .-]?key|"
            r"private[_ .-]?key|credentials?)" + _GAP + _SEP + _TOKEN_VALUE
        ),
        keywords=(
            "secret",
            "token",
            "api_key",
            "api-key",
            "api key",
            "api.key",
            "apikey",
            "access_key",
            "access-key",
            "access key",
            "accesskey",
            "auth_key",
            "auth-key",
            "auth key",
            "authkey",
            "private_key",
            "private-key",
            "private key",
            "privatekey",
            "credential",
        ),
        trigger=(
            r"(?:secret|token|api[_ .-]?key|apikey|access[_ .-]?key|auth[_ .-]?key|"
            r"private[_ .-]?key|credential)" + _CONTEXT_TRIGGER + _TOKEN_HEAD
        ),
        entropy=3.5,
        generic=True,
        name_allow=_NAME_ALLOW,
        check=_token_check,
        examples=(
            "api key for the billing service: [[alnum:32]]",
            "SESSION_SECRET=[[b64:44]]",
            "the deploy token is [[b64url:40]]",
            "X-Api-Key: [[hex:40]]",
            "wallet private key: [[hex:64]]",
        ),
        counter_examples=(
            "token: ${{ secrets.GITHUB_TOKEN }}",
            "token: GITHUB_TOKEN",
            "api_key = os.environ.get('API_KEY')",
            "the token is valid for 3600 seconds",
            "secret_name: prod-db-credentials-2024",
            "token_url: https://auth.example.com/oauth/token",
            "secret.yaml sha256: [[hex:64]]",
            "api key: <redacted>",
            "tokens: 200k context window",
            "secret id: [[uuid]]",
            "token: your-api-key",
            "api_key: xxxxxxxxxxxxxxxxxxxxxxxx",
            "access key: AKIAIOSFODNN7EXAMPLE",
            "token: $API_TOKEN",
            "secret: dummy-secret-for-tests",
        ),
    ),
    Rule(
        id="bearer-token",
        label="Bearer token",
        description="A random-looking value after 'Bearer' (an Authorization header).",
        pattern=r"\b(?i:bearer)[ \t]+(?P<secret>[\w.~+/-]{20,}+=*)(?![\w.~+/=-])",
        keywords=("bearer",),
        trigger=r"bearer[ \t]+[a-z0-9_.~+/-]{20}",
        entropy=3.5,
        generic=True,
        check=_token_check,
        examples=("curl -H 'Authorization: Bearer [[b64url:48]]' https://api.internal/v1",),
        counter_examples=(
            "Authorization: Bearer <token>",
            "Authorization: Bearer $TOKEN",
            "a bearer token is sent in the header",
        ),
    ),
    Rule(
        id="authorization-header",
        label="Authorization header credential",
        description=(
            "A random-looking credential in an Authorization header, after any scheme "
            "(token, Api-Key, Key, SSWS, Digest's response, a vendor's own) or none."
        ),
        # Basic has its own rule (its value is base64 of user:password); Digest's
        # credential is its response= parameter.
        pattern=(
            r"\b(?i:authorization)[\"']?[ \t]*[:=][ \t]*[\"']?[ \t]*"
            r"(?:(?i:digest)[ \t][^\r\n]{0,400}?\b(?i:response)=[\"']?"
            r"|(?!(?i:basic)[ \t])[A-Za-z][\w.-]{0,30}[ \t]+)?"
            r"(?P<secret>[A-Za-z0-9+/][\w.~+/=-]{15,250}+)(?![\w.~+/=-])"
        ),
        keywords=("authorization",),
        trigger=r"authorization[\"']?[ \t]*[:=]",
        entropy=3.5,
        generic=True,
        check=_token_check,
        examples=(
            "curl -H 'Authorization: token [[alnum:40]]' https://ghe.internal/api/v3/user",
            "Authorization: Api-Key [[alnum:32]]",
            "authorization: Key [[hex:40]]",
            'headers = {"Authorization": "ApiKey [[b64url:48]]"}',
            "Authorization: [[alnum:40]]",
            'Authorization: Digest username="ops", realm="api", nonce="[[hex:16]]", '
            'uri="/v1", response="[[hex:32]]"',
        ),
        counter_examples=(
            "Authorization: Bearer <token>",
            "Authorization: Bearer $TOKEN",
            "Authorization: Bearer ${API_KEY}",
            "Authorization: Basic xxx",
            "Authorization: token {{ github_token }}",
            "Authorization: Api-Key YOUR_API_KEY",
            "Authorization: Key your-key-here",
            'Authorization: Digest username="ops", response="..."',
            "authorization: required for every call to the admin API",
            "the Authorization header carries the scheme and the credentials",
            "Authorization: SSWS ${OKTA_API_TOKEN}",
        ),
    ),
    Rule(
        id="basic-auth-header",
        label="HTTP Basic credentials",
        description="An Authorization: Basic header: base64 of user:password.",
        pattern=r"\b(?i:basic)[ \t]+(?P<secret>[A-Za-z0-9+/]{8,}={0,2})(?![\w+/=])",
        keywords=("basic",),
        trigger=r"basic[ \t]+[a-z0-9+/]{8}",
        generic=True,
        check=_basic_auth_check,
        placeholder_check=False,
        # base64 of a made-up "deploy:<password>"
        examples=("Authorization: Basic ZGVwbG95OlRxN3ZNeDJMcDl6VzRr",),
        counter_examples=(
            "Authorization: Basic dXNlcjpwYXNzd29yZA==",
            "basic authentication is disabled",
        ),
    ),
    Rule(
        id="cli-user-password",
        label="Password on a command line",
        description="curl -u / --user user:password with a password that is not a placeholder.",
        pattern=r"(?:-u|--user)[ =]['\"]?[^\s:'\"@]{1,64}:(?P<secret>[^\s'\"]{4,128})(?![^\s'\"])",
        keywords=("-u ", "--user"),
        trigger=r"(?:-u |--user[ =])['\"]?[^\s:'\"@]+?:",
        generic=True,
        check=_url_password_check,
        placeholder_check=False,
        examples=("curl -u ops:[[alnum:16]] https://jenkins.internal/api/json",),
        counter_examples=("curl -u user:$TOKEN https://x", "git push -u origin main"),
    ),
)

# -- more SaaS APIs --------------------------------------------------------------------------

_SAAS: tuple[Rule, ...] = (
    _prefixed(
        "clickhouse-cloud-key",
        "ClickHouse Cloud API secret",
        "A ClickHouse Cloud API key secret (4b1d prefix).",
        "4b1d",
        _ALNUM + r"{38}\b",
        ("CLICKHOUSE_KEY_SECRET=4b1d[[alnum:38]]",),
        ("4b1d<secret>",),
    ),
    _prefixed(
        "frameio-token",
        "Frame.io API token",
        "A Frame.io developer token.",
        "fio-u-",
        r"[\w=-]{64}" + _END_DASH,
        ("fio-u-[[b64url:64]]",),
        ("fio-u-<token>",),
    ),
    Rule(
        id="maxmind-license-key",
        label="MaxMind license key",
        description="A MaxMind GeoIP license key: 6 + '_' + 29 + '_mmk'.",
        pattern=r"\b[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk\b",
        keywords=("_mmk",),
        keyword_at=36,
        examples=("GEOIP_LICENSE_KEY=[[alnum:6]]_[[alnum:29]]_mmk",),
        counter_examples=("key_<license>_mmk",),
    ),
    _prefixed(
        "openshift-token",
        "OpenShift user token",
        "An OpenShift OAuth user token.",
        "sha256~",
        r"[\w-]{43}" + _END_DASH,
        ("oc login --token=sha256~[[b64url:43]]",),
        ("sha256~<token>", "sha256:[[hex:64]]"),
    ),
    Rule(
        id="settlemint-token",
        label="SettleMint access token",
        description="A SettleMint personal, application or service access token.",
        pattern=r"\bsm_(?:pat|aat|sat)_[A-Za-z0-9]{16}\b",
        keywords=("sm_pat_", "sm_aat_", "sm_sat_"),
        examples=("sm_pat_[[alnum:16]]",),
        counter_examples=("sm_pat_<token>",),
    ),
    _prefixed(
        "hubspot-private-app-token",
        "HubSpot private app token",
        "A HubSpot private app access token.",
        "pat-",
        r"(?:na|eu)\d-" + _UUID + r"\b",
        ("HUBSPOT_TOKEN=pat-na1-[[uuid]]",),
        ("pat-na1-<token>",),
        trigger=r"pat-(?:na|eu)[0-9]-",
    ),
    Rule(
        id="mapbox-secret-token",
        label="Mapbox secret token",
        description="A Mapbox secret access token (sk. + base64 JSON).",
        pattern=r"\bsk\.eyJ[\w-]{20,}\.[\w-]{20,}" + _END_DASH,
        keywords=("sk.eyJ",),
        examples=("MAPBOX_SECRET=sk.eyJ[[b64url:40]].[[b64url:22]]",),
        counter_examples=("pk.eyJ[[b64url:40]].[[b64url:22]]", "sk.eyJ<token>"),
    ),
    Rule(
        id="facebook-access-token",
        label="Facebook (Meta) access token",
        description="A Facebook page or user access token (EAAM, EAAC...).",
        pattern=r"\bEAA[MCGI][A-Za-z0-9]{100,}\b",
        trigger=r"eaa[mcgi][a-z0-9]{40}",
        examples=("FB_PAGE_TOKEN=EAAC[[alnum:180]]",),
        counter_examples=("EAAC<token>",),
    ),
    _keyed(
        "facebook-app-secret",
        "Facebook app secret",
        "A Facebook (Meta) app secret (32 hex) named as such.",
        ("facebook", "fb_app_secret", "meta app secret"),
        r"[a-f0-9]{32}",
        ("FACEBOOK_APP_SECRET=[[hex:32]]",),
        ("facebook page: acme-official",),
    ),
    # 22 A's lead every app bearer token: a keyword no prefilter can use (it
    # matches everywhere in a run of A's), so the token is looked for by name.
    replace(
        _keyed(
            "twitter-bearer-token",
            "Twitter (X) bearer token",
            "An X / Twitter app bearer token (22 A's, then the token) named as such.",
            ("twitter", "x_bearer_token", "x bearer token"),
            r"A{22}[A-Za-z0-9%]{80,120}",
            ("TWITTER_BEARER_TOKEN=" + "A" * 22 + "[[alnum:90]]",),
            ("twitter bearer token: " + "A" * 40,),
        ),
        placeholder_check=False,
    ),
    _keyed(
        "twitter-api-secret",
        "Twitter (X) API secret",
        "An X / Twitter consumer or access token secret named as such.",
        ("twitter", "x_api_secret", "x api secret"),
        r"[A-Za-z0-9]{45,50}",
        ("TWITTER_API_SECRET=[[alnum:50]]",),
        ("twitter handle: @acme",),
        entropy_min=4.0,
    ),
    _keyed(
        "okta-token",
        "Okta API token",
        "An Okta API token (00 + 40) named as such.",
        ("okta",),
        r"00[\w=-]{40}",
        ("OKTA_API_TOKEN=00[[b64url:40]]",),
        ("okta org: acme.okta.com",),
        entropy_min=3.5,
    ),
    Rule(
        id="okta-ssws-token",
        label="Okta API token (SSWS header)",
        description="An Okta API token in its own Authorization scheme: SSWS 00 + 40.",
        pattern=r"\b(?i:ssws)[ \t]+(?P<secret>00[\w-]{40})(?![\w.~+/=-])",
        keywords=("ssws",),
        trigger=r"ssws[ \t]+00[a-z0-9_-]{16}",
        entropy=3.5,
        examples=(
            "curl -H 'Authorization: SSWS 00[[b64url:40]]' https://acme.okta.com/api/v1/users",
            "Authorization: SSWS 00[[alnum:40]]",
        ),
        counter_examples=(
            "Authorization: SSWS ${OKTA_API_TOKEN}",
            "Authorization: SSWS {apiToken}",
            "Authorization: SSWS 00[[alnum:12]]",
            "the SSWS scheme carries an Okta API token",
        ),
    ),
    _keyed(
        "algolia-admin-key",
        "Algolia API key",
        "An Algolia admin or search key (32 hex) named as such.",
        ("algolia",),
        r"[a-f0-9]{32}",
        ("ALGOLIA_ADMIN_KEY=[[hex:32]]",),
        ("algolia index: products_prod",),
    ),
    _keyed(
        "contentful-token",
        "Contentful API token",
        "A Contentful delivery or management token named as such.",
        ("contentful",),
        r"(?:CFPAT-)?[\w=-]{43}",
        ("CONTENTFUL_MANAGEMENT_TOKEN=CFPAT-[[b64url:43]]",),
        ("contentful space: marketing-site",),
    ),
    _keyed(
        "fastly-token",
        "Fastly API token",
        "A Fastly API token named as such.",
        ("fastly",),
        r"[\w=-]{32}",
        ("FASTLY_API_TOKEN=[[b64url:32]]",),
        ("fastly service: www-edge-2024",),
        entropy_min=3.5,
    ),
    _keyed(
        "zendesk-token",
        "Zendesk API token",
        "A Zendesk API token named as such.",
        ("zendesk",),
        r"[A-Za-z0-9]{40}",
        ("ZENDESK_API_TOKEN=[[alnum:40]]",),
        ("zendesk subdomain: acme-support",),
        entropy_min=3.5,
    ),
    _keyed(
        "confluent-secret",
        "Confluent Cloud API secret",
        "A Confluent Cloud API secret (64) named as such.",
        ("confluent",),
        r"[A-Za-z0-9+/]{64}",
        ("CONFLUENT_API_SECRET=[[alnum:64]]",),
        ("confluent cluster: lkc-abc123",),
        entropy_min=4.0,
    ),
    _keyed(
        "launchdarkly-key",
        "LaunchDarkly key",
        "A LaunchDarkly API access token or SDK key named as such.",
        ("launchdarkly", "ld_sdk_key", "ld_api_key"),
        r"(?:api|sdk)-" + _UUID,
        ("LAUNCHDARKLY_SDK_KEY=sdk-[[uuid]]",),
        ("launchdarkly project: web",),
    ),
    _keyed(
        "dropbox-token",
        "Dropbox access token",
        "A Dropbox short-lived (sl.) or long-lived access token named as such.",
        ("dropbox",),
        r"sl\.[\w=-]{130,1400}|[a-z0-9]{11}AAAAAAAAAA[\w=-]{43}",
        ("DROPBOX_TOKEN=sl.[[b64url:140]]",),
        ("dropbox folder: /team/design",),
    ),
    _keyed(
        "twitch-token",
        "Twitch API token",
        "A Twitch client secret or OAuth token (30) named as such.",
        ("twitch",),
        r"[a-z0-9]{30}",
        ("TWITCH_CLIENT_SECRET=[[lalnum:30]]",),
        ("twitch channel: acme_live",),
        entropy_min=3.5,
    ),
    _keyed(
        "linkedin-client-secret",
        "LinkedIn client secret",
        "A LinkedIn app client secret named as such.",
        ("linkedin", "linked_in", "linked-in"),
        r"[A-Za-z0-9]{16}",
        ("LINKEDIN_CLIENT_SECRET=[[alnum:16]]",),
        ("linkedin page: acme-inc",),
        entropy_min=3.0,
    ),
    _keyed(
        "yandex-key",
        "Yandex Cloud key",
        "A Yandex Cloud API key, IAM token or static access key named as such.",
        ("yandex",),
        r"AQVN[\w-]{35,38}|YC[\w-]{38}|t1\.[\w-]+={0,2}\.[\w-]{86}={0,2}",
        ("YANDEX_API_KEY=AQVN[[b64url:36]]",),
        ("yandex folder id: b1g[[lalnum:17]]",),
    ),
)

RULES: tuple[Rule, ...] = (
    *_CLOUD,
    *_AI,
    *_GIT_HOSTS,
    *_SECRET_MANAGERS,
    *_MESSAGING,
    *_DEV_TOOLING,
    *_OBSERVABILITY,
    *_SAAS,
    *_COMMERCE,
    *_PRIVATE_KEYS,
    *_CONNECTION_STRINGS,
    *_GENERIC,
)
