"""One look for every page kothkit makes: the site's stylesheet (``kothkit/serve/static/style.css``,
served by ``kothkit serve``) inlined into the pages that stand alone (``kothkit report``'s pages,
replay pages, the play page), whose Content-Security-Policy lets them load nothing, and the page
frame they share with the site: a header bar with the navigation, then the page in ``<main>``.

The pages standing alone are Jinja2 templates under ``kothkit/templates/`` (autoescaped: a bot's
name is a stranger's text) that extend ``frame.html``, as the site's own extend its ``base.html``.
Their words are marked for translation (``{{ _("...") }}``, Jinja2's i18n extension, new style:
values given by name and escaped); a page is made in English, or in the language of the
translations given to :func:`render` (gettext's: ``kothkit.serve`` gives its catalogs').
"""

from __future__ import annotations

import functools
import gettext
from importlib import resources
from pathlib import Path

import jinja2
import markupsafe

#: What a page standing alone may load: nothing but its own inline styles (and scripts, if it has any).
STATIC_CSP = "default-src 'none'; style-src 'unsafe-inline'"


@functools.cache
def style() -> str:
    """The one stylesheet's text."""
    return resources.files("kothkit").joinpath("serve/static/style.css").read_text(encoding="utf-8")


@functools.cache
def environment(translations: gettext.NullTranslations | None = None) -> jinja2.Environment:
    """The Jinja2 environment of the pages standing alone (their templates in ``kothkit/templates``),
    their words in English or, given ``translations``, in their language (one environment each)."""
    folder = Path(str(resources.files("kothkit").joinpath("templates")))
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(folder), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             extensions=["jinja2.ext.i18n"])
    env.install_gettext_translations(translations or gettext.NullTranslations(),  # type: ignore[attr-defined]
                                     newstyle=True)
    # The stylesheet is kothkit's own file, set into a <style> element as it is.
    env.globals.update(style=markupsafe.Markup(style()), csp=STATIC_CSP, lang="en")
    return env


def render(template: str, translations: gettext.NullTranslations | None = None, **context) -> str:
    """The page ``template`` (a name under ``kothkit/templates``) made with ``context``, its words
    in English or in the language of ``translations``."""
    return environment(translations).get_template(template).render(**context)
