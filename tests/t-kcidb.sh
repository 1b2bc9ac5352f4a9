#!/bin/sh
# t-kcidb: `bootrig export --kcidb`: KCIDB I/O JSON validated against the
# vendored kcidb-io schema v5.3, the latest (tests/kcidb/, python3-jsonschema):
# checkouts, builds, a test per boot, ABI, ABI test and metric with their
# paths (rooted at the catalogue's "boot"), statuses, log URLs and numbers;
# a test per KUnit case (kunit.<suite>.<case>, the catalogue's "kunit"),
# hostile case names sanitised or skipped and counted, still valid;
# --origin in every ID; the same IDs on a second export; a kernel run from a
# git tree (`run --kernel TREE`, a run that fails to connect: no boot),
# each step of `bisect` (run --kernel IMAGE --kernel-tree TREE) and
# --git-commit/--git-url give the checkout its git_commit_hash; a variant is
# the test's environment, not a build; no path relative to export's
# directory; the validator rejects broken documents; corrupted results give
# a clear error, exit 65 and no file at -o.
. "$(dirname "$0")/lib.sh"
set -u
MK="$TOP/build/tests/tools/mkresults"
SCHEMA="$TOP/tests/kcidb/schema-v5.3.json"
FIX="$TOP/tests/fixtures/compare"
tmp=$(mktemp -d /tmp/t-kcidb.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
export NO_COLOR=1 ASAN_OPTIONS=detect_leaks=1

PY=""
for p in /usr/bin/python3 python3; do
	if "$p" -c 'import jsonschema' 2>/dev/null; then PY=$p; break; fi
done
# valid FILE: the validator's verdict on FILE (0 valid), its output in $tmp/v
valid() { "$PY" "$TOP/tests/kcidb/validate.py" "$SCHEMA" "$1" >"$tmp/v" 2>&1; }
# q FILE EXPR: a python expression over the document d
q() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
export_() { "$BOOTRIG" export "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }

if [ -z "$PY" ]; then
	not_ok "KCIDB export validates against the schema" "python3-jsonschema not installed (scripts/install-deps.sh)"
	exit 1
fi

# --- the validator can fail: broken documents are rejected ---
cat >"$tmp/good.json" <<'JSON'
{"version": {"major": 5, "minor": 3},
 "checkouts": [{"id": "x:1", "origin": "x"}],
 "builds": [{"id": "x:2", "checkout_id": "x:1", "origin": "x"}],
 "tests": [{"id": "x:3", "build_id": "x:2", "origin": "x", "path": "boot", "status": "PASS",
            "start_time": "2026-11-29T23:30:01Z", "log_url": "file:///tmp/console.log",
            "number": {"value": 14.1, "unit": "us"}}]}
JSON
valid "$tmp/good.json" && ok "validator: a minimal v5.3 document is valid" ||
	not_ok "validator: a minimal v5.3 document is valid" "$(cat "$tmp/v")"
n=0 bad=""
for edit in 's/"status": "PASS"/"status": "BROKEN"/' 's/"id": "x:3"/"id": "no-origin"/' \
	's/"major": 5/"major": 4/' 's/"path": "boot"/"path": "boot\/x"/' 's/"value": 14.1/"val": 14.1/' \
	's/"build_id": "x:2"/"build_id": "x:9"/' 's/"2026-11-29T23:30:01Z"/"yesterday"/' \
	's/"origin": "x", "path"/"origin": "x", "colour": "red", "path"/'; do
	sed "$edit" "$tmp/good.json" >"$tmp/broken.json"
	n=$((n + 1))
	valid "$tmp/broken.json" && bad="$bad [$edit]"
done
[ -z "$bad" ] && ok "validator rejects each of $n broken documents" || not_ok "validator rejects broken documents" "$bad"

# --- the fixtures: two kernels, two boots each ---
export_ --kcidb -o "$tmp/k.json" "$FIX/aarch64-base" "$FIX/aarch64-cand"
if [ $rc -eq 0 ] && valid "$tmp/k.json"; then ok "export of the fixtures validates: $(cat "$tmp/v")"
else not_ok "export of the fixtures validates" "rc=$rc $(cat "$tmp/err") $(head -5 "$tmp/v")"; fi
counts=$(q "$tmp/k.json" "len(d['checkouts']), len(d['builds']), sum(t['path'] == 'boot' for t in d['tests'])")
[ "$counts" = "2 2 4" ] && ok "a checkout per kernel, a build per kernel and variant, a boot test per boot" ||
	not_ok "checkouts, builds, boots" "$counts"
paths=$(q "$tmp/k.json" "' '.join(sorted(set(t['path'] for t in d['tests'])))")
missing=""
for p in boot boot.bootrig.aarch64 boot.bootrig.aarch64_ilp32 boot.bootrig.aarch64.lat_syscall boot.bootrig.aarch64.lat_syscall.null; do
	echo " $paths " | grep -qF " $p " || missing="$missing $p"
done
[ -z "$missing" ] && ok "test paths: boot, boot.bootrig.<abi>, boot.bootrig.<abi>.<test>, boot.bootrig.<abi>.<test>.<metric>" ||
	not_ok "test paths" "missing$missing in: $paths"
# the metric's number is the boot's median, in its unit
f="$FIX/aarch64-base/vmlinuz-6.1.0-57-cloud-arm64-1a2b3c4d/default/1/result.json"
want=$(q "$f" "[m['median'] for m in d['metrics'] if (m['abi'], m['test'], m['name']) == ('aarch64', 'lat_syscall', 'null')][0], [m['unit'] for m in d['metrics'] if m['name'] == 'null'][0]")
got=$(q "$tmp/k.json" "[(t['number']['value'], t['number']['unit']) for t in d['tests'] if t['path'] == 'boot.bootrig.aarch64.lat_syscall.null' and t['misc'].get('n') is not None and t['start_time'] == '2026-11-29T23:30:01Z'][0][0], [t['number']['unit'] for t in d['tests'] if 'number' in t][0]")
[ "$got" = "$want" ] && ok "metric as the test's number: $got, status DONE" || not_ok "metric number" "got $got want ($want)"
st=$(q "$tmp/k.json" "sorted(set(t['status'] for t in d['tests'] if t['path'] == 'boot.bootrig.aarch64_ilp32'))")
[ "$st" = "['SKIP']" ] && ok "an unsupported ABI is SKIP" || not_ok "unsupported ABI" "$st"

# --- a real boot (6.1.0-57-amd64 under TCG, its result.json and console.log kept) ---
REAL="$TOP/tests/fixtures/kcidb/amd64-6.1.0-57"
export_ --kcidb -o "$tmp/real.json" "$REAL"
if [ $rc -eq 0 ] && valid "$tmp/real.json"; then ok "a real boot's export validates: $(cat "$tmp/v")"
else not_ok "a real boot's export validates" "rc=$rc $(cat "$tmp/err") $(head -5 "$tmp/v")"; fi
got=$(q "$tmp/real.json" "sorted(t['status'] for t in d['tests'] if t['path'] in ('boot', 'boot.bootrig.x86_64', 'boot.bootrig.x32', 'boot.bootrig.i386')), sum(t['status'] == 'DONE' and t['number']['value'] > 0 for t in d['tests'] if t['path'].startswith('boot.bootrig.x86_64.lat_syscall.')), d['builds'][0]['output_files'][0]['name']")
[ "$got" = "['PASS', 'PASS', 'PASS', 'SKIP'] 6 amd64.vmlinuz" ] &&
	ok "real boot: boot and ABIs PASS, x32 SKIP, 6 x86_64 syscall latencies as numbers, the kernel as output file" ||
	not_ok "real boot's tests" "$got"
url=$(q "$tmp/real.json" "[t['log_url'] for t in d['tests'] if t['path'] == 'boot'][0]")
[ "$url" = "file://$(realpath "$REAL")/amd64.vmlinuz-85667e6c/default/1/console.log" ] && ok "real boot: log_url is its console.log" ||
	not_ok "real boot: log_url" "$url"

# --- verdicts, logs, --origin, stable IDs (mkresults, with a console.log) ---
"$MK" "$tmp/r" k-x default 3 7 x86_64:lat_syscall:null:us:lower:14:2 --abi x86_64=ok \
	--boot '2=PANIC:panic:Kernel panic - not syncing: VFS' --boot '3=INFRA_ERROR' --console 'Linux version 6.1'
export_ --kcidb --origin my_ci -o "$tmp/r.json" "$tmp/r"
if [ $rc -eq 0 ] && valid "$tmp/r.json"; then ok "export with --origin validates"
else not_ok "export with --origin validates" "rc=$rc $(cat "$tmp/err") $(head -5 "$tmp/v")"; fi
st=$(q "$tmp/r.json" "[t['status'] for t in d['tests'] if t['path'] == 'boot']")
[ "$st" = "['PASS', 'FAIL', 'MISS']" ] && ok "verdicts: PASS PASS, PANIC FAIL, INFRA_ERROR MISS" ||
	not_ok "verdict statuses" "$st"
ids=$(q "$tmp/r.json" "all(o['id'].startswith('my_ci:') and o['origin'] == 'my_ci' for k in ('checkouts', 'builds', 'tests') for o in d[k])")
[ "$ids" = True ] && ok "--origin my_ci: every ID is my_ci:<hash>" || not_ok "--origin in the IDs" "$ids"
url=$(q "$tmp/r.json" "[t['log_url'] for t in d['tests'] if t['path'] == 'boot'][1]")
case $url in
file:///*/k-x/default/2/console.log) [ -f "${url#file://}" ] && ok "log_url: the file:// of console.log ($url)" ||
	not_ok "log_url points at the file" "$url" ;;
*) not_ok "log_url" "$url" ;;
esac
export_ --kcidb --origin my_ci -o "$tmp/r2.json" "$tmp/r"
cmp -s "$tmp/r.json" "$tmp/r2.json" && ok "a second export gives the same document (stable IDs)" ||
	not_ok "stable IDs" "$(diff "$tmp/r.json" "$tmp/r2.json" | head -4)"
export_ --kcidb "$tmp/r"
cmp -s "$tmp/out" "$tmp/r.json" && not_ok "stdout export: another origin, other IDs" ||
	{ valid "$tmp/out" && ok "without -o: the document on stdout, valid, IDs of origin bootrig"; } ||
	not_ok "stdout export" "$(head -3 "$tmp/v")"

# --- KUnit: a test per ktap.cases entry, path kunit.<suite>.<case> (the catalogue's "kunit") ---
"$MK" "$tmp/ku" k-ku default 2 5 --abi x86_64=ok --console 'Linux version 6.1' \
	--case list-kunit-test:list_test_list_add:fail --case list-kunit-test:list_test_list_del:ok \
	--case list-kunit-test:list_test_list_del:ok --case example:example_skip_test:skip \
	--case 'example.example_params_test:example value 1:ok' --case odd:crashed_case:error \
	--case :top_level_case:ok >/dev/null
for n in 1 2; do
	"$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); d['started'] = sys.argv[2]; json.dump(d, open(sys.argv[1], 'w'))" \
		"$tmp/ku/k-ku/default/$n/result.json" "2026-12-01T10:00:0${n}Z"
done
export_ --kcidb --origin my_ci -o "$tmp/ku.json" "$tmp/ku"
if [ $rc -eq 0 ] && valid "$tmp/ku.json"; then ok "export with KUnit cases validates: $(cat "$tmp/v")"
else not_ok "export with KUnit cases validates" "rc=$rc $(cat "$tmp/err") $(head -5 "$tmp/v")"; fi
got=$(q "$tmp/ku.json" "' '.join(sorted(t['path'] + '=' + t['status'] for t in d['tests'] if t['path'].startswith('kunit') and t.get('start_time') == '2026-12-01T10:00:01Z'))")
want="kunit.example.example_params_test.example_value_1=PASS kunit.example.example_skip_test=SKIP"
want="$want kunit.list-kunit-test.list_test_list_add=FAIL kunit.list-kunit-test.list_test_list_del=PASS"
want="$want kunit.list-kunit-test.list_test_list_del=PASS kunit.odd.crashed_case=ERROR kunit.top_level_case=PASS"
[ "$got" = "$want" ] && ok "a test per KUnit case: kunit.<suite>.<case>, ok PASS, fail FAIL, skip SKIP, other ERROR" ||
	not_ok "KUnit case tests" "got:  $got
want: $want"
# each case test is its boot's: build, origin, environment, console.log, start time
got=$(q "$tmp/ku.json" "[(sum(1 for k in d['tests'] if k['path'].startswith('kunit.') and k.get('start_time') == b['start_time'] and k['build_id'] == b['build_id'] and k['origin'] == b['origin'] == 'my_ci' and k.get('log_url') == b['log_url'] and k['environment'] == b['environment']), b['log_url'].endswith('/%d/console.log' % b['misc']['boot'])) for b in d['tests'] if b['path'] == 'boot'], len(set(t['id'] for t in d['tests'])) == len(d['tests']), sum(t['path'].startswith('kunit') for t in d['tests'])")
[ "$got" = "[(7, True), (7, True)] True 14" ] &&
	ok "each KUnit test has its boot's build, origin, environment, log_url and start_time; every ID unique (a case twice too)" ||
	not_ok "KUnit tests belong to their boot" "$got"
export_ --kcidb --origin my_ci -o "$tmp/ku2.json" "$tmp/ku"
cmp -s "$tmp/ku.json" "$tmp/ku2.json" && ok "KUnit test IDs are stable: a second export is the same document" ||
	not_ok "KUnit IDs stable" "$(diff "$tmp/ku.json" "$tmp/ku2.json" | head -4)"
# hostile names from the guest: control bytes, spaces, 10 KB, nothing expressible
ctl=$(printf 'a\001b\033[31m c\177d\tx')
long=$(printf 'x \033%.0s' $(seq 3414))
none=$(printf '\001\002 \003')
"$MK" "$tmp/kh" k-kh default 1 6 --console 'Linux version 6.1' --case "$(printf 'evil suite\033'):$ctl:ok" \
	--case "ok_suite:$long:fail" --case "ok_suite:$none:ok" --case ":$long:ok" --case "ok_suite:fine:ok" >/dev/null
export_ --kcidb -o "$tmp/kh.json" "$tmp/kh"
if [ $rc -eq 0 ] && valid "$tmp/kh.json"; then ok "hostile KUnit names (control bytes, spaces, 10 KB) still validate"
else not_ok "hostile KUnit names validate" "rc=$rc $(cat "$tmp/err") $(head -5 "$tmp/v")"; fi
got=$(q "$tmp/kh.json" "sorted(t['path'] + '=' + t['status'] for t in d['tests'] if t['path'].startswith('kunit')), [t['misc']['kunit_not_exported'] for t in d['tests'] if t['path'] == 'boot'], max(len(t['path']) for t in d['tests'])")
[ "$got" = "['kunit.evil_suite_.a_b__31m_c_d_x=PASS', 'kunit.ok_suite.fine=PASS'] [3] 32" ] &&
	grep -q 'export: 3 KUnit cases not exported' "$tmp/err" &&
	ok "hostile KUnit names: sanitised into the path pattern; a 10 KB or unprintable name skipped, counted (misc, stderr)" ||
	not_ok "hostile KUnit names" "$got $(cat "$tmp/err")"

# --- a variant is the test's environment, not a build; no relative path ---
"$MK" "$tmp/var" k-v default 1 3 x86_64:lat_syscall:null:us:lower:14:2 --abi x86_64=ok >/dev/null
"$MK" "$tmp/var" k-v dbg 1 4 x86_64:lat_syscall:null:us:lower:14:2 --abi x86_64=ok >/dev/null
for v in default dbg; do
	line="console=ttyS0 panic=-1"
	[ $v = dbg ] && line="$line loglevel=7"
	"$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); d['append'] = sys.argv[2]; json.dump(d, open(sys.argv[1], 'w'))" \
		"$tmp/var/k-v/$v/1/result.json" "$line"
done
(cd "$tmp" && "$BOOTRIG" export --kcidb -o v.json var >"$tmp/out" 2>"$tmp/err")
rc=$?
got=$(q "$tmp/v.json" "len(d['builds']), sorted(t['environment']['misc']['variant'] + ':' + t['environment']['misc']['append'] for t in d['tests'] if t['path'] == 'boot'), all(t['misc']['result_dir'].startswith('/') for t in d['tests'] if t['path'] == 'boot'), all('variant' in t['environment']['comment'] for t in d['tests'])")
[ $rc -eq 0 ] && valid "$tmp/v.json" &&
	[ "$got" = "1 ['dbg:console=ttyS0 panic=-1 loglevel=7', 'default:console=ttyS0 panic=-1'] True True" ] &&
	ok "two variants: one build, each boot's variant and command line in its environment; result_dir absolute from a relative RESULTS" ||
	not_ok "variants as environments" "rc=$rc $got $(head -3 "$tmp/v")"

# --- git: a kernel from a git tree, and --git-commit/--git-url ---
KIMG=$(kernel_path cloud-arm64)
if [ -f "$KIMG" ] && command -v git >/dev/null; then
	mkdir -p "$tmp/tree/arch/arm64/boot"
	cp "$KIMG" "$tmp/tree/arch/arm64/boot/Image"
	(cd "$tmp/tree" && git init -q && git add -A && git -c user.email=t@example.org -c user.name=t commit -qm v1 &&
		git tag v6.1-bootrig && git remote add origin https://git.kernel.org/pub/scm/linux/kernel/git/stable/linux.git)
	sha=$(git -C "$tmp/tree" rev-parse HEAD)
	# a run that cannot reach its libvirt: INFRA_ERROR at once, nothing boots
	"$BOOTRIG" run --kernel "$tmp/tree" --connect qemu+tcp://127.0.0.1:1/system --timeout 5 -o "$tmp/gr" \
		>"$tmp/gr.out" 2>&1
	rc=$?
	f=$(find "$tmp/gr" -name result.json | head -1)
	got=$("$PY" -c "import json,sys; g=json.load(open(sys.argv[1]))['kernel']['git']; print(g['commit'], g['describe'], g['url'])" "$f" 2>&1)
	[ $rc -eq 125 ] && [ "$got" = "$sha v6.1-bootrig https://git.kernel.org/pub/scm/linux/kernel/git/stable/linux.git" ] &&
		ok "run --kernel TREE: result.json kernel.git has the tree's commit, describe and remote" ||
		not_ok "run --kernel TREE records git" "rc=$rc $got $(tail -3 "$tmp/gr.out")"
	export_ --kcidb -o "$tmp/g.json" "$tmp/gr"
	got=$(q "$tmp/g.json" "[(c.get('git_commit_hash'), c.get('git_commit_name'), c.get('git_repository_url')) for c in d['checkouts']]")
	if [ $rc -eq 0 ] && valid "$tmp/g.json" &&
		[ "$got" = "[('$sha', 'v6.1-bootrig', 'https://git.kernel.org/pub/scm/linux/kernel/git/stable/linux.git')]" ]; then
		ok "a tree-built kernel's export validates (v5.3), its checkout with git_commit_hash, name and URL"
	else not_ok "a tree-built kernel's export" "rc=$rc $got $(head -3 "$tmp/v")"; fi
	# bisect's steps: each boots the image its build left, and records the
	# commit it was built from (run --kernel-tree); the ends cannot boot
	# here (no libvirt), so bisect gives up (125) after booting them
	mkdir -p "$tmp/bt"
	printf 'cp "$1" image\n' >"$tmp/bt/build.sh"
	(cd "$tmp/bt" && git init -q && printf 'image\n' >.gitignore && git add -A &&
		for c in c1 c2 c3; do echo "$c" >file && git add file &&
			git -c user.email=t@example.org -c user.name=t commit -qm "$c" && git tag "$c"; done &&
		git remote add origin https://example.org/linux.git)
	"$BOOTRIG" bisect --tree "$tmp/bt" --good c1 --bad c3 --build sh build.sh "$KIMG" -- --image image \
		--crash --boots 1 --max-boots 1 --connect qemu+tcp://127.0.0.1:1/system --timeout 5 \
		-o "$tmp/bd" >"$tmp/bd.out" 2>&1
	rc=$?
	n=0 bad=""
	for f in $(find "$tmp/bd" -name result.json); do
		d=${f#"$tmp/bd/"} d=${d%%/*}
		got=$("$PY" -c "import json,sys; g=json.load(open(sys.argv[1]))['kernel']['git']; print(g['commit'][:12], g['url'])" "$f" 2>&1)
		if [ "$got" = "$d https://example.org/linux.git" ]; then n=$((n + 1)); else bad="$bad $d: '$got'"; fi
	done
	[ $rc -eq 125 ] && [ $n -ge 1 ] && [ -z "$bad" ] &&
		ok "bisect: each step's result.json has the commit it was built from in kernel.git ($n boots)" ||
		not_ok "bisect steps record their commit" "rc=$rc n=$n$bad $(tail -n 5 "$tmp/bd.out")"
	"$BOOTRIG" run --kernel "$KIMG" --kernel-tree "$tmp" -o "$tmp/nt" >"$tmp/nt.out" 2>&1
	rc=$?
	[ $rc -eq 64 ] && grep -q -- "--kernel-tree $tmp: not a git work tree$" "$tmp/nt.out" &&
		ok "run --kernel-tree DIR that is no git work tree: exit 64, says so" ||
		not_ok "run --kernel-tree of no git tree" "rc=$rc $(cat "$tmp/nt.out")"
else
	not_ok "run --kernel TREE records git" "no cloud-arm64 kernel or no git"
fi
other=0123456789abcdef0123456789abcdef01234567
export_ --kcidb --git-commit $other --git-url https://example.org/linux.git -o "$tmp/o.json" "$tmp/r"
got=$(q "$tmp/o.json" "sorted(set((c['git_commit_hash'], c['git_repository_url']) for c in d['checkouts']))")
[ $rc -eq 0 ] && valid "$tmp/o.json" && [ "$got" = "[('$other', 'https://example.org/linux.git')]" ] &&
	ok "--git-commit/--git-url: every checkout has them, valid" || not_ok "--git-commit/--git-url" "rc=$rc $got $(head -3 "$tmp/v")"
export_ --kcidb --git-commit abc123 "$tmp/r"
[ $rc -eq 64 ] && grep -q 'not a full commit hash' "$tmp/err" && ok "--git-commit abc123: exit 64, says why" ||
	not_ok "--git-commit abc123" "rc=$rc $(cat "$tmp/err")"
export_ --kcidb --git-commit $other --git-url git://example.org/linux.git "$tmp/r"
[ $rc -eq 64 ] && grep -q 'not an https:// URL' "$tmp/err" && ok "--git-url git://...: exit 64 (v5 takes https:// only)" ||
	not_ok "--git-url git://" "rc=$rc $(cat "$tmp/err")"

# --- usage errors ---
export_ "$tmp/r"
[ $rc -eq 64 ] && grep -q -- '--kcidb' "$tmp/err" && ok "no --kcidb: exit 64, says so" || not_ok "no --kcidb" "rc=$rc"
export_ --kcidb --origin 'My-CI' "$tmp/r"
[ $rc -eq 64 ] && grep -q 'not a KCIDB origin' "$tmp/err" && ok "a bad --origin: exit 64" || not_ok "bad --origin" "rc=$rc"
"$BOOTRIG" export -h >"$tmp/help" 2>&1
grep -q -- '--origin NAME' "$tmp/help" && grep -q -- '-o, --output FILE' "$tmp/help" &&
	grep -q -- '--git-commit SHA' "$tmp/help" && grep -q -- '--git-url URL' "$tmp/help" &&
	ok "export --help from its option table" || not_ok "export --help"

# --- corrupted results: a clear error, exit 65, nothing at -o ---
# corrupt NAME SED|truncate: a copy of $tmp/r with boot 1's result.json damaged
corrupt() {
	rm -rf "$tmp/c-$1"
	cp -r "$tmp/r" "$tmp/c-$1"
	f="$tmp/c-$1/k-x/default/1/result.json"
	if [ "$2" = truncate ]; then head -c 300 "$f" >"$f.t" && mv "$f.t" "$f"
	else "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); $2; json.dump(d, open(sys.argv[1], 'w'))" "$f"; fi
}
for c in "truncated:truncate:not valid JSON" \
	"no-kernel-id:del d['kernel']['id']:\"id\" is missing" \
	"boot-string:d['boot'] = 'one':\"boot\" is a string, not an integer" \
	"no-verdict:del d['verdict']:not a bootrig result" \
	"metric-no-name:del d['metrics'][0]['name']:\"name\" is missing" \
	"bad-verdict:d['verdict'] = 'MAYBE':not a bootrig verdict" \
	"bad-started:d['started'] = 'yesterday':not an RFC 3339 time"; do
	name=${c%%:*} rest=${c#*:} how=${rest%%:*} msg=${rest#*:}
	corrupt "$name" "$how"
	rm -f "$tmp/c.json"
	export_ --kcidb -o "$tmp/c.json" "$tmp/c-$name"
	left=$(ls "$tmp" | grep -c 'c.json' || true)
	if [ $rc -eq 65 ] && grep -qF "$msg" "$tmp/err" && grep -q "c-$name/k-x/default/1/result.json" "$tmp/err" &&
		[ ! -e "$tmp/c.json" ] && [ "$left" -eq 0 ]; then
		ok "corrupted ($name): exit 65, '$msg' naming the file, nothing written"
	else not_ok "corrupted ($name)" "rc=$rc left=$left err: $(cat "$tmp/err")"; fi
done
# an existing FILE is left as it was
echo '{"old": true}' >"$tmp/keep.json"
export_ --kcidb -o "$tmp/keep.json" "$tmp/c-truncated"
[ $rc -eq 65 ] && [ "$(cat "$tmp/keep.json")" = '{"old": true}' ] && ok "a failed export leaves an existing FILE whole" ||
	not_ok "existing FILE kept" "rc=$rc $(head -c 80 "$tmp/keep.json")"
mkdir -p "$tmp/empty"
export_ --kcidb -o "$tmp/e.json" "$tmp/empty"
[ $rc -eq 65 ] && grep -q 'no result.json' "$tmp/err" && [ ! -e "$tmp/e.json" ] &&
	ok "a directory without results: exit 65, says so" || not_ok "empty directory" "rc=$rc $(cat "$tmp/err")"
