"""Bot loading: every broken folder is reported with its file and line, and only that bot sits out."""

from pathlib import Path

from kothkit.bots.folders import load_bots

GOOD = 'name = "good"\ncommand = ["python3", "bot.py"]\n'


def make(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


def test_meta_and_toml_load(tmp_path):
    make(tmp_path / "a", {"meta": "Alpha\npython3\nbot.py --fast\n1\n", "bot.py": ""})
    make(tmp_path / "b", {"bot.toml": GOOD + 'submitted = "2018-08-25"\n', "bot.py": ""})
    loaded = load_bots([tmp_path])
    assert loaded.errors == ()
    a, b = loaded.bots
    assert a.name == "Alpha" and a.command[1:] == ("bot.py", "--fast") and a.stderr and a.stateful
    assert b.name == "good" and b.submitted == "2018-08-25" and not b.stateful
    assert len(a.hash) == 64 and a.hash != b.hash


def test_meta_missing_line_names_file_and_line(tmp_path):
    make(tmp_path / "bad", {"meta": "Alpha\npython3\n"})
    make(tmp_path / "ok", {"bot.toml": GOOD, "bot.py": ""})
    loaded = load_bots([tmp_path])
    assert [b.name for b in loaded.bots] == ["good"]
    (e,) = loaded.errors
    assert str(e).startswith(f"{tmp_path / 'bad' / 'meta'}:3:") and "arguments" in str(e)


def test_meta_bad_flag(tmp_path):
    make(tmp_path / "bad", {"meta": "Alpha\npython3\nbot.py\nyes\n"})
    (e,) = load_bots([tmp_path]).errors
    assert ":4:" in str(e) and "stderr flag" in str(e)


def test_bad_toml_has_line(tmp_path):
    make(tmp_path / "bad", {"bot.toml": 'name = "x"\ncommand = [\n'})
    (e,) = load_bots([tmp_path / "bad"]).errors
    assert "bot.toml" in str(e) and "invalid TOML" in str(e)


def test_unknown_key_has_line(tmp_path):
    make(tmp_path / "bad", {"bot.toml": GOOD + "colour = 3\n"})
    (e,) = load_bots([tmp_path / "bad"]).errors
    assert str(e).startswith(f"{tmp_path / 'bad' / 'bot.toml'}:3:") and "colour" in str(e)


def test_command_not_found(tmp_path):
    make(tmp_path / "bad", {"bot.toml": 'command = ["no-such-interpreter-xyz", "bot"]\n'})
    (e,) = load_bots([tmp_path / "bad"]).errors
    assert ":1:" in str(e) and "command not found" in str(e)


def test_duplicate_names_second_sits_out(tmp_path):
    make(tmp_path / "a", {"bot.toml": GOOD, "bot.py": ""})
    make(tmp_path / "b", {"bot.toml": GOOD, "bot.py": ""})
    loaded = load_bots([tmp_path])
    assert len(loaded.bots) == 1 and "already taken" in str(loaded.errors[0])


def test_function_reference(tmp_path):
    (tmp_path / "f.py").write_text("def play(view, turn, state):\n    return 0, state\n")
    loaded = load_bots([f"{tmp_path / 'f.py'}:play", f"{tmp_path / 'missing.py'}:play"])
    (b,) = loaded.bots
    assert b.kind == "function" and b.name == "play"
    assert "no such file" in str(loaded.errors[0])


def test_hash_ignores_state_and_build_outputs(tmp_path):
    f = make(tmp_path / "c", {"bot.toml": 'build = ["gcc", "-o", "brain", "brain.c"]\ncommand = ["./brain"]\n',
                              "brain.c": "int main(){return 0;}"})
    h1 = load_bots([f]).bots[0].hash
    (f / "brain").write_bytes(b"\x7fELF...")
    (f / "state").mkdir()
    (f / "state" / "memory.txt").write_text("learned")
    assert load_bots([f]).bots[0].hash == h1
    (f / "brain.c").write_text("int main(){return 1;}")
    assert load_bots([f]).bots[0].hash != h1


def test_broken_bot_sits_out_of_a_real_run(cli, tmp_path):
    bots = tmp_path / "bots"
    make(bots / "broken", {"meta": "Broken\n"})
    doc = cli.run_json("run", "gomoku_swap2", "--bots", str(bots),
                       "--bots", str(Path(__file__).parents[2] / "plugins" / "gomoku_swap2" / "bots"),
                       "--seed", "3", "--jobs", "1")
    assert any("broken" in e and "meta:2" in e for e in doc["errors"])
    assert "Broken" not in {s["bot"] for s in doc["standings"]}
    assert len(doc["standings"]) >= 2
