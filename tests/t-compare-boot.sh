#!/bin/sh
# t-compare-boot: compare's initcalls that moved (compare.h,
# initcalls_moved(): the text's block after the metric rows, the JSON's
# boot_initcalls_moved) and the HTML report's bootgraph (bootgraph.h), from
# synthetic results (tests/tools/mkresults): two sides of 10 boots, seeds
# 1-10, with 300 initcalls f1..f300 of about 2 us, equal on both sides but
# f10 (1000 -> 3000 us: regressed, +2000 us), f20 (800 -> 300 us: improved,
# -500 us), f50 (20 -> 70 us: regressed, +250 % but +50 us, so last), f30
# (1000 -> 1030 us: p < 0.0001 but +3 %, below the 5 % threshold) and f40
# (106 -> 156 us: p < 0.01 and +47 %, within the seeds' spread of 57 %);
# boot.phase.initcalls moves +1550 us. The text names f10, f20, f50 in that
# order and sums them against the phase; the JSON lists the same; a
# candidate with 15 moved shows 10 and counts the rest. The bootgraph: two
# lanes, BASE above CAND, bars end to end, the three coloured in both with
# their titles, the small ones in grey runs, well-formed. With 1,000
# initcalls (a distribution kernel's mix, and 1,000 alternating 3 ms and
# 1 us ones, which must be grouped by a wider cut) it stays under 2,000
# SVG elements. A hostile function name (control bytes, <script>, 2 KB) is
# escaped in the text and the HTML; sides without boot metrics give no
# block and no bootgraph. Headless Chromium's screenshot of a bootgraph of
# five initcalls, read by its pixels (tests/tools/pngblobs): the regressed
# one's bar red, the improved one's green, each in both lanes starting and
# as wide as its medians say on the axis drawn (within 2 px).
. "$(dirname "$0")/lib.sh"
set -u
MK="$TOP/build/tests/tools/mkresults"
tmp=$(mktemp -d /tmp/t-compare-boot.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
export NO_COLOR=1 ASAN_OPTIONS=detect_leaks=1

# gen N [K=LIST]...: N initcall metrics f1..fN, fK's boots LIST (v1/v2/...),
# the others 2/2.02/1.98
gen() {
	n=$1
	shift
	awk -v n="$n" -v over="$*" 'BEGIN {
		k = split(over, o, " ")
		for (j = 1; j <= k; j++) { split(o[j], kv, "="); ov[kv[1]] = kv[2] }
		for (i = 1; i <= n; i++)
			print "boot:initcall:f" i ":us:lower:" ((i "") in ov ? ov[i ""] : "2/2.02/1.98") ":0"
	}'
}
# side DIR KERNEL PHASE [K=LIST]...: 10 boots, seeds 1-10, 300 initcalls and
# boot.phase.initcalls and total around PHASE us
side() {
	d=$1 k=$2 ph=$3
	shift 3
	"$MK" "$tmp/$d" "$k" default 10 1 --seeds 1 $(gen 300 "$@") \
		"boot:phase:initcalls:us:lower:$ph/$((ph + 100))/$((ph - 100)):0" \
		"boot:phase:total:us:lower:$((ph + 600000))/$((ph + 600100))/$((ph + 599900)):0"
}
FLOOR_B=100/100/100/100/100/100/100/100/100/160
FLOOR_C=150/150/150/150/150/150/150/150/150/210
side base k-a 300000 10=1000/1010/990 20=800/810/790 30=1000/1001/999 40=$FLOOR_B 50=20/20.2/19.8
side cand k-b 301550 10=3000/3010/2990 20=300/310/290 30=1030/1031/1029 40=$FLOOR_C 50=70/70.2/69.8
# compare ARGS...: the output in $tmp/out, the status in $rc
compare() {
	"$BOOTRIG" compare "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
# block: the moved block of the last output, runs of spaces squeezed
block() { sed -n '/^initcalls that moved/,/^$/p' "$tmp/out" | sed '/^$/d' | tr -s ' '; }
# html_ok FILE: libxml2's HTML parser takes it (it knows no HTML5 tag: those
# complaints aside, no error)
html_ok() {
	xmllint --html --noout "$1" 2>"$tmp/xmllint" &&
		! grep 'parser error' "$tmp/xmllint" | grep -vq 'Tag [a-zA-Z]* invalid'
}
# svg_check FILE PYTHON: runs PYTHON with g = the bootgraph SVGs of FILE,
# parsed by xml.etree (a list of (root, text) pairs)
svg_check() {
	python3 - "$1" "$2" <<'PY'
import re, sys, xml.etree.ElementTree as ET
html = open(sys.argv[1], encoding="utf-8").read()
g = [(ET.fromstring(s), s) for s in re.findall(r'<svg[^>]*class="bootgraph".*?</svg>', html, re.S)]
NS = "{http://www.w3.org/2000/svg}"
def rects(root, y=None):
    return [r for r in root.iter(NS + "rect") if y is None or r.get("y") == str(y)]
def title(r):
    t = r.find(NS + "title")
    return t.text if t is not None else None
exec(sys.argv[2])
PY
}

# --- the text block -----------------------------------------------------------
compare "$tmp/base" "$tmp/cand"
sed 's/^/# /' "$tmp/out" | sed -n '/initcalls that moved/,/^# $/p'
want=$(cat <<'EOF'
initcalls that moved (p < 0.01, past the threshold; the largest change first):
 boot.initcall.f10 1000.0 us +200.0% 3000.0 us p<0.0001 regressed
 boot.initcall.f20 800.0 us -62.5% 300.0 us p<0.0001 improved
 boot.initcall.f50 20.00 us +250.0% 70.00 us p<0.0001 regressed
 these 3 initcalls: +1550.0 us of boot.phase.initcalls' +1550.0 us
EOF
)
if [ $rc = 1 ] && [ "$(block)" = "$want" ]; then
	ok "text: f10 (+2000 us), f20 (-500 us), f50 (+50 us) in that order, summed against boot.phase.initcalls"
else not_ok "text: the initcalls that moved" "rc=$rc: $(block) $(cat "$tmp/err")"; fi
if grep -q '^(297 boot.initcall metrics did not change' "$tmp/out" &&
	[ "$(grep -c 'boot\.initcall\.f[0-9]* (us)' "$tmp/out")" = 6 ]; then
	ok "the metric rows: the 3 moved initcalls (block and table), the other 297 counted"
else not_ok "the metric rows and the count line" "$(grep -c 'boot\.initcall' "$tmp/out")"; fi

# f30 and f40 have p < 0.01 but are noise by compare's rule (the threshold,
# the seeds' floor): the block follows the verdict, not p alone
"$BOOTRIG" compare "$tmp/base" "$tmp/cand" --format json -o "$tmp/out.json" 2>/dev/null
got=$(jq -c '[.metrics[] | select(.name == "f30" or .name == "f40") | .changes[0] |
	[.verdict, (.p_welch < 0.01), (.pct_change | round), (.floor_pct | round)]]' "$tmp/out.json" 2>&1)
compare "$tmp/base" "$tmp/cand" --metric 'boot.initcall.f40'
if [ "$got" = '[["noise",true,3,0],["noise",true,47,57]]' ] &&
	grep -q "boot.initcall.f40 (us)  within the seeds' spread (56.6%)" "$tmp/out" &&
	! grep -q 'initcalls that moved' "$tmp/out"; then
	ok "f30 (+3 %, p < 0.01) and f40 (+47 % within a 57 % seeds' spread) are noise, so not named"
else not_ok "the rule is the row's verdict" "$got $(grep f40 "$tmp/out")"; fi

# --- JSON ---------------------------------------------------------------------
got=$(jq -c '[.boot_initcalls_moved[] | [.side, .id, .name, (.base | round), (.cand | round),
	(.change_us | round), (.pct_change | round), (.p_welch < 0.0001), .verdict]]' "$tmp/out.json" 2>&1)
