"""Slow clients on a real ``kothkit serve`` (issue 28, item 4), over raw sockets: a client that
trickles its headers a byte at a time (more often than any idle timeout) is cut off at the header
deadline, and a connection serves one request (``Connection: close``), so that a second request's
headers cannot be trickled on a connection whose first request was quick."""

from __future__ import annotations

import re
import socket
import time

import pytest

from tests.serve.webserver import Server, challenge, client


@pytest.fixture
def server(tmp_path):
    s = Server([challenge(tmp_path / "g12", kind="folder")], tmp_path / "state", tmp_path,
               args=("--header-timeout", "1"))
    try:
        yield s
    finally:
        assert s.stop() == 0, s.text


def _connect(server: Server) -> socket.socket:
    host, port = re.match(r"http://([\d.]+):(\d+)", server.url).groups()
    return socket.create_connection((host, int(port)), timeout=30)


def _until_closed(s: socket.socket) -> bytes:
    """What the server sends until it closes the connection (the socket's timeout is the deadline)."""
    got = b""
    while chunk := s.recv(65536):
        got += chunk
    return got


def test_a_client_trickling_its_headers_is_cut_off(server):
    s = _connect(server)
    try:
        request = b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 1000
        sent = 0
        with pytest.raises(OSError):  # (reset or broken pipe once the server has closed it)
            for byte in request:  # a byte every 0.1 s: 100 s for all of it, were it allowed
                s.sendall(bytes([byte]))
                sent += 1
                time.sleep(0.1)
                s.setblocking(False)
                try:
                    if s.recv(1) == b"":
                        raise ConnectionResetError("closed by the server")
                except BlockingIOError:
                    pass
                finally:
                    s.setblocking(True)
        assert sent < len(request)
    finally:
        s.close()
    with client(server) as c:  # the server is as it was
        assert c.get("/").status_code == 200


def test_a_connection_serves_one_request(server):
    s = _connect(server)
    try:
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /c/g12/ HTTP/1.1\r\nHost: x\r\n\r\n")
        got = _until_closed(s)
    finally:
        s.close()
    assert got.startswith(b"HTTP/1.1 200 ") and b"\r\nconnection: close\r\n" in got.lower()
    assert got.count(b"HTTP/1.1 ") == 1  # the second request was not served on it
