#!/bin/sh
# tests/lava-host.sh: a real LAVA instance (Debian 12's lava-server and
# lava-dispatcher 2023.01) on loopback, for tests/t-lava.sh, the README's
# "Run on a LAVA lab" section and make bench. No systemd: it runs by hand
# what the packages' units run (/lib/systemd/system/lava-*.service).
#
#   sh tests/lava-host.sh start    bring it all up (idempotent; a second start
#                                  with the state kept takes seconds)
#   sh tests/lava-host.sh stop     end every process it started
#   sh tests/lava-host.sh status   exit 0 when it answers, else 1
#   sh tests/lava-host.sh check    exit 0 when LAVA can run here, else print
#                                  the reason (for a test's skip) and exit 1
#   sh tests/lava-host.sh env      print the settings as shell assignments
#   sh tests/lava-host.sh manage ARGS...   lava-server manage on this instance
#   sh tests/lava-host.sh reset    stop, then delete the state directory
#
# What it starts, all bound to 127.0.0.1 only, with its state, logs and pid
# files under $BOOTRIG_LAVA_DIR (default /var/tmp/bootrig-lava: PostgreSQL
# runs as user postgres and must reach it, which it cannot under /root):
#   port P   (BOOTRIG_LAVA_PORT, default 18080) lava-server-gunicorn: the web
#            UI and the API, http://127.0.0.1:P/ (no apache in front)
#   port P+1 lava-publisher: the websocket event stream /ws/
#   port P+2 the publisher's ZMQ event socket, read by lava-scheduler
#   port P+3 PostgreSQL 15, a private cluster in DIR/pg (not Debian's
#            15/main), user and database "lavaserver", trust auth on
#            127.0.0.1 and DIR/pgrun only
#   lava-scheduler, and lava-worker (the dispatcher) named "bootrig-worker"
#   with its jobs' files under DIR/worker/tmp/JOB.
# Made once with lava-server manage (stamped in DIR/provisioned): the worker,
# device type "qemu" and devices "qemu-01" "qemu-02" (BOOTRIG_LAVA_DEVICES;
# dictionaries DIR/devices/NAME.jinja2: the shipped qemu template with
# no_kvm, this host's /dev/kvm may hang; no health check, so a device takes
# jobs at once), and user "bootrig" with an API token in DIR/token (the file
# start prints).
#
# TEST ONLY: the database trusts every local connection, the user's password
# is random and unused; nothing listens beyond loopback. Everything runs as
# root except PostgreSQL. stop kills the process trees of the pids it wrote
# (lava-run and its QEMU included), by pid, nothing by name.
set -eu

DIR=${BOOTRIG_LAVA_DIR:-/var/tmp/bootrig-lava}
PORT=${BOOTRIG_LAVA_PORT:-18080}
WS_PORT=$((PORT + 1))
ZMQ_PORT=$((PORT + 2))
PG_PORT=$((PORT + 3))
URL=http://127.0.0.1:$PORT/
WORKER=bootrig-worker
# Two devices: a matrix's jobs boot two at a time, as bootrig -j2 does.
DEVICES=${BOOTRIG_LAVA_DEVICES:-qemu-01 qemu-02}
DEVICE_TYPE=qemu
LAVA_USER=bootrig
PG_BIN=/usr/lib/postgresql/15/bin
# The daemons, in the order they start (stop ends them all at once).
DAEMONS="publisher gunicorn scheduler worker"

say() { echo "lava-host: $*" >&2; }
fail() { say "$*"; exit 1; }

