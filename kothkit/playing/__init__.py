"""Playing: challenge files, seeds, schedules, the referee that plays one game over seats (``seats``), the
one dispatcher that hands games and builds to an executor (``dispatcher``: every command's and the host's),
the tournament that plays many (locally or on a Dask cluster), head-to-head matches, verify, ``kothkit check``'s
scripted games, and play by a person."""
