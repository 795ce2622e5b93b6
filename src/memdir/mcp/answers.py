"""What memdir's MCP server answers before the SDK is imported: the SDK's own lines, recorded.

A host's first requests (``initialize`` or ``server/discover``, then the
tools, prompts and resources lists, ``ping``, ``subscriptions/listen``) have
answers that depend on no memory and no client: only on memdir's code, the
SDK's and pydantic's versions, and the protocol version asked for.
:mod:`memdir.mcp.recording` drives the SDK's server with those requests and
keeps, for each, the first line the SDK writes about it (its answer; for a
listen, the acknowledgement), with the request's id cut out. The lines ship
as ``answers.json`` beside this module; an installation whose versions differ
records its own into ``<memdir home>/mcp-answers.json`` the first time it
serves. Either file is used only when its key (memdir's version, a checksum
of the modules that define the server, the SDK's and pydantic's installed
versions) is this installation's (:func:`load_answers`).

:class:`EarlyAnswers` is one connection's reader of those lines. It follows
the SDK's routing just far enough to pick a recording: the first request
decides the era (the ``initialize`` handshake, or the 2026 per-request
``_meta`` envelope), ``initialize`` picks the negotiated version (a version
it was never recorded with answers as the recorded unknown one did), a list
is answered only after the handshake, and only for the exact parameters
recorded. A message it cannot vouch for gets no early answer: the SDK
answers it, and a message it cannot even classify turns early answers off
for the connection. Everything here runs before anything heavy is imported:
no SDK, no pydantic, not even ``json`` (:mod:`memdir.utils.json_text`).
"""

from __future__ import annotations

import os
import sys

from memdir import __version__
from memdir.utils.json_text import dumps, loads

TYPE_CHECKING = False  # no typing at run time: this module starts `memdir serve`
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = [
    "CACHE_NAME",
    "FORMAT",
    "PACKAGES",
    "SHIPPED",
    "SOURCES",
    "UNKNOWN",
    "EarlyAnswers",
    "answers_key",
    "cache_path",
    "installed",
    "load_answers",
    "read_answers",
    "save_answers",
]

FORMAT = 1
# The installed distributions whose code writes the answers: the SDK and its types, and
# pydantic, which generates the tools' input schemas.
PACKAGES = ("mcp", "mcp_types", "pydantic", "pydantic_core")
# memdir's modules that define what the server lists (names, descriptions, schemas).
SOURCES = ("server.py", "tools.py", "arguments.py", "context.py")
SHIPPED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "answers.json")
CACHE_NAME = "mcp-answers.json"
# The recording of an initialize whose version the SDK does not know.
UNKNOWN = "*"
# What a client may say about itself in the fields memdir checks (all strings).
_CLIENT_INFO = frozenset({"name", "version", "title", "description", "websiteUrl"})
# The capabilities the SDK reads (it ignores the others).
_CAPABILITIES = frozenset(
    {"experimental", "sampling", "elicitation", "roots", "extensions", "tasks"}
)
_REQUEST_KEYS = frozenset({"jsonrpc", "id", "method", "params"})
_NOTIFICATION_KEYS = frozenset({"jsonrpc", "method", "params"})


def answers_key() -> dict[str, Any] | None:
    """What the answers were recorded with, for this installation; None when unknowable."""
    packages = installed(PACKAGES)
    sources = _sources_checksum()
    if packages is None or sources is None:
        return None
    return {"memdir": __version__, "sources": sources, "packages": packages}


def installed(names: tuple[str, ...]) -> dict[str, str] | None:
    """The version of each distribution in ``names``, from its ``.dist-info`` folder.

    The first folder on ``sys.path`` that holds one is the one imported. Reading
    the folder names costs a directory listing, where ``importlib.metadata``
    costs an import and a scan of every distribution.
    """
    wanted = {name.lower() for name in names}
    found: dict[str, str] = {}
    for entry in sys.path:
        try:
            listing = os.listdir(entry or ".")
        except OSError:
            continue
        for item in listing:
            if not item.endswith(".dist-info"):
                continue
            name, _, version = item[: -len(".dist-info")].partition("-")
            name = name.lower().replace("-", "_").replace(".", "_")
            if name in wanted and name not in found:
                found[name] = version
        if len(found) == len(wanted):
            return dict(sorted(found.items()))
    return None


def _sources_checksum() -> str | None:
    import zlib

    folder = os.path.dirname(os.path.abspath(__file__))
    checksum = 0
    for name in SOURCES:
        try:
            with open(os.path.join(folder, name), "rb") as source:
                checksum = zlib.crc32(source.read(), checksum)
        except OSError:  # shipped without its sources: nothing to check the answers against
            return None
    return f"{checksum:08x}"


def read_answers(path: str) -> dict[str, Any] | None:
    """The answers file at ``path`` as JSON values, or None when it is missing or unreadable."""
    try:
        with open(path, "rb") as file:
            data = loads(file.read())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def cache_path(env: Mapping[str, str]) -> str:
    """Where an installation whose versions differ from the shipped answers keeps its own."""
    from memdir.config import memdir_home

    return str(memdir_home(env) / CACHE_NAME)


def load_answers(key: Mapping[str, Any], env: Mapping[str, str]) -> dict[str, Any] | None:
    """The shipped answers, else the cached ones, when recorded with ``key``; else None."""
    data = read_answers(SHIPPED)
    if not _recorded_with(data, key):
        data = read_answers(cache_path(env))  # this installation's own, if it made them
    return data if _recorded_with(data, key) else None


def _recorded_with(data: Mapping[str, Any] | None, key: Mapping[str, Any]) -> bool:
    return data is not None and data.get("format") == FORMAT and data.get("key") == key


