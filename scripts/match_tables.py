"""Write the Unicode tables of ``assets/match.js`` from Chromium's own data (run by hand when
``tests/browser/test_search_browser.py`` says a table misses characters: a newer Chromium
knows newer characters).

The searches normalize a text only when it holds a character that NFC may change
(``UNSTABLE``), and, to mark a match on the text's own characters, cut a text that NFC
changes before every character that does not belong with the one before it (``ATTACH``).
The browser is asked rather than Python's ``unicodedata``: the browser's normalization is
the one the tables must agree with, and its Unicode is usually the newer.

    python scripts/match_tables.py
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MATCH_JS = ROOT / "assets" / "match.js"
BEGIN = "  // ---- tables: written by scripts/match_tables.py, do not edit\n"
END = "  // ---- end of the tables\n"

# What NFC does to each code point, asked of the browser's own String.prototype.normalize. It
# exposes no combining class; a class other than 0 shows as reordering against U+0334 (class 1)
# or U+0301 (class 230). A character composes with the one before it only if it is a later part
# of some character's canonical decomposition (Hangul vowels and finals are, too).
ENUMERATE_JS = r"""
() => {
  var N = 0x110000, ccc = new Uint8Array(N), later = new Uint8Array(N), changes = new Uint8Array(N);
  var first = new Int32Array(N);
  function skip(cp) { return cp >= 0xd800 && cp < 0xe000; }
  for (var cp = 0; cp < N; cp++) {
    if (skip(cp)) continue;
    var c = String.fromCodePoint(cp), d = c.normalize("NFD");
    if (c.normalize("NFC") !== c) changes[cp] = 1;
    var parts = Array.from(d);
    first[cp] = parts[0].codePointAt(0);
    for (var i = 1; i < parts.length; i++) later[parts[i].codePointAt(0)] = 1;
    if (d === c) {
      var a = "a" + c + "\u0334", b = "a\u0301" + c;
      if (a.normalize("NFD") !== a || b.normalize("NFD") !== b) ccc[cp] = 1;
    }
  }
  var unstable = [], attach = [];
  for (cp = 0; cp < N; cp++) {
    if (skip(cp)) continue;
    var f = first[cp], at = ccc[f] || later[f];
    if (at) attach.push(cp);
    if (at || changes[cp]) unstable.push(cp);
  }
  return { unstable: unstable, attach: attach };
}
"""


def browser_tables(page: Any) -> dict[str, list[int]]:
    """The code points of each table, as the browser of ``page`` (a Playwright page) knows them."""
    result: dict[str, list[int]] = page.evaluate(ENUMERATE_JS)
    return result


def ranges_text(cps: list[int]) -> str:
    """Code points as space-separated hex ranges: ``300-34e 350-36f 374``."""
    out: list[list[int]] = []
    for cp in sorted(cps):
        if out and out[-1][1] == cp - 1:
            out[-1][1] = cp
        else:
            out.append([cp, cp])
    return " ".join(f"{a:x}" if a == b else f"{a:x}-{b:x}" for a, b in out)


def parse_ranges(text: str) -> set[int]:
    cps: set[int] = set()
    for r in text.split():
        a, _, b = r.partition("-")
        cps.update(range(int(a, 16), int(b or a, 16) + 1))
    return cps


def file_tables(source: str) -> dict[str, set[int]]:
    """The tables as ``assets/match.js`` holds them."""
    found = {
        m.group(1).lower(): parse_ranges(m.group(2)) for m in re.finditer(r'var (UNSTABLE|ATTACH) = "([^"]*)"', source)
    }
    if set(found) != {"unstable", "attach"}:
        raise ValueError("assets/match.js holds no UNSTABLE and ATTACH tables")
    return found


def main() -> None:
    from playwright.sync_api import sync_playwright

    chromium = os.environ.get("REPORTGEN_CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox"])
        tables = browser_tables(browser.new_page())
        version = browser.version
        browser.close()
    source = MATCH_JS.read_text(encoding="utf-8")
    start, end = source.index(BEGIN) + len(BEGIN), source.index(END)
    block = (
        f"  // from Chromium {version}: hex code points, ranges a-b\n"
        "  // characters NFC may change: replaced, reordered (a combining class), or composed with the one before\n"
        f'  var UNSTABLE = "{ranges_text(tables["unstable"])}";\n'
        "  // characters that belong with the one before them: a combining class, or composing with it\n"
        f'  var ATTACH = "{ranges_text(tables["attach"])}";\n'
    )
    MATCH_JS.write_text(source[:start] + block + source[end:], encoding="utf-8")
    print(f"{MATCH_JS.relative_to(ROOT)}: {len(tables['unstable'])} unstable, {len(tables['attach'])} attaching")


if __name__ == "__main__":
    main()