if [ "$got" = '[[1,"boot.initcall.f10","f10",1000,3000,2000,200,true,"regressed"],[1,"boot.initcall.f20","f20",800,300,-500,-63,true,"improved"],[1,"boot.initcall.f50","f50",20,70,50,250,true,"regressed"]]' ]; then
	ok "JSON: boot_initcalls_moved lists f10, f20, f50 (side, base, cand, change_us, pct_change, p_welch, verdict)"
else not_ok "JSON: boot_initcalls_moved" "$got"; fi

# --- more than 10 moved: 10 shown, the rest counted -----------------------------
many=""
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
	v=$((i * 10))
	many="$many $((i + 99))=$v/$v.1/$((v - 1)).9"
done
side many k-m 300000 10=1000/1010/990 20=800/810/790 30=1000/1001/999 40=$FLOOR_B 50=20/20.2/19.8 $many
compare "$tmp/base" "$tmp/many"
names=$(block | sed -n 's/^ boot\.initcall\.\(f[0-9]*\) .*/\1/p' | tr '\n' ' ')
"$BOOTRIG" compare "$tmp/base" "$tmp/many" --format json -o "$tmp/many.json" 2>/dev/null
jnames=$(jq -r '.boot_initcalls_moved[] | .name' "$tmp/many.json" | tr '\n' ' ')
if [ "$names" = "f114 f113 f112 f111 f110 f109 f108 f107 f106 f105 " ] &&
	block | grep -qx ' (5 more moved; --format json lists every one)' &&
	block | grep -q '^ these 15 initcalls: +1170.0 us of boot.phase.initcalls' &&
	[ "$jnames" = "f114 f113 f112 f111 f110 f109 f108 f107 f106 f105 f104 f103 f102 f101 f100 " ]; then
	ok "15 moved: the 10 largest shown, '5 more moved', their sum over all 15; the JSON has all 15"
