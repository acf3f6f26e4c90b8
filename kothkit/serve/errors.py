"""Why the host or the site refused something: each error's ``str()`` is a message fit to show its user.

When :meth:`kothkit.serve.host.Host.submit` raises a :class:`SubmitError`, nothing was stored;
:class:`Refused` ends a web request with an error page (the site's modules raise it, the app answers it).
"""

from __future__ import annotations


class SubmitError(Exception):
    """A submission refused; ``str(e)`` says why, for the author."""


class TooLarge(SubmitError):
    """The file is larger than the challenge's ``max_bytes`` (the web answers 413)."""

    def __init__(self, size: int, limit: int) -> None:
        self.size, self.limit = size, limit
        super().__init__(f"the file is {size:,} bytes; this challenge takes at most {limit:,} bytes")


class BadFileName(SubmitError):
    """A file name that is empty, too long, or holds a path, a NUL or a control character."""


class UnknownLanguage(SubmitError):
    """A language the challenge does not offer, or a challenge that takes no submissions."""


class RateLimited(SubmitError):
    """Too soon after the author's last submission, or past the day's limit (the web answers 429)."""

    def __init__(self, message: str, retry_after: float) -> None:
        #: Seconds until the author may submit again.
        self.retry_after = retry_after
        super().__init__(message)


class Refused(Exception):
    """Ends a request with an error page: ``status`` and a message for the user."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None):
        self.status, self.message, self.headers = status, message, headers or {}
        super().__init__(message)
