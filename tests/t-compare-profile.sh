#!/bin/sh
# t-compare-profile: compare's perf-profile lines (compare.h, struct
# profile_cmp) and the HTML report's differential flame graph (flame.h),
# from synthetic result.json files whose metrics carry a profile: two sides
# of 3 boots; on the candidate open_close is 30 % slower, memchr_inv's self
# share moves from ~0.12 to ~21.52 % and ___slab_alloc's children share
# from ~3.10 to ~33.15 %, with small spread; kfree leaves the profile
# (-2 points); the other functions keep their share. null does not change
# (its getppid share does: shown with --profile-all only). The flame graph
# is checked by its pixels in headless Chromium: the candidate's frames
# ___slab_alloc (40 -> 80 % of samples: red) and do_sys_openat2 (60 ->
# 20 %: blue) are 4:1 wide, under grey callers of full width. bisect
# --metric on a function's share names the commit that moved it.
. "$(dirname "$0")/lib.sh"
set -u
tmp=$(mktemp -d /tmp/t-compare-profile.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
export NO_COLOR=1 ASAN_OPTIONS=detect_leaks=1
BLOBS="$TOP/build/tests/tools/pngblobs"

# fn NAME SELF CHILDREN: a profile function entry
fn() { printf '{"name": "%s", "self": %s, "children": %s}' "$1" "$2" "$3"; }
# mk FILE KERNEL BOOT OPEN_CLOSE NULL FUNCS STACKS NULLFUNCS: one boot's result.json
mk() {
	mkdir -p "$(dirname "$1")"
	cat >"$1" <<JSON
{"format": "bootrig-result-1", "kernel": {"id": "$2"}, "variant": "default", "boot": $3,
 "verdict": "PASS", "append": "", "target": "",
 "metrics": [
  {"abi": "x86_64", "test": "lat_syscall", "name": "open_close", "unit": "us", "better": "lower",
   "median": $4, "n": 5,
   "profile": {"status": "ok", "event": "cpu-clock", "period_ns": 50000, "samples": 100, "lost": 0,
     "functions": [$6], "stacks": [$7], "stacks_other": 0}},
  {"abi": "x86_64", "test": "lat_syscall", "name": "null", "unit": "us", "better": "lower",
   "median": $5, "n": 5,
   "profile": {"status": "ok", "event": "cpu-clock", "period_ns": 50000, "samples": 100, "lost": 0,
     "functions": [$8], "stacks": [], "stacks_other": 100}}]}
JSON
}
S_BASE='{"stack": "main_[u];entry_SYSCALL_64;do_sys_openat2", "samples": 60},
	{"stack": "main_[u];entry_SYSCALL_64;___slab_alloc", "samples": 40}'
S_CAND='{"stack": "main_[u];entry_SYSCALL_64;do_sys_openat2", "samples": 20},
	{"stack": "main_[u];entry_SYSCALL_64;___slab_alloc", "samples": 80}'
# side DIR KERNEL STACKS EXTRA "SELF CHILDREN OPENAT2 OPEN_CLOSE NULL GETPPID KMALLOC"...:
# a boot a quoted group: memchr_inv's self share, ___slab_alloc's children
# share, do_sys_openat2's self share, the two metrics, getppid's share,
# kmalloc's self share in null's profile (-: not listed)
side() {
	d=$1 k=$2 st=$3 extra=$4 i=0
	shift 4
	for v in "$@"; do
		set -- $v
		i=$((i + 1))
		km=
		[ "$7" != - ] && km=", $(fn kmalloc "$7" "$7")"
		mk "$d/$k/default/$i/result.json" "$k" $i "$4" "$5" \
			"$(fn entry_SYSCALL_64 5 95), $(fn do_sys_openat2 "$3" 45), $(fn memchr_inv "$1" "$1"),
			 $(fn ___slab_alloc 1.0 "$2")$extra" "$st" "$(fn getppid "$6" "$6")$km"
	done
}
side "$tmp/a" k-a "$S_BASE" ", $(fn kfree 2.0 2.0)" "0.10 3.05 9.8 2.00 0.300 40.1 3" \
	"0.12 3.10 10.0 2.02 0.301 40.0 -" "0.14 3.15 10.2 1.98 0.302 39.9 3"
side "$tmp/b" k-b "$S_CAND" "" "21.40 33.00 10.1 2.60 0.300 45.1 9" \
	"21.50 33.20 9.9 2.62 0.302 45.0 9" "21.66 33.25 10.0 2.58 0.301 44.9 9.3"
# one boot: nothing significant
mkdir -p "$tmp/one/k-b/default"
cp -r "$tmp/b/k-b/default/1" "$tmp/one/k-b/default/"

"$BOOTRIG" compare "$tmp/a" "$tmp/b" >"$tmp/out" 2>"$tmp/err"
rc=$?
sed 's/^/# /' "$tmp/out"
line() { grep -E "^ +perf-profile\.$1 " "$tmp/out" | tr -s ' '; }
if [ $rc = 1 ] && [ "$(line self.memchr_inv)" = " perf-profile.self.memchr_inv 0.12 % +21.40 21.52 % p<0.0001" ] &&
	[ "$(line children.___slab_alloc)" = " perf-profile.children.___slab_alloc 3.10 % +30.05 33.15 % p<0.0001" ]; then
	ok "text: perf-profile.self.memchr_inv +21.40 and children.___slab_alloc +30.05 points, p<0.0001"
else not_ok "text: the perf-profile lines" "rc=$rc: $(grep perf-profile "$tmp/out") $(cat "$tmp/err")"; fi
# under open_close's row, self lines before children lines, largest |change| first
order=$(grep -A12 'open_close' "$tmp/out" | sed -n 's/^ *perf-profile\.\([a-z]*\.[^ ]*\).*/\1/p' | tr '\n' ' ')
if [ "$order" = "self.memchr_inv self.kfree children.___slab_alloc children.memchr_inv children.kfree " ]; then
	ok "under open_close: self then children, largest change first, a function gone counts 0 ($order)"
else not_ok "the order of the perf-profile lines" "$order"; fi
n=$(grep -c 'perf-profile.*\(do_sys_openat2\|entry_SYSCALL_64\|getppid\)' "$tmp/out")
[ "$n" = 0 ] && ok "unchanged functions and unchanged metrics' profiles: not shown" ||
	not_ok "unchanged functions not shown" "$n lines"

"$BOOTRIG" compare "$tmp/a" "$tmp/b" --format json -o "$tmp/out.json" 2>/dev/null
sel='.metrics[] | select(.name == "open_close") | .profile[] | select(.kind == "self" and .function == "memchr_inv")'
got=$(jq -c "$sel | [.base, .cand[0], (.change_points[0] * 100 | round), (.p_welch[0] < 0.0001)]" "$tmp/out.json" 2>&1)
nullp=$(jq -c '.metrics[] | select(.name == "null") | has("profile")' "$tmp/out.json" 2>&1)
kinds=$(jq -r '.metrics[] | select(.name == "open_close") | .profile[] | .kind + "." + .function' "$tmp/out.json" | tr '\n' ' ')
if [ "$got" = "[0.12,21.52,2140,true]" ] && [ "$nullp" = false ] &&
	[ "$kinds" = "self.memchr_inv self.kfree children.___slab_alloc children.memchr_inv children.kfree " ]; then
	ok "JSON: metrics[].profile has memchr_inv (base 0.12, cand [21.52], change [21.40], p_welch [<0.0001])"
else not_ok "JSON: metrics[].profile" "$got / null: $nullp / $kinds"; fi

"$BOOTRIG" compare "$tmp/a" "$tmp/b" --no-profile >"$tmp/none" 2>/dev/null
"$BOOTRIG" compare "$tmp/a" "$tmp/b" --no-profile --format json -o "$tmp/none.json" 2>/dev/null
if ! grep -q perf-profile "$tmp/none" && ! grep -q '"profile"' "$tmp/none.json" &&
	grep -q 'open_close.*regressed' "$tmp/none"; then
	ok "--no-profile: no perf-profile lines (text, JSON); the metric rows stay"
else not_ok "--no-profile hides them" "$(grep -c perf-profile "$tmp/none")"; fi

"$BOOTRIG" compare "$tmp/a" "$tmp/b" --profile-all >"$tmp/all" 2>/dev/null
if grep -A3 'lat_syscall.null' "$tmp/all" | grep -q 'perf-profile.self.getppid .*+5.00 .*p<0.0001' &&
	grep -q 'perf-profile.self.memchr_inv' "$tmp/all"; then
	ok "--profile-all: the unchanged metric null shows its getppid share (+5.00 points)"
else not_ok "--profile-all shows unchanged metrics' profiles" "$(grep -A3 'lat_syscall.null' "$tmp/all")"; fi

"$BOOTRIG" compare "$tmp/a" "$tmp/one" --profile-all >"$tmp/single" 2>/dev/null
if ! grep -q perf-profile "$tmp/single" && grep -q open_close "$tmp/single"; then
	ok "a side of 1 boot: no perf-profile line is significant"
else not_ok "1 boot: none significant" "$(grep perf-profile "$tmp/single")"; fi

# --metric with a function's share: that metric, those functions' lines, changed or not
"$BOOTRIG" compare "$tmp/a" "$tmp/b" --metric '*.null:self.getppid' >"$tmp/sel" 2>/dev/null
"$BOOTRIG" compare "$tmp/a" "$tmp/b" --metric '*.open_close:children.*' >"$tmp/sel2" 2>/dev/null
if grep -q 'perf-profile.self.getppid .*+5.00' "$tmp/sel" && ! grep -q open_close "$tmp/sel" &&
	[ "$(grep -c perf-profile "$tmp/sel")" = 1 ] && ! grep -q 'perf-profile.self' "$tmp/sel2" &&
	[ "$(grep -c 'perf-profile.children' "$tmp/sel2")" = 5 ] &&
	grep -q 'perf-profile.children.entry_SYSCALL_64 .* 95.00 % .*+0.00 .* 95.00 % .*p=1.0000' "$tmp/sel2"; then
	ok "--metric '*.null:self.getppid': null alone, with getppid's line; ':children.*' every children line, changed or not"
else not_ok "--metric with a function's share" "$(cat "$tmp/sel") $(grep perf-profile "$tmp/sel2")"; fi
# a function named that did not change still has its line (it printed nothing)
"$BOOTRIG" compare "$tmp/a" "$tmp/b" --metric '*.open_close:self.do_sys_openat2' >"$tmp/sel3" 2>/dev/null
if [ "$(grep -c perf-profile "$tmp/sel3")" = 1 ] &&
	grep -q 'perf-profile.self.do_sys_openat2 .* 10.00 % .*+0.00 .* 10.00 % .*p=1.0000' "$tmp/sel3"; then
	ok "--metric '*.open_close:self.do_sys_openat2': the unchanged function's line, p=1.0000"
else not_ok "--metric naming an unchanged function" "$(cat "$tmp/sel3")"; fi

# a boot whose profile does not list a function counts 0 there: kmalloc's
# self share in null's profile is 3, -, 3 on BASE: mean 2
"$BOOTRIG" compare "$tmp/a" "$tmp/b" --profile-all --alpha 0.2 --format json -o "$tmp/km.json" 2>/dev/null
got=$(jq -c '.metrics[] | select(.name == "null") | .profile[] | select(.kind == "self" and .function == "kmalloc") | [.base, .cand[0]]' "$tmp/km.json" 2>&1)
[ "$got" = "[2,9.1]" ] && ok "a function a boot's profile lacks counts 0 in that boot (BASE 3, -, 3: mean 2)" ||
	not_ok "an absent function counts 0" "$got"

# a malformed profile: an error naming the file and the field (65)
mkdir -p "$tmp/bad/k/default/1"
sed 's/"self": 1.0/"self": "x"/' "$tmp/b/k-b/default/1/result.json" >"$tmp/bad/k/default/1/result.json"
"$BOOTRIG" compare "$tmp/a" "$tmp/bad" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc = 65 ] && grep -q 'bad/k/default/1/result.json: "metrics\[0\].profile.functions\[3\].self"' "$tmp/err"; then
	ok "a profile field of the wrong type: exit 65, naming metrics[0].profile.functions[3].self"
