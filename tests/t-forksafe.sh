#!/bin/sh
# t-forksafe.sh: the sanitized flavour's allocator is safe between fork()
# and exec() in a multithreaded process (tests/tools/forksafe.c), as
# libvirt's embedded driver needs when two boots start at once: with gcc
# 12's libasan 3 of 60 such forks hung for good (issue 27's t-provoke
# hang); the Makefile builds that flavour with clang 19 (SAN_CC), whose
# runtime locks its allocator across fork. Also: our own fork children
# call nothing but async-signal-safe functions before exec (no stdio, no
# error(), no opendir, no malloc), checked in their sources; and a program
# is started only by lib/spawn.c (spawn.h): the only other fork()s are the
# boards' emergency power-off and libvirt's guardian, which allocate
# nothing.
# limit: 600
. "$(dirname "$0")/lib.sh"
set -u

out=$("$TOP/build/tests/tools/forksafe" ${FORKS:-60} 2>&1)
rc=$?
if [ $rc = 0 ] && [ "$out" = "hung 0 of ${FORKS:-60}" ]; then ok "sanitized allocator: ${FORKS:-60} forks while two threads allocate, no child hung"
else not_ok "sanitized allocator is fork-safe" "exit $rc: $out"; fi

# The code between fork() and exec()/_exit() in our own children: each
# child's block (from "pid == 0" to its _exit) may only call these.
safe='^(setpgid|dup2|open|close|fcntl|chdir|signal|execvp|execvpe|execve|execv|_exit|write|strlen|read|kill|sleep|snprintf|guardian_main|exec_child|child_write_error|syscall|kill_marked|read_proc|proc_each|cmdline_has|kill_if_marked|visit|atoi|strstr|strerror|nanosleep|prctl|if|for|while|return|sizeof|switch)$'
forks="lib/spawn.c runner/board/board.c runner/libvirt/qemu.c"
for f in $forks; do
	calls=$(awk '
		/pid == 0\) \{$/ || /^static [a-z_ ]+\*?(exec_child|guardian_main|kill_marked|read_proc|proc_each|cmdline_has|kill_if_marked)\(/ {
			inside = 1; depth = 0; opened = 0 }
		inside {
			line = $0; gsub(/"[^"]*"/, "", line); gsub(/\/\*.*\*\//, "", line)
			if (!/^static /)
				while (match(line, /[A-Za-z_][A-Za-z0-9_]*\(/)) { print substr(line, RSTART, RLENGTH - 1); line = substr(line, RSTART + RLENGTH) }
			n = gsub(/\{/, "{", $0); m = gsub(/\}/, "}", $0); depth += n - m
			if (n) opened = 1
			if (opened && depth <= 0) inside = 0
		}' "$TOP/$f" | sort -u | grep -vE "$safe" | tr '\n' ' ')
	if [ -z "$calls" ]; then ok "$f: the fork child calls only async-signal-safe functions"
	else not_ok "$f: fork child calls" "not async-signal-safe (or not yet reviewed): $calls"; fi
done
# fork() (or vfork, posix_spawn, system, popen) nowhere else in the host
# code: every other program is started through spawn.h.
others=$(cd "$TOP" && grep -lE '(^|[^a-z_])(v?fork|posix_spawnp?|system|popen)\(' \
	lib/*.c judge/*.c builder/*.c compare/*.c runner/*.c runner/*/*.c | while read -r f; do
	case " $forks " in *" $f "*) ;; *) printf '%s ' "$f" ;; esac; done)
[ -z "$others" ] && ok "programs are started only through lib/spawn.c (and the two forks above)" ||
	not_ok "programs are started only through lib/spawn.c" "fork/system/popen in: $others"