# The settings lava-server reads (lava_server/settings/prod.py): LAVA_SETTINGS_X
# sets X to a string, LAVA_YAML_SETTINGS_X to a YAML value; they come after
# /etc/lava-server/settings.d, so they win over the package's database.
lava_env() {
	export LAVA_YAML_SETTINGS_DATABASES="{default: {ENGINE: django.db.backends.postgresql, NAME: lavaserver, USER: lavaserver, PASSWORD: '', HOST: 127.0.0.1, PORT: $PG_PORT}}"
	export LAVA_SETTINGS_DEVICES_PATH="$DIR/devices"
	export LAVA_SETTINGS_HEALTH_CHECKS_PATH="$DIR/health-checks"
	export LAVA_SETTINGS_MEDIA_ROOT="$DIR/media"
	export LAVA_SETTINGS_DJANGO_LOGFILE="$DIR/log/django.log"
	export LAVA_YAML_SETTINGS_EVENT_NOTIFICATION=true
	export LAVA_SETTINGS_INTERNAL_EVENT_SOCKET="ipc://$DIR/run/lava.events"
	export LAVA_SETTINGS_EVENT_SOCKET="tcp://127.0.0.1:$ZMQ_PORT"
	export LC_ALL=C.UTF-8
}

# check: can LAVA run on this machine? Prints the reason when not.
cmd_check() {
	for p in lava-server lava-dispatcher postgresql-15; do
		if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed'; then
			why="package $p is not installed"
			reason=${XDG_CACHE_HOME:-$HOME/.cache}/bootrig/lava-unavailable
			[ -s "$reason" ] && why="$why: $(head -n 1 "$reason")"
			echo "$why (scripts/install-deps.sh lava installs it)"
			return 1
		fi
	done
	for f in /usr/bin/lava-server /usr/bin/lava-worker /usr/bin/gunicorn3 "$PG_BIN/postgres"; do
		[ -x "$f" ] || { echo "$f is missing"; return 1; }
	done
	[ "$(id -u)" = 0 ] || { echo "needs root (PostgreSQL runs as user postgres)"; return 1; }
	return 0
}