else not_ok "malformed profile refused" "rc=$rc: $(cat "$tmp/err")"; fi
sed 's/"stacks": \[\]/"stacks": 3/' "$tmp/b/k-b/default/1/result.json" >"$tmp/bad/k/default/1/result.json"
"$BOOTRIG" compare "$tmp/a" "$tmp/bad" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 65 ] && grep -q '"metrics\[1\].profile.stacks"' "$tmp/err" &&
	ok "stacks not an array: exit 65, naming metrics[1].profile.stacks" ||
	not_ok "stacks not an array refused" "rc=$rc: $(cat "$tmp/err")"

# --- bisect --metric on a function's share ------------------------------------
# A tree of 4 commits; c3 makes the image "bad". The stand-in for `bootrig
# run` (bisect's test-only --run-program, as t-bisect-options uses it)
# writes each boot's result.json: open_close's time is the same on every
# commit, memchr_inv's self share is ~0.12 % on a good image, ~21.5 % on a
# bad one.
. "$TOP/tests/tools/bisect-standin.sh"
T=$tmp/tree
bisect_tree "$T"
cat >"$tmp/run" <<RUN
#!/bin/sh
. "$tmp/fixture.sh"
. "$TOP/tests/tools/bisect-standin.sh"
run_args "\$@"
d=\$out/k/default
mkdir -p "\$d"
have=\$(ls "\$d" | wc -l)
i=1
while [ \$i -le "\$repeat" ]; do
	k=\$((have + i))
	share=0.1\$((k % 3))
	grep -q bad "\$kernel" && share=21.\$((k % 3))
	mk "\$d/\$k/result.json" k \$k 2.0\$((k % 3)) 0.30 "\$(fn memchr_inv \$share \$share), \$(fn kfree 2 2)" "" "\$(fn getppid 40 40)"
	i=\$((i + 1))
