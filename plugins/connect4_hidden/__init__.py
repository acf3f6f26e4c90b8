"""The connect4_hidden game plugin for kothkit: Connect-4 with every other row taped over.

Modules: ``rules`` (board, win detection, views, rendering), ``codec`` (reply
parsing and the JSON prompt line), ``match`` (the Match state machine),
``table`` (the seed's results table), ``plugin`` (the GameInfo registration).
Bundled bots live in ``bots/``; README.md is the guide for bot authors.
"""
