/* reportgen: how a search compares a query with a text, the same for the search of every text
   (search.js on search.html) and a page's own search (reportgen.js): both fold the query and
   the text alike, look for the one in the other, and mark a match on the text's own characters.

   - Canonically equivalent texts match: both are put in NFC, so "é" typed as U+00E9 finds
     "e" + U+0301 and the reverse, and marks logged in another order match too. Not NFKC:
     compatibility folding would make "fi" find "ﬁ", "2" find "²" and "XII" find "Ⅻ", where a
     reader of logs (code, numbers, math) searches for what was written.
   - Unless case is to match, lower case (JavaScript's toLowerCase) with a final sigma as any
     sigma ("ΟΔΟΣ" lowers to "οδος", which "σ" must find). NFC comes after the lower casing:
     "J" + U+030C lowers to "j" + U+030C, which NFC makes "ǰ".
   - Invisible characters are looked through: soft hyphen, zero width space, non-joiner,
     joiner, word joiner and byte order mark are dropped from query and text alike, so
     "pass" + U+200B + "word" (a model hiding a word from a filter) is found by "password".
   - Folding may change a text's length ("e" + U+0301 becomes one character, "İ" lowers to
     two): a match is then widened to whole characters of the text, a base with its marks
     (and the invisible characters after it).

   Normalizing costs ten times the lower casing (ICU copies the text), and most texts are ASCII,
   so a text is normalized only when it holds a character NFC may change. None is below U+0300,
   so an ASCII or Latin-1 text is cleared by one regular expression, which V8 answers without
   reading a one-byte string; another text is read once against a table.
   Classic script (file://, the pages' CSP): it sets window.RG_MATCH. */