done
RUN
chmod +x "$tmp/run"
{ sed -n '/^fn() /p' "$0"; sed -n '/^mk() {/,/^}/p' "$0"; } >"$tmp/fixture.sh"
"$BOOTRIG" bisect --tree "$T" --good c1 --bad c4 --build sh build.sh --image image \
	--metric 'x86_64.lat_syscall.open_close:self.memchr_in?' --boots 3 --run-program "$tmp/run" \
	-o "$tmp/state" >"$tmp/bisect.out" 2>"$tmp/bisect.err"
rc=$?
sed 's/^/# /' "$tmp/bisect.out"
if [ $rc = 0 ] && grep -qx "first bad commit: $(git -C "$T" rev-parse c3) commit 3" "$tmp/bisect.out" &&
	grep -q '^metric: x86_64.lat_syscall.open_close:self.memchr_inv (%, lower is better)' "$tmp/bisect.out"; then
	ok "bisect --metric 'x86_64.lat_syscall.open_close:self.memchr_in?': the share's metric, first bad commit c3"
else not_ok "bisect on a function's share" "rc=$rc: $(tail -5 "$tmp/bisect.err")"; fi
"$BOOTRIG" bisect --tree "$T" --good c1 --bad c4 --build sh build.sh --image image \
	--metric 'x86_64.lat_syscall.open_close' --boots 3 --run-program "$tmp/run" \
	-o "$tmp/state2" >"$tmp/bisect2.out" 2>"$tmp/bisect2.err"
