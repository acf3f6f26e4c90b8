"""better_constant_player as a program bot: one JSON prompt line in, one column line out, per turn."""

import json
import sys

for line in sys.stdin:
    prompt = json.loads(line)
    top = prompt["view"][-1]
    column = next(j for j in range(7) if top[j] == 0)
    print(column, flush=True)
