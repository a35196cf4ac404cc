#!/bin/bash
# `tosakit compare --html` renders in a real browser: headless Chromium loads the page (no network), the DOM
# has the table with one row per tensor and the SVG plot with both series, and the screenshot shows the
# green (within tolerance) and red (below) cells and the plot's blue cosine line.
# Env: TK, OUT. Exit 77 (skip) without chromium or python3-pil.
set -euo pipefail
PY=/usr/bin/python3
command -v chromium > /dev/null || { echo "test_compare_html: chromium missing: skipped"; exit 77; }
$PY -c "import PIL, numpy" 2>/dev/null || { echo "test_compare_html: python3-pil missing: skipped"; exit 77; }
W="$OUT/compare-html"
rm -rf "$W" && mkdir -p "$W"
$PY - "$W" <<'PYEOF'
import sys
import numpy as np
rng = np.random.default_rng(0)
w = sys.argv[1]
a = {f"layer{i}": rng.standard_normal((4, 8)).astype(np.float32) for i in range(6)}
b = {k: v + 0.01 * rng.standard_normal(v.shape).astype(np.float32) for k, v in a.items()}
b["layer3"] = rng.standard_normal((4, 8)).astype(np.float32)  # unrelated: below tolerance
np.savez(f"{w}/a.npz", **a)
np.savez(f"{w}/b.npz", **b)
PYEOF
set +e
"$TK" compare "$W/a.npz" "$W/b.npz" --tolerance 0.99,0.9 --html "$W/report.html" > "$W/stdout.txt"
rc=$?
set -e
[ "$rc" = 1 ] || { echo "compare: exit $rc, expected 1 (layer3 below tolerance)"; exit 1; }
grep -q "5 of 6 tensors within tolerance" "$W/stdout.txt"
PROFILE=$(mktemp -d)
FLAGS=(--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update
       --disable-sync --no-first-run --user-data-dir="$PROFILE")
timeout 120 chromium "${FLAGS[@]}" --dump-dom "file://$W/report.html" > "$W/dom.html" 2> "$W/chromium.log"
timeout 120 chromium "${FLAGS[@]}" --window-size=1000,900 --screenshot="$W/report.png" "file://$W/report.html" \
  >> "$W/chromium.log" 2>&1
rm -rf "$PROFILE"
$PY - "$W" <<'PYEOF'
import re, sys
from PIL import Image
w = sys.argv[1]
dom = open(f"{w}/dom.html").read()
assert '<table id="comparison">' in dom, "no table"
assert len(re.findall(r'<tr class="pass">', dom)) == 5, "expected 5 passing rows"
assert len(re.findall(r'<tr class="fail">', dom)) == 1, "expected 1 failing row"
assert '<svg id="similarity-plot"' in dom, "no plot"
for series in ("cosine", "euclidean"):
    m = re.search(r'<polyline class="series" id="%s"[^>]*points="([^"]*)"' % series, dom)
    assert m and len(m.group(1).split()) == 6, f"{series} series does not have 6 points"
img = Image.open(f"{w}/report.png").convert("RGB")
px = list(img.getdata())
green = sum(1 for p in px if p == (0xc8, 0xf0, 0xc8))
red = sum(1 for p in px if p == (0xf5, 0xb5, 0xb5))
blue = sum(1 for p in px if abs(p[0] - 0x1f) < 40 and abs(p[1] - 0x77) < 40 and p[2] > 0x90)
print(f"screenshot: {green} green, {red} red, {blue} blue pixels")
assert green > 500 and red > 100 and blue > 100, "the table colours or the plot did not render"
print("test_compare_html: table and plot render in headless Chromium")
PYEOF
