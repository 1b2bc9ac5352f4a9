#!/bin/sh
# t-forksafe.sh: the sanitized flavour's allocator is safe between fork()
# and exec() in a multithreaded process (tests/tools/forksafe.c), as
# libvirt's embedded driver needs when two boots start at once: with gcc
# 12's libasan 3 of 60 such forks hung for good (issue 27's t-provoke
# hang); the Makefile builds that flavour with clang 19 (SAN_CC), whose
# runtime locks its allocator across fork. Also: our own fork children
# call nothing but async-signal-safe functions before exec (no stdio, no
# error(), no opendir, no malloc), checked in their sources.
# limit: 600
. "$(dirname "$0")/lib.sh"
set -u

out=$("$TOP/build/tests/tools/forksafe" ${FORKS:-60} 2>&1)
rc=$?
if [ $rc = 0 ] && [ "$out" = "hung 0 of ${FORKS:-60}" ]; then ok "sanitized allocator: ${FORKS:-60} forks while two threads allocate, no child hung"
else not_ok "sanitized allocator is fork-safe" "exit $rc: $out"; fi

# The code between fork() and exec()/_exit() in our own children: each
# child's block (from "pid == 0" to its _exit) may only call these.
safe='^(setpgid|dup2|open|close|chdir|signal|execvp|execve|execv|_exit|write|strlen|read|kill|sleep|snprintf|guardian_main|exec_child|child_write_error|syscall|kill_marked|read_proc|proc_each|cmdline_has|kill_if_marked|visit|atoi|strstr|strerror|nanosleep|prctl|if|for|while|return|sizeof|switch)$'
for f in lib/util.c compare/bisect-git.c builder/kernel.c runner/board/board.c runner/libvirt/qemu.c; do
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
