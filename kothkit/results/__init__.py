"""Results for people: a journal read back and re-played (:mod:`.archive`), the run table
(:mod:`.report`), the report site (:mod:`.site`), replay pages (:mod:`.replay`), exports and their
file formats (:mod:`.export`, :mod:`.formats`)."""