else not_ok "more than 10 moved" "$names / $jnames / $(block | tail -2)"; fi

# --- the bootgraph ------------------------------------------------------------
"$BOOTRIG" compare "$tmp/base" "$tmp/cand" --format html -o "$tmp/r.html" 2>/dev/null
if html_ok "$tmp/r.html" && grep -q '<h2>Boot, initcall by initcall</h2>' "$tmp/r.html" &&
	grep -q 'bars are laid end to end in call order' "$tmp/r.html" && svg_check "$tmp/r.html" '
assert len(g) == 1, len(g)
root, text = g[0]
lanes = [t for t in root.iter(NS + "text") if t.text in ("BASE", "CAND")]
assert [t.text for t in lanes] == ["BASE", "CAND"] and int(lanes[0].get("y")) < int(lanes[1].get("y"))
'; then
	ok "HTML: one bootgraph, well-formed (libxml2, xml.etree), two lanes, BASE above CAND"
else not_ok "HTML: the bootgraph is there and well-formed" "$(head -5 "$tmp/xmllint")"; fi
if svg_check "$tmp/r.html" '
root, text = g[0]
for y in (4, 34):
    lane = rects(root, y)
    for a, b in zip(lane, lane[1:]):   # each bar starts where the one before ended
        assert abs(float(a.get("x")) + float(a.get("width")) - float(b.get("x"))) < 0.02, (a.attrib, b.attrib)
def bar(y, cls, name):
    m = [r for r in rects(root, y) if r.get("class") == cls and title(r).startswith(name + ":")]
    assert len(m) == 1, (y, cls, name, len(m))
    return m[0]
