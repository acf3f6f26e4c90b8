"""build_fork_bomb: a build step that starts sleeping children until a fork is refused, says how
many it started, and fails."""

import os
import time

started = 0
try:
    while True:
        if os.fork() == 0:
            time.sleep(3600)
            os._exit(0)
        started += 1
except OSError as e:
    print(f"started {started} children, then: {e.strerror}", flush=True)
raise SystemExit(1)
