"""Bots: folders and their ``bot.toml``/``meta`` files (:mod:`.folders`), jailed builds (:mod:`.build`),
Python function bots (:mod:`.functions`, :mod:`.overtime`) and the worker that hosts them isolated
(:mod:`.funchost`)."""
