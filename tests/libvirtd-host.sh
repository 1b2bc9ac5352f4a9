#!/bin/sh
# tests/libvirtd-host.sh: a real libvirt daemon as a stand-in remote host,
# for tests/t-hosts.sh and scripts/bench.d/35-hosts.sh (sourced).
#
#   start_daemon DIR PORT HIDDEN_DIRS [HIDE...]
#
# starts libvirtd (Debian's libvirt-daemon) with DIR/libvirtd.conf,
# DIR/qemu.conf and a unix socket directory DIR/sock, listening on
# 127.0.0.1:PORT, reached as qemu+tcp://127.0.0.1:PORT/system; its pid is
# in DIR/pid (the caller stops it: kill "$(cat DIR/pid)"). It runs in a
# mount namespace of its own (unshare -m) with tmpfs over libvirt's runtime,
# state, log and config directories (two privileged daemons never meet),
# over /var/lib/bootrig (its pool) and over each of HIDDEN_DIRS (a
# space-separated list: the caller's results and cache), so it cannot see
# our kernels or initramfs images, as a remote host cannot. Each HIDE file
# (an emulator) and /dev/kvm, where they exist, get /dev/null bound over
# them (a host without KVM has no node to hide: its daemon boots TCG).
#
# TEST ONLY: auth_tcp = "none" with listen_addr 127.0.0.1: no
# authentication, loopback only, nothing listens beyond it.
# stdio_handler "file": no virtlogd needed. /dev/kvm is hidden: this
# machine's KVM hangs real kernels, a daemon's QEMU (user libvirt-qemu)
# cannot open it anyway, and libvirt 9.0's daemon was seen to hang for good
# after such a failed KVM start; so the hosts' capabilities offer no KVM.
start_daemon() {
	d=$1 port=$2 hidden=$3
	shift 3
	mkdir -p "$d/sock"
	cat >"$d/libvirtd.conf" <<EOF
# TEST ONLY: no authentication, on loopback only.
listen_tls = 0
listen_tcp = 1
tcp_port = "$port"
listen_addr = "127.0.0.1"
auth_tcp = "none"
unix_sock_dir = "$d/sock"
log_outputs = "3:file:$d/libvirtd.log"
EOF
	cat >"$d/qemu.conf" <<EOF
stdio_handler = "file"
security_driver = "none"
cgroup_controllers = [ ]
EOF
	{
		echo 'set -e'
		for m in /run/libvirt /var/lib/libvirt /var/log/libvirt /var/cache/libvirt /etc/libvirt \
			 /var/lib/bootrig $hidden; do
			echo "mkdir -p '$m' && mount -t tmpfs tmpfs '$m'"
		done
		for h in /dev/kvm "$@"; do
			[ -e "$h" ] && echo "mount --bind /dev/null '$h'"
		done
		echo "cp '$d/qemu.conf' /etc/libvirt/qemu.conf"
		echo "exec libvirtd --listen -f '$d/libvirtd.conf' -p '$d/pid'"
	} >"$d/start.sh"
	unshare -m --propagation private sh "$d/start.sh" >"$d/out" 2>&1 &
	for _ in $(seq 50); do
		virsh -q -c "qemu+tcp://127.0.0.1:$port/system" version >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	return 1
}
