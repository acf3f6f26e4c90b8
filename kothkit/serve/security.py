"""Protection of ``kothkit serve``'s forms and pages: CSRF checks and response headers.

Every POST must pass two checks.  Its Origin header (or, without one, its Referer) must be the
site's own origin; and its form's ``csrf`` field must match a token the site gave: the session's
token once signed in, or, for the sign-in form, the token of a short ``kothkit_pre`` cookie
(double submit).  Pages get a Content-Security-Policy that allows only the site's own scripts
and styles, and are never framed.
"""

from __future__ import annotations

import hmac
import secrets
from urllib.parse import urlsplit

from kothkit.serve.i18n import _

SESSION_COOKIE = "kothkit_session"
PRE_COOKIE = "kothkit_pre"

#: For the site's own pages.  Replay pages carry their own (stricter: no request at all).
PAGE_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
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


def new_token() -> str:
    return secrets.token_urlsafe(32)
