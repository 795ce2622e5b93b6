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
:func:`render_example`, so no literal in the table looks like a credential to
a scanner reading it.

The 187 rules are data, not code: ``secret_rules.toml`` beside this module
holds one record per rule, read once at import into :data:`RULES` in file
order. A record is a :class:`Rule`'s fields, or the inputs of one of four
shapes that build most rules (``form``: a prefixed token, a value keyed by a
service's name, a URL's password, a PEM block); ``{NAME}`` in a pattern stands
for one of the shared pattern pieces below and ``check`` names a value check,
so the regex pieces and checks are written once, here.
"""

from __future__ import annotations

import base64
import binascii
import math
import random
import re
import tomllib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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


# -- the shapes most rules share ------------------------------------------------------


def _prefixed(*, prefix: str, body: str, **fields: Any) -> Rule:
    r"""A token that starts with a fixed prefix: ``\b<prefix><body>``, found by the prefix."""
    return Rule(pattern=r"\b" + re.escape(prefix) + body, keywords=(prefix,), **fields)


def _keyed(*, names: tuple[str, ...], value: str, entropy: float = 3.0, **fields: Any) -> Rule:
    """A value of a known shape that is only a credential next to a service's name."""
    words = "|".join(re.escape(n) for n in names)
    return Rule(
        pattern=f"(?i:{words}){_GAP}{_SEP}(?P<secret>{value})" + r"(?![\w.~+/=-])",
        keywords=names,
        trigger=f"(?:{words.lower()}){_CONTEXT_TRIGGER}{_KEYED_HEAD}",
        entropy=entropy,
        **fields,
    )


_URL_PASSWORD = (
    r"://(?:[^\s:/@'\"`<>]{0,64}):(?P<secret>[^\s/@'\"`<>]{1,128})@"
    r"(?=[\w\[\].-]*[\w\]])"
)


def _url_rule(*, label: str, schemes: tuple[str, ...], **fields: Any) -> Rule:
    r"""``scheme://user:password@host`` for the given schemes (``+srv``, ``+driver`` too)."""
    alternatives = "|".join(re.escape(s) for s in schemes)
    return Rule(
        label=label,
        description=f"{label}: a connection URL with the password written in it.",
        pattern=rf"\b(?i:{alternatives})(?:\+[a-z0-9]+)?{_URL_PASSWORD}",
        keywords=schemes,
        check=_url_password_check,
        placeholder_check=False,
        **fields,
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


def _pem_rule(*, label: str, block: str, counter: str, **fields: Any) -> Rule:
    return Rule(
        label=label,
        description=f"A {label.lower()} in PEM armour: whoever holds it is the key's owner.",
        pattern=_pem(block),
        keywords=("-----BEGIN ",),  # shared by all kinds: one keyword for all
        placeholder_check=False,  # DER encodes zero bytes as long runs of "A"
        examples=(f"-----BEGIN {block}-----\n{_PEM_EXAMPLE_BODY}\n-----END {block}-----",),
        counter_examples=(
            f"-----BEGIN {block}-----\n...\n-----END {block}-----",
            f"the line -----BEGIN {block}----- opens the file",
            counter,
        ),
        **fields,
    )


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

# -- the table ------------------------------------------------------------------------

_RULE_FILE = Path(__file__).with_name("secret_rules.toml")
_PIECES = {
    "SEP": _SEP,
    "GAP": _GAP,
    "CONTEXT_TRIGGER": _CONTEXT_TRIGGER,
    "TOKEN_HEAD": _TOKEN_HEAD,
    "PASSWORD_HEAD": _PASSWORD_HEAD,
    "KEYED_HEAD": _KEYED_HEAD,
    "TOKEN_VALUE": _TOKEN_VALUE,
    "PASSWORD_VALUE": _PASSWORD_VALUE,
    "VALUE_END": _VALUE_END,
    "NAME_ALLOW": _NAME_ALLOW,
    "URL_PASSWORD": _URL_PASSWORD,
    "UUID": _UUID,
    "END_DASH": _END_DASH,
    "PEM_HEADERS": _PEM_HEADERS,
    "PEM_BODY": _PEM_BODY,
}
_TEMPLATED = frozenset({"pattern", "trigger", "allow", "name_allow", "body", "value"})
_CHECKS: dict[str, Check] = {
    "token": _token_check,
    "password": _password_check,
    "url_password": _url_password_check,
    "basic_auth": _basic_auth_check,
}
_FORMS: dict[str, Callable[..., Rule]] = {
    "rule": Rule,
    "prefixed": _prefixed,
    "keyed": _keyed,
    "url": _url_rule,
    "pem": _pem_rule,
}


def _filled(text: str) -> str:
    """``text`` with each ``{NAME}`` of a shared pattern piece replaced by the piece."""
    for name, piece in _PIECES.items():
        text = text.replace("{" + name + "}", piece)
    return text


def _rule(record: dict[str, Any]) -> Rule:
    """The :class:`Rule` one record of the table describes."""
    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in record.items()}
    form = fields.pop("form", "rule")
    for key in _TEMPLATED & fields.keys():
        fields[key] = _filled(fields[key])
    if "check" in fields:
        fields["check"] = _CHECKS[fields["check"]]
    return _FORMS[form](**fields)


def _load() -> tuple[Rule, ...]:
    with _RULE_FILE.open("rb") as handle:
        return tuple(_rule(record) for record in tomllib.load(handle)["rule"])


RULES: tuple[Rule, ...] = _load()