t10 = "f10: BASE 1000.0 us, CAND 3000.0 us (medians over the boots); regressed: +200.0% (means), p<0.0001"
t20 = "f20: BASE 800.0 us, CAND 300.0 us (medians over the boots); improved: -62.5% (means), p<0.0001"
for y in (4, 34):
    assert title(bar(y, "regressed", "f10")) == t10 and title(bar(y, "improved", "f20")) == t20
    assert bar(y, "regressed", "f50").get("fill") == "#d62728" and bar(y, "improved", "f20").get("fill") == "#2ca02c"
    bar(y, "initcall", "f30"), bar(y, "initcall", "f40")
w = lambda y: float(bar(y, "regressed", "f10").get("width"))
assert abs(w(34) / w(4) - 3) < 0.01, (w(4), w(34))
assert sum(r.get("class") in ("regressed", "improved") for r in rects(root)) == 6
'; then
	ok "bars end to end; f10 and f50 red, f20 green in both lanes, titled with both medians and the verdict; f10 3x as wide on CAND"
else not_ok "the bootgraph's bars"; fi
if svg_check "$tmp/r.html" '
root, text = g[0]
small = [r for r in rects(root) if r.get("class") == "small"]
assert len(small) == 12 and all(r.get("fill") == "#c8c8c8" for r in small), len(small)
assert title(small[0]) == "9 small initcalls, 18.00 us in all (each narrower than 1.0 px)", title(small[0])
notes = [t.text for t in root.iter(NS + "text") if t.get("class") == "bootgraph-note"]
assert notes[0].startswith("BASE: 300 initcalls, 3.51 ms end to end; 295 of them in 6 grey bars"), notes
assert notes[1].startswith("CAND: 300 initcalls, 5.14 ms end to end; 295 of them in 6 grey bars"), notes
assert len(list(root.iter())) < 100
'; then
	ok "the initcalls narrower than 1 px: 6 grey runs a lane ('9 small initcalls'), said under the lanes"
else not_ok "small initcalls grouped"; fi

# --- 1,000 initcalls ------------------------------------------------------------
# a distribution kernel's mix: a few of 20 ms, some of 400 us, most a few us;
# the candidate's f7, f57, ... 3 times slower. And 1,000 alternating 3 ms
# and 1 us: 500 bars of 1.8 px with 500 runs between, past 400 a lane.
dist() {
	awk -v slow="$1" 'BEGIN { for (i = 1; i <= 1000; i++) {
		v = i % 97 == 0 ? 20000 : i % 13 == 0 ? 400 : (i % 5) * 3 + 1
		if (slow && i % 50 == 7) v *= 3
		print "boot:initcall:f" i ":us:lower:" v "/" v * 1.01 "/" v * 0.99 ":0" } }'
}
alt() { awk 'BEGIN { for (i = 1; i <= 1000; i++) { v = i % 2 ? 3000 : 1
	print "boot:initcall:f" i ":us:lower:" v "/" v * 1.01 "/" v * 0.99 ":0" } }'; }
"$MK" "$tmp/k1" k-a default 3 1 $(dist 0)
"$MK" "$tmp/k2" k-b default 3 2 $(dist 1)
"$MK" "$tmp/alt1" k-a default 3 1 $(alt)
"$MK" "$tmp/alt2" k-b default 3 2 $(alt)
"$BOOTRIG" compare "$tmp/k1" "$tmp/k2" --format html -o "$tmp/k.html" 2>/dev/null
"$BOOTRIG" compare "$tmp/alt1" "$tmp/alt2" --format html -o "$tmp/alt.html" 2>/dev/null
if html_ok "$tmp/k.html" && svg_check "$tmp/k.html" '
root, text = g[0]
n = len(list(root.iter()))
red = [r for r in rects(root) if r.get("class") == "regressed"]
assert n < 2000 and len(red) == 40 and all(float(r.get("width")) >= 1 for r in red), (n, len(red))
notes = [t.text for t in root.iter(NS + "text") if t.get("class") == "bootgraph-note"]
assert all(" 1000 initcalls, " in t and "grey bars" in t for t in notes), notes
print("# %d SVG elements, %d bars" % (n, len(rects(root))))
'; then
	ok "1,000 initcalls, a distribution kernel's mix: under 2,000 SVG elements, the 20 moved ones red in both lanes (at least 1 px)"
