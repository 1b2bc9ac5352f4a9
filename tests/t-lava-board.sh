#!/bin/sh
# t-lava-board: a LAVA lab's board job (u-boot, tftp) boots the command line
# the run asked for, checked offline by LAVA's own code, no server, no QEMU:
#   - `run --board B --lava URL --lava-job-only -a loglevel=7 --variant
#     dbg=ignore_loglevel` writes job.yaml with the line (but bootrig's
#     leading console=, the lab knows its UART) as context.extra_kernel_args;
#   - the lab's device dictionary for it (extends bcm2711-rpi-4-b.jinja2 from
#     lava-server's device types) is rendered with the job's context as
#     lava-server renders it (a sandboxed jinja2 environment, trim_blocks):
#     the u-boot ramdisk commands' bootargs hold both arguments;
#   - `lava-run --validate` (lava-dispatcher) accepts job and device: its
#     pipeline is built and every action validated. Its host checks want a
#     tftp server: /etc/default/tftpd-hpa is given in a private mount
#     namespace (unshare -m, nothing on the machine changes) and in.tftpd,
#     which validate only looks for in PATH, is a stub; mkimage is
#     u-boot-tools' (scripts/install-deps.sh lava);
#   - a single quote in the line, which u-boot's bootargs (in single quotes)
#     cannot carry, is refused: exit 64 naming it.
# Skipped with the reason when lava-dispatcher or lava-server's templates are
# not installed.
. "$(dirname "$0")/lib.sh"
set -u
tmp=$(mktemp -d /tmp/t-lava-board.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
PY=/usr/bin/python3
TYPES=/usr/share/lava-server/device-types

a64=$(kernel_path cloud-arm64)
printf 'fake dtb\n' >"$tmp/board.dtb"
printf 'boards = ( { name = "lab-rpi4"; arch = "arm64"; backend = "lava";\n  device_type = "bcm2711-rpi-4-b"; dtb = "%s"; } );\n' \
	"$tmp/board.dtb" >"$tmp/lab.cfg"
run board --kernel "$a64" --config "$tmp/lab.cfg" --board lab-rpi4 --lava http://127.0.0.1:1/ --lava-job-only \
	-a loglevel=7 --variant dbg=ignore_loglevel
job=$(echo "$tmp"/board/*/dbg/1/job.yaml)
[ $rc = 0 ] && [ -f "$job" ] && ok "a LAVA board's job with -a and a variant: exit 0, job.yaml written" ||
	not_ok "a LAVA board's job: exit 0" "exit $rc: $(cat "$tmp/board.err")"
args=$(sed -n 's/^  extra_kernel_args: "\(.*\)"$/\1/p' "$job")
[ "$args" = "panic=-1 loglevel=7 ignore_loglevel" ] &&
	ok "context.extra_kernel_args: the run's line without its console= ($args)" ||
	not_ok "context.extra_kernel_args" "'$args' in $(cat "$job")"

run quote --kernel "$a64" --config "$tmp/lab.cfg" --board lab-rpi4 --lava http://127.0.0.1:1/ --lava-job-only \
	-a "x='a b'"
[ $rc = 64 ] && grep -q "single quote" "$tmp/quote.err" &&
	ok "a single quote on a board's line: exit 64, says why" ||
	not_ok "a single quote on a board's line" "exit $rc: $(cat "$tmp/quote.err")"

if ! command -v lava-run >/dev/null || [ ! -f "$TYPES/bcm2711-rpi-4-b.jinja2" ] ||
	! $PY -c 'import jinja2, yaml' 2>/dev/null; then
	skip "lava-run --validate of the board job" "lava-dispatcher, lava-server or python3-jinja2 not installed (scripts/install-deps.sh lava)"
	exit 0
fi
if ! command -v mkimage >/dev/null; then
	skip "lava-run --validate of the board job" "mkimage (u-boot-tools) not installed (scripts/install-deps.sh lava)"
	exit 0
fi

# the lab's device dictionary, rendered with the job's context
mkdir -p "$tmp/devices" "$tmp/default" "$tmp/tftp" "$tmp/bin" "$tmp/out"
cat >"$tmp/devices/lab-rpi4.jinja2" <<'EOF'
{% extends 'bcm2711-rpi-4-b.jinja2' %}
{% set connection_command = 'ssh -o BatchMode=yes console@localhost rpi4' %}
{% set hard_reset_command = 'true' %}
{% set power_off_command = 'true' %}
{% set power_on_command = 'true' %}
EOF
$PY - "$tmp/devices" "$TYPES" "$job" >"$tmp/device.yaml" 2>"$tmp/render.err" <<'EOF'
import sys, yaml, jinja2, jinja2.sandbox
job = yaml.safe_load(open(sys.argv[3]))
env = jinja2.sandbox.SandboxedEnvironment(loader=jinja2.FileSystemLoader([sys.argv[1], sys.argv[2]]),
                                          autoescape=False, trim_blocks=True)
print(env.get_template("lab-rpi4.jinja2").render(**job.get("context", {})))
EOF
bootargs=$($PY - "$tmp/device.yaml" <<'EOF' 2>&1
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
print([c for c in d["actions"]["boot"]["methods"]["u-boot"]["ramdisk"]["commands"] if "bootargs" in c][0])
EOF
)
case $bootargs in
*" loglevel=7 ignore_loglevel"*) ok "the rendered device's u-boot bootargs hold -a and the variant: $bootargs" ;;
*) not_ok "the rendered device's u-boot bootargs" "$bootargs $(cat "$tmp/render.err")" ;;
esac

cp -a /etc/default/. "$tmp/default/"
printf 'TFTP_DIRECTORY="%s"\n' "$tmp/tftp" >"$tmp/default/tftpd-hpa"
printf '#!/bin/sh\nexit 0\n' >"$tmp/bin/in.tftpd"
chmod +x "$tmp/bin/in.tftpd"
if ! unshare -m true 2>/dev/null; then
	skip "lava-run --validate of the board job" "no private mount namespace here (unshare -m needs root)"
	exit 0
fi
# a job id of our own: lava-run works in /var/lib/lava/dispatcher/tmp/ID
id=bootrig-validate-$$
PATH="$tmp/bin:$PATH" unshare -m sh -c 'mount --bind "$1" /etc/default &&
	exec lava-run --validate --job-id "$2" --output-dir "$3" --device "$4" "$5"' sh \
	"$tmp/default" "$id" "$tmp/out" "$tmp/device.yaml" "$job" >"$tmp/lava-run.log" 2>&1
vrc=$?
if [ $vrc = 0 ] && grep -q '"case": "validate", "definition": "lava", "result": "pass"' "$tmp/lava-run.log"; then
	ok "lava-run --validate: the board job and its device pass (validate: pass)"
else
	not_ok "lava-run --validate" "exit $vrc: $(grep -E '"lvl": "(error|results)"' "$tmp/lava-run.log" | tail -3)"
fi
