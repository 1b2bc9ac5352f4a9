# scripts/bench-lib.sh: what the parts of `make bench` (scripts/bench.d/*.sh)
# share, sourced by each after it has gone to the top of the tree. Not a
# part itself (bench.sh runs bench.d/*.sh only).

# bench_out DIR: DIR emptied (made anew): a part's output of this run only.
bench_out() { rm -rf "$1" && mkdir -p "$1"; }

# bench_kernel FLAVOUR: the path of the Debian kernel of that flavour
# (scripts/fetch-kernels.sh fetches it once into the cache).
bench_kernel() { sh scripts/fetch-kernels.sh "$1" | awk '{print $2}'; }

# make_var NAME: a Makefile variable's value (the Makefile owns the lists:
# the objects, the libraries' flags).
make_var() {
	printf 'bench-print-%%:\n\t@echo $($*)\n' |
		make -s --no-print-directory -f Makefile -f - "bench-print-$1"
}

# now: the wall clock in seconds, with nanoseconds.
now() { date +%s.%N; }

# median: the median of the numbers on stdin, one a line.
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# ratio A B: A / B with two decimals.
ratio() { echo "$1 $2" | awk '{printf "%.2f", $1 / $2}'; }

# best_of N CMD...: the best wall time of N runs of CMD, in seconds (its
# output dropped; its exit status not looked at: a verdict's 1 or 2 is not
# a failure of the run, and the part checks what it needs elsewhere).
best_of() {
	runs=$1 best=""
	shift
	for _ in $(seq "$runs"); do
		t0=$(date +%s.%N)
		"$@" >/dev/null 2>&1 || true
		t1=$(date +%s.%N)
		best=$(echo "$t0 $t1 ${best:-999}" | awk '{d = $2 - $1; print (d < $3 ? d : $3)}')
	done
	echo "$best"
}
