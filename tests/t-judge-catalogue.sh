#!/bin/sh
# tests/t-judge-catalogue.sh: the judge's header table against the kernel's
# own reporting code (issue 13).
#   1. build/tests/tools/judge-catalogue over Debian's linux-source-6.1
#      (extracted once, only the directories it reads, into
#      ~/.cache/bootrig/linux-source-6.1): every report header those files
#      print is an event of the right kind, with the kind and title
#      tests/fixtures/judge/catalogue-6.1.txt gives it (-g; a header missing
#      there fails, so does a line no header gives any more), and (-d)
#      every entry of the table is needed: ignoring any one of them changes
#      what the judge makes of some header (the test fails naming the
#      entry), so deleting one fails -g; tests/fixtures/judge/catalogue-extra.txt
#      adds the headers of older kernels the table keeps. After a deliberate
#      change of titles: judge-catalogue -x EXTRA -w GOLDEN SRC, and review the diff;
#   2. the tool fails, naming it, on a header the table lacks: a tree whose
#      lib/bug.c prints a new "BUG: " header.
. "$(dirname "$0")/lib.sh"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
TOOL=$TOP/build/tests/tools/judge-catalogue
EXTRA=$TOP/tests/fixtures/judge/catalogue-extra.txt
GOLDEN=$TOP/tests/fixtures/judge/catalogue-6.1.txt
TARBALL=/usr/src/linux-source-6.1.tar.xz
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/bootrig
SRC=$CACHE/linux-source-6.1
DIRS="lib kernel mm fs net/core arch/x86/kernel arch/x86/mm arch/arm64/kernel arch/arm64/mm
	arch/arm/kernel arch/arm/mm"

# The source, extracted once (about 10 s); .complete marks a finished one.
if [ ! -f "$SRC/.complete" ] && [ -f "$TARBALL" ]; then
	mkdir -p "$CACHE"
	part=$(mktemp -d "$CACHE/linux-source-6.1.part.XXXXXX")
	set --
	for d in $DIRS; do set -- "$@" "linux-source-6.1/$d/*"; done
	if tar -xJf "$TARBALL" -C "$part" --wildcards "$@"; then
		rm -rf "$SRC"
		mv "$part/linux-source-6.1" "$SRC" && touch "$SRC/.complete"
	fi
	rm -rf "$part"
fi

# 1. The catalogue.
if [ ! -f "$SRC/.complete" ]; then
	not_ok "the catalogue against linux-source-6.1" "$TARBALL missing or not unpacked (scripts/install-deps.sh installs it)"
else
	"$TOOL" -d -x "$EXTRA" -g "$GOLDEN" "$SRC" > "$T/cat.tap" 2> "$T/cat.err"
	rc=$?
	n=$(grep -c '^ok ' "$T/cat.tap")
	misses=$(grep '^not ok ' "$T/cat.tap")
	if [ "$rc" -eq 0 ] && [ -z "$misses" ] && [ "$n" -ge 150 ]; then
		ok "linux-source-6.1: every report header is its event, every entry needed ($n checks)"
	else
		not_ok "linux-source-6.1: the catalogue" "exit $rc, $n ok; $(cat "$T/cat.err")
$misses"
	fi
	entries=$(sed -n 's/^# [0-9]* samples, \([0-9]*\) table entries$/\1/p' "$T/cat.tap")
	check "the drop check ran over each of the ${entries:-?} entries" \
		test "$(grep -c '^ok .* - without entry' "$T/cat.tap")" -eq "${entries:-0}" -a "${entries:-0}" -ge 70
fi

# 2. A header the table lacks fails the tool, named.
for f in lib kernel/locking kernel/rcu kernel/kcsan kernel/sched mm/kasan mm/kfence mm/kmsan fs \
	arch/x86/kernel arch/x86/mm arch/arm64/kernel arch/arm64/mm arch/arm/kernel arch/arm/mm \
	net/core; do
	mkdir -p "$T/tree/$f"
done
for f in lib/bug.c kernel/panic.c lib/ubsan.c kernel/hung_task.c kernel/watchdog.c \
	kernel/watchdog_hld.c lib/debugobjects.c lib/refcount.c lib/list_debug.c mm/slub.c \
	mm/kmemleak.c mm/usercopy.c mm/page_alloc.c mm/memory.c kernel/workqueue.c kernel/fork.c \
	net/core/dev.c lib/smp_processor_id.c arch/x86/kernel/traps.c arch/x86/kernel/dumpstack.c \
	arch/x86/kernel/unwind_frame.c arch/x86/mm/fault.c arch/arm64/kernel/traps.c \
	arch/arm64/mm/fault.c arch/arm/kernel/traps.c arch/arm/mm/fault.c; do
	: > "$T/tree/$f"
done
cat > "$T/tree/lib/bug.c" <<'C'
/* "BUG: in a comment is no header" */
void report(int n)
{
	pr_crit("BUG: catalogue probe %d went wrong\n", n);
	pr_err(KERN_CONT "kernel BUG at %s:%u!\n", "x.c", 1);
}
C
"$TOOL" "$T/tree" > "$T/probe.tap" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && grep -q '^not ok .*lib/bug.c:4: the judge does not flag "BUG: catalogue probe 1 went wrong"' "$T/probe.tap" &&
	grep -q '^ok .*lib/bug.c:5: "kernel BUG at foo:1!"' "$T/probe.tap" && [ "$(grep -c '^\(not \)\?ok' "$T/probe.tap")" -eq 2 ]; then
	ok "a header the table lacks: exit 1, named with its file and line"
else
	not_ok "a header the table lacks" "exit $rc: $(cat "$T/probe.tap")"
fi
