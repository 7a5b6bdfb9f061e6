#!/usr/bin/env bash
# Re-vendor the browser libraries in assets/vendor/ from the npm registry.
#
# Everything is pinned: package versions AND the sha512 integrity of each
# npm tarball. The script aborts if the registry hands back a different
# tarball. Only the npm registry is contacted (via `npm pack` / `npm install`),
# never a CDN.
#
# Usage:   bash scripts/vendor.sh            # from the repo root (or anywhere)
# Needs:   bash, node + npm, tar, sha256sum
#
# vega-interpreter >= 2 is published as an ES module only (no UMD build), so
# this script rebuilds the UMD bundle from its build/vega-interpreter.js with
# pinned rollup + terser, using the same shape upstream used for 1.x:
# `rollup --format umd --name vega --extend` with vega-util mapped to the
# global `vega`. Result: it adds `vega.expressionInterpreter` to the global
# `vega` object, and therefore must be loaded after vega.min.js.
set -euo pipefail

# ---- pins -----------------------------------------------------------------
VEGA_VERSION=6.4.0
VEGA_LITE_VERSION=6.5.0
VEGA_EMBED_VERSION=7.3.0
VEGA_INTERPRETER_VERSION=2.3.2
KATEX_VERSION=0.19.1
# build tools used only to turn vega-interpreter's ESM into a minified UMD
ROLLUP_VERSION=4.68.8
TERSER_VERSION=5.51.4

declare -A INTEGRITY=(
  [vega]="sha512-rHXCq2LpEWCLMjXBEj7hocY9G0/i5TGYRayGGSj06VTF4+l2IG2Z7oeZKCjWbUh/7hTE/mVhbaOPB72wCElh6g=="
  [vega-lite]="sha512-fMXF6s0MrIg0UTWnLIfeFtgSLzVhyzSKobzGrh5rhS+mL6FOYFG3m7ouJ4U23gj65EK+gl9FIIT5w7wLNaAzkA=="
  [vega-embed]="sha512-wQ8s5GaSzqoKgmRfbRolgBrjE2CP7ZKHXqH7NijxMqPjpdWxSs4Dn8tvp9g0giQvh2cK+3p56sxjWWM0wNngGw=="
  [vega-interpreter]="sha512-JDAoi3taFcCDLujZG84TNNUXdkAZ5WsSHssx8lWVYaxb9Slsjk7v7PtRIYXpSlUwLaKGRBqoJ9KDs36Z0eMEIw=="
  [katex]="sha512-jG8uKntjSEcm2EpQOh0XturpPuuC9r3Sq5HLHdsFdWZT27E672SF19QEi+of0/YeOy15lDgRhKvr5614uRrEfA=="
)
declare -A VERSION=(
  [vega]=$VEGA_VERSION
  [vega-lite]=$VEGA_LITE_VERSION
  [vega-embed]=$VEGA_EMBED_VERSION
  [vega-interpreter]=$VEGA_INTERPRETER_VERSION
  [katex]=$KATEX_VERSION
)
PACKAGES=(vega vega-lite vega-embed vega-interpreter katex)

# ---- paths ----------------------------------------------------------------
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$REPO_ROOT/assets/vendor"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/reportgen-vendor.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

log() { printf '[vendor] %s\n' "$*" >&2; }

# ---- 1. npm pack + integrity check + extract ------------------------------
cd "$WORK"
specs=()
for p in "${PACKAGES[@]}"; do specs+=("$p@${VERSION[$p]}"); done
log "npm pack ${specs[*]}"
npm pack --json "${specs[@]}" > pack.json

for p in "${PACKAGES[@]}"; do
  v=${VERSION[$p]}
  tgz="$p-$v.tgz"
  [[ -f "$tgz" ]] || { log "missing tarball $tgz"; exit 1; }
  # integrity of the local tarball, computed independently of npm
  got="sha512-$(node -e 'const c=require("crypto"),f=require("fs");process.stdout.write(c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"))' "$tgz")"
  if [[ "$got" != "${INTEGRITY[$p]}" ]]; then
    log "INTEGRITY MISMATCH for $p@$v"; log "  expected ${INTEGRITY[$p]}"; log "  got      $got"; exit 1
  fi
  mkdir -p "x/$p"
  tar -xzf "$tgz" -C "x/$p"
  log "ok $p@$v"
done