# wait_for WHAT SECONDS CMD...: say what it waits for, run CMD every 0.2 s
# until it succeeds; returns 1 after SECONDS (the caller says why).
wait_for() {
	what=$1 secs=$2
	shift 2
	say "waiting for $what (at most ${secs}s)"
	n=$((secs * 5))
	while [ "$n" -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
		n=$((n - 1))
	done
	return 1
}

# alive NAME: the daemon of DIR/run/NAME.pid runs: that pid exists and is
# still a LAVA program (a pid file left by a reboot may name another
# process now, which stop must not kill).
alive() {
	[ -s "$DIR/run/$1.pid" ] || return 1
	pid=$(cat "$DIR/run/$1.pid")
	kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -e lava -e gunicorn
}
pg_ready() { "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT"; }
psql_pg() { "$PG_BIN/psql" -X -q -h 127.0.0.1 -p "$PG_PORT" -U postgres "$@"; }
http_ok() { curl -fsS -o /dev/null --max-time 5 "$URL$1"; }
manage() { lava_env; /usr/bin/lava-server manage "$@"; }

# closefds CMD...: exec CMD with no file descriptor above 2. A daemon must
# not keep what its starter holds open: started under
# `flock /tmp/bootrig-qemu.lock ...` it would hold the machine's QEMU lock
# for good (flock's lock lives while any process has the file open), and it
# would hold our own DIR/lock.
CLOSEFDS='import os, sys; os.closerange(3, 65536); os.execvp(sys.argv[1], sys.argv[1:])'
closefds() { /usr/bin/python3 -c "$CLOSEFDS" "$@"; }

# spawn NAME CMD...: start a daemon in its own session, stdout and stderr to
# DIR/log/NAME.out, its pid to DIR/run/NAME.pid.
spawn() {
	name=$1
	shift
	setsid /usr/bin/python3 -c "$CLOSEFDS" "$@" </dev/null >"$DIR/log/$name.out" 2>&1 &
	echo $! >"$DIR/run/$name.pid"
}

start_postgres() {
	if [ ! -s "$DIR/pg/PG_VERSION" ]; then
		say "creating the PostgreSQL cluster in $DIR/pg"
		rm -rf "$DIR/pg"
		install -d -o postgres -g postgres -m 700 "$DIR/pg"
		runuser -u postgres -- "$PG_BIN/initdb" -D "$DIR/pg" -U postgres -A trust -E UTF8 \
			--locale=C.UTF-8 --no-sync >"$DIR/log/initdb.log" 2>&1 ||
			fail "initdb failed: $(tail -n 3 "$DIR/log/initdb.log")"
		cat >>"$DIR/pg/postgresql.conf" <<EOF
# bootrig TEST ONLY: loopback and a private socket directory.
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$DIR/pgrun'
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
		printf 'local all all trust\nhost all all 127.0.0.1/32 trust\n' >"$DIR/pg/pg_hba.conf"
	fi
	install -d -o postgres -g postgres -m 755 "$DIR/pgrun"
	touch "$DIR/log/postgresql.log"
	chown postgres:postgres "$DIR/log/postgresql.log"
	if ! pg_ready; then
		say "starting PostgreSQL on 127.0.0.1:$PG_PORT"
		# pg_ctl start -w: returns once it accepts connections, or after -t.
		closefds runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$DIR/pg" -l "$DIR/log/postgresql.log" \
			-w -t 60 -o "-p $PG_PORT" start >/dev/null ||
			fail "PostgreSQL did not start: $(tail -n 3 "$DIR/log/postgresql.log")"
	fi
	if [ "$(psql_pg -tAc "SELECT 1 FROM pg_roles WHERE rolname='lavaserver'")" != 1 ]; then
		psql_pg -c "CREATE ROLE lavaserver LOGIN" >/dev/null
	fi
	if [ "$(psql_pg -tAc "SELECT 1 FROM pg_database WHERE datname='lavaserver'")" != 1 ]; then
		psql_pg -c "CREATE DATABASE lavaserver OWNER lavaserver" >/dev/null
	fi
}

# The schema, once per lava-server version.
migrate() {
	v=$(dpkg-query -W -f='${Version}' lava-server)
	[ "$(cat "$DIR/migrated" 2>/dev/null)" = "$v" ] && return 0
	say "applying lava-server's migrations (once; about a minute)"
	manage migrate --noinput >"$DIR/log/migrate.log" 2>&1 ||
		fail "migrations failed: $(tail -n 5 "$DIR/log/migrate.log")"
	echo "$v" >"$DIR/migrated"
}

# The worker, device type, devices and user: each once, stamped in
# DIR/provisioned (a line per thing made).
made() { grep -qx "$1" "$DIR/provisioned" 2>/dev/null; }
provision() {
	mkdir -p "$DIR/worker" "$DIR/devices" "$DIR/health-checks"
	if ! made "worker $WORKER" || [ ! -s "$DIR/worker/token" ]; then
		say "creating worker $WORKER"
		out=$(manage workers add "$WORKER" --description "bootrig tests (tests/lava-host.sh)" 2>&1) ||
			case $out in *"already exists"*) out=$(manage workers details "$WORKER" 2>&1) ;;
			*) fail "workers add: $out" ;; esac
		tok=$(printf '%s\n' "$out" | sed -n 's/^\(Token: \|token *: \)//p' | head -n 1)
		[ -n "$tok" ] || fail "no worker token in: $out"
		printf '%s' "$tok" >"$DIR/worker/token"
		chmod 600 "$DIR/worker/token"
		echo "worker $WORKER" >>"$DIR/provisioned"
	fi
	if ! made "device-type $DEVICE_TYPE"; then
		say "creating device type $DEVICE_TYPE"
		out=$(manage device-types add "$DEVICE_TYPE" 2>&1) ||
			case $out in *"already"*) ;; *) fail "device-types add: $out" ;; esac
		echo "device-type $DEVICE_TYPE" >>"$DIR/provisioned"
	fi
	for dev in $DEVICES; do
		made "device $dev" && continue
		say "creating device $dev"
		cat >"$DIR/devices/$dev.jinja2" <<'EOF2'
{# bootrig's test device (tests/lava-host.sh): the shipped qemu template
   without KVM (this host's /dev/kvm may hang); memory, extra_options etc.
   come from the job's context. #}
{% extends 'qemu.jinja2' %}
{% set no_kvm = True %}
EOF2
		out=$(manage devices add --device-type "$DEVICE_TYPE" --worker "$WORKER" \
			--description "bootrig QEMU device" "$dev" 2>&1) ||
			case $out in *"already exists"*) ;; *) fail "devices add $dev: $out" ;; esac
		echo "device $dev" >>"$DIR/provisioned"
	done
	if ! made "user $LAVA_USER" || [ ! -s "$DIR/token" ]; then
		say "creating user $LAVA_USER and its token"
		out=$(manage users add "$LAVA_USER" --email bootrig@localhost 2>&1) ||
			case $out in *"already exists"*|*"UNIQUE"*|*"unique"*) ;; *) fail "users add: $out" ;; esac
		if [ ! -s "$DIR/token" ]; then
			tok=$(manage tokens add --user "$LAVA_USER" --description "bootrig tests" 2>&1) ||
				fail "tokens add: $tok"
			printf '%s\n' "$tok" | tail -n 1 >"$DIR/token"
			chmod 600 "$DIR/token"
		fi
		echo "user $LAVA_USER" >>"$DIR/provisioned"
	fi
}

