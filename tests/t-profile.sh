#!/bin/sh
# t-profile: the profile behind every metric, on real kernels (issue 31's
# acceptance). Debian's amd64 and cloud-arm64 kernels are booted by
# `bootrig run --profile` (libvirt, QEMU/TCG, icount: bootrig's default
# there), 4 boots with `slub_debug=FZPU` and 4 without, running lat_syscall
# and lat_proc on the kernel's native ABI, with `--seed boot` (seeds 1 to
# 4: boots that differ, so that p weighs a change against the spread
# of the kernel's randomness and of the sampling; with one seed the boots
# of a side are the same boot and p is 0 for any change). Then:
#  - every metric of every boot has a profile (status ok, samples);
#  - `bootrig compare` names one of SLUB's debug functions (the checks and
#    the tracking of mm/slub.c's debug path, the list below) among the five
#    functions whose share grew most, at p < 0.01, by children or by self
#    share (compare prints five of each kind), for open_close and for fork,
#    in its JSON and as a perf-profile line in its text (interrupt work,
#    RCU's deferred freeing of tasks and files among it, is counted apart
#    from the shares: before it was, fork's line missed p < 0.01 in 3 runs
#    of 10). Four seeds a side, not three: amd64 fork's set_track_prepare
#    takes 35, 50 and 43 % of the samples over seeds 1-3 (0 without
#    slub_debug), so with 3 seeds Welch's p is about 0.01 and the check
#    was a coin; with 4 it is about 0.001;
#  - repeatability: 2 more boots without slub_debug, both with seed 1
#    (--seed 1: one seed on purpose, as the A/B's first base boot): over those 3 boots each of a
#    metric's ten largest functions (self and children) agrees within 1
#    point (issue 31's target). Every icount boot with one seed is the
#    same boot (runner/backend.h: QEMU's -seed, the RTC, x86's SMBIOS
#    UUID), so they agree exactly; over the seeds 1-3, or with the host's
#    randomness (--seed random), a share wanders by about a binomial
#    count's spread (2-3 points at a default pass's 1000-2000 samples), and
#    exec's page freeing by tens of points: printed;
#  - the HTML report carries a flame graph per profiled metric.
. "$(dirname "$0")/lib.sh"
set -u
tmp=$(mktemp -d /tmp/t-profile.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
export NO_COLOR=1
RUN="$TOP/build/bootrig"        # the runner at full speed; compare is checked sanitized

# mm/slub.c (linux 6.1), the CONFIG_SLUB_DEBUG path: tracking (set_track*),
# checks (check_*, on_freelist, slab_pad_check), poisoning (init_object,
# restore_bytes) and the debug-only allocation and free paths.
SLUB_DEBUG="set_track_prepare set_track_update set_track init_tracking check_valid_pointer
init_object restore_bytes check_bytes_and_report check_pad_bytes slab_pad_check check_object
check_slab on_freelist trace add_full remove_full setup_object_debug setup_slab_debug
alloc_consistency_checks alloc_debug_processing free_consistency_checks free_debug_processing
alloc_single_from_partial alloc_single_from_new_slab free_to_partial_list"

for arch in amd64:x86_64 cloud-arm64:aarch64; do
	kname=${arch%%:*} abi=${arch#*:}
	kernel=$(kernel_path "$kname")
	if [ ! -f "$kernel" ]; then
		not_ok "the Debian $kname kernel is available" "scripts/fetch-kernels.sh $kname failed"
		continue
	fi
	R="$tmp/$kname"
	"$RUN" run --kernel "$kernel" --suite lmbench --profile --repeat 4 -j 2 --seed boot \
		--append "bootrig.only=lat_syscall,lat_proc bootrig.abi=$abi" \
		--variant base= --variant slub=slub_debug=FZPU -o "$R" >"$tmp/$kname.run" 2>&1
	K=$(ls -d "$R"/*/ | head -1)
	K=${K%/}
	n=$(grep -l '"verdict": *"PASS"' "$K"/base/*/result.json "$K"/slub/*/result.json 2>/dev/null | wc -l)
	if [ "$n" -eq 8 ]; then ok "$kname: 4 boots with slub_debug=FZPU and 4 without, profiled, all PASS"
	else not_ok "$kname: 8 profiled boots PASS" "$n PASS; $(tail -5 "$tmp/$kname.run")"; fi

	# Every metric has a profile with samples.
	bad=$(python3 - "$K" <<'EOF'
import json, glob, sys
bad = []
for f in sorted(glob.glob(sys.argv[1] + '/*/*/result.json')):
    for m in json.load(open(f)).get('metrics', []):
        p = m.get('profile') or {}
        if p.get('status') != 'ok' or not p.get('samples') or not p.get('functions'):
            bad.append('%s %s: %s' % (f, m['name'], p.get('status')))
print('; '.join(bad))
EOF
)
	[ -z "$bad" ] && ok "$kname: every metric of every boot has a profile" ||
		not_ok "$kname: every metric has a profile" "$bad"

	# compare: SLUB's debug functions among the top five gainers, p < 0.01.
	"$BOOTRIG" compare "$K/base" "$K/slub" --format json -o "$tmp/$kname.json" 2>"$tmp/$kname.err"
	"$BOOTRIG" compare "$K/base" "$K/slub" >"$tmp/$kname.txt" 2>>"$tmp/$kname.err"
	sed -n '/perf-profile/p' "$tmp/$kname.txt" | head -40 | sed 's/^/# /'
	for metric in open_close fork; do
		found=$(python3 - "$tmp/$kname.json" "$metric" "$SLUB_DEBUG" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
want = set(sys.argv[3].split())
for m in c['metrics']:
    if m['name'] != sys.argv[2]:
        continue
    gain = [e for e in m.get('profile', []) if e['change_points'][0] is not None
            and e['change_points'][0] > 0 and e['p_welch'][0] is not None and e['p_welch'][0] < 0.01]
    gain.sort(key=lambda e: -e['change_points'][0])
    top = [e for kind in ('children', 'self') for e in [g for g in gain if g['kind'] == kind][:5]]
    hits = ['%s.%s p=%.4f' % (e['kind'], e['function'], e['p_welch'][0]) for e in top
            if e['function'].split('.')[0] in want]
    print(' '.join(hits) if hits else 'none of: ' + ', '.join(
        '%s.%s %+.2f' % (e['kind'], e['function'], e['change_points'][0]) for e in top))
EOF
)
		case $found in
		"" | "none of"*) not_ok "$kname $metric: a SLUB debug function among the top 5 gainers (p < 0.01)" "$found" ;;
		*) ok "$kname $metric: SLUB's debug path among the top 5 gainers at p < 0.01: $found" ;;
		esac
		fn=${found%% *}
		if grep -Eq "perf-profile\.${fn%%.*}\.${fn#*.} .*(<0\.0001|0\.00[0-9]+)" "$tmp/$kname.txt"; then
			ok "$kname $metric: compare's text prints perf-profile.$fn with its p"
		else not_ok "$kname $metric: compare's text prints perf-profile.$fn" "$(grep perf-profile "$tmp/$kname.txt" | head -5)"; fi
	done

	# Repeatability: the widest spread over 3 boots of any of a metric's ten
	# largest functions, by self and by children share (spread.py DIR...).
	cat >"$tmp/spread.py" <<'EOF'
