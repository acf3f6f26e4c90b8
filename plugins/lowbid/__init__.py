"""The lowbid game plugin for kothkit: lowest unique bid, 3 to 10 bots at a table, simultaneous bids.

Modules: ``rules`` (the settings and who wins a round), ``codec`` (the lines on the wire and reading
a bid), ``match`` (the Match state machine), ``views`` (the picture of the bids per round and play by
a person), ``plugin`` (the GameInfo registration).  Bundled bots live in ``bots/``; README.md is the
guide for bot authors.
"""
