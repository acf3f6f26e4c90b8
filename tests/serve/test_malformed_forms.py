"""Malformed forms on every kind of POST of a real ``kothkit serve`` (issue 28, item 4), beyond
test_accounts_term's: each body the site cannot read as the form it takes (a multipart body cut
short or with an empty boundary, a body that is no form, too many fields, a file where none is
taken, on the account form, the Play page, the admin's actions and sign-out) is a 400 with one
line in the server's log, and the server writes no traceback."""

from __future__ import annotations

import pytest

from tests.serve.webserver import Server, challenge, csrf_of, kothkit, roster, user, wait_for

MULTIPART = {"content-type": "multipart/form-data; boundary=zz"}


def _bodies(token: str) -> dict[str, tuple[str, dict]]:
    part = b'--zz\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n' + token.encode()
    return {
        "a multipart body cut short": ("/account", {"content": part, "headers": MULTIPART}),
        "an empty boundary": ("/account", {"content": part + b"\r\n----\r\n",
                                           "headers": {"content-type": "multipart/form-data; boundary="}}),
        "JSON": ("/account", {"content": b'{"csrf": "' + token.encode() + b'"}',
                              "headers": {"content-type": "application/json"}}),
        "no content type": ("/account", {"content": b"csrf=" + token.encode()}),
        "too many fields": ("/account", {"content": ("&".join(f"f{i}=1" for i in range(500)) + "&csrf=" + token).encode(),
                                         "headers": {"content-type": "application/x-www-form-urlencoded"}}),
        "the token as a file": ("/account", {"files": {"csrf": ("t.txt", token.encode())}}),
        "a file on the Play page": ("/c/g12/play", {"data": {"csrf": token, "opponent": "bundled:threat"},
                                                    "files": {"seat": ("s.txt", b"0")}}),
        "a file on an admin's action": ("/admin/users/20240001/reset", {"data": {"csrf": token},
                                                                         "files": {"x": ("x.txt", b"x")}}),
        "two rosters": ("/admin/users/add", {"data": {"csrf": token},
                                             "files": [("roster", ("a.csv", b"login\nx1\n")),
                                                       ("roster", ("b.csv", b"login\nx2\n"))]}),
        "a file on sign-out": ("/logout", {"data": {"csrf": token}, "files": {"x": ("x.txt", b"x")}}),
    }


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    d = tmp_path_factory.mktemp("malformed")
    state = d / "state"
    roster(state, d, ["20240001", "root"])
    assert kothkit("users", "admin", "root", "--state", state, cwd=d).returncode == 0
    s = Server([challenge(d / "g12")], state, d)
    try:
        yield s
    finally:
        assert s.stop() == 0, s.text


@pytest.mark.parametrize("case", list(_bodies("x")))
def test_a_malformed_body_is_a_400_with_a_log_line(server, case):
    with user(server, "root", "Root") as root:
        path, body = _bodies(csrf_of(root.get("/account").text))[case]
        before = server.text.count(f"400 POST {path}: a malformed form")
        r = root.post(path, **body)
        assert r.status_code == 400 and "could not be read" in r.text, (r.status_code, r.text[-500:])
        wait_for(lambda: server.text.count(f"400 POST {path}: a malformed form") == before + 1, 10,
                 message="one log line")
        # Nothing was done: still signed in (sign-out), no user added, the account unchanged.
        assert root.get("/account", follow_redirects=False).status_code == 200
    assert "Traceback" not in server.text


def test_a_chunked_form_is_refused_before_its_body_is_read(server):
    """``Transfer-Encoding: chunked`` beside a small Content-Length: the server would read chunks
    past the length checked (HTTP's rule: the encoding wins), so the form is refused unread, and
    the chunks sent after the headers are never taken in."""
    import socket

    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as s:
        s.sendall(b"POST /login HTTP/1.1\r\nHost: " + f"{host}:{port}".encode() + b"\r\nOrigin: "
                  + server.url.encode() + b"\r\n"
                  b"Content-Type: multipart/form-data; boundary=zz\r\nContent-Length: 5\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n")
        chunk = b"x" * 65536
        sent = 0
        try:
            while sent < 64 * len(chunk):  # 4 MiB: far more than any form, if it were read
                s.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
                sent += len(chunk)
        except OSError:
            pass  # the server answered and closed while we were still sending: what is wanted
        answer = b""
        while b"\r\n\r\n" not in answer:
            got = s.recv(4096)
            if not got:
                break
            answer += got
    assert answer.startswith(b"HTTP/1.1 411"), answer[:200]
    assert "Traceback" not in server.text
