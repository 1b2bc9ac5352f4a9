#!/bin/sh
# 16-profile: what a profile costs, and what it leaves of the metrics.
#   The smoke boot of each kernel below (lat_syscall on every ABI, TCG,
#   icount: bootrig's default there) through `bootrig run`, N boots
#   unprofiled (the baseline) and N with --profile's command line
#   (bootrig.profile=1), alternated (`--variant`, one boot at a time), and
#   prints:
#     host time   each boot's duration (host seconds, power-on to end,
#                 result.json "duration"), median per side, and the ratio
#                 profiled / unprofiled (target <= 1.3);
#     metrics     each metric's median of the per-boot medians per side,
#                 the change, and the baseline's CV across its boots: the
#                 profile pass runs after a metric's samples, so the
#                 change should be within the CV (target);
#     repeat      over the N profiled boots, the widest spread (max - min,
#                 percentage points) of any of a metric's ten largest
#                 functions, by self and by children share (target <= 1).
# BENCH_PROFILE_N changes N (default 3); BENCH_PROFILE_KERNELS the Debian
# flavours (default "cloud-arm64 amd64").
set -u
cd "$(dirname "$0")/../.."
. scripts/bench-lib.sh

n=${BENCH_PROFILE_N:-3}
out=build/bench/profile
bench_out "$out"
for flavour in ${BENCH_PROFILE_KERNELS:-cloud-arm64 amd64}; do
	kernel=$(bench_kernel "$flavour")
	[ -s "$kernel" ] || { echo "16-profile: no $flavour kernel" >&2; exit 1; }
	build/bootrig run --kernel "$kernel" --repeat "$n" --seed 1 -j 1 \
		--variant plain= --variant profiled=bootrig.profile=1 \
		-o "$out/$flavour" >"$out/$flavour.log" 2>&1 ||
		{ echo "16-profile: bootrig run failed: $(tail -3 "$out/$flavour.log")" >&2; exit 1; }
	echo "-- $flavour: smoke, $n boots a side, icount"
	python3 - "$out/$flavour" <<'EOF'
import glob, json, statistics, sys
root = glob.glob(sys.argv[1] + '/*/')[0]
side = {v: [json.load(open(f)) for f in sorted(glob.glob(root + v + '/*/result.json'))]
        for v in ('plain', 'profiled')}
dur = {v: statistics.median(r['duration'] for r in rs) for v, rs in side.items()}
print('   host time a boot: unprofiled %.2f s, profiled %.2f s, ratio %.2f (target <= 1.3)'
      % (dur['plain'], dur['profiled'], dur['profiled'] / dur['plain']))
print('   %-28s %10s %10s %8s %8s  %s' % ('metric', 'plain', 'profiled', 'change', 'CV', 'within CV'))
def medians(rs, key):
    return [m['median'] for r in rs for m in r['metrics'] if (m['abi'], m['test'], m['name']) == key]
keys = [(m['abi'], m['test'], m['name']) for m in side['plain'][0]['metrics']]
within = 0
for k in keys:
    a, b = medians(side['plain'], k), medians(side['profiled'], k)
    if not a or not b:
        continue
    ma, mb = statistics.mean(a), statistics.mean(b)
    cv = 100 * statistics.stdev(a) / ma if len(a) > 1 and ma else 0.0
    ch = 100 * (mb - ma) / ma if ma else 0.0
    ok = abs(ch) <= max(cv, 0.0)
    within += ok
    print('   %-28s %10.4g %10.4g %+7.2f%% %7.2f%%  %s' % ('.'.join(k), ma, mb, ch, cv, 'yes' if ok else 'no'))
print('   %d of %d metrics changed by no more than their CV' % (within, len(keys)))
worst = (0.0, '')
for k in keys:
    maps = [{f['name']: (f['self'], f['children']) for f in m['profile']['functions']}
            for r in side['profiled'] for m in r['metrics']
            if (m['abi'], m['test'], m['name']) == k and (m.get('profile') or {}).get('status') == 'ok']
    if len(maps) < 2:
        continue
    samples = [m['profile']['samples'] for r in side['profiled'] for m in r['metrics']
               if (m['abi'], m['test'], m['name']) == k]
    for i, kind in ((0, 'self'), (1, 'children')):
        allf = set().union(*maps)
        mean = {f: sum(mp.get(f, (0, 0))[i] for mp in maps) / len(maps) for f in allf}
        spread = 0.0
        for f in sorted(allf, key=lambda f: -mean[f])[:10]:
            v = [mp.get(f, (0, 0))[i] for mp in maps]
            if max(v) - min(v) > spread:
                spread, fn = max(v) - min(v), f
        if spread > worst[0]:
            worst = (spread, '%s %s.%s' % ('.'.join(k), kind, fn))
    print('   repeat %-28s samples %-20s' % ('.'.join(k), samples))
print('   repeatability: the widest spread of a top-10 function over the profiled boots: %.2f points (%s) (target <= 1)'
      % worst)
EOF
done
