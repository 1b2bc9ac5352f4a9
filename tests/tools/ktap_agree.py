#!/usr/bin/env python3
# tests/tools/ktap_agree.py KUNIT_DIR ORIGINAL BOOTRIG_KTAP: does a KTAP
# reader conclude from `bootrig judge --format ktap` (BOOTRIG_KTAP) what it
# concludes from the console it was made from (ORIGINAL)? The reader is the
# kernel's own, unmodified: KUNIT_DIR/kunit_parser.py (tools/testing/kunit),
# as `kunit.py parse` calls it (parse_run_tests over the file's lines).
#
# Both trees are walked side by side: every test and suite must have the
# same name, status (PASSED, FAILED, SKIPPED, CRASHED, NO TESTS), plan and
# number of subtests. bootrig's own results, the subtests "boot" (its first
# case "verdict") and "tests" just after it, are no part of the original and
# are left out, and the document's status is compared over what is left
# (kunit.py's counts of the rest). A console without KTAP (kunit.py: "could
# not find any KTAP output") agrees with a report that has nothing else.
#
# Prints one line per disagreement (or none) and exits 1 when there is one,
# 0 when the two agree; with -v, also each tree.
import io
import os
import sys


def load(kunit_dir):
    sys.path.insert(0, kunit_dir)
    import kunit_parser  # noqa: E402: from KUNIT_DIR, unmodified
    return kunit_parser


def parse(kp, path):
    # kunit.py parse opens the file so; its progress (kunit_printer's
    # stdout, which holds sys.stdout) is not shown
    with open(path, 'r', errors='backslashreplace') as f:
        lines = f.read().splitlines(keepends=True)
    printer = kp.stdout
    saved, printer._output = printer._output, io.StringIO()
    try:
        return kp.parse_run_tests(lines)
    finally:
        printer._output = saved


def strip_bootrig(kp, root):
    """root's subtests but bootrig's own "boot" and "tests"."""
    subs = list(root.subtests)
    for i, t in enumerate(subs):
        if t.name == 'boot' and t.subtests and t.subtests[0].name == 'verdict':
            n = 2 if i + 1 < len(subs) and subs[i + 1].name == 'tests' else 1
            return subs[:i] + subs[i + n:]
    return subs


def status_over(kp, subs):
    """The status kunit.py gives a document of these subtests."""
    c = kp.TestCounts()
    for t in subs:
        if t.counts.total() == 0:
            c.add_status(t.status)
        else:
            c.add_subtest_counts(t.counts)
    return c.get_status()


def show(t, depth=0):
    print('%s%s: %s, plan %s' % ('  ' * depth, t.name or '""', t.status.name, t.expected_count))
    for s in t.subtests:
        show(s, depth + 1)


def walk(a, b, path, out):
    where = path or 'the document'
    if a.name != b.name:
        out.append('%s: name %r, bootrig %r' % (where, a.name, b.name))
    if a.status != b.status:
        out.append('%s: %s, bootrig %s' % (where, a.status.name, b.status.name))
    if a.expected_count != b.expected_count:
        out.append('%s: plan %s, bootrig %s' % (where, a.expected_count, b.expected_count))
    if len(a.subtests) != len(b.subtests):
        out.append('%s: %d subtests, bootrig %d' % (where, len(a.subtests), len(b.subtests)))
    for i, (x, y) in enumerate(zip(a.subtests, b.subtests)):
        walk(x, y, '%s/%d:%s' % (path, i + 1, x.name), out)


def main(argv):
    verbose = '-v' in argv
    argv = [a for a in argv if a != '-v']
    if len(argv) != 3:
        print('usage: ktap_agree.py [-v] KUNIT_DIR ORIGINAL BOOTRIG_KTAP', file=sys.stderr)
        return 64
    kp = load(os.path.abspath(argv[0]))
    a, b = parse(kp, argv[1]), parse(kp, argv[2])
    if verbose:
        show(a)
        show(b)
    out = []
    bsubs = strip_bootrig(kp, b)
    if a.status == kp.TestStatus.FAILURE_TO_PARSE_TESTS:
        if bsubs:
            out.append('the original has no KTAP, bootrig reports %d results' % len(bsubs))
    else:
        sa, sb = status_over(kp, a.subtests), status_over(kp, bsubs)
        if sa != sb:
            out.append('the document: %s, bootrig %s' % (sa.name, sb.name))
        if len(a.subtests) != len(bsubs):
            out.append('the document: %d results, bootrig %d' % (len(a.subtests), len(bsubs)))
        for i, (x, y) in enumerate(zip(a.subtests, bsubs)):
            walk(x, y, '%d:%s' % (i + 1, x.name), out)
    for line in out:
        print(line)
    return 1 if out else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
