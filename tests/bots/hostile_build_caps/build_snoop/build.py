"""build_snoop: a build step that prints its environment and tries the host's loopback (the port
in its TARGET_PORT, from bot.toml's env), then fails so that its output is shown."""

import os
import socket

for k in sorted(os.environ):
    print(f"env {k}={os.environ[k]}")
try:
    with socket.create_connection(("127.0.0.1", int(os.environ.get("TARGET_PORT", "1"))), timeout=2):
        print("connect: reached the host")
except OSError as e:
    print(f"connect: failed ({e.strerror or e})")
raise SystemExit(1)
