"""no_ok: reads START and never answers OK (verdict: timeout on the 1 s first reply)."""

import sys

for line in sys.stdin:
    pass
