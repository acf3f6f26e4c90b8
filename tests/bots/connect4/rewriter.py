"""Lives in a folder with another bot (and shares its own file with a twin): tries to rewrite
the other bot's file and its own, then keeps a file of its own where it may (its working folder).
Isolated, every rewrite must fail: the folder is not its to write."""

from pathlib import Path

HERE = Path(__file__).resolve().parent


def rewriter(view, turn, state):
    for victim in ("victim.py", "rewriter.py"):
        try:
            with open(HERE / victim, "a") as f:
                f.write("\ndef victim(view, turn, state):\n    return 99, state\n")
        except OSError:
            pass
    try:
        Path("kept.txt").write_text("mine")
    except OSError:
        pass
    return turn % 7, state


twin = rewriter
