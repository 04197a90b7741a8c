"""`playground serve`: the explorer page on a local Starlette app, run by uvicorn.

Loading a kernel file executes Python, so the page is guarded as Jupyter guards its own:
- it binds to 127.0.0.1 unless --host says otherwise (the command warns when it does);
- every request carries the run's token: in the URL (`?token=`), in the X-Playground-Token header
  the page's script sends, or in the cookie set when the page is first opened with it;
- a request from another origin, or naming another host (DNS rebinding), is refused with 403, and
  API calls must be JSON, which a cross-site form cannot send without a preflight;
- text goes to the page as data, escaped by its script (view.py): nothing a kernel holds is markup;
- the user's file is written only by `/api/save`, and only if it did not change on disk (workspace.py).
"""
from __future__ import annotations

import hmac
import secrets

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from ..errors import KernelFailure, UserError
from . import page
from .workspace import Workspace

COOKIE = "playground_token"


class Guard:
    """Token, host and origin checks before any route (pure ASGI, so nothing is read before them)."""

    def __init__(self, app, token: str, hosts: set[str]):
        self.app, self.token, self.hosts = app, token, hosts

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        request = Request(scope)
        refusal = self.refusal(request)
        if refusal:
            return await PlainTextResponse(f"403 forbidden: {refusal}\n", status_code=403)(scope, receive, send)
        return await self.app(scope, receive, send)

    def refusal(self, request: Request) -> str | None:
        host = request.headers.get("host", "")
        if self.hosts is not ANY_HOST and host not in self.hosts:
            return f"host {host!r} is not this server's"
        origin = request.headers.get("origin")
        if origin is not None and origin.removeprefix("http://") != host:
            return "a cross-origin request"
        if request.headers.get("sec-fetch-site") == "cross-site":
            return "a cross-site request"
        given = request.query_params.get("token") or request.headers.get("x-playground-token") \
            or request.cookies.get(COOKIE) or ""
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            return "no valid token (open the URL `playground serve` printed)"
        if request.method == "POST" and request.headers.get("content-type", "").split(";")[0] != "application/json":
            return "API calls are JSON"
        return None


def create_app(workspace: Workspace, token: str | None = None, hosts: set[str] | None = None) -> Starlette:
    """The app for one workspace; `hosts` are the Host values it answers to (host:port)."""
    token = token or secrets.token_urlsafe(24)

    async def index(request: Request) -> Response:
        response = HTMLResponse(page.served_page(token))
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict")
        return response

    async def state(request: Request) -> Response:
        return await _answer(workspace.state)

    async def compile_(request: Request) -> Response:
        settings = await request.json()
        return await _answer(workspace.compile, settings)

    async def passes(request: Request) -> Response:
        body = await request.json()
        number = body.get("number")
        return await _answer(workspace.passes, body.get("settings") or {},
                             int(number) if number not in (None, "") else None, body.get("find") or None)

    async def diff(request: Request) -> Response:
        body = await request.json()
        return await _answer(workspace.diff, body.get("a") or {}, body.get("b") or {}, body.get("stage") or "")

    async def save(request: Request) -> Response:
        body = await request.json()
        return await _answer(workspace.save, str(body.get("source", "")))

    async def open_(request: Request) -> Response:
        body = await request.json()
        await _answer(workspace.open, str(body.get("ref", "")))
        return await _answer(workspace.state)

    app = Starlette(routes=[
        Route("/", index), Route("/api/state", state), Route("/api/compile", compile_, methods=["POST"]),
        Route("/api/passes", passes, methods=["POST"]), Route("/api/diff", diff, methods=["POST"]),
        Route("/api/save", save, methods=["POST"]), Route("/api/open", open_, methods=["POST"]),
    ], middleware=[Middleware(Guard, token=token, hosts=hosts if hosts is not None else {"testserver"})])
    app.state.token = token
    return app


async def _answer(fn, *args) -> Response:
    """Run a workspace call off the event loop; a mistake of the user's is a 400 with its one line."""
    try:
        return JSONResponse(await run_in_threadpool(fn, *args))
    except (UserError, KernelFailure) as e:
        return JSONResponse({"error": str(e), "line": None}, status_code=400)


ANY_HOST: set = set()


def hosts_for(host: str, port: int) -> set[str]:
    """The Host headers to answer: this address and the loopback names; any, when listening on all
    addresses (other machines name it as they like; the token still guards it)."""
    if host in ("0.0.0.0", "::"):
        return ANY_HOST
    names = {host, "127.0.0.1", "localhost"}
    return {f"{name}:{port}" for name in names}


def listen(host: str, port: int):
    """A listening socket on host:port (0: a free port), for uvicorn to serve on."""
    import socket
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        raise UserError(f"cannot listen on {host}:{port}: {e.strerror}") from None
    sock.listen(64)
    return sock


class Background:
    """The app on a free loopback port in a thread of this process: for tests and benchmarks, which
    drive the page from a browser while they keep the workspace at hand."""

    def __init__(self, workspace: Workspace, token: str = "background-token"):
        import threading

        import uvicorn
        self.workspace = workspace
        sock = listen("127.0.0.1", 0)
        port = sock.getsockname()[1]
        app = create_app(workspace, token, hosts_for("127.0.0.1", port))
        self.url = f"http://127.0.0.1:{port}/?token={token}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        self.server.install_signal_handlers = lambda: None      # signals belong to the main thread
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.workspace.close()
