"""Real-browser checks in Debian's Chromium, driven by Playwright (never a downloaded browser)."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, write_tree

from site_builder.serve.server import DevServer
from site_builder.source.config import make_options


@pytest.fixture
def dev(tmp_path: Path) -> Iterator[DevServer]:
    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    shutil.copytree(ROOT / "static", tmp_path / "static")
    long = "\n\n".join(f"Paragraph {n} of the idea, long enough to scroll." for n in range(80))
    write_tree(tmp_path / "archive", {"t/A-alpha/solution.tex": f"\\section{{Idea}}\nFirst text.\n\n{long}\n"})
    server = DevServer(make_options(tmp_path, jobs=1), port=0)
    server.start()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.stop()


def test_open_page_reloads_after_an_edit_and_keeps_its_scroll(browser: Any, dev: DevServer) -> None:
    assert dev.httpd is not None
    port = dev.httpd.server_address[1]
    page = browser.new_page(viewport={"width": 1000, "height": 700})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(f"http://127.0.0.1:{port}/t/A-alpha/index.html")
    assert page.locator(".prose").first.inner_text().count("First text.") == 1
    page.evaluate("window.scrollTo(0, 1500)")
    page.wait_for_timeout(300)  # let the EventSource connect
    source = dev.options.archive / "t/A-alpha/solution.tex"
    source.write_text(source.read_text().replace("First text.", "Edited text."))
    page.wait_for_function("document.body.innerText.includes('Edited text.')", timeout=10_000)
    page.wait_for_function("window.scrollY > 1000", timeout=5_000)
    assert errors == []