else not_ok "1,000 initcalls: bounded" "$(head -3 "$tmp/xmllint")"; fi
if html_ok "$tmp/alt.html" && svg_check "$tmp/alt.html" '
root, text = g[0]
n, bars = len(list(root.iter())), len(rects(root))
notes = [t.text for t in root.iter(NS + "text") if t.get("class") == "bootgraph-note"]
assert n < 2000 and bars <= 800, (n, bars)
assert all("not 1.0 px: a lane has at most 400 bars" in t for t in notes), notes
print("# %d SVG elements, %d bars" % (n, bars))
'; then
	ok "1,000 alternating 3 ms and 1 us initcalls: grouped by a wider cut, said so; at most 400 bars a lane"
else not_ok "1,000 alternating initcalls: bounded" "$(grep -o 'bootgraph-note[^<]*' "$tmp/alt.html")"; fi

# --- a hostile function name ---------------------------------------------------
EVIL="$(printf 'evil\001\033[2J<script>alert(1)</script>&x')$(printf '%2000s' | tr ' ' A)"
"$MK" "$tmp/e1" k-a default 6 1 --seeds 1 "boot:initcall:$EVIL:us:lower:1000/1010/990:0" \
	boot:initcall:g:us:lower:5/5.1/4.9:0
"$MK" "$tmp/e2" k-b default 6 1 --seeds 1 "boot:initcall:$EVIL:us:lower:6000/6010/5990:0" \
	boot:initcall:g:us:lower:5/5.1/4.9:0
compare "$tmp/e1" "$tmp/e2"
A2000=$(printf '%2000s' | tr ' ' A)
if [ $rc = 1 ] && ! LC_ALL=C grep -q "$(printf '[\001\033]')" "$tmp/out" &&
	block | grep -qF " boot.initcall.evil\\x01\\x1b[2J<script>alert(1)</script>&x$A2000 1000.0 us +500.0% 6000.0 us p<0.0001 regressed" &&
	block | grep -qx ' this initcall: +5000.0 us'; then
	ok "text: a name with control bytes, <script> and 2 KB: escaped (\\x01 \\x1b), whole, in the block"
else not_ok "text: a hostile name" "$(block | cut -c1-120)"; fi
"$BOOTRIG" compare "$tmp/e1" "$tmp/e2" --format html -o "$tmp/e.html" 2>/dev/null
if ! grep -q '<script>alert\|&x' "$tmp/e.html" && html_ok "$tmp/e.html" && svg_check "$tmp/e.html" '
root, text = g[0]
red = [r for r in rects(root) if r.get("class") == "regressed"]
want = "evil\ufffd\ufffd[2J<script>alert(1)</script>&x" + "A" * 2000 + ": BASE 1000.0 us, CAND 6000.0 us"
assert len(red) == 2 and all(title(r).startswith(want) for r in red), [title(r)[:60] for r in red]
assert "&lt;script&gt;alert(1)&lt;/script&gt;&amp;x" in text
labels = [t.text for t in root.iter(NS + "text") if t.text and t.text.startswith("evil")]
assert len(labels) == 2 and all(t.startswith("evil\ufffd\ufffd[2J<script>") for t in labels), labels
'; then
	ok "HTML: the hostile name escaped in the bars' titles and labels (U+FFFD for the controls), well-formed"
else not_ok "HTML: a hostile name" "$(grep -o '<title>evil.\{0,60\}' "$tmp/e.html" | head -2)"; fi

