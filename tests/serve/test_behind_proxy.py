"""``kothkit serve`` behind a reverse proxy on its own machine, as docs/serve.md sets one up: the
proxy's ``X-Forwarded-Proto`` and ``X-Forwarded-For`` (believed from the ``--proxy`` address only)
make the site see https (its cookies ``Secure``, its forms' origin ``https://...``) and each
client's own address, so that the sign-in throttle's per-address limit counts clients, not the
proxy.  Without ``--proxy`` nobody's forwarded headers are believed: a local user connecting to
127.0.0.1 cannot pass for other addresses to get around the per-address throttle."""

from __future__ import annotations

import httpx

from tests.serve.webserver import Server, challenge, csrf_of, roster


def _via_proxy(server: Server, client_address: str) -> httpx.Client:
    """A client whose requests look as nginx passes them on: Host, X-Forwarded-Proto and -For."""
    return httpx.Client(base_url=server.url, timeout=30, headers={
        "host": "koth.example.edu", "origin": "https://koth.example.edu",
        "x-forwarded-proto": "https", "x-forwarded-for": client_address})


def _form(c: httpx.Client, path: str) -> tuple[str, dict[str, str]]:
    """The form's token and the cookie header to send back (its cookies are Secure: httpx, speaking
    http to the server as the proxy does, would not send them)."""
    page = c.get(path)
    return csrf_of(page.text), {"cookie": "; ".join(f"{k}={v}" for k, v in page.cookies.items())}


def _sign_in(c: httpx.Client, login: str, password: str) -> httpx.Response:
    token, cookie = _form(c, "/login")
    return c.post("/login", data={"csrf": token, "login": login, "password": password, "next": "/"}, headers=cookie)


def test_the_site_sees_https_and_each_clients_address(tmp_path):
    state = tmp_path / "state"
    roster(state, tmp_path, ["20240001"])
    server = Server([challenge(tmp_path / "g12")], state, tmp_path, args=("--proxy", "127.0.0.1"))
    try:
        with _via_proxy(server, "203.0.113.7") as c:
            r = _sign_in(c, "20240001", "20240001")
            assert r.status_code == 303, r.text[-500:]
            session = next(v for v in r.headers.get_list("set-cookie") if v.startswith("kothkit_session="))
            assert "; secure" in session.lower(), session
            # A form posted from the plain-http origin is another site's.
            token, cookie = _form(c, "/login")
            r = c.post("/login", data={"csrf": token, "login": "x", "password": "y"},
                       headers={**cookie, "origin": "http://koth.example.edu"})
            assert r.status_code == 403 and "another site" in r.text
        # 30 failures from one client (each for another login) hold that client back, not another.
        with _via_proxy(server, "198.51.100.1") as bad, _via_proxy(server, "198.51.100.2") as good:
            codes = [_sign_in(bad, f"nobody{k}", "wrong").status_code for k in range(31)]
            assert codes == [401] * 30 + [429], codes
            assert _sign_in(good, "nobody-else", "wrong").status_code == 401
    finally:
        assert server.stop() == 0, server.text


def test_without_a_proxy_forwarded_headers_are_not_believed(tmp_path):
    """The attack: from 127.0.0.1, a new X-Forwarded-For on every try.  Believed (uvicorn's default
    trusts loopback), each try came from a new address and the per-address throttle never held; now
    the 31st failure from this one client is throttled, and the site is not fooled into https."""
    state = tmp_path / "state"
    roster(state, tmp_path, ["20240001"])
    server = Server([challenge(tmp_path / "g12")], state, tmp_path)
    try:
        codes = []
        for k in range(31):
            with httpx.Client(base_url=server.url, timeout=30,
                              headers={"origin": server.url, "x-forwarded-for": f"198.51.100.{k + 1}"}) as c:
                codes.append(_sign_in(c, f"nobody{k}", "wrong").status_code)
        assert codes == [401] * 30 + [429], codes
        with _via_proxy(server, "203.0.113.9") as c:  # its cookies are not Secure: the site speaks http
            page = c.get("/login")
            assert "; secure" not in page.headers.get("set-cookie", "").lower()
    finally:
        assert server.stop() == 0, server.text


def test_a_proxy_that_is_no_address_is_refused(tmp_path):
    from tests.serve.webserver import kothkit

    r = kothkit("serve", challenge(tmp_path / "g12"), "--state", tmp_path / "state", "--proxy", "nginx.local",
                "--port", "0", cwd=tmp_path)
    assert r.returncode == 1 and "--proxy nginx.local: not an IP address or network" in r.stdout + r.stderr
