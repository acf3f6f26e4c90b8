"""Protection of ``kothkit serve``'s forms and pages: CSRF checks and response headers.

Every POST must pass two checks.  Its Origin header (or, without one, its Referer) must be the
site's own origin; and its form's ``csrf`` field must match a token the site gave: the session's
token once signed in, or, for the sign-in form, the token of a short ``kothkit_pre`` cookie
(double submit).  Pages get a Content-Security-Policy that allows only the site's own scripts
and styles, and are never framed.

A client must send a request's headers within :data:`HEADER_TIMEOUT` seconds of connecting (or
of its previous response), else its connection is closed (:func:`header_timeout_protocol`): slow
connections that never finish their headers do not pile up.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Any
from urllib.parse import urlsplit

SESSION_COOKIE = "kothkit_session"
PRE_COOKIE = "kothkit_pre"
#: A one-time message for the next page (one of FLASHES' keys: never text of the request).
FLASH_COOKIE = "kothkit_flash"
FLASHES = {"account": "Saved: your password and nickname are changed."}
#: Seconds a client has to send a request's headers.
HEADER_TIMEOUT = 10.0

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
            raise CSRFError(f"a form posted from another site ({origin[:100]}) is refused")
        return
    referer = headers.get("referer")
    if referer:
        if _origin_of(referer) != mine:
            raise CSRFError("a form posted from another site is refused")
        return
    raise CSRFError("a form posted without Origin or Referer is refused")


def check_token(expected: str | None, given: str | None) -> None:
    if not expected or not given or not hmac.compare_digest(expected.encode(), given.encode()):
        raise CSRFError("the form has expired or did not come from this site: reload the page and try again")


def new_token() -> str:
    return secrets.token_urlsafe(32)


def header_timeout_protocol(seconds: float) -> Any:
    """uvicorn's HTTP protocol (h11), which closes a connection whose request headers are not all
    in ``seconds`` after it opened or after its previous response (uvicorn itself waits forever)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class Protocol(H11Protocol):
        _header_timer: Any = None

        def _arm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
            self._header_timer = self.loop.call_later(seconds, self._headers_late)

        def _headers_late(self) -> None:
            self._header_timer = None
            waiting = self.cycle is None or self.cycle.response_complete
            if waiting and self.conn.their_state in (h11.IDLE, h11.DONE) and not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None
            super().connection_lost(exc)

    return Protocol
