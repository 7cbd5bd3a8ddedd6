"""The dev server's HTTP side: files of the output folder only, with the live-reload script and the
error overlay injected into pages as they are served (the built files stay clean)."""

from __future__ import annotations

import html
import ipaddress
import json
import logging
import mimetypes
import posixpath
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from ..publish.mediatypes import is_active_type
from ..source.languages import LANGUAGES

log = logging.getLogger(__name__)

RELOAD_PATH = "/__site-builder/events"


# Source code and test data, shown as text (mime-db gives .rs an XML type, and .ts a video's).
TEXT_TYPES = {".interaction", *(suffix for suffix in LANGUAGES if suffix != ".js")}
# What the site is made of: its pages, feed and sitemap, sanitized SVG images, styles, scripts and fonts. Any
# other file is served as its suffix's type only where a browser cannot run that as a page (``is_active_type``):
# an archive's .xhtm, say, would be a page of this site (and is withheld, unless publish_active_files says not).
SITE_TYPES = {
    ".html": "text/html",
    ".xml": "application/xml",
    ".svg": "image/svg+xml",
    ".css": "text/css",
    ".js": "text/javascript",
    ".json": "application/json",
    ".woff2": "font/woff2",
}


MAX_URL = 4096
MAX_CONNECTIONS = 64  # served at once (each open page holds one for its reload stream); more are refused
IDLE_TIMEOUT = 30.0  # seconds a connection may wait on its client before it is closed
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


class PreviewServer(ThreadingHTTPServer):
    """A thread per connection, at most ``MAX_CONNECTIONS`` at once; a client that goes away is
    not an error worth a traceback; requests are answered only for the names this server has."""

    daemon_threads = True
    # the kernel's queue of connections not yet accepted: socketserver's 5 drops the next ones' SYN, and
    # the browser tries again a second later, while a rebuild holds the interpreter and the accepts wait
    request_queue_size = MAX_CONNECTIONS

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self.hosts = allowed_hosts(address[0], self.server_address[1])

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.slots.acquire(blocking=False):
            log.warning("over %d connections at once: one refused", MAX_CONNECTIONS)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, TimeoutError)):
            log.debug("connection from %s ended: %r", client_address, error)
        else:
            log.warning("error while serving %s", client_address, exc_info=True)


def allowed_hosts(host: str, port: int) -> frozenset[str] | None:
    """The ``Host`` values the server answers (None: any, when it listens on every address): its
    own address and the loopback names, so that a page elsewhere cannot read the preview through a
    name of its own that resolves here (DNS rebinding)."""
    if host in ("", "0.0.0.0", "::"):
        return None
    try:
        shown = f"[{host}]" if ipaddress.ip_address(host).version == 6 else host
    except ValueError:
        shown = host.lower()
    return frozenset(f"{name}:{port}" for name in (*LOOPBACK_NAMES, shown))


def host_allowed(header: str | None, hosts: frozenset[str] | None) -> bool:
    if hosts is None:
        return True
    return header is not None and header.strip().lower() in hosts


RELOAD_SCRIPT = """<script>
(function () {
  var key = "site-builder-scroll:" + location.pathname;
  var saved = sessionStorage.getItem(key);
  if (saved !== null) { sessionStorage.removeItem(key); window.scrollTo(0, parseInt(saved, 10)); }
  var source = new EventSource("%s");
  var shown = "%d";
  var here = decodeURIComponent(location.pathname).replace(/^[/]+/, "");  /* its path in the site */
  if (here === "" || here.slice(-1) === "/") here += "index.html";
  source.onmessage = function (event) {
    var cut = event.data.indexOf(" ");
    var epoch = cut < 0 ? event.data : event.data.slice(0, cut);
    if (epoch === shown) return;
    var pages = cut < 0 ? null : JSON.parse(event.data.slice(cut + 1));
    if (pages === null || pages.indexOf(here) >= 0) {
      sessionStorage.setItem(key, String(window.scrollY));
      location.reload();
    } else {
      shown = epoch;  /* a build that changed other pages only */
    }
  };
})();
</script>"""