(function () {
  "use strict";
  // ---- tables: written by scripts/match_tables.py, do not edit
  // from Chromium 156.0.8078.108: hex code points, ranges a-b
  // characters NFC may change: replaced, reordered (a combining class), or composed with the one before
  var UNSTABLE = "300-34e 350-36f 374 37e 387 483-487 591-5bd 5bf 5c1-5c2 5c4-5c5 5c7 610-61a 64b-65f 670 6d6-6dc 6df-6e4 6e7-6e8 6ea-6ed 711 730-74a 7eb-7f3 7fd 816-819 81b-823 825-827 829-82d 859-85b 897-89f 8ca-8e1 8e3-8ff 93c 94d 951-954 958-95f 9bc 9be 9cd 9d7 9dc-9dd 9df 9fe a33 a36 a3c a4d a59-a5b a5e abc acd b3c b3e b4d b56-b57 b5c-b5d bbe bcd bd7 c3c c4d c55-c56 cbc cc2 ccd cd5-cd6 d3b-d3c d3e d4d d57 dca dcf ddf e38-e3a e48-e4b eb8-eba ec8-ecb f18-f19 f35 f37 f39 f43 f4d f52 f57 f5c f69 f71-f76 f78 f7a-f7d f80-f84 f86-f87 f93 f9d fa2 fa7 fac fb5 fb7 fb9 fc6 102e 1037 1039-103a 108d 1161-1175 11a8-11c2 135d-135f 1714-1715 1734 17d2 17dd 18a9 1939-193b 1a17-1a18 1a60 1a75-1a7c 1a7f 1ab0-1abd 1abf-1add 1ae0-1aeb 1b34-1b35 1b44 1b6b-1b73 1baa-1bab 1be6 1bf2-1bf3 1c37 1cd0-1cd2 1cd4-1ce0 1ce2-1ce8 1ced 1cf4 1cf8-1cf9 1dc0-1dff 1f71 1f73 1f75 1f77 1f79 1f7b 1f7d 1fbb 1fbe 1fc9 1fcb 1fd3 1fdb 1fe3 1feb 1fee-1fef 1ff9 1ffb 1ffd 2000-2001 20d0-20dc 20e1 20e5-20f0 2126 212a-212b 2329-232a 2adc 2cef-2cf1 2d7f 2de0-2dff 302a-302f 3099-309a a66f a674-a67d a69e-a69f a6f0-a6f1 a806 a82c a8c4 a8e0-a8f1 a92b-a92d a953 a9b3 a9c0 aab0 aab2-aab4 aab7-aab8 aabe-aabf aac1 aaf6 abed f900-fa0d fa10 fa12 fa15-fa1e fa20 fa22 fa25-fa26 fa2a-fa6d fa70-fad9 fb1d-fb1f fb2a-fb36 fb38-fb3c fb3e fb40-fb41 fb43-fb44 fb46-fb4e fe20-fe2f 101fd 102e0 10376-1037a 10a0d 10a0f 10a38-10a3a 10a3f 10ae5-10ae6 10d24-10d27 10d69-10d6d 10eab-10eac 10efa-10efb 10efd-10eff 10f46-10f50 10f82-10f85 11046 11070 1107f 110b9-110ba 11100-11102 11127 11133-11134 11173 111c0 111ca 11235-11236 112e9-112ea 1133b-1133c 1133e 1134d 11357 11366-1136c 11370-11374 113b8 113bb 113c2 113c5 113c7-113c9 113ce-113d0 11442 11446 1145e 114b0 114ba 114bd 114c2-114c3 115af 115bf-115c0 1163f 116b6-116b7 1172b 11839-1183a 11930 1193d-1193e 11943 119e0 11a34 11a47 11a99 11c3f 11d42 11d44-11d45 11d97 11f41-11f42 1611e-16129 1612f 16af0-16af4 16b30-16b36 16d67-16d68 16ff0-16ff1 1bc9e 1d15e-1d169 1d16d-1d172 1d17b-1d182 1d185-1d18b 1d1aa-1d1ad 1d1bb-1d1c0 1d242-1d244 1e000-1e006 1e008-1e018 1e01b-1e021 1e023-1e024 1e026-1e02a 1e08f 1e130-1e136 1e2ae 1e2ec-1e2ef 1e4ec-1e4ef 1e5ee-1e5ef 1e6e3 1e6e6 1e6ee-1e6ef 1e6f5 1e8d0-1e8d6 1e944-1e94a 2f800-2fa1d";
  // characters that belong with the one before them: a combining class, or composing with it
  var ATTACH = "300-34e 350-36f 483-487 591-5bd 5bf 5c1-5c2 5c4-5c5 5c7 610-61a 64b-65f 670 6d6-6dc 6df-6e4 6e7-6e8 6ea-6ed 711 730-74a 7eb-7f3 7fd 816-819 81b-823 825-827 829-82d 859-85b 897-89f 8ca-8e1 8e3-8ff 93c 94d 951-954 9bc 9be 9cd 9d7 9fe a3c a4d abc acd b3c b3e b4d b56-b57 bbe bcd bd7 c3c c4d c55-c56 cbc cc2 ccd cd5-cd6 d3b-d3c d3e d4d d57 dca dcf ddf e38-e3a e48-e4b eb8-eba ec8-ecb f18-f19 f35 f37 f39 f71-f75 f7a-f7d f80-f84 f86-f87 fb5 fb7 fc6 102e 1037 1039-103a 108d 1161-1175 11a8-11c2 135d-135f 1714-1715 1734 17d2 17dd 18a9 1939-193b 1a17-1a18 1a60 1a75-1a7c 1a7f 1ab0-1abd 1abf-1add 1ae0-1aeb 1b34-1b35 1b44 1b6b-1b73 1baa-1bab 1be6 1bf2-1bf3 1c37 1cd0-1cd2 1cd4-1ce0 1ce2-1ce8 1ced 1cf4 1cf8-1cf9 1dc0-1dff 20d0-20dc 20e1 20e5-20f0 2cef-2cf1 2d7f 2de0-2dff 302a-302f 3099-309a a66f a674-a67d a69e-a69f a6f0-a6f1 a806 a82c a8c4 a8e0-a8f1 a92b-a92d a953 a9b3 a9c0 aab0 aab2-aab4 aab7-aab8 aabe-aabf aac1 aaf6 abed fb1e fe20-fe2f 101fd 102e0 10376-1037a 10a0d 10a0f 10a38-10a3a 10a3f 10ae5-10ae6 10d24-10d27 10d69-10d6d 10eab-10eac 10efa-10efb 10efd-10eff 10f46-10f50 10f82-10f85 11046 11070 1107f 110b9-110ba 11100-11102 11127 11133-11134 11173 111c0 111ca 11235-11236 112e9-112ea 1133b-1133c 1133e 1134d 11357 11366-1136c 11370-11374 113b8 113bb 113c2 113c5 113c7-113c9 113ce-113d0 11442 11446 1145e 114b0 114ba 114bd 114c2-114c3 115af 115bf-115c0 1163f 116b6-116b7 1172b 11839-1183a 11930 1193d-1193e 11943 119e0 11a34 11a47 11a99 11c3f 11d42 11d44-11d45 11d97 11f41-11f42 1611e-16129 1612f 16af0-16af4 16b30-16b36 16d67-16d68 16ff0-16ff1 1bc9e 1d165-1d169 1d16d-1d172 1d17b-1d182 1d185-1d18b 1d1aa-1d1ad 1d242-1d244 1e000-1e006 1e008-1e018 1e01b-1e021 1e023-1e024 1e026-1e02a 1e08f 1e130-1e136 1e2ae 1e2ec-1e2ef 1e4ec-1e4ef 1e5ee-1e5ef 1e6e3 1e6e6 1e6ee-1e6ef 1e6f5 1e8d0-1e8d6 1e944-1e94a";
  // ---- end of the tables

  // per UTF-16 unit: 1 when NFC may change it (an astral character: its high surrogate),
  // 2 when it belongs with the one before it (BMP only; the astral ones are listed apart)
  var T = new Uint8Array(0x10000);
  var ASTRAL_ATTACH = [];
  function read(list, bit) {
    list.split(" ").forEach(function (r) {
      var ab = r.split("-"), a = parseInt(ab[0], 16), b = ab.length > 1 ? parseInt(ab[1], 16) : a;
      if (a > 0xffff) {
        if (bit === 2) { ASTRAL_ATTACH.push([a, b]); return; }
        for (var h = 0xd800 + ((a - 0x10000) >> 10); h <= 0xd800 + ((b - 0x10000) >> 10); h++) T[h] |= bit;
        return;
      }
      for (var c = a; c <= b; c++) T[c] |= bit;
    });
  }
  read(UNSTABLE, 1);
  read(ATTACH, 2);
  // invisible characters a search looks through: soft hyphen, zero width space, non-joiner and
  // joiner, word joiner, byte order mark ("pass\u200bword" is found by "password"). Each belongs
  // with the character before it, so that a match is widened onto it as onto a mark.
  var INVISIBLE = /[\u00ad\u200b-\u200d\u2060\ufeff]/;
  var INVISIBLES = /[\u00ad\u200b-\u200d\u2060\ufeff]/g;
  [0xad, 0x200b, 0x200c, 0x200d, 0x2060, 0xfeff].forEach(function (c) { T[c] |= 2; });

  var WIDE = /[\u0300-\uffff]/;
  var SIGMA = /\u03c2/g;
  function unstable(s) {
    var i = s.search(WIDE);
    if (i < 0) return false;
    for (var n = s.length; i < n; i++) if (T[s.charCodeAt(i)] & 1) return true;
    return false;
  }
  function fold(s, cs) {
    if (!cs) s = s.toLowerCase();
    if (INVISIBLE.test(s)) s = s.replace(INVISIBLES, ""); // before NFC: "e" + ZWSP + U+0301 is "é"
    if (unstable(s)) s = s.normalize("NFC");
    return cs ? s : s.replace(SIGMA, "\u03c3");
  }

  function width(s, i) {
    var c = s.charCodeAt(i), lo = s.charCodeAt(i + 1);
    return c >= 0xd800 && c < 0xdc00 && lo >= 0xdc00 && lo < 0xe000 ? 2 : 1;
  }
  function attaches(s, i) {
    if (width(s, i) === 1) return (T[s.charCodeAt(i)] & 2) !== 0;
    var cp = s.codePointAt(i);
    for (var k = 0; k < ASTRAL_ATTACH.length && cp >= ASTRAL_ATTACH[k][0]; k++) if (cp <= ASTRAL_ATTACH[k][1]) return true;
    return false;
  }

  // A text that folding changes other than unit for unit, folded a piece at a time: segment k is
  // text[o[k], o[k+1]) and fold[f[k], f[k+1]), unit for unit when exact[k]. A piece ends before
  // an ASCII character (nothing composes with one, and lower casing looks at no neighbour but for
  // the final sigma, which folds to sigma anyway), so the pieces fold to the fold of the text; a
  // piece that does not fold unit for unit is cut before each character that does not belong
  // with the one before it.
  var PIECE = /[\x00-\x7f]?[^\x00-\x7f]+/g;
  function aligned(text, cs) {
    var parts = [], f = [0], o = [0], exact = [], size = 0;
    function add(folded, end, isExact) {
      parts.push(folded);
      size += folded.length;
      f.push(size);
      o.push(end);
      exact.push(isExact);
    }
    function clusters(p, start) {
      for (var from = 0, i = 0; i < p.length;) {
        i += width(p, i);
        if (i < p.length && attaches(p, i)) continue;
        add(fold(p.slice(from, i), cs), start + i, false);
        from = i;
      }
    }
    var pos = 0, m;
    PIECE.lastIndex = 0;
    while ((m = PIECE.exec(text))) {
      if (m.index > pos) {
        var gap = text.slice(pos, m.index);
        add(cs ? gap : gap.toLowerCase(), m.index, true);
      }
      var p = m[0], low = cs ? p : p.toLowerCase();
      var norm = unstable(low) ? low.normalize("NFC") : low;
      if (low.length === p.length && norm === low && !INVISIBLE.test(p)) add(cs ? low : low.replace(SIGMA, "\u03c3"), m.index + p.length, true);
      else clusters(p, m.index);
      pos = m.index + p.length;
    }
    if (pos < text.length) {
      var rest = text.slice(pos);
      add(cs ? rest : rest.toLowerCase(), text.length, true);
    }
    return { hay: parts.join(""), f: f, o: o, exact: exact };
  }
  // where position x of the fold is in the text: in a segment folded unit for unit, the same
  // unit; in another, a start goes to the start of the segment and an end to its end
  function back(a, x, isEnd) {
    var lo = 0, hi = a.exact.length - 1;
    while (lo < hi) { // the segment that holds the unit at x (a start) or the one before x (an end)
      var mid = (lo + hi + 1) >> 1;
      if (isEnd ? a.f[mid] < x : a.f[mid] <= x) lo = mid; else hi = mid - 1;
    }
    if (a.exact[lo]) return a.o[lo] + (x - a.f[lo]);
    return isEnd ? a.o[lo + 1] : a.o[lo];
  }

  // the first `max` matches of a folded needle in a text, as [start, end) of the text itself;
  // matches widened onto the same characters make one
  function spans(text, needle, cs, max) {
    var out = [];
    if (!needle) return out;
    var low = cs ? text : text.toLowerCase(), a = null, hay;
    if (low.length === text.length && !unstable(low) && !INVISIBLE.test(low)) hay = cs ? low : low.replace(SIGMA, "\u03c3");
    else { a = aligned(text, cs); hay = a.hay; }
    var at = hay.indexOf(needle);
    while (at >= 0 && out.length < max) {
      var end = at + needle.length;
      if (!a) out.push([at, end]);
      else {
        var from = back(a, at, false), to = back(a, end, true), last = out[out.length - 1];
        if (last && from < last[1]) last[1] = to; else out.push([from, to]);
      }
      at = hay.indexOf(needle, end);
    }
    return out;
  }

  // ---- the edges of an excerpt around a match (search.js's snippets): a window of `reach`
  // units on each side, cut only between grapheme clusters, so that it never shows half of a
  // surrogate pair, a mark without its letter, a letter without its marks, half of an emoji
  // sequence or of a flag. Intl.Segmenter (ICU's clusters) reads a few dozen units around
  // each edge; without it, or in a cluster longer than that, a cut never falls before a mark
  // (\p{M}), a skin tone or tag character, after a zero width joiner, nor inside a pair. An
  // edge only moves inwards, toward the match: at most by a cluster.
  var SEGMENTER = null;
  try { SEGMENTER = new Intl.Segmenter(undefined, { granularity: "grapheme" }); } catch (e) { SEGMENTER = null; }
  var NEAR = 32; // units read on each side of an edge
  var JOINS = /[\p{M}\u200c\u200d\u{1f3fb}-\u{1f3ff}\u{e0020}-\u{e007f}]/uy; // never a cluster's first
  function joins(s, i) { // no cut before unit i (0 < i < s.length)
    var c = s.charCodeAt(i), p = s.charCodeAt(i - 1);
    if (c >= 0xdc00 && c < 0xe000 && p >= 0xd800 && p < 0xdc00) return true; // inside a pair
    if (p === 0x200d) return true; // after a zero width joiner
    JOINS.lastIndex = i;
    return JOINS.test(s);
  }
  function isFlagHalf(s, i) { // a regional indicator (U+1F1E6-1F1FF) starts at i
    var lo = s.charCodeAt(i + 1);
    return s.charCodeAt(i) === 0xd83c && lo >= 0xdde6 && lo <= 0xddff;
  }
  // a cut at or past i (forward) or at or before i (backward), never past `stop`
  function edge(s, i, forward, stop) {
    if (i <= 0 || i >= s.length) return i;
    var step = forward ? 1 : -1;
    if (SEGMENTER) {
      var from = Math.max(0, i - NEAR), to = Math.min(s.length, i + NEAR);
      var lo = s.charCodeAt(from), hi = s.charCodeAt(from - 1);
      if (lo >= 0xdc00 && lo < 0xe000 && hi >= 0xd800 && hi < 0xdc00) from--; // not inside a pair
      // flags pair regional indicators from the start of their run: read from there (or far back)
      for (var k = 0; k < 512 && from >= 2 && isFlagHalf(s, from - 2); k++) from -= 2;
      var seg = SEGMENTER.segment(s.slice(from, to)).containing(i - from);
      var start = from + seg.index, end = start + seg.segment.length;
      if (start === i) return i;
      // a cluster cut by the window is longer than it: the rules below
      if ((start > from || from === 0) && (end < to || to === s.length)) {
        return forward ? Math.min(end, stop) : Math.max(start, stop);
      }
    }
    while (i !== stop && i > 0 && i < s.length && joins(s, i)) i += step;
    return i;
  }
  // [a, b): up to `reach` units before the match [at, end) and after it, cut between clusters
  function excerpt(s, at, end, reach) {
    return [edge(s, Math.max(0, at - reach), true, at), edge(s, Math.min(s.length, end + reach), false, end)];
  }

  window.RG_MATCH = { fold: fold, spans: spans, excerpt: excerpt };
})();
