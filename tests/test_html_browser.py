"""The HTML report in a real headless browser (Debian's chromium driven by Playwright):
the page loads, the table has the rows, a tree expands.  Runs where the extra
fpsmt[browser] and chromium are installed; CI sets FPSMT_REQUIRE_BROWSER, so there a
missing browser fails instead of skipping."""

import json
import os
import shutil

import pytest
from conftest import fpsmt

REQUIRED = bool(os.environ.get("FPSMT_REQUIRE_BROWSER"))


def _chromium():
    path = os.environ.get("FPSMT_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        if REQUIRED:
            pytest.fail("FPSMT_REQUIRE_BROWSER is set but no chromium is installed (apt-get install chromium)")
        pytest.skip("no chromium (apt-get install chromium)")
    return path


def _sync_playwright():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if REQUIRED:
            raise
        pytest.skip("the extra fpsmt[browser] (playwright) is not installed")
    return sync_playwright


def test_the_html_report_loads_lists_the_rows_and_a_tree_expands(tmp_path):
    chromium, sync_playwright = _chromium(), _sync_playwright()
    cert, page_path = tmp_path / "c.json", tmp_path / "r.html"
    r = fpsmt("reproduce", "--lemma", "multiplication_transfer", "--format", "float8_e4m3",
              "--store", str(tmp_path / "s.sqlite"), "--report", str(tmp_path / "r.md"), "--certificate", str(cert))
    assert r.returncode == 0, r.stderr
    r = fpsmt("check", str(cert), "--html", str(page_path))
    assert r.returncode == 0, r.stderr
    rows = json.loads(cert.read_text())["rows"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            pg = browser.new_page()
            pg.goto(page_path.as_uri())
            assert pg.title() == f"fpsmt check {cert}"
            assert pg.locator("#summary").inner_text() == f"{len(rows)} of {len(rows)} row(s) re-established."
            body = pg.locator("table#rows tbody tr")
            assert body.count() == len(rows)
            refuted = [i for i, row in enumerate(rows) if row["status"] == "REFUTED"]
            cell = body.nth(refuted[0]).locator("td").nth(7).inner_text()
            assert "0x" in cell and "(" in cell  # a counterexample: bit pattern and decimal value
            i = next(i for i, row in enumerate(rows) if row["lemma"] == "multiplication_transfer"
                     and row["variant"] == "repaired")
            root = pg.locator(f"#tree-{i} > details")
            stage = pg.locator(f"#tree-{i} details details").first
            assert root.evaluate("e => e.open") is False and not stage.is_visible()
            pg.locator(f"#tree-{i} > details > summary").click()
            assert root.evaluate("e => e.open") is True and stage.is_visible()
            assert "multiplication_transfer.scale" in stage.locator("summary").inner_text()
            assert "re-established" in stage.locator("summary").inner_text()
        finally:
            browser.close()