OVERLAY = """<div id="site-builder-overlay" role="alert" style="position:fixed;inset:auto 1rem 1rem 1rem;z-index:99999;\
max-height:50vh;overflow:auto;background:#2b0f0e;color:#ffd9d6;border:2px solid #ff6b60;border-radius:8px;\
padding:0.75rem 1rem;font:14px/1.5 ui-monospace,monospace;box-shadow:0 8px 30px rgba(0,0,0,.4)">\
<strong style="color:#fff">Build failed: showing the last good version of this page.</strong>\
<pre style="white-space:pre-wrap;margin:0.5rem 0 0">%s</pre></div>"""


def inject(page: bytes, epoch: int, errors: list[str]) -> bytes:
    """Add the reload script (and the error overlay) before </body>."""
    extra = RELOAD_SCRIPT % (RELOAD_PATH, epoch)
    if errors:
        extra += OVERLAY % html.escape("\n".join(errors))
    text = page.decode("utf-8", "replace")
    index = text.rfind("</body>")
    text = text[:index] + extra + text[index:] if index >= 0 else text + extra
    return text.encode("utf-8")


def resolve_request(root: Path, raw_path: str) -> Path | None:
    """The file a URL path names inside ``root``, or None (traversal, absolute paths, links out)."""
    if len(raw_path) > MAX_URL:
        return None
    path = unquote(urlsplit(raw_path).path)
    if "\x00" in path or "\\" in path:
        return None
    normal = posixpath.normpath("/" + path.lstrip("/"))
    if normal.startswith("/..") or any(part == ".." for part in path.split("/")):
        return None
    candidate = root / normal.lstrip("/")
    if candidate.is_dir():
        candidate = candidate / "index.html"
    try:
        resolved = candidate.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    base = root.resolve()
    if not resolved.is_relative_to(base) or not resolved.is_file():
        return None
    return resolved


def _needs_slash(root: Path, raw_path: str) -> bool:
    """A folder asked for without its trailing slash: redirect, so relative links resolve."""
    path = urlsplit(raw_path).path
    if path.endswith("/"):
        return False
    found = resolve_request(root, path)
    return found is not None and found.name == "index.html" and not unquote(path).endswith("index.html")


