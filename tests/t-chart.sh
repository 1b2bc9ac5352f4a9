#!/bin/sh
# t-chart: the honest chart (compare/chart.h) as a browser draws it. Headless
# Chromium screenshots compare's HTML report of fixtures whose medians differ
# by exactly 1 %, and the test reads the PNG's pixels (tests/tools/pngblobs):
# the columns stand on the x axis and their heights differ by ~1 %, not 2x
# (the axis starts at zero); every boot is a point of its side's colour; a
# report whose data zero would squash shows the zig-zag break mark across
# the y axis and says so. p-values below 0.0001 print as "<0.0001".
# Read from the SVGs themselves (python3's xml.etree): every caption line
# fits the chart's width at chart.c's 6.5 px a glyph, the whole caption
# there; medians 0.001 % apart draw as no change (the axis spans twice
# the 5 % threshold, however tight the data).
. "$(dirname "$0")/lib.sh"
set -u
MK="$TOP/build/tests/tools/mkresults"
BLOBS="$TOP/build/tests/tools/pngblobs"
tmp=$(mktemp -d /tmp/t-chart.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
export NO_COLOR=1 ASAN_OPTIONS=detect_leaks=1
M=x86_64:lat_syscall:null:us:lower
# chart.h's colours (the contract): axis, column, break mark; the sides' points
AXIS=000000 COLUMN=d5dde6 BREAK=7a0177 BASE_PT=555555 CAND_PT=1f77b4

# wide spread, medians 14.00 and 14.14 (+1.0 %): an axis from zero
"$MK" "$tmp/a" k-a default 5 1 "$M:12.6/13.3/14.0/14.7/15.4:0" --abi x86_64=ok
"$MK" "$tmp/b" k-b default 5 2 "$M:12.726/13.433/14.14/14.847/15.554:0" --abi x86_64=ok
# tight spread, the same 1 %: zero would squash it, the axis is broken
"$MK" "$tmp/c" k-c default 5 3 "$M:14.00/14.01/14.02/14.03/14.04:0" --abi x86_64=ok
"$MK" "$tmp/d" k-d default 5 4 "$M:14.14/14.15/14.16/14.17/14.18:0" --abi x86_64=ok
"$BOOTRIG" compare "$tmp/a" "$tmp/b" --format html -o "$tmp/wide.html" 2>"$tmp/err" ||
	[ $? -le 1 ] || echo "compare failed: $(cat "$tmp/err")"
"$BOOTRIG" compare "$tmp/c" "$tmp/d" --format html -o "$tmp/tight.html" 2>"$tmp/err" ||
	[ $? -le 1 ] || echo "compare failed: $(cat "$tmp/err")"
"$BOOTRIG" compare "$tmp/c" "$tmp/d" >"$tmp/tight.txt" 2>&1
"$BOOTRIG" compare "$tmp/c" "$tmp/d" --threshold 0.5 --format junit -o "$tmp/tight.xml" 2>/dev/null

# --- p below the shown precision: "<0.0001" in every report, never 0 ---
if grep -q '<td>&lt;0.0001</td>' "$tmp/tight.html" && grep -q 'x86_64.lat_syscall.null' "$tmp/tight.txt" &&
	grep 'x86_64.lat_syscall.null' "$tmp/tight.txt" | grep -q '<0.0001' &&
	grep -q 'p(Welch)=&lt;0.0001' "$tmp/tight.xml" && junit_valid "$tmp/tight.xml"; then
	ok "p < 0.0001 prints as <0.0001 in HTML, text and JUnit (valid: junit-10.xsd, JUnit.xsd)"
else not_ok "p < 0.0001 prints as <0.0001" "$(grep -o '<td>[^<]*</td><td>[^<]*</td></tr>' "$tmp/tight.html" | tail -1) $JUNIT_ERR"; fi

# svgcheck PYTHON FILE...: runs PYTHON with svgs(FILE) (each <svg> of the
# HTML files, parsed) and lines(text) (a caption's lines: its tspans, or
# itself) defined; prints what it finds wrong, nothing when all is right
svgcheck() {
	code=$1
	shift
	python3 - "$@" <<PY 2>&1
import re, sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
def svgs(path):
    return [ET.fromstring(m) for m in re.findall(r"<svg.*?</svg>", open(path, encoding="utf-8").read(), re.S)]
def lines(t):
    spans = t.findall(NS + "tspan")
    return [(s.get("x"), s.get("y"), s.text or "") for s in spans] or [(t.get("x"), t.get("y"), t.text or "")]
$code
PY
}

# --- the captions fit the chart: every line within the SVG, the whole text there ---
# (chart.c's own estimate of a glyph's advance: 6.5 px at 11 px, as flame.c's labels)
bad=$(svgcheck '
want = {"wide": ["dots: each boot; black mark: median; grey bar: mean \u00b1 1 sd; column: 0 to the median"],
        "tight": ["dots: each boot; black mark: median; grey bar: mean \u00b1 1 sd",
                  "axis does not start at 0 (zig-zag on the axis)"]}
for path in sys.argv[1:]:
    name = path.rsplit("/", 1)[1][:-5]
    for svg in svgs(path):
        w, h = float(svg.get("width")), float(svg.get("height"))
        found = []
        for t in svg.iter(NS + "text"):
            ls = lines(t)
            if ls[0][0] != "8":
                continue                # the captions are the texts at the left edge
            found.append(" ".join(l[2] for l in ls))
            fs = float(t.get("font-size") or svg.get("font-size"))
            for x, y, text in ls:
                if float(x) + len(text) * 6.5 * fs / 11 > w or float(y) > h:
                    print("%s: %r (%d chars at x=%s y=%s) past the %gx%g svg" % (name, text, len(text), x, y, w, h))
        for c in want[name]:
            if c not in found:
                print("%s: caption %r missing (captions: %r)" % (name, c, found))
' "$tmp/wide.html" "$tmp/tight.html")
[ -z "$bad" ] && ok "every caption fits its SVG's width, whole (axis from zero, broken axis)" ||
	not_ok "every caption fits its SVG's width, whole" "$bad"

# --- a 0.001 % change on a broken axis: drawn as no change, not across the plot ---
"$MK" "$tmp/e" k-e default 3 5 "x86_64:lat:m:us:lower:1000/1000/1000:0" --abi x86_64=ok
"$MK" "$tmp/f" k-f default 3 6 "x86_64:lat:m:us:lower:1000.01/1000.01/1000.01:0" --abi x86_64=ok
"$BOOTRIG" compare "$tmp/e" "$tmp/f" --format html -o "$tmp/tiny.html" 2>"$tmp/err" ||
	[ $? -le 1 ] || echo "compare failed: $(cat "$tmp/err")"
got=$(svgcheck '
svg = svgs(sys.argv[1])[0]
ys = [float(r.get("y")) for r in svg.iter(NS + "rect") if r.get("class") == "median"]
print(len(ys), abs(ys[0] - ys[-1]) if ys else -1, svg.get("class"))
' "$tmp/tiny.html")
set -- $got
if [ "${1:-}" = 2 ] && awk -v d="${2:-99}" 'BEGIN {exit !(d < 3)}'; then
	ok "medians 0.001 % apart: their marks ${2} px apart (${3:-} ${4:-}; the axis spans the threshold)"
else not_ok "a 0.001 % change draws as no change" "medians, pixels apart, class: $got"; fi

CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ]; then
	not_ok "chart pixels in Chromium" "chromium not installed (scripts/install-deps.sh)"
	exit 1
fi
shot wide
shot tight
[ -n "${KEEP_SHOT:-}" ] && cp "$tmp/wide.png" "$tmp/tight.png" "$KEEP_SHOT"
if [ ! -s "$tmp/wide.png" ] || [ ! -s "$tmp/tight.png" ]; then
	not_ok "Chromium took the screenshots" "$(tail -3 "$tmp/chrome.err")"
fi

# the axes: the largest black component (the L of the y and x axes)
# prints "X0 Y0 X1 Y1 N" of the biggest blob of colour $2 in $1
biggest() { "$BLOBS" "$1" "$2" 100 | sort -k5,5n | tail -1; }
set -- $(biggest "$tmp/wide.png" $AXIS)
ax=${1:-0} axis_top=$((${4:-1} - 1))
"$BLOBS" "$tmp/wide.png" $COLUMN 200 >"$tmp/cols"
ncol=$(wc -l <"$tmp/cols")
# a column's height: from its top row to the axis (the median mark covers its top row)
h1=$(awk -v t=$axis_top 'NR==1 {print t - $2 + 1}' "$tmp/cols")
h2=$(awk -v t=$axis_top 'NR==2 {print t - $2 + 1}' "$tmp/cols")
bottoms=$(awk -v t=$axis_top '$4 != t - 1 {bad++} END {print bad + 0}' "$tmp/cols")
if [ "$ncol" -eq 2 ] && [ "$bottoms" -eq 0 ]; then
	ok "wide data: two columns, both standing on the x axis (row $axis_top)"
else not_ok "columns on the axis" "$ncol columns, $bottoms not ending at the axis: $(cat "$tmp/cols")"; fi
# columns in order of first pixel: the taller (CAND, 14.14) comes first
ratio=$(awk -v a="${h1:-0}" -v b="${h2:-1}" 'BEGIN {r = a > b ? a / b : b / a; printf "%.4f", r}')
if awk -v r="$ratio" -v a="${h1:-0}" 'BEGIN {exit !(r >= 1.0 && r <= 1.025 && a > 100)}'; then
	ok "a 1 % change: column heights ${h1} and ${h2} px (ratio $ratio, zero-based axis)"
else not_ok "a 1 % change looks like 1 %" "heights $h1 $h2 ratio $ratio"; fi
nb=$("$BLOBS" "$tmp/wide.png" $BASE_PT 15 | wc -l)
nc=$("$BLOBS" "$tmp/wide.png" $CAND_PT 15 | wc -l)
if [ "$nb" -eq 5 ] && [ "$nc" -eq 5 ]; then ok "every boot is a point: 5 BASE, 5 CAND"
else not_ok "every boot is a point" "BASE $nb, CAND $nc blobs"; fi
nbreak=$("$BLOBS" "$tmp/wide.png" $BREAK 10 60 | wc -l)
[ "$nbreak" -eq 0 ] && ok "zero-based axis: no break mark" || not_ok "zero-based axis: no break mark" "$nbreak"

# --- tight data: the axis is broken, visibly ---
"$BLOBS" "$tmp/tight.png" $BREAK 10 60 >"$tmp/breaks"
"$BLOBS" "$tmp/tight.png" $AXIS 100 | sort -k5,5n | tail -2 >"$tmp/axes"
# the y axis's x: the smallest X0 among the two largest black parts (cut by the break)
ax=$(awk 'NR == 1 || $1 < m {m = $1} END {print m + 0}' "$tmp/axes")
cross=$(awk -v x="$ax" '$1 < x && $3 > x + 1 && $3 - $1 >= 10 {n++} END {print n + 0}' "$tmp/breaks")
if [ "$cross" -ge 2 ]; then ok "tight data: the zig-zag break mark crosses the y axis (x=$ax)"
else not_ok "break mark on the axis" "axis x=$ax, marks: $(cat "$tmp/breaks")"; fi
ncol=$("$BLOBS" "$tmp/tight.png" $COLUMN 200 | wc -l)
[ "$ncol" -eq 0 ] && ok "broken axis: no columns (they would exaggerate)" || not_ok "broken axis: no columns" "$ncol"
timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/chrome" \
	--dump-dom "file://$tmp/tight.html" >"$tmp/dom" 2>/dev/null
if grep -q 'axis does not start at 0' "$tmp/dom" && grep -q 'data-bootrig-ready="1"' "$tmp/dom"; then
	ok "broken axis: the chart says 'axis does not start at 0'"
else not_ok "broken axis label"; fi
nb=$("$BLOBS" "$tmp/tight.png" $BASE_PT 15 | wc -l)
nc=$("$BLOBS" "$tmp/tight.png" $CAND_PT 15 | wc -l)
if [ "$nb" -eq 5 ] && [ "$nc" -eq 5 ]; then ok "broken axis: every boot is a point (5 + 5)"
else not_ok "broken axis: every boot is a point" "BASE $nb, CAND $nc"; fi