# ---- build tools for the vega-interpreter UMD -----------------------------
log "installing rollup@$ROLLUP_VERSION terser@$TERSER_VERSION (temp dir)"
mkdir -p tools
( cd tools && npm init -y >/dev/null \
  && npm install --no-audit --no-fund --ignore-scripts --loglevel=error \
       "rollup@$ROLLUP_VERSION" "terser@$TERSER_VERSION" >/dev/null )

VI_SRC="x/vega-interpreter/package/build/vega-interpreter.js"
tools/node_modules/.bin/rollup "$VI_SRC" \
  --format umd --name vega --extend \
  --external vega-util --globals vega-util:vega \
  --file vega-interpreter.umd.js --silent
tools/node_modules/.bin/terser vega-interpreter.umd.js \
  --compress --mangle --comments false \
  -o vega-interpreter.min.js

# ---- 2. copy into assets/vendor/ ------------------------------------------
mkdir -p "$DEST"
# wipe previous vendored artefacts, keep the hand-written README.md
find "$DEST" -mindepth 1 -maxdepth 1 ! -name README.md -exec rm -rf {} +

cp x/vega/package/build/vega.min.js                 "$DEST/vega.min.js"
cp x/vega-lite/package/build/vega-lite.min.js       "$DEST/vega-lite.min.js"
cp x/vega-embed/package/build/vega-embed.min.js     "$DEST/vega-embed.min.js"
cp vega-interpreter.min.js                          "$DEST/vega-interpreter.min.js"

mkdir -p "$DEST/fonts" "$DEST/contrib"
cp x/katex/package/dist/katex.min.js                "$DEST/katex.min.js"
cp x/katex/package/dist/katex.min.css               "$DEST/katex.min.css"
cp x/katex/package/dist/contrib/auto-render.min.js  "$DEST/contrib/auto-render.min.js"
# woff2 only: katex.min.css lists woff2 first (then woff, ttf); every current
# browser takes the woff2 and never asks for the others. fonts/ must stay a
# sibling of katex.min.css (it uses url(fonts/...)).
cp x/katex/package/dist/fonts/*.woff2               "$DEST/fonts/"

# ---- 3. licences ----------------------------------------------------------
for p in "${PACKAGES[@]}"; do
  cp "x/$p/package/LICENSE" "$DEST/LICENSE.$p.txt"
done

# ---- sanity checks --------------------------------------------------------
# every JS file must be a UMD/IIFE that sets globals from a classic <script>
node - "$DEST" <<'EOF'
const fs = require('fs'), path = require('path'), vm = require('vm');
const dir = process.argv[2];
const order = ['vega.min.js', 'vega-lite.min.js', 'vega-interpreter.min.js',
               'vega-embed.min.js', 'katex.min.js',
               'contrib/auto-render.min.js'];
// a fake browser-ish global: no `module`, `exports`, `define`
const g = { console, setTimeout, clearTimeout, setInterval, clearInterval,
            queueMicrotask, structuredClone, URL, TextEncoder, TextDecoder };
g.window = g; g.self = g; g.globalThis = g;
const ctx = vm.createContext(g);
for (const f of order) {
  const src = fs.readFileSync(path.join(dir, f), 'utf8');
  if (/^\s*(import|export)\s/m.test(src.slice(0, 200))) throw new Error(f + ' looks like an ES module');
  try { vm.runInContext(src, ctx, { filename: f }); }
  catch (e) { console.error('[vendor] loading ' + f + ' failed: ' + e.message); process.exit(1); }
}
const check = {
  'vega.version': g.vega && g.vega.version,
  'vegaLite.version': g.vegaLite && g.vegaLite.version,
  'vega.expressionInterpreter': g.vega && typeof g.vega.expressionInterpreter,
  'vegaEmbed.version': g.vegaEmbed && g.vegaEmbed.version,
  'katex.version': g.katex && g.katex.version,
  'renderMathInElement': typeof g.renderMathInElement,
};
console.error('[vendor] globals:', JSON.stringify(check));
for (const [k, v] of Object.entries(check)) if (!v || v === 'undefined') throw new Error('missing global ' + k);
EOF

log "done; files in $DEST:"
( cd "$DEST" && find . -type f ! -path './fonts/*' | sort | xargs wc -c >&2 \
  && printf '%s woff2 fonts, %s bytes\n' "$(ls fonts | wc -l)" "$(cat fonts/* | wc -c)" >&2 )
