"""What was played and what it is worth: game records (:mod:`.records`), the SQLite journal that keeps
every finished game (:mod:`.journal`), and ratings computed from games (:mod:`.ratings`).  Below the
playing layer: the referee and tournaments write here."""
