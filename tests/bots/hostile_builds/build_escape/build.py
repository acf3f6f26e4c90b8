"""build_escape's build: tries to write outside its folder (its parent, /tmp of the machine, the
home folder), records what happened in build.log, and makes the bot (bot.py from player.py)."""

import shutil

report = []
for path in ("../escaped-by-build.txt", "/root/escaped-by-build.txt", "/var/tmp/escaped-by-build.txt"):
    try:
        with open(path, "w") as f:
            f.write("escaped")
        report.append(f"{path}: WRITTEN")
    except OSError as e:
        report.append(f"{path}: denied ({e.strerror})")
with open("build.log", "w") as f:
    f.write("\n".join(report) + "\n")
shutil.copy("player.py", "bot.py")
