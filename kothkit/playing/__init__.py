"""Playing: challenge files, seeds, schedules, the referee that plays one game over seats (``seats``), the
tournament that plays many (locally or on a Dask cluster), head-to-head matches, verify, ``kothkit check``'s
scripted games, and play by a person."""
