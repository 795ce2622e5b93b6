"""JSON text read and written without the ``json`` package, for the hooks that run on every call.

``import json`` loads ``re`` (and through it ``enum``, ``functools`` and
more): about as many instructions as starting the interpreter, paid by the
pre-tool-use hook on every tool call although it reads two small JSON
texts and, when no rule fires, writes none. CPython's ``json`` parses with
its C scanner (``_json``), which needs none of that: :func:`loads` drives
it directly, and falls back to :func:`json.loads` where the C scanner is
missing. Errors are :class:`ValueError` (``json.JSONDecodeError`` is one),
as from :func:`json.loads`, and only that: whatever else the C scanner raises
on a damaged text is one too, since readers of derived state rebuild on it.
:func:`dumps` is its twin for the answers the hooks print: CPython's C
encoder, driven as :func:`json.dumps` drives it, so the text is the same.
"""

from __future__ import annotations

TYPE_CHECKING = False  # no typing at run time: this module starts every hook process
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["dumps", "loads"]

_WHITESPACE = " \t\n\r"  # JSON's four
# Bytes json.loads does not read as plain UTF-8: the byte order marks (UTF-8's is dropped).
_NOT_PLAIN_UTF8 = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")


def _constant(name: str) -> float:
    # What json accepts beyond the standard: NaN, Infinity, -Infinity.
    return float(name.replace("Infinity", "inf"))


class _Context:
    """The settings the C scanner reads off its context: json.loads' defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = staticmethod(_constant)


def _scanner() -> Callable[[str, int], tuple[Any, int]] | None:
    try:
        import _json
    except ImportError:  # another Python: the json package parses
        return None
    make = getattr(_json, "make_scanner", None)
    return None if make is None else make(_Context())


_SCAN = _scanner()


def loads(text: str | bytes) -> Any:
    """The value of the JSON ``text``, as :func:`json.loads` gives (bytes too)."""
    if isinstance(text, bytes | bytearray):
        if text.startswith(_NOT_PLAIN_UTF8) or b"\x00" in text[:4]:
            import json  # a BOM, or UTF-16 or -32: json tells the encoding

            return json.loads(text)
        text = text.decode("utf-8", "surrogatepass")  # what json.loads decodes UTF-8 with
    if _SCAN is None:
        import json

        return json.loads(text)
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _SCAN(text, start)
    except StopIteration:
        return _refused(text)
    except ValueError:
        raise
    except Exception as exc:
        # Trigger: the C scanner fails some damaged texts with another error (a
        # SystemError in a hook process). Why: callers read derived state and take
        # ValueError as "damaged, rebuild it"; anything else escaped as "no rules".
        # Outcome: every failure to read is a ValueError.
        raise ValueError(f"not JSON ({type(exc).__name__})") from exc
    if text[end:].strip(_WHITESPACE):
        return _refused(text)  # "Extra data": json says where
    return value


def _refused(text: str) -> Any:
    """Raise the error :func:`json.loads` raises for ``text`` (it loads ``re``: errors only)."""
    import json

    return json.loads(text)


def _unserializable(value: object) -> Any:
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


def dumps(value: Any, *, ensure_ascii: bool = True, sort_keys: bool = False) -> str:
    """``value`` as JSON text, as :func:`json.dumps` writes it with the same two options."""
    try:
        import _json
    except ImportError:  # another Python: the json package writes
        make = strings = None
    else:
        make = getattr(_json, "make_encoder", None)
        strings = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
    if make is None or strings is None:
        import json

        return json.dumps(value, ensure_ascii=ensure_ascii, sort_keys=sort_keys)
    if isinstance(value, str):  # as json.dumps: a lone string skips the encoder
        text: str = strings(value)
        return text
    # json.dumps' defaults: circular references checked, ", " and ": ", NaN allowed.
    encode = make({}, _unserializable, strings, None, ": ", ", ", sort_keys, False, True)
    return "".join(encode(value, 0))
