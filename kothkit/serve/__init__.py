"""``kothkit serve``: host several challenges on the web, people submitting, a live scoreboard.

The layer above playing and results.  :mod:`kothkit.serve.host` plays (the long-running
:class:`~kothkit.serve.host.Host`: folder rescans, submissions built and played, every
challenge's games sharing the host's game slots through :mod:`kothkit.playing.dispatcher`; its
parts: ``reading``, ``scheduling``, ``building``, ``served``); the web side (pages, accounts, the CLI)
calls only the Host's public methods.
"""
