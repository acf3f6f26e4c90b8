"""Protection of ``kothkit serve``'s forms and pages: CSRF checks and response headers.

Every POST must pass two checks.  Its Origin header (or, without one, its Referer) must be the
site's own origin; and its form's ``csrf`` field must match a token the site gave: the session's
token once signed in, or, for the sign-in form, the token of a short ``kothkit_pre`` cookie
(double submit).  Pages get a Content-Security-Policy that allows only the site's own scripts
and styles, and are never framed.

A client must send a request's headers within :data:`HEADER_TIMEOUT` seconds of connecting, else
its connection is closed, and a connection serves one request (:func:`header_timeout_protocol`):
slow connections that never finish their headers do not pile up; its body must come within
:data:`BODY_TIMEOUT` seconds more (the app's middleware).  ``X-Forwarded-For`` is believed only
from the addresses given as the reverse proxy (``kothkit serve --proxy``, :func:`proxy_settings`):
from anyone else, the throttles count the connection's own address.
"""

from __future__ import annotations

import asyncio
import hmac
import secrets
from typing import Any
from urllib.parse import urlsplit

from kothkit.serve.i18n import N_, _

SESSION_COOKIE = "kothkit_session"
PRE_COOKIE = "kothkit_pre"
#: A one-time message for the next page (one of FLASHES' keys: never text of the request).
FLASH_COOKIE = "kothkit_flash"
FLASHES = {"account": N_("Saved: your password and nickname are changed.")}
#: Seconds a client has to send a request's headers.
HEADER_TIMEOUT = 10.0
#: Seconds a client has to send a request's body once its headers came (kothkit.serve.app's
#: middleware): an upload at the largest size a challenge takes has time on a slow link.
BODY_TIMEOUT = 60.0

#: For the site's own pages.  Replay pages carry their own (stricter: no request at all).
PAGE_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
#: For replay pages: self-contained, they may make no request at all.
REPLAY_CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; "
              "frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    # One request a connection: each comes on a new connection, under the header deadline of
    # header_timeout_protocol.
    "Connection": "close",
}


class CSRFError(Exception):
    """A POST that did not come from one of the site's own forms (the message says why)."""


def own_origin(scheme: str, host_header: str | None) -> str | None:
    """The site's origin as the browser sees it, from the request's scheme and Host header."""
    if not host_header:
        return None
    host = host_header.strip().lower()
    default = {"http": ":80", "https": ":443"}.get(scheme)
    if default and host.endswith(default):
        host = host[: -len(default)]
    return f"{scheme}://{host}"


def _origin_of(url: str) -> str | None:
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if not parts.scheme or not parts.netloc:
        return None
    netloc = parts.netloc.lower()
    default = {"http": ":80", "https": ":443"}.get(parts.scheme)
    if default and netloc.endswith(default):
        netloc = netloc[: -len(default)]
    return f"{parts.scheme}://{netloc}"


def check_origin(scheme: str, headers) -> None:
    """Raise :class:`CSRFError` unless the request's Origin (or Referer) is the site's own."""
    mine = own_origin(scheme, headers.get("host"))
    origin = headers.get("origin")
    if origin is not None and origin != "null":
        if _origin_of(origin) != mine:
            raise CSRFError(_("a form posted from another site (%(origin)s) is refused", origin=origin[:100]))
        return
    referer = headers.get("referer")
    if referer:
        if _origin_of(referer) != mine:
            raise CSRFError(_("a form posted from another site is refused"))
        return
    raise CSRFError(_("a form posted without Origin or Referer is refused"))


def check_token(expected: str | None, given: str | None) -> None:
    if not expected or not given or not hmac.compare_digest(expected.encode(), given.encode()):
        raise CSRFError(_("the form has expired or did not come from this site: reload the page and try again"))


def proxy_settings(proxies: list[str]) -> dict[str, Any]:
    """uvicorn.Config's arguments for forwarded headers: read only from ``proxies`` (addresses or
    networks), and not at all without any.  (uvicorn's own default trusts 127.0.0.1: on a machine
    of several users, anyone could then connect there and send any X-Forwarded-For, defeating the
    per-address sign-in throttle.)"""
    if not proxies:
        return {"proxy_headers": False, "forwarded_allow_ips": ""}
    return {"proxy_headers": True, "forwarded_allow_ips": ",".join(proxies)}


def new_token() -> str:
    return secrets.token_urlsafe(32)


def header_timeout_protocol(seconds: float) -> type[asyncio.Protocol]:
    """An HTTP protocol for uvicorn (given as ``uvicorn.Config(http=...)``, whose type is any
    ``asyncio.Protocol`` class) that closes a connection whose request headers have not all come
    within ``seconds`` of its opening: uvicorn itself has no such timeout (its ``timeout_keep_alive``
    starts only after a response and stops at the next byte, so a client trickling its headers a
    byte at a time is kept for ever).

    It is built on public interfaces only: it wraps the protocol of uvicorn's ``--http h11`` (made
    with the arguments uvicorn gives, untouched) and sees the connection only as any
    ``asyncio.Protocol`` does, its bytes; its own timer ends a connection by closing its transport.
    A connection serves one request (every response says ``Connection: close``, :data:`HEADERS`),
    so a request's headers always come on a connection's start: the one deadline covers them all.
    (Behind the reverse proxy of a real deployment nothing changes: nginx speaks HTTP/1.0 to its
    upstream, a connection a request, unless told otherwise.)"""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeaderDeadline(asyncio.Protocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self.inner: asyncio.Protocol = H11Protocol(*args, **kwargs)
            self.transport: asyncio.BaseTransport | None = None
            self.timer: asyncio.TimerHandle | None = None
            #: The last bytes seen since the request began (a header block's end may come split over
            #: two reads).
            self.tail = b""

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            self.transport = transport
            self.timer = asyncio.get_running_loop().call_later(seconds, self._late)
            self.inner.connection_made(transport)

        def _late(self) -> None:
            self.timer = None
            if self.transport is not None and not self.transport.is_closing():
                self.transport.close()

        def _stop(self) -> None:
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None

        def data_received(self, data: bytes) -> None:
            if self.timer is not None:
                # (Blank lines before the request line are no header block's end.)
                seen = self.tail + data if self.tail else data.lstrip(b"\r\n")
                if b"\r\n\r\n" in seen or b"\n\n" in seen or b"\n\r\n" in seen:  # the header block's end
                    self._stop()  # (h11 takes bare line feeds too)
                self.tail = seen[-3:]
            self.inner.data_received(data)

        def eof_received(self) -> bool | None:
            return self.inner.eof_received()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop()
            self.inner.connection_lost(exc)

        def pause_writing(self) -> None:
            self.inner.pause_writing()

        def resume_writing(self) -> None:
            self.inner.resume_writing()

    return HeaderDeadline
