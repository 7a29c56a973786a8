"""docs/compare.md shows a real compare page (issue 26, plugfinish item 5): the screenshot
it links exists, is a PNG within ~1280 × 1600 pixels and under 300 kB, and the page says
which commands made it (the three shipped examples it shows)."""

from __future__ import annotations

import re
import struct
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "compare.md"


def test_the_compare_page_shows_a_screenshot_and_the_command_that_made_it():
    text = PAGE.read_text(encoding="utf-8")
    (img,) = re.findall(r"!\[[^\]]+\]\(([^)]+\.png)\)", text)
    png = (PAGE.parent / img).read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert width <= 1280 and height <= 1600 and len(png) < 300_000
    for k in ("red", "pie", "codel"):
        assert (ROOT / "examples" / f"dumbbell-{k}.toml").is_file()
        assert f"aqmsim run examples/dumbbell-{k}.toml --delays --tcp all --set duration=5 --out out/{k}" in text
    assert "aqmsim compare out/red out/pie out/codel --out out/cmp" in text
    assert "chromium --headless" in text