import json, sys
rs = [json.load(open(f)) for f in sys.argv[1:]]
worst = (0.0, '')
for name in [m['name'] for m in rs[0]['metrics']]:
    maps = [{f['name']: (f['self'], f['children']) for m in r['metrics'] if m['name'] == name
             for f in m['profile']['functions']} for r in rs]
    for k, kind in ((0, 'self'), (1, 'children')):
        allf = set().union(*maps)
        mean = {f: sum(mp.get(f, (0, 0))[k] for mp in maps) / len(maps) for f in allf}
        for f in sorted(allf, key=lambda f: -mean[f])[:10]:
            v = [mp.get(f, (0, 0))[k] for mp in maps]
            if max(v) - min(v) > worst[0]:
                worst = (max(v) - min(v), '%s %s.%s %s' % (name, kind, f, v))
print('%.2f %s' % worst)
EOF
	echo "# $kname: the widest spread over the seeds 1-3: base $(python3 "$tmp/spread.py" "$K"/base/*/result.json)," \
		"slub $(python3 "$tmp/spread.py" "$K"/slub/*/result.json)"
	"$RUN" run --kernel "$kernel" --suite lmbench --profile --repeat 2 -j 2 --seed 1 \
		--append "bootrig.only=lat_syscall,lat_proc bootrig.abi=$abi" \
		--variant base= -o "$tmp/$kname-same" >"$tmp/$kname-same.run" 2>&1
	worst=$(python3 "$tmp/spread.py" "$K/base/1/result.json" "$tmp/$kname-same"/*/base/*/result.json 2>&1)
	n=$(ls "$tmp/$kname-same"/*/base/*/result.json 2>/dev/null | wc -l)
	case $n:$worst in
	2:0.* | 2:1.00*) ok "$kname: 3 boots with seed 1, each of every metric's ten largest functions within 1 point (widest $worst)" ;;
	*) not_ok "$kname: 3 boots with seed 1 agree within 1 point" "$n boots: $worst" ;;
	esac

	# The HTML report: a flame graph per profiled metric, nothing from outside.
	"$BOOTRIG" compare "$K/base" "$K/slub" --format html -o "$tmp/$kname.html" 2>/dev/null
	svgs=$(grep -o '<svg' "$tmp/$kname.html" | wc -l)
	if [ "$svgs" -ge 8 ] && ! grep -Eq '<script[^>]*src=|https?://[^" ]*\.(js|css|woff)' "$tmp/$kname.html"; then
		ok "$kname: the HTML report draws the flame graphs ($svgs SVGs), no outside resource"
	else not_ok "$kname: HTML flame graphs" "$svgs SVGs"; fi
done
echo "1..$_tap_n"