rc=$?
if [ $rc = 1 ] && grep -q 'good and bad do not differ on x86_64.lat_syscall.open_close' "$tmp/bisect2.out"; then
	ok "bisect --metric open_close (no ':'): the time itself, which did not change (exit 1)"
else not_ok "a glob without ':' is the metric alone" "rc=$rc: $(tail -3 "$tmp/bisect2.out") $(tail -3 "$tmp/bisect2.err")"; fi

# --- the flame graph, by its pixels -----------------------------------------
"$BOOTRIG" compare "$tmp/a" "$tmp/b" --format html -o "$tmp/fg.html" 2>/dev/null
n=$(grep -c '<svg[^>]*class="flame"' "$tmp/fg.html")
if [ "$n" = 2 ] && grep -q '>no stacks<' "$tmp/fg.html" && grep -q '<title>___slab_alloc: BASE 40.00 %, CAND 80.00 %, change +40.00 points</title>' "$tmp/fg.html" &&
	! grep -qi '<script[^>]*src\|https\?://[^"]*\.\(js\|css\|woff\)\|@import\|url(http' "$tmp/fg.html"; then
	ok "HTML: a flame graph per profiled metric (null's says no stacks); each frame titled; nothing external"
else not_ok "HTML: the flame graph" "$n flame graphs"; fi
# --- a function below a boot's cut is not 0 ---------------------------------
# A boot lists 80 functions; one it leaves out is below its cut
# (result.json cut_self / cut_children), not absent. BASE's 3 boots list
# lost_fn at 0.5 % self; the candidate's 3 boots list 80 others, not
# lost_fn: with a cut of 0.6 % lost_fn may have kept its share, so no
# perf-profile line may say it fell (counted as 0 it fell 0.5 points at
# p < 0.0001); with a cut of 0.3 % it did fall, shown midway (0.15 %).
# Without the cut fields (older boots), the cut of a full list is its 39th
# largest listed share (1.2 % here): no fall either.
cutside() {     # DIR CUT(|none) LOST(|-): 3 boots of 80 listed functions
	python3 - "$@" <<'EOF2'
import json, os, sys
d, cut, lost = sys.argv[1], sys.argv[2], sys.argv[3]
for b in (1, 2, 3):
    fns = [{"name": "f%d" % i, "self": 1.2, "children": 1.2} for i in range(79 if lost != '-' else 80)]
    if lost != '-':
        fns.append({"name": "lost_fn", "self": float(lost) + 0.01 * b, "children": float(lost) + 0.01 * b})
    prof = {"status": "ok", "event": "cpu-clock", "period_ns": 50000, "samples": 10000, "lost": 0,
            "functions": fns, "stacks": [], "stacks_other": 10000}
    if cut != 'none':
        prof["cut_self"] = prof["cut_children"] = float(cut)
    r = {"format": "bootrig-result-1", "kernel": {"id": "k"}, "variant": "default", "boot": b,
         "verdict": "PASS", "append": "", "target": "",
         "metrics": [{"abi": "x86_64", "test": "lat_syscall", "name": "null", "unit": "us",
                      "better": "lower", "median": 0.1 + 0.001 * b, "n": 5, "profile": prof}]}
    os.makedirs("%s/k/default/%d" % (d, b), exist_ok=True)
    json.dump(r, open("%s/k/default/%d/result.json" % (d, b), "w"))
EOF2
}
cutside "$tmp/cb" 0 0.5
cutside "$tmp/c6" 0.6 -
cutside "$tmp/c3" 0.3 -
cutside "$tmp/cn" none -
"$BOOTRIG" compare "$tmp/cb" "$tmp/c6" --profile-all >"$tmp/c6.out" 2>/dev/null
"$BOOTRIG" compare "$tmp/cb" "$tmp/c6" --profile-all --format json -o "$tmp/c6.json" 2>/dev/null
"$BOOTRIG" compare "$tmp/cb" "$tmp/c3" --profile-all >"$tmp/c3.out" 2>/dev/null
"$BOOTRIG" compare "$tmp/cb" "$tmp/cn" --profile-all >"$tmp/cn.out" 2>/dev/null
if ! grep -q "lost_fn" "$tmp/c6.out" && ! grep -q "lost_fn" "$tmp/cn.out"; then
	ok "a function below the candidate's cut (0.6 %, or a full list's 39th share) is not a fall from 0.5 % to 0"
