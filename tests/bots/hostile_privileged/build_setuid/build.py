"""build_setuid's build: plants what plant.py tries, records it in build.log, and makes the bot
(bot.py from player.py)."""

import shutil

from plant import plant

with open("build.log", "w") as f:
    f.write("\n".join(plant()) + "\n")
shutil.copy("player.py", "bot.py")
