#!/bin/sh
# sim-board.sh: the power control of bootrig's simulated boards
# (configs/boards/sim-*.cfg): QEMU running Debian's U-Boot firmware, its
# serial port on a unix socket, user networking with a TFTP server.
#
#   sim-board.sh on STATE_DIR QEMU ARGS...   power on: start QEMU in the
#       background, in its own session, and return once its serial socket
#       listens. The socket is a chardev with wait=on: the machine does not
#       run until bootrig's serial line connects, so no byte is lost.
#   sim-board.sh off STATE_DIR               power off: stop that QEMU (no
#       error when it is not running: a board may already be off).
#
# STATE_DIR holds serial.sock, qemu.pid and qemu.log (QEMU's own messages).
set -eu
action=$1 state=$2
shift 2
pidfile=$state/qemu.pid

power_off() {
	[ -f "$pidfile" ] || return 0
	pid=$(cat "$pidfile")
	rm -f "$pidfile"
	kill "$pid" 2>/dev/null || return 0
	i=0
	while kill -0 "$pid" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -eq 100 ] && kill -9 "$pid" 2>/dev/null
		[ "$i" -gt 150 ] && { echo "sim-board: QEMU $pid does not die" >&2; return 1; }
		sleep 0.1
	done
	return 0
}

case $action in
on)
	[ $# -gt 0 ] || { echo "sim-board: on needs a QEMU command" >&2; exit 64; }
	mkdir -p "$state"
	power_off
	rm -f "$state/serial.sock"
	setsid "$@" </dev/null >"$state/qemu.log" 2>&1 &
	echo $! >"$pidfile"
	i=0
	while [ ! -S "$state/serial.sock" ]; do
		if ! kill -0 "$(cat "$pidfile")" 2>/dev/null; then
			echo "sim-board: QEMU exited at once:" >&2
			cat "$state/qemu.log" >&2
			rm -f "$pidfile"
			exit 1
		fi
		i=$((i + 1))
		if [ "$i" -gt 300 ]; then
			echo "sim-board: QEMU's serial socket did not appear in 30 s" >&2
			power_off
			exit 1
		fi
		sleep 0.1
	done
	;;
off)
	power_off
	;;
*)
	echo "usage: sim-board.sh on|off STATE_DIR [QEMU ARGS...]" >&2
	exit 64
	;;
esac