else not_ok "below the cut: no fall claimed" "$(grep lost_fn "$tmp/c6.out" "$tmp/cn.out")"; fi
if grep -Eq '^ +perf-profile\.self\.lost_fn +0\.52 % +-0\.37 +0\.15 % +p[<=]0\.0[0-9]* +\(below the cut in 0\+3 boots\)$' "$tmp/c3.out"; then
	ok "below a cut of 0.3 %: the fall shown, midway (0.52 -> 0.15 %), the boots below the cut counted"
else not_ok "below the cut of 0.3 %: the fall shown midway" "$(grep lost_fn "$tmp/c3.out")"; fi
"$BOOTRIG" compare "$tmp/cb" "$tmp/c3" --profile-all --format json -o "$tmp/c3.json" 2>/dev/null
if python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["metrics"][0]
p = [x for x in m.get("profile", []) if x["function"] == "lost_fn" and x["kind"] == "self"]
sys.exit(not (p and p[0]["below_cut"] == [0, 3] and abs(p[0]["cand"][0] - 0.15) < 1e-9))' "$tmp/c3.json"; then
	ok "compare --format json: profile[].below_cut [0, 3], cand 0.15"
else not_ok "compare --format json: below_cut" "$(grep -o '"below_cut[^]]*' "$tmp/c3.json")"; fi
CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ] || [ ! -x "$BLOBS" ]; then
	not_ok "flame graph pixels in Chromium" "chromium or build/tests/tools/pngblobs missing"
	exit 1