def save_answers(path: str, data: Mapping[str, Any]) -> None:
    """Write ``data`` to ``path`` whole or not at all (a reader never sees half a file)."""
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        import json  # indented, so that a change to the shipped file reads as one

        with open(temporary, "w", encoding="utf-8") as file:
            file.write(json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


class EarlyAnswers:
    """One connection's early answers: the SDK's recorded line for each request it can vouch for."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        """Read answers recorded by :mod:`memdir.mcp.recording`; ValueError if they are not."""
        try:
            envelope = data["envelope"]
            self._version_key: str = envelope["version"]
            self._client_key: str = envelope["client"]
            self._capabilities_key: str = envelope["capabilities"]
            self._initialize: dict[str, Any] = data["handshake"]["initialize"]
            self._handshake: dict[str, Any] = data["handshake"]["requests"]
            self._modern: dict[str, Any] = data["modern"]
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not recorded answers: {exc!r}") from None
        self._era: str | None = None
        self._negotiated: str | None = None
        self._off = False

    def reply(self, text: str) -> tuple[str | None, bool]:
        """(the line to write now or None, whether the SDK still owes the client an answer)."""
        try:
            message = loads(text)
        except ValueError:
            return None, False  # not JSON: no request the client waits on, no era decided
        kind = _kind(message)
        if kind == "notification":
            return None, False
        if kind is None or self._off:
            # Something the SDK may read as a request: from here on it decides everything.
            self._off = True
            return None, True
        try:
            found = self._lookup(message["method"], message.get("params"))
        except (AttributeError, KeyError, TypeError):  # answers damaged since they were read
            self._off = True
            found = None
        if found is None:
            return None, True
        try:
            request_id = dumps(message["id"], ensure_ascii=False)
            request_id.encode("utf-8")
        except (TypeError, ValueError, UnicodeError):
            return None, True
        return request_id.join(found), False

    def _lookup(self, method: str, params: dict[str, Any] | None) -> list[str] | None:
        if self._era is None:
            modern = method != "initialize" and self._version_key in _meta(params)
            self._era = "modern" if modern else "handshake"
        if self._era == "modern":
            return self._modern_answer(method, params)
        return self._handshake_answer(method, params)

    def _handshake_answer(self, method: str, params: dict[str, Any] | None) -> list[str] | None:
        if method == "initialize":
            if self._negotiated is not None or not _handshake_params(params):
                self._off = True  # a second handshake, or a malformed one: the SDK's to judge
                return None
            assert params is not None
            recorded = self._initialize.get(params["protocolVersion"]) or self._initialize[UNKNOWN]
            self._negotiated = recorded["negotiated"]
            answer: list[str] = recorded["answer"]
            return answer
        if self._negotiated is None:
            return None  # before the handshake the SDK says what is wrong
        return _recorded(self._handshake.get(self._negotiated, {}).get(method), params or {})

    def _modern_answer(self, method: str, params: dict[str, Any] | None) -> list[str] | None:
        meta = _meta(params)
        version = meta.get(self._version_key)
        if not isinstance(version, str) or version not in self._modern:
            return None
        if not (set(meta) <= {self._version_key, self._client_key, self._capabilities_key}):
            return None
        if not _capabilities(meta.get(self._capabilities_key)):
            return None
        if self._client_key in meta and not _client_info(meta[self._client_key]):
            return None
        assert params is not None
        rest = {k: v for k, v in params.items() if k != "_meta"}
        return _recorded(self._modern[version].get(method), rest)


def _kind(message: object) -> str | None:
    """What the SDK must read ``message`` as: ``"request"``, ``"notification"``, else None."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    if not isinstance(message.get("method"), str):
        return None
    params = message.get("params")
    if params is not None and not isinstance(params, dict):
        return None
    if "id" not in message:
        return "notification" if set(message) <= _NOTIFICATION_KEYS else None
    request_id = message["id"]
    if isinstance(request_id, bool) or not isinstance(request_id, str | int):
        return None
    return "request" if set(message) <= _REQUEST_KEYS else None


def _meta(params: dict[str, Any] | None) -> dict[str, Any]:
    meta = (params or {}).get("_meta")
    return meta if isinstance(meta, dict) else {}


def _recorded(recording: Mapping[str, Any] | None, params: Mapping[str, Any]) -> list[str] | None:
    if recording is None or recording["params"] != params:
        return None
    answer: list[str] = recording["answer"]
    return answer


def _handshake_params(params: dict[str, Any] | None) -> bool:
    """Whether ``params`` is an initialize the SDK accepts (checked as strictly as cheaply)."""
    if params is None or not (set(params) <= {"protocolVersion", "capabilities", "clientInfo"}):
        return False
    return (
        isinstance(params.get("protocolVersion"), str)
        and _capabilities(params.get("capabilities"))
        and _client_info(params.get("clientInfo"))
    )


def _capabilities(value: object) -> bool:
    """A client's capabilities: the ones the SDK reads are objects of objects.

    ``roots.listChanged`` is the one flag among them; capabilities the SDK does
    not know it ignores, whatever their shape.
    """
    if not isinstance(value, dict):
        return False
    for name in _CAPABILITIES & value.keys():
        capability = value[name]
        if not isinstance(capability, dict):
            return False
        for field, setting in capability.items():
            flag = name == "roots" and field == "listChanged"
            if not (isinstance(setting, bool | None) if flag else isinstance(setting, dict)):
                return False
    return True


def _client_info(value: object) -> bool:
    """A client's name and version, and only other plain strings about it."""
    if not isinstance(value, dict) or not (set(value) <= _CLIENT_INFO):
        return False
    named = "name" in value and "version" in value
    return named and all(isinstance(v, str) for v in value.values())