start_daemons() {
	lava_env
	if ! alive publisher; then
		say "starting lava-publisher on 127.0.0.1:$WS_PORT (events tcp://127.0.0.1:$ZMQ_PORT)"
		spawn publisher /usr/bin/lava-server manage lava-publisher --level DEBUG \
			--log-file "$DIR/log/lava-publisher.log" --host 127.0.0.1 --port "$WS_PORT" \
			--user root --group root
	fi
	if ! alive gunicorn; then
		say "starting lava-server-gunicorn on 127.0.0.1:$PORT"
		spawn gunicorn /usr/bin/gunicorn3 lava_server.wsgi --log-level INFO \
			--log-file "$DIR/log/gunicorn.log" --worker-class eventlet --workers 2 \
			--bind "127.0.0.1:$PORT" --timeout 60
	fi
	if ! alive scheduler; then
		say "starting lava-scheduler"
		spawn scheduler /usr/bin/lava-server manage lava-scheduler --level DEBUG \
			--log-file "$DIR/log/lava-scheduler.log" --event-url "tcp://127.0.0.1:$ZMQ_PORT" \
			--user root --group root
	fi
	wait_for "the API at ${URL}api/v0.2/" 90 http_ok api/v0.2/ ||
		fail "no answer from $URL: $(tail -n 5 "$DIR/log/gunicorn.log" "$DIR/log/gunicorn.out" 2>/dev/null)"
	# The worker pings every second (default 20: it learns a job ended, and
	# reports it, on its next ping) and lava-run sends the job's log every
	# second (default 5): a client following the log sees the console late
	# by that much. --ws-url: the publisher's events wake it at once for a
	# job scheduled on it (without apache, /ws/ is not on the API's port).
	if ! alive worker; then
		say "starting lava-worker $WORKER --url $URL"
		spawn worker /usr/bin/lava-worker --level DEBUG --log-file "$DIR/log/lava-worker.log" \
			--name "$WORKER" --url "$URL" --ws-url "http://127.0.0.1:$WS_PORT/ws/" \
			--token-file "$DIR/worker/token" --worker-dir "$DIR/worker" \
			--ping-interval 1 --job-log-interval 1
	fi
}

api_get() {
	curl -fsS --max-time 5 -H "Authorization: Token $(cat "$DIR/token")" "${URL}api/v0.2/$1"
}
# A device jobs can be scheduled on: health Good, or Unknown (where an
# Infrastructure error leaves it; with no health check defined the
# scheduler still gives it jobs). Its state may be Running: a job of an
# earlier client.
device_usable() { api_get "devices/$1/" | jq -e '.health == "Good" or .health == "Unknown"'; }
worker_online() { api_get "workers/$WORKER/" | jq -e '.state == "Online"'; }