fi
timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --hide-scrollbars \
	--force-device-scale-factor=1 --user-data-dir="$tmp/chrome" --window-size=1000,2400 \
	--screenshot="$tmp/fg.png" "file://$tmp/fg.html" >/dev/null 2>"$tmp/chrome.err"
[ -n "${KEEP_SHOT:-}" ] && cp "$tmp/fg.png" "$KEEP_SHOT"
# flame.h's colours (the contract): more, less, unchanged
MORE=e0301e LESS=2f6fd0 SAME=c8c8c8
# the widest blob of a colour: "X0 Y0 X1 Y1 N"
widest() { "$BLOBS" "$tmp/fg.png" "$1" 50 | awk '{w = $3 - $1 + 1} w > best {best = w; l = $0} END {print l}'; }
set -- $(widest $MORE); red_w=$(( ${3:-0} - ${1:-0} + 1 )) red_x=${1:-0} red_y=${2:-0}
set -- $(widest $LESS); blue_w=$(( ${3:-0} - ${1:-0} + 1 )) blue_x=${1:-0} blue_y=${2:-0}
"$BLOBS" "$tmp/fg.png" $SAME 50 >"$tmp/grey"
ngrey=$(awk '$3 - $1 + 1 >= 700' "$tmp/grey" | wc -l)
grey_x=$(awk '$3 - $1 + 1 >= 700 {print $1; exit}' "$tmp/grey")
grey_w=$(awk '$3 - $1 + 1 >= 700 {print $3 - $1 + 1; exit}' "$tmp/grey")
sed 's/^/# /' "$tmp/grey"
echo "# red x=$red_x w=$red_w y=$red_y, blue x=$blue_x w=$blue_w y=$blue_y, grey x=$grey_x w=$grey_w"
if [ "$ngrey" -ge 2 ] && [ "$red_y" = "$blue_y" ] && [ "$red_y" -gt 0 ]; then
	ok "grey callers (main_[u], entry_SYSCALL_64) of full width above, red and blue frames side by side"
else not_ok "grey callers above red and blue" "$ngrey grey, red y=$red_y blue y=$blue_y"; fi
ratio=$(awk -v r="$red_w" -v b="$blue_w" 'BEGIN {printf "%.3f", b ? r / b : 0}')
sum=$((red_w + blue_w))
if awk -v q="$ratio" -v s="$sum" -v g="${grey_w:-0}" 'BEGIN {exit !(q >= 3.9 && q <= 4.1 && s >= g - 3 && s <= g + 3)}'; then
	ok "widths follow the candidate's samples: red (gained, 80 %) ${red_w} px, blue (lost, 20 %) ${blue_w} px: $ratio, together the callers' ${grey_w} px"
else not_ok "widths proportional to samples" "red $red_w blue $blue_w grey $grey_w ratio $ratio"; fi
