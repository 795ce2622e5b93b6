"""Who may use the page: the token's holder, at this machine's address, from this page.

:class:`Guard` wraps the whole app (ASGI middleware) and checks every request
before a page sees it:

- **Host.** Only ``127.0.0.1:<port>``, ``localhost:<port>`` and
  ``[::1]:<port>`` are answered; any other ``Host`` is refused (403), so a web
  page whose domain an attacker points at 127.0.0.1 (DNS rebinding) gets nothing.
- **Token.** The bearer token ``memdir ui`` printed, as
  ``Authorization: Bearer``, or once as ``?token=`` in the URL: then the answer
  is a redirect to the same page without it, setting a cookie (HttpOnly,
  SameSite=Strict, Path=/), so the token leaves the address bar and the
  history; later requests carry the cookie. Without either: 401. Compared in
  constant time. Browsers send a host's cookies to every port of it, so the
  cookie is bound to this page's port: it is named after it
  (``memdir_ui_<port>``, :func:`cookie_name`: two pages on two ports never
  overwrite each other's) and holds not the token but a value derived from the
  token and the port (:func:`cookie_value`): what a server on another local
  port receives opens no other page, and is not the token.
- **Cross-site requests.** A request that changes something (any method but
  GET and HEAD) is refused (403) when its ``Origin`` is another site's, or when
  the browser says it comes from another site (``Sec-Fetch-Site``); and every
  form carries a CSRF token derived from the bearer token (:func:`csrf_token`)
  that the page checks (:func:`csrf_matches`). SameSite=Strict already keeps
  the cookie off other sites' requests; the two checks hold without it.

Every answer also carries a Content-Security-Policy that allows no script and
no request to another host: the page is HTML and CSS, all served from here.
"""

from __future__ import annotations

import hashlib
import hmac
import urllib.parse

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "SECURITY_HEADERS",
    "Guard",
    "cookie_name",
    "cookie_value",
    "csrf_matches",
    "csrf_token",
    "origins",
]
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (
        b"content-security-policy",
        b"default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
        b"frame-ancestors 'none'; base-uri 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    # same-origin: with no-referrer a browser sends "Origin: null" on a form POST.
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
)
_SAFE_METHODS = frozenset({"GET", "HEAD"})


def cookie_name(port: int) -> str:
    """The name of the page's cookie on ``port``."""
    return f"memdir_ui_{port}"


def cookie_value(token: str, port: int) -> str:
    """What the cookie holds: derived from the token and the port, never the token."""
    return hmac.new(token.encode(), f"memdir-ui-cookie:{port}".encode(), hashlib.sha256).hexdigest()


def csrf_token(token: str) -> str:
    """The CSRF token forms carry: derived from the bearer token, never the token itself."""
    return hmac.new(token.encode(), b"memdir-ui-csrf", hashlib.sha256).hexdigest()


def csrf_matches(token: str, given: object) -> bool:
    """Whether ``given`` (a form field) is the CSRF token of ``token``."""
    if not isinstance(given, str):
        return False
    return hmac.compare_digest(given.encode(), csrf_token(token).encode())


def origins(port: int) -> frozenset[str]:
    """The ``Host`` values this page answers to on ``port``."""
    return frozenset({f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"})


class Guard:
    """ASGI middleware: Host, token and cross-site checks (see the module docstring)."""

    def __init__(self, app: ASGIApp, *, token: str, port: int) -> None:
        if not token:
            raise ValueError("an empty token would let anyone in")
        self.app = app
        self._token = token.encode()
        self._hosts = origins(port)
        self._cookie = cookie_name(port).encode()
        self._cookie_value = cookie_value(token, port).encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            if scope["type"] == "websocket":  # the page has none
                await send({"type": "websocket.close", "code": 1008})
                return
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        host = headers.get(b"host", b"").decode("latin-1")
        if host not in self._hosts:
            await _refuse(send, 403, "This page answers only at http://127.0.0.1 on its port.")
            return
        given = _query_token(scope)
        if given is not None and self._matches(given):
            await _redirect_with_cookie(send, scope, self._cookie, self._cookie_value)
            return
        if not self._authorised(headers):
            await _refuse(
                send, 401, "Open the address `memdir ui` printed (it carries the page's token)."
            )
            return
        if scope["method"] not in _SAFE_METHODS and not self._same_site(headers):
            await _refuse(send, 403, "A change from another site is refused.")
            return
        await self.app(scope, receive, _with_headers(send))

    def _matches(self, value: bytes) -> bool:
        # compare_digest takes as long whatever the first differing byte.
        return hmac.compare_digest(value, self._token)

    def _authorised(self, headers: dict[bytes, bytes]) -> bool:
        scheme, _, value = headers.get(b"authorization", b"").partition(b" ")
        if scheme.lower() == b"bearer" and self._matches(value.strip()):
            return True
        cookie = _cookie(headers.get(b"cookie", b""), self._cookie)
        return cookie is not None and hmac.compare_digest(cookie, self._cookie_value)

    def _same_site(self, headers: dict[bytes, bytes]) -> bool:
        origin = headers.get(b"origin")
        if origin is not None:
            parsed = urllib.parse.urlsplit(origin.decode("latin-1"))
            if parsed.scheme != "http" or parsed.netloc not in self._hosts:
                return False
        site = headers.get(b"sec-fetch-site")
        return site is None or site in (b"same-origin", b"none")


def _headers(scope: Scope) -> dict[bytes, bytes]:
    raw: list[tuple[bytes, bytes]] = scope.get("headers", [])
    out: dict[bytes, bytes] = {}
    for key, value in raw:
        out.setdefault(key.lower(), value)
    return out


def _query_token(scope: Scope) -> bytes | None:
    query = scope.get("query_string", b"").decode("latin-1")
    values = urllib.parse.parse_qs(query).get("token")
    return values[0].encode("latin-1") if values else None


def _cookie(header: bytes, name: bytes) -> bytes | None:
    for part in header.split(b";"):
        key, sep, value = part.strip().partition(b"=")
        if sep and key == name:
            return value
    return None


async def _redirect_with_cookie(send: Send, scope: Scope, name: bytes, value: bytes) -> None:
    query = urllib.parse.parse_qsl(scope.get("query_string", b"").decode("latin-1"))
    rest = urllib.parse.urlencode([(k, v) for k, v in query if k != "token"])
    path = urllib.parse.quote(scope.get("path", "/")) + (f"?{rest}" if rest else "")
    cookie = name + b"=" + value + b"; HttpOnly; SameSite=Strict; Path=/"
    await send(
        {
            "type": "http.response.start",
            "status": 303,
            "headers": [
                (b"location", path.encode("latin-1")),
                (b"set-cookie", cookie),
                (b"content-length", b"0"),
                *SECURITY_HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": b""})


async def _refuse(send: Send, status: int, text: str) -> None:
    body = f"{status}: {text}\n".encode()
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        *SECURITY_HEADERS,
    ]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="memdir ui"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _with_headers(send: Send) -> Send:
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
        await send(message)

    return sending