cmd_start() {
	why=$(cmd_check) || fail "LAVA cannot run here: $why"
	mkdir -p "$DIR/run" "$DIR/log" "$DIR/media" "$DIR/worker" "$DIR/devices" "$DIR/health-checks"
	chmod 755 "$DIR"
	start_postgres
	migrate
	provision
	start_daemons
	wait_for "worker $WORKER Online" 60 worker_online ||
		fail "worker $WORKER not Online: $(tail -n 5 "$DIR/log/lava-worker.log" 2>/dev/null)"
	for dev in $DEVICES; do
		wait_for "device $dev health Good or Unknown" 30 device_usable "$dev" ||
			fail "device $dev cannot take jobs: $(api_get "devices/$dev/" 2>&1)"
	done
	say "ready: $URL (API ${URL}api/v0.2/), token file $DIR/token, devices $DEVICES (type $DEVICE_TYPE), worker $WORKER, logs $DIR/log"
	cmd_env
}

# descendants PID...: the pids and all their descendants (ps, by parent pid).
descendants() {
	ps -e -o pid= -o ppid= | awk -v roots="$*" '
		BEGIN { n = split(roots, r, " "); for (i = 1; i <= n; i++) keep[r[i]] = 1 }
		{ parent[$1] = $2; pids[NR] = $1 }
		END {
			do {
				grew = 0
				for (i in pids) { p = pids[i]; if (!(p in keep) && (parent[p] in keep)) { keep[p] = 1; grew = 1 } }
			} while (grew)
			for (p in keep) print p
		}'
}

cmd_stop() {
	roots=""
	for d in $DAEMONS; do
		alive "$d" && roots="$roots $(cat "$DIR/run/$d.pid")"
	done
	if [ -n "$roots" ]; then
		# The trees first: lava-run (its own process group) and its QEMU
		# would be orphaned when the worker goes.
		pids=$(descendants $roots | sort -n | tr '\n' ' ')
		say "stopping LAVA's processes: $pids"
		# shellcheck disable=SC2086
		kill -TERM $pids 2>/dev/null || true
		n=25
		while [ "$n" -gt 0 ]; do
			left=""
			for p in $pids; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
			[ -z "$left" ] && break
			sleep 0.2
			n=$((n - 1))
		done
		if [ -n "$left" ]; then
			say "killing what did not end in 5 s:$left"
			# shellcheck disable=SC2086
			kill -KILL $left 2>/dev/null || true
		fi
	fi
	for d in $DAEMONS; do rm -f "$DIR/run/$d.pid"; done
	if [ -s "$DIR/pg/postmaster.pid" ]; then
		say "stopping PostgreSQL"
		runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$DIR/pg" -m fast -w -t 30 stop >/dev/null 2>&1 ||
			{ pid=$(head -n 1 "$DIR/pg/postmaster.pid"); kill -KILL "$pid" 2>/dev/null || true; }
	fi
	return 0
}

cmd_status() {
	for d in $DAEMONS; do alive "$d" || { echo "$d: not running"; return 1; }; done
	pg_ready || { echo "postgresql: not running"; return 1; }
	http_ok api/v0.2/ || { echo "api: no answer at $URL"; return 1; }
	echo "running: $URL"
}

cmd_env() {
	cat <<EOF
LAVA_URL=$URL
LAVA_TOKEN_FILE=$DIR/token
LAVA_USER=$LAVA_USER
LAVA_DEVICE_TYPE=$DEVICE_TYPE
LAVA_DEVICES="$DEVICES"
LAVA_WORKER=$WORKER
LAVA_DIR=$DIR
EOF
}

# One start or stop at a time (two test groups starting at once would race
# over initdb and the pid files); bounded: a holder stuck for 5 minutes is
# reported, not waited for.
serialize() {
	mkdir -p "$DIR"
	exec 8>>"$DIR/lock"
	flock -w 300 8 || fail "another tests/lava-host.sh holds $DIR/lock for 5 minutes"
}

case ${1:-} in
start) serialize; cmd_start ;;
stop) serialize; cmd_stop ;;
status) cmd_status ;;
check) cmd_check ;;
env) cmd_env ;;
manage) shift; manage "$@" ;;
reset) serialize; cmd_stop; rm -rf "$DIR" ;;
*) echo "usage: sh tests/lava-host.sh start|stop|status|check|env|manage ARGS...|reset" >&2; exit 64 ;;
esac