# --- no boot metrics on a side ---------------------------------------------------
NULL=x86_64:lat_syscall:null:us:lower
"$MK" "$tmp/p1" k-a default 5 1 $NULL:14.1:2
"$MK" "$tmp/p2" k-b default 5 2 $NULL:14.1:2
compare "$tmp/p1" "$tmp/p2" --format html -o "$tmp/p.html"
"$BOOTRIG" compare "$tmp/p1" "$tmp/p2" >"$tmp/p.txt" 2>&1
"$BOOTRIG" compare "$tmp/p1" "$tmp/p2" --format json -o "$tmp/p.json" 2>/dev/null
compare "$tmp/base" "$tmp/p2"
"$BOOTRIG" compare "$tmp/base" "$tmp/p2" --format html -o "$tmp/q.html" 2>/dev/null
"$BOOTRIG" compare "$tmp/base" "$tmp/p2" --format json -o "$tmp/q.json" 2>/dev/null
if ! grep -q 'bootgraph\|Boot, initcall' "$tmp/p.html" "$tmp/q.html" &&
	! grep -q 'initcalls that moved' "$tmp/p.txt" "$tmp/out" &&
	[ "$(jq -c .boot_initcalls_moved "$tmp/p.json")" = '[]' ] &&
	[ "$(jq -c .boot_initcalls_moved "$tmp/q.json")" = '[]' ]; then
	ok "no boot metrics on either side, or on the candidate: no block, no bootgraph, boot_initcalls_moved []"
else not_ok "a side without boot metrics" "$(grep -c bootgraph "$tmp/p.html" "$tmp/q.html")"; fi

# --- the bootgraph as Chromium draws it, read by its pixels -------------------
# five initcalls, 6 boots a side (seeds 1-6), each 1 % about its median: i2
# improves 1500 -> 500 us, the last, i5, regresses 1000 -> 3000 us (last, so
# nothing drawn after it hides a bar too wide), the others equal. The axis
# on screen (its 0 ms tick, its end: the longer lane's) gives px per ms;
# each coloured bar (pngblobs: the pixels of exactly its RGB, 24 rows) must
# start at the sum of the medians before it and be as wide as its median,
# within 2 px, in each lane.
BLOBS="$TOP/build/tests/tools/pngblobs"
PIX_BASE="2000 1500 2500 1200 1000" PIX_CAND="2000 500 2500 1200 3000"
pix() { awk -v v="$1" 'BEGIN { n = split(v, a, " "); for (i = 1; i <= n; i++)
	print "boot:initcall:i" i ":us:lower:" a[i] "/" a[i] * 1.01 "/" a[i] * 0.99 ":0" }'; }
"$MK" "$tmp/pb" k-a default 6 1 --seeds 1 $(pix "$PIX_BASE")
"$MK" "$tmp/pc" k-b default 6 1 --seeds 1 $(pix "$PIX_CAND")
"$BOOTRIG" compare "$tmp/pb" "$tmp/pc" --format html -o "$tmp/pix.html" 2>/dev/null
CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ] || [ ! -x "$BLOBS" ]; then
	not_ok "bootgraph pixels in Chromium" "chromium or build/tests/tools/pngblobs missing (scripts/install-deps.sh, make unit)"
	exit 1
fi
shot pix 1200,1000
[ -n "${KEEP_SHOT:-}" ] && cp "$tmp/pix.png" "$KEEP_SHOT"
# bootgraph.h's colours (the contract); its #888888 axis and ticks are 1 px
# lines on a pixel boundary, so two rows (or columns) of half strength on
# white: #c3c3c3
RED=d62728 GREEN=2ca02c AXIS_HALF=c3c3c3
"$BLOBS" "$tmp/pix.png" $AXIS_HALF 20 6 | sort -k1,1n >"$tmp/axis"
# the 0 ms tick: the leftmost line two columns wide and two lanes tall (its
# centre); the axis: the rows two high, its end their rightmost pixel's edge
set -- $(awk '$3 - $1 == 1 && $4 - $2 >= 48 {print ($1 + $3 + 1) / 2; exit}' "$tmp/axis") \
	$(awk '$4 - $2 == 1 && $3 - $1 >= 20 {y = $2; if ($3 + 1 > e) e = $3 + 1} END {print e + 0, y + 0}' "$tmp/axis")
