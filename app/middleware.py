"""HTTP hardening as one ASGI middleware: security headers and a request id.

Every HTTP response gets a Content-Security-Policy that allows scripts,
styles, images and connections from this origin only (no inline scripts, no
inline ``<style>`` or ``style="..."``; chessground and the charts set styles
through the CSSOM, which CSP does not restrict), forbids framing
(``frame-ancestors 'none'``), and comes with ``X-Content-Type-Options:
nosniff`` (a PGN or JSON body is never sniffed into HTML) and
``Referrer-Policy: no-referrer``. FastAPI's own API docs (``/docs``,
``/redoc``) load Swagger/ReDoc from a CDN with an inline bootstrap script,
so those two pages alone get a policy that allows them.

Request bodies are capped (``max_body`` bytes, ``CANOPY_HTTP_MAX_BODY``): a larger
``Content-Length`` is answered 413 before anything is read, and a chunked body is cut
off with 413 as soon as it passes the cap, so no request can make the server buffer
megabytes of JSON.

``Cross-Origin-Opener-Policy: same-origin`` is sent only where a browser honours it: a
secure context (https, or a loopback host such as ``localhost``). A class served over
plain http on the room's network (``http://192.168.1.20:8000``) would otherwise make
every page load print "the Cross-Origin-Opener-Policy header has been ignored, because
the URL's origin was untrustworthy" in the console; the header protects nothing there.

The request id is the client's ``X-Request-ID`` when it looks like one, else
a fresh one; it is echoed in the response and set in the logging context for
HTTP requests and websockets alike.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.logs import request_id_var

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; img-src 'self' data: https:; "
    "worker-src 'self' blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
DOCS_PATHS = ("/docs", "/redoc")
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), payment=()"),
)
COOP = (b"cross-origin-opener-policy", b"same-origin")
_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
_LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]", "::1")


def trustworthy_origin(scope: Scope) -> bool:
    """Whether the page's origin is potentially trustworthy (a secure context) for a browser.

    https (as uvicorn reports it, also behind a proxy with ``--proxy-headers``), or a
    loopback host: ``localhost`` and its subdomains, 127.0.0.0/8, ``[::1]``.
    """
    if scope.get("scheme") in ("https", "wss"):
        return True
    host = (_header(scope, b"host") or "").lower()
    if host.startswith("["):  # [::1]:8000
        name = host.split("]", 1)[0] + "]"
    else:
        name = host.rsplit(":", 1)[0] if ":" in host else host
    return (
        name in _LOOPBACK_NAMES
        or name.endswith(".localhost")
        or re.fullmatch(r"127(\.\d{1,3}){3}", name) is not None
    )


def _header(scope: Scope, name: bytes) -> str | None:
    headers: Iterable[tuple[bytes, bytes]] = scope.get("headers") or ()
    for key, value in headers:
        if key == name:
            return value.decode("latin-1")
    return None


class HardeningMiddleware:
    def __init__(self, app: ASGIApp, max_body: int = 65536) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        given = _header(scope, b"x-request-id")
        rid = given if given and _REQUEST_ID.fullmatch(given) else secrets.token_hex(8)
        token = request_id_var.set(rid)
        try:
            if scope["type"] == "websocket":
                await self.app(scope, receive, send)
                return
            path: str = scope.get("path", "")
            csp = DOCS_CSP if path in DOCS_PATHS else CSP
            secure_origin = trustworthy_origin(scope)
            started = False

            refused = False  # the middleware answered 413 itself: the app's reply is dropped

            async def send_with_headers(message: Message) -> None:
                nonlocal started
                if refused:
                    return
                if message["type"] == "http.response.start":
                    started = True
                    headers = [
                        (k, v)
                        for k, v in message.get("headers", [])
                        if k.lower() not in (b"content-security-policy", b"x-request-id")
                    ]
                    headers.append((b"content-security-policy", csp.encode()))
                    headers.extend(SECURITY_HEADERS)
                    if secure_origin:
                        headers.append(COOP)
                    headers.append((b"x-request-id", rid.encode()))
                    message["headers"] = headers
                await send(message)

            length = _header(scope, b"content-length")
            if length is not None and (not length.isdigit() or int(length) > self.max_body):
                await _too_large(send_with_headers, self.max_body)
                return
            seen = 0

            async def receive_capped() -> Message:
                nonlocal seen, refused
                message = await receive()
                if message["type"] == "http.request":
                    seen += len(message.get("body", b""))
                    if seen > self.max_body:
                        # Answer now and tell the app the client left: it stops reading.
                        if not started:
                            await _too_large(send_with_headers, self.max_body)
                        refused = True
                        return {"type": "http.disconnect"}
                return message

            await self.app(scope, receive_capped, send_with_headers)
        finally:
            request_id_var.reset(token)


async def _too_large(send: Send, limit: int) -> None:
    body = (
        b'{"code":"too_large","message":"the request body is larger than '
        + str(limit).encode()
        + b' bytes"}'
    )
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