def content_type(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix in TEXT_TYPES:
        return "text/plain; charset=utf-8"
    guessed = SITE_TYPES.get(suffix) or mimetypes.guess_type(path.name)[0]
    if guessed is None or (suffix not in SITE_TYPES and is_active_type(guessed)):
        return "application/octet-stream"
    return f"{guessed}; charset=utf-8" if guessed.startswith("text/") or guessed.endswith(("json", "xml")) else guessed


class ReloadHub:
    """The epoch pages wait on, the errors of the last build, and whether a build is running.

    Each epoch may name the pages it changed (their paths in the site): an open page reloads only
    for an epoch that names it, or names none (every page). A save's own page is written and
    announced first, the pages listing it after (``serve/updates``)."""

    HISTORY = 64  # epochs whose pages are kept, for a page that missed some
    NAMED = 500  # at most this many pages named in an epoch: more are every page

    def __init__(self) -> None:
        self.condition = threading.Condition()
        self.epoch = 0
        self.errors: list[str] = []
        self.building = False
        self.closing = False
        self.changed: dict[int, frozenset[str] | None] = {}  # the pages of each recent epoch (None: every page)

    @contextmanager
    def rebuilding(self) -> Iterator[None]:
        with self.condition:
            self.building = True
        try:
            yield
        finally:
            with self.condition:
                self.building = False
                self.condition.notify_all()

    def publish(self, errors: list[str], pages: set[str] | None = None) -> None:
        """A new epoch: with these errors, and only ``pages`` changed (None: any page may have; and
        every page, when the errors changed: each shows them)."""
        with self.condition:
            if errors != self.errors or (pages is not None and len(pages) > self.NAMED):
                pages = None
            self.errors = errors
            self.epoch += 1
            self.changed[self.epoch] = None if pages is None else frozenset(pages)
            self.changed.pop(self.epoch - self.HISTORY, None)
            self.condition.notify_all()

    def changed_since(self, seen: int) -> tuple[int, list[str] | None]:
        """The epoch now, and the pages the epochs after ``seen`` changed, sorted (None: every page,
        or not known)."""
        with self.condition:
            found: set[str] = set()
            for epoch in range(seen + 1, self.epoch + 1):
                pages = self.changed.get(epoch)
                if pages is None:
                    return self.epoch, None
                found |= pages
            return self.epoch, sorted(found)

    def wait_idle(self, timeout: float = 60.0) -> None:
        with self.condition:
            self.condition.wait_for(lambda: not self.building or self.closing, timeout=timeout)

    def wait_epoch(self, seen: int, timeout: float) -> int:
        with self.condition:
            self.condition.wait_for(lambda: self.epoch != seen or self.closing, timeout=timeout)
            return self.epoch

    def close(self) -> None:
        with self.condition:
            self.closing = True
            self.condition.notify_all()


def handler_for(hub: ReloadHub, out: Path) -> type[BaseHTTPRequestHandler]:
    """The request handler of a dev server: the files of ``out``, pages with the reload script and the
    overlay of ``hub``'s errors, and the epoch's events."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "site-builder"
        timeout = IDLE_TIMEOUT

        def log_message(self, format: str, *args: object) -> None:
            log.debug("%s " + format, self.address_string(), *args)

        def do_HEAD(self) -> None:
            self._serve(head=True)

        def do_GET(self) -> None:
            if self.path.split("?", 1)[0] == RELOAD_PATH:
                if self._host_allowed(head=False):
                    self._events()
                return
            self._serve(head=False)

        def end_headers(self) -> None:
            self.send_header("X-Content-Type-Options", "nosniff")
            super().end_headers()

        def _host_allowed(self, head: bool) -> bool:
            if host_allowed(self.headers.get("Host"), getattr(self.server, "hosts", None)):
                return True
            self._error(HTTPStatus.MISDIRECTED_REQUEST, head, "this server answers only for its own address")
            return False

        def _serve(self, head: bool) -> None:
            if len(self.path) > MAX_URL:
                self._error(HTTPStatus.REQUEST_URI_TOO_LONG, head)
                return
            if not self._host_allowed(head):
                return
            hub.wait_idle()
            if _needs_slash(out, self.path):
                self.send_response(HTTPStatus.MOVED_PERMANENTLY)
                self.send_header("Location", urlsplit(self.path).path + "/")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            epoch, errors = hub.epoch, hub.errors  # before reading: a later build then reloads
            path = resolve_request(out, self.path)
            if path is None:
                self._error(HTTPStatus.NOT_FOUND, head)
                return
            try:
                data = path.read_bytes()
            except OSError:
                self._error(HTTPStatus.NOT_FOUND, head)
                return
            kind = content_type(path)
            if path.suffix == ".html":
                data = inject(data, epoch, errors)
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if not head:
                self.wfile.write(data)

        def _error(self, status: HTTPStatus, head: bool = False, why: str = "") -> None:
            missing = out / "404.html"
            page = status == HTTPStatus.NOT_FOUND and missing.is_file()
            try:
                body = inject(missing.read_bytes(), hub.epoch, hub.errors) if page else b""
            except OSError:
                page = False
            if not page:
                body = html.escape(f"{status.value} {status.phrase}" + (f": {why}" if why else "")).encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8" if page else "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            if status != HTTPStatus.NOT_FOUND:
                self.send_header("Connection", "close")
                self.close_connection = True
            self.end_headers()
            if not head:
                self.wfile.write(body)

        def _events(self) -> None:
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            epoch = hub.epoch
            try:
                self.wfile.write(f"retry: 500\ndata: {epoch}\n\n".encode())
                self.wfile.flush()
                while not hub.closing:
                    current = hub.wait_epoch(epoch, timeout=15)
                    if hub.closing:
                        return
                    if current == epoch:
                        self.wfile.write(b": keep-alive\n\n")
                    else:
                        epoch, pages = hub.changed_since(epoch)
                        named = "" if pages is None else " " + json.dumps(pages)
                        self.wfile.write(f"data: {epoch}{named}\n\n".encode())
                        log.debug("reload event %s%s", epoch, named)
                    self.wfile.flush()
            except (ConnectionError, TimeoutError, OSError):
                return  # the page went away

    return Handler
