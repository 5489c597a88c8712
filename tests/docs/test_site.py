"""The documentation site: it builds with warnings as errors, every internal link of the built
site resolves, every README section has a home on the site, and the home page, an env page, an
agent page and the API index render in a headless browser with no console errors.

The browser is Chromium driven by Playwright (both in the ``docs`` extra and Debian's
``chromium`` package; ``.ci/run`` installs it and sets ``POKERZOO_REQUIRE_BROWSER=1``, so CI
fails rather than skips without one)."""

from __future__ import annotations

import contextlib
import functools
import html.parser
import http.server
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from tests.manual import site_pages

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["index.html", "envs/leduc_holdem_v0.html", "agents/cfr.html", "api/index.html"]

pytest.importorskip("mkdocs", reason="the docs extra: pip install -e '.[docs]'")


@functools.cache
def built_site(folder: str) -> Path:
    """``mkdocs build --strict`` into ``folder``; fails with mkdocs' own messages."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", folder],
        cwd=ROOT, capture_output=True, text=True, timeout=600, env=env,
    )
    assert result.returncode == 0, result.stderr[-6000:]
    return Path(folder)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_site(str(tmp_path_factory.mktemp("site")))


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.targets: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(values["id"] or "")
        for name in ("href", "src"):
            if values.get(name) and tag in ("a", "img", "link", "script"):
                self.targets.append(values[name] or "")


def test_every_internal_link_of_the_built_site_resolves(site: Path) -> None:
    parsed = {}
    for page in site.rglob("*.html"):
        if page.name == "404.html":  # a server's error page: its links are from the site's root
            continue
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        parsed[page] = parser
    broken = []
    for page, parser in parsed.items():
        for target in parser.targets:
            parts = urlsplit(target)
            if parts.scheme or parts.netloc or target.startswith(("mailto:", "data:")):
                continue
            path = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if path.is_dir():
                path = path / "index.html"
            if not path.exists():
                broken.append(f"{page.relative_to(site)} -> {target}")
            elif parts.fragment and path in parsed:
                if unquote(parts.fragment) not in parsed[path].ids:
                    broken.append(f"{page.relative_to(site)} -> {target} (no such anchor)")
    assert not broken, "\n".join(broken[:40])


def test_the_site_fetches_nothing_from_the_network(site: Path) -> None:
    for page in ("index.html", "agents/cfr.html"):
        text = (site / page).read_text(encoding="utf-8")
        fetched = re.findall(r'<(?:script|link|img)[^>]+(?:src|href)="(https?://[^"]+)"', text)
        assert not fetched, (page, fetched)


def test_every_nav_page_is_a_file_and_every_agent_page_has_results_and_replication() -> None:
    pages = site_pages()
    assert all(page.is_file() for page in pages), [p for p in pages if not p.is_file()]
    agents = [p for p in pages if p.parent.name == "agents" and p.name != "index.md"]
    assert len(agents) >= 8
    for page in agents:
        text = page.read_text(encoding="utf-8")
        for heading in ("## Results", "## How to replicate", "## Parameters"):
            assert heading in text, (page.name, heading)
        assert "<!-- parameters: " in text, page.name


def test_agent_pages_cover_every_registered_agent() -> None:
    from pokerzoo.agents.registry import registered_agents

    listed = set()
    for page in site_pages():
        listed.update(*(m.split() for m in re.findall(r"<!-- parameters: ([^>]+?) -->",
                                                       page.read_text(encoding="utf-8"))))
    assert listed == set(registered_agents()), set(registered_agents()) ^ listed


def test_agent_pages_show_the_generated_parameters(site: Path) -> None:
    text = (site / "agents" / "cfr.html").read_text(encoding="utf-8")
    assert "regret_matching_plus" in text and "averaging_power" in text
    assert "<!-- parameters" not in text


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


@contextlib.contextmanager
def _served(folder: Path) -> Iterator[str]:
    """A local HTTP server on 127.0.0.1 serving ``folder``; yields its base URL."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *args: None  # type: ignore[method-assign]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def _visit(browser: Any, url: str) -> tuple[str, list[str], list[str]]:
    """Open ``url``; its article heading, console errors and failed requests."""
    page = browser.new_page()
    errors: list[str] = []
    failed: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("requestfailed", lambda r: failed.append(r.url))
    page.goto(url, wait_until="load")
    page.wait_for_timeout(300)  # let the theme's scripts (search index) load
    heading = page.inner_text("article h1")
    page.close()
    return heading, errors, failed


def test_pages_render_in_a_headless_browser_with_no_console_errors(site: Path) -> None:
    browser_path = _chromium()
    playwright = pytest.importorskip("playwright.sync_api")
    if browser_path is None:
        if os.environ.get("POKERZOO_REQUIRE_BROWSER"):
            pytest.fail("no Chromium found (apt-get install chromium)")
        pytest.skip("no Chromium on this machine (apt-get install chromium)")
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=browser_path,
                                         args=["--no-sandbox", "--disable-gpu"])
        try:
            with _served(site) as base:
                for name in PAGES:
                    heading, errors, failed = _visit(browser, base + name)
                    assert heading.strip(), name
                    assert not errors and not failed, (name, errors, failed)
                # The search box finds a page by a word of its text.
                page = browser.new_page()
                page.goto(base + "index.html", wait_until="load")
                page.keyboard.press("s")
                page.fill("input.md-search__input", "exploitability")
                page.wait_for_selector(".md-search-result__item", timeout=20_000)
                page.close()
            # From file:// the pages render the same; only the search worker, which browsers
            # do not start from file://, is missing.
            for name in PAGES:
                heading, errors, failed = _visit(browser, (site / name).resolve().as_uri())
                assert heading.strip(), name
                other = [e for e in errors if "search" not in e and "ERR_FILE_NOT_FOUND" not in e]
                assert not other, (name, other)
                assert all("/search/" in url for url in failed), (name, failed)
        finally:
            browser.close()
