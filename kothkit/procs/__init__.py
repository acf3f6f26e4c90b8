"""Processes and containment: a bot's pipes (:mod:`.pipes`), its jail (:mod:`.contain`, with the launcher
:mod:`.jailinit` in C and Python), the cores judges claim (:mod:`.cores`) and the JSON-lines codec of the
function host (:mod:`.fastjson`).  Knows no game and no tournament."""