x0=${1:-0} xe=${2:-0} axis_y=${3:-0}
# the axis's ms: the longer lane's end; px per ms on screen and in the SVG's ticks
total=$(awk -v b="$PIX_BASE" -v c="$PIX_CAND" 'BEGIN { n = split(b, u, " "); split(c, v, " ")
	for (i = 1; i <= n; i++) { s += u[i]; t += v[i] } print (s > t ? s : t) / 1000 }')
pxms=$(awk -v a="$x0" -v e="$xe" -v t="$total" 'BEGIN {printf "%.4f", (e - a) / t}')
svgms=$(svg_check "$tmp/pix.html" '
root, text = g[0]
ticks = [(float(t.get("x")), float(t.text.split()[0])) for t in root.iter(NS + "text") if (t.text or "").endswith(" ms")]
print("%.4f" % ((ticks[-1][0] - ticks[0][0]) / (ticks[-1][1] - ticks[0][1])))
')
if [ "$x0" != 0 ] && awk -v a="$pxms" -v b="${svgms:-0}" 'BEGIN {exit !(a > 50 && a / b > 0.995 && a / b < 1.005)}'; then
	ok "bootgraph on screen: the axis's 0 ms tick at x=$x0 and its end ($total ms) at x=$xe: $pxms px a ms, as the SVG's ticks say ($svgms)"
else not_ok "bootgraph on screen: the axis" "0 ms at '$x0', end '$xe' (row $axis_y), $pxms px/ms, SVG $svgms; $(tail -3 "$tmp/chrome.err")"; fi
# bar LANE COLOUR K: initcall K's bar in lane LANE (1 BASE, 2 CAND): the
# LANE-th blob of exactly COLOUR 24 rows high above the axis, its left edge
# and width within 2 px of the lane's figures'; sets top and bottom (its
# rows) and said (what it measured)
bar() {
	case $1 in 1) list=$PIX_BASE ;; *) list=$PIX_CAND ;; esac
	set -- $("$BLOBS" "$tmp/pix.png" "$2" 100 | awk -v a="$axis_y" -v n="$1" \
		'$4 - $2 == 23 && $4 < a && ++k == n {print $1, $3 - $1 + 1, $2, $4}') \
		$(awk -v v="$list" -v k="$3" -v x0="$x0" -v s="$pxms" 'BEGIN { split(v, a, " ")
		for (i = 1; i < k; i++) at += a[i]
		printf "%.1f %.1f %g %g", x0 + at / 1000 * s, a[k] / 1000 * s, at / 1000, a[k] / 1000 }')
	[ $# = 8 ] || { said="no such bar (x w start ms: $*)" top=0 bottom=0; return 1; }
	top=$3 bottom=$4 said="x=$1 w=$2 px, its figures x=$5 w=$6 px ($7 ms in, $8 ms)"
	awk -v x="$1" -v w="$2" -v wx="$5" -v ww="$6" 'BEGIN {exit !((x - wx) ^ 2 <= 4 && (w - ww) ^ 2 <= 4)}'
}
if bar 2 $RED 5; then ok "CAND lane: the regressed i5's bar red ($RED): $said"
else not_ok "CAND lane: the regressed bar where its figures say" "$said"; fi
cand_top=$top
if bar 1 $RED 5 && [ "$bottom" -lt "$cand_top" ]; then ok "BASE lane, above CAND's: i5's bar red ($RED): $said"
else not_ok "BASE lane: the regressed bar where its figures say, above CAND's" "$said; rows $top-$bottom, CAND's from $cand_top"; fi
if bar 1 $GREEN 2 && g1=$said && bar 2 $GREEN 2; then
	ok "the improved i2's bar green ($GREEN) in both lanes: BASE $g1; CAND $said"
else not_ok "the improved bar green where its figures say" "$said"; fi
