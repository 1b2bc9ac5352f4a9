#!/bin/sh
# t-build.sh: `bootrig build` on real Debian kernels (arm64, cloud-arm64 and
# amd64 as .deb and as bare vmlinuz, the armmp-lpae zImage): the ABIs it
# picks, --list, cpio -t, reproducibility, the manifest, --add, --append-to,
# --no-compress, and bad input (exit 65/64/78, nothing at the output path).
# The boots are in t-build-boot.sh.
. "$(dirname "$0")/lib.sh"
set -u

kernels=$(dirname "$(kernel_path cloud-arm64)")
sh "$TOP/scripts/fetch-kernels.sh" arm64 amd64 armmp-lpae >/dev/null
tmp=$(mktemp -d /tmp/t-build.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/xdg"      # the .deb extraction runs for real
cache="$XDG_CACHE_HOME/bootrig"
unset SOURCE_DATE_EPOCH

# build NAME ARGS...: runs bootrig build, keeps stdout/stderr/status in $tmp/NAME.*
build() {
	name=$1; shift
	"$BOOTRIG" build "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}
status_of() { cat "$tmp/$1.rc"; }

# 1. The ABIs for each kernel, as .deb and as vmlinuz, and --list shows them.
for spec in "arm64 aarch64 aarch64_ilp32 arm" "cloud-arm64 aarch64 aarch64_ilp32 arm" \
	"amd64 x86_64 x32 i386" "armmp-lpae arm"; do
	set -- $spec
	flavour=$1; shift
	want="abis: $*"
	for kind in vmlinuz deb; do
		name="$flavour-$kind"
		build "$name" --kernel "$kernels/$flavour.$kind" -o "$tmp/$name.img"
		if [ "$(status_of "$name")" = 0 ] && grep -qx "$want" "$tmp/$name.out"; then
			ok "$flavour .$kind: $want"
		else
			not_ok "$flavour .$kind: $want" "exit $(status_of "$name"): $(cat "$tmp/$name.out" "$tmp/$name.err")"
			continue
		fi
		"$BOOTRIG" build --list "$tmp/$name.img" >"$tmp/$name.list" 2>&1
		missing=""
		for abi in "$@"; do
			for f in "/bench/$abi/probe" "/bench/$abi/lat_syscall"; do
				grep -q "^-rwxr-xr-x .* $f\$" "$tmp/$name.list" || missing="$missing $f"
			done
		done
		for f in /init /etc/bootrig/plan /bench/data/file /dev/console; do
			grep -q " $f\$" "$tmp/$name.list" || missing="$missing $f"
		done
		if [ -z "$missing" ]; then ok "$name: --list shows init, plan and each ABI's probe and test"
		else not_ok "$name: --list" "missing:$missing"; fi
		# The version from the image (bzImage header, or the banner in the
		# Image or in the zImage's xz payload), never from the file name.
		if grep -q "^kernel: .*, 6\.1\.0-[0-9]*-$flavour (debian-kernel@lists.debian.org)" "$tmp/$name.out"; then
			ok "$name: the version read from the image"
		else
			not_ok "$name: the version read from the image" "$(head -n 1 "$tmp/$name.out")"
		fi
	done
done

# The kernel's size (manifest kernel.size): Debian's amd64 bzImage carries
# vmlinux in its xz'd payload, whose sections size(1) sums to the same text,
# data and bss; an arm64 Image or an arm zImage has no sections (its header
# gives arm64 its size in memory), and each says why.
bz=$kernels/amd64.vmlinuz
setup=$(od -An -tu1 -j $((0x1f1)) -N1 "$bz" | tr -d ' ')
[ "$setup" = 0 ] && setup=4
poff=$(od -An -tu4 -j $((0x248)) -N4 "$bz" | tr -d ' ')
plen=$(od -An -tu4 -j $((0x24c)) -N4 "$bz" | tr -d ' ')
tail -c +$(((setup + 1) * 512 + poff + 1)) "$bz" | head -c "$plen" | xz -dc >"$tmp/payload.elf" 2>/dev/null
want=$(size "$tmp/payload.elf" 2>&1 | awk 'NR == 2 {print $1, $2, $3}')
got=$(jq -r '.kernel.size | "\(.text) \(.data) \(.bss) \(.from)"' "$tmp/amd64-vmlinuz.img.json")
if [ -n "$want" ] && [ "$got" = "$want bzImage payload" ]; then ok "amd64: kernel.size is size(1)'s of the vmlinux in its payload ($want)"
else not_ok "amd64: kernel.size" "manifest $got, size(1) $want"; fi
got=$(jq -r '.kernel.size | "\(.text) \(.image > 0) \(.from) \(.reason | test("flat binary"))"' "$tmp/cloud-arm64-vmlinuz.img.json")
check "cloud-arm64: kernel.size has no text (a flat Image), its header's size, and why ($got)" \
	test "$got" = "null true Image header true"
got=$(jq -r '.kernel.size | "\(.text) \(.image) \(.from) \(.reason | test("zImage"))"' "$tmp/armmp-lpae-vmlinuz.img.json")
check "armmp-lpae: kernel.size unknown, and why ($got)" test "$got" = "null null null true"

# A kernel build tree, and a gzip'd Image (as some distributions ship it).
mkdir -p "$tmp/linux-6.1/arch/arm64/boot"
cp "$kernels/cloud-arm64.vmlinuz" "$tmp/linux-6.1/arch/arm64/boot/Image"
build tree --kernel "$tmp/linux-6.1" -o "$tmp/tree.img"
if [ "$(status_of tree)" = 0 ] && grep -qx "abis: aarch64 aarch64_ilp32 arm" "$tmp/tree.out" &&
	jq -r .kernel.id "$tmp/tree.img.json" | grep -qx 'linux-6\.1-[0-9a-f]\{8\}'; then
	ok "a kernel build tree: arch/arm64/boot/Image, id from the tree's name"
else
	not_ok "a kernel build tree" "$(cat "$tmp/tree.out" "$tmp/tree.err")"
fi
gzip -1 -c "$kernels/cloud-arm64.vmlinuz" >"$tmp/Image.gz"
build gzimage --kernel "$tmp/Image.gz" -o "$tmp/gzimage.img"
if [ "$(status_of gzimage)" = 0 ] && grep -qx "abis: aarch64 aarch64_ilp32 arm" "$tmp/gzimage.out" &&
	grep -q "^kernel: .*, 6\.1\.0-[0-9]*-cloud-arm64 " "$tmp/gzimage.out"; then
	ok "a gzip'd arm64 Image: arch and version from the inflated header"
else
	not_ok "a gzip'd arm64 Image" "$(cat "$tmp/gzimage.out" "$tmp/gzimage.err")"
fi

# The .deb's vmlinuz is cached under its sha256 and reused.
deb_sha=$(sha256sum "$kernels/cloud-arm64.deb" | cut -c1-64)
if [ -s "$cache/kernels/$deb_sha/vmlinuz" ] &&
	cmp -s "$cache/kernels/$deb_sha/vmlinuz" "$kernels/cloud-arm64.vmlinuz"; then
	ok "the .deb's vmlinuz is in the cache, identical to the one dpkg-deb gives"
else
	not_ok "the .deb's vmlinuz is in the cache" "$(ls -R "$cache" | head)"
fi
build deb-again --kernel "$kernels/cloud-arm64.deb" -o "$tmp/deb-again.img"
check "a second build from the cached .deb is byte-identical" \
	cmp "$tmp/cloud-arm64-deb.img" "$tmp/deb-again.img"
check "the .deb and its vmlinuz give the same image" \
	cmp "$tmp/cloud-arm64-deb.img" "$tmp/cloud-arm64-vmlinuz.img"

# 2. Reproducible, and readable by the real cpio.
k="$kernels/cloud-arm64.vmlinuz"
# each cold, in a cache of its own: the second is built, not the first's
# cache entry read back
(XDG_CACHE_HOME="$tmp/xdg-full1" && build full1 --kernel "$k" --suite full -o "$tmp/full1.img")
(XDG_CACHE_HOME="$tmp/xdg-full2" && build full2 --kernel "$k" --suite full -o "$tmp/full2.img")
if [ "$(status_of full1)$(status_of full2)" = 00 ] && cmp -s "$tmp/full1.img" "$tmp/full2.img" &&
	[ "$(grep -c '^image cache: made' "$tmp/full1.out" "$tmp/full2.out" | grep -c ':1$')" = 2 ]; then
	ok "two full-suite builds, each cold (its own cache), are byte-identical"
else
	not_ok "two cold full-suite builds are byte-identical" \
		"$(grep -h '^image cache' "$tmp/full1.out" "$tmp/full2.out"; cmp "$tmp/full1.img" "$tmp/full2.img" 2>&1; cat "$tmp/full1.err" "$tmp/full2.err")"
fi
# The image cache (builder/build.c), over a private copy of the guest
# binaries whose times this test controls.
data="$tmp/data"
mkdir -p "$data"
cp -R "$TOP/build/guest" "$data/guest"
ln -s "$TOP/configs" "$data/configs"
# cbuild NAME: a full-suite build over $data, cache $tmp/xdg-img/bootrig; prints
# what the "image cache:" line says
cbuild() {
	BOOTRIG_DATADIR="$data" XDG_CACHE_HOME="$tmp/xdg-img" "$BOOTRIG" build --kernel "$k" \
		--suite full -o "$tmp/$1.img" >"$tmp/$1.out" 2>&1
	sed -n 's/^image cache: //p' "$tmp/$1.out"
}
records() { find "$tmp/xdg-img/bootrig/initramfs" -type f 2>/dev/null | grep -vc '\.tmp\.'; }
said=$(cbuild fresh)
if cmp -s "$tmp/full1.img" "$tmp/fresh.img" && [ "$(records)" = 0 ] &&
	[ "$said" = "made, not kept (a file changed in the last seconds)" ]; then
	ok "binaries copied just now: the same bytes, and no cache record (their stamps may still move)"
else
	not_ok "binaries copied just now key no cache record" "said '$said', $(records) records; $(cat "$tmp/fresh.out")"
fi
sleep 3   # STAT_SETTLE_SECONDS (lib/util.h) and a second
said=$(cbuild settled)
if cmp -s "$tmp/full1.img" "$tmp/settled.img" && [ "$(records)" = 1 ] && [ "$said" = "made and kept" ]; then
	ok "settled binaries: the same bytes, kept in one cache record"
else
	not_ok "settled binaries are kept in the cache" "said '$said', $(records) records"
fi
said=$(cbuild hit)
jq 'del(.image)' "$tmp/settled.img.json" >"$tmp/settled.m"
jq 'del(.image)' "$tmp/hit.img.json" >"$tmp/hit.m"
check "a cache hit gives the image and manifest of a fresh build ($said)" \
	sh -c "[ '$said' = hit ] && cmp '$tmp/full1.img' '$tmp/hit.img' && test -s '$tmp/hit.m' && cmp '$tmp/settled.m' '$tmp/hit.m'"
record=$(find "$tmp/xdg-img/bootrig/initramfs" -type f | head -n 1)
# one byte changed, anywhere: the record is refused, made again, and kept.
# The byte is flipped, not overwritten with a constant: CI once saw the
# byte-40000 case hit, as it rightly does when that byte of the gzip was
# 'X' already (1 run in 256).
for offset in 30 200 40000; do
	old=$(dd if="$record" bs=1 skip=$offset count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
	# shellcheck disable=SC2059 # the format is the octal escape, on purpose
	printf "\\$(printf '%03o' $(( ${old:-0} ^ 255 )))" | dd of="$record" bs=1 seek=$offset conv=notrunc 2>/dev/null
	said=$(cbuild damaged)
	check "a record with byte $offset changed is not used ($said)" \
		sh -c "[ '$said' = 'made and kept' ] && cmp '$tmp/full1.img' '$tmp/damaged.img'"
done
head -c 1000 "$record" >"$record.cut" && mv "$record.cut" "$record"
said=$(cbuild truncated)
check "a truncated record is not used ($said)" \
	sh -c "[ '$said' = 'made and kept' ] && cmp '$tmp/full1.img' '$tmp/truncated.img'"
# A binary rewritten in place, same size, other bytes: its stamp moved, so
# the image is made again and the manifest has the new bytes' sha256.
name=lat_syscall
victim="$data/guest/aarch64/$name"
printf 'bootrig-was-here' | dd of="$victim" bs=1 seek=1000 conv=notrunc 2>/dev/null
want=$(sha256sum "$victim" | cut -c1-64)
said=$(cbuild rewritten)
got=$(jq -r --arg n "/bench/aarch64/$name" '.files[] | select(.name == $n) | .sha256' "$tmp/rewritten.img.json")
if [ "$got" = "$want" ] && ! cmp -s "$tmp/full1.img" "$tmp/rewritten.img" &&
	gzip -dc "$tmp/rewritten.img" | (cd "$tmp" && cpio -i --quiet --to-stdout "bench/aarch64/$name") | cmp -s - "$victim"; then
	ok "a binary rewritten in place is read again: new image, new sha256 ($said)"
else
	not_ok "a binary rewritten in place is read again" "said '$said'; manifest $got, file $want"
fi
sleep 3   # settled again: its new stamp keys a new record, never the old one
said=$(cbuild rewritten-settled)
check "once settled, the rewritten binary keys a record of its own ($said)" \
	sh -c "[ '$said' = 'made and kept' ] && cmp '$tmp/rewritten.img' '$tmp/rewritten-settled.img' && [ \$(find '$tmp/xdg-img/bootrig/initramfs' -type f | wc -l) = 2 ]"
# The cache keeps the 64 records used last: 70 old ones are planted, the
# current record is made the oldest of all, then used (a hit touches it),
# then a build with another key stores one more and prunes.
current=$(ls -t "$tmp/xdg-img/bootrig/initramfs" | head -n 1)
i=0
while [ $i -lt 70 ]; do
	fake=$(printf '%064x' $i)
	echo old >"$tmp/xdg-img/bootrig/initramfs/$fake"
	touch -d "2020-01-01 00:00:00 UTC + $i minutes" "$tmp/xdg-img/bootrig/initramfs/$fake"
	i=$((i + 1))
done
touch -d "2019-01-01 UTC" "$tmp/xdg-img/bootrig/initramfs/$current"
said=$(cbuild used)
said2=$(export SOURCE_DATE_EPOCH=1; cbuild other-key)
kept=$(records)
if [ "$said" = hit ] && [ "$said2" = "made and kept" ] && [ "$kept" = 64 ] &&
	[ -f "$tmp/xdg-img/bootrig/initramfs/$current" ] &&
	[ ! -f "$tmp/xdg-img/bootrig/initramfs/$(printf '%064x' 0)" ] &&
	[ -f "$tmp/xdg-img/bootrig/initramfs/$(printf '%064x' 69)" ]; then
	ok "the image cache keeps the 64 records used last, the one just hit among them"
else
	not_ok "the image cache keeps the 64 records used last" "said '$said', '$said2'; $kept records"
fi
check "two manifests are identical but for the path" \
	sh -c "jq 'del(.image)' '$tmp/full1.img.json' >'$tmp/m1' && jq 'del(.image)' '$tmp/full2.img.json' >'$tmp/m2' && test -s '$tmp/m1' && cmp '$tmp/m1' '$tmp/m2'"
gzip -dc "$tmp/full1.img" | cpio -it --quiet >"$tmp/cpio.names" 2>"$tmp/cpio.err"
"$BOOTRIG" build --list "$tmp/full1.img" | awk '{print substr($NF, 2)}' >"$tmp/our.names"
if [ -s "$tmp/cpio.names" ] && cmp -s "$tmp/cpio.names" "$tmp/our.names"; then
	ok "cpio -t reads the gzip'd image and lists what --list lists ($(wc -l <"$tmp/cpio.names") entries)"
else
	not_ok "cpio -t reads the image" "$(cat "$tmp/cpio.err"; diff "$tmp/cpio.names" "$tmp/our.names" | head)"
fi
check "entries are sorted by name" sh -c "test -s '$tmp/cpio.names' && LC_ALL=C sort -c '$tmp/cpio.names'"
n_tests=$(grep -c '^bench/aarch64_ilp32/' "$tmp/cpio.names")
if [ "$n_tests" = 12 ]; then ok "full suite: 11 tests and the probe per ABI"
else not_ok "full suite: 11 tests and the probe per ABI" "aarch64_ilp32 has $n_tests"; fi
gzip -dc "$tmp/full1.img" | cpio -itv --quiet 2>/dev/null >"$tmp/cpio.long"
grep -v ' root *root ' "$tmp/cpio.long" >"$tmp/notroot"
check "every entry is owned by root" sh -c "test -s '$tmp/cpio.long' && test ! -s '$tmp/notroot'"
if [ "$(gzip -dc "$tmp/full1.img" | cpio -i --quiet --to-stdout etc/bootrig/plan 2>/dev/null | head -n 1)" = "suite=full" ]; then
	ok "the plan is in the image"
else
	not_ok "the plan is in the image"
fi
SOURCE_DATE_EPOCH=1700000000 "$BOOTRIG" build --kernel "$k" -o "$tmp/sde.img" >/dev/null 2>&1
if gzip -dc "$tmp/sde.img" | cpio -itv --quiet 2>/dev/null | grep -q 'Nov 14  2023 init$'; then
	ok "SOURCE_DATE_EPOCH sets every mtime"
else
	not_ok "SOURCE_DATE_EPOCH sets every mtime" "$(gzip -dc "$tmp/sde.img" | cpio -itv 2>&1 | tail -n 2)"
fi

# 3. The manifest: the kernel, the ABIs, each file's size and sha256.
m="$tmp/full1.img.json"
if [ "$(jq -r '.kernel.arch + " " + (.abis | join(",")) + " " + .suite' "$m")" = \
	"arm64 aarch64,aarch64_ilp32,arm full" ]; then
	ok "manifest: arch, ABIs and suite"
else
	not_ok "manifest: arch, ABIs and suite" "$(head -c 400 "$m")"
fi
want=$(sha256sum "$TOP/build/guest/aarch64/lat_pipe" | cut -c1-64)
got=$(jq -r '.files[] | select(.name == "/bench/aarch64/lat_pipe") | .sha256' "$m")
if [ -n "$want" ] && [ "$want" = "$got" ]; then ok "manifest: a file's sha256 is the guest binary's"
else not_ok "manifest: a file's sha256" "want $want got $got"; fi
if [ "$(jq -r .sha256 "$m")" = "$(sha256sum "$tmp/full1.img" | cut -c1-64)" ] &&
	[ "$(jq -r .kernel.sha256 "$m")" = "$(sha256sum "$k" | cut -c1-64)" ]; then
	ok "manifest: the image's and the kernel's sha256"
else
	not_ok "manifest: the image's and the kernel's sha256"
fi

# 4. --no-compress, --abi, --add, files in a config, --append-to.
build plain --kernel "$k" --no-compress --abi aarch64,arm --add /etc/hostname:/etc/hostname \
	-o "$tmp/plain.img"
if cpio -it --quiet <"$tmp/plain.img" >"$tmp/plain.names" 2>/dev/null &&
	grep -qx etc/hostname "$tmp/plain.names" && grep -qx bench/arm/probe "$tmp/plain.names" &&
	! grep -q aarch64_ilp32 "$tmp/plain.names"; then
	ok "--no-compress, --abi aarch64,arm and --add: a plain cpio with the right entries"
else
	not_ok "--no-compress, --abi, --add" "$(cat "$tmp/plain.err"; head "$tmp/plain.names")"
fi
printf 'files = ( "/etc/hostname:/etc/from-config" );\n' >"$tmp/files.cfg"
build cfgfiles --kernel "$k" --config "$tmp/files.cfg" -o "$tmp/cfgfiles.img"
if "$BOOTRIG" build --list "$tmp/cfgfiles.img" | grep -q ' /etc/from-config$'; then
	ok "files = ( ... ) in a config adds files"
else
	not_ok "files = ( ... ) in a config adds files" "$(cat "$tmp/cfgfiles.err")"
fi
mkdir -p "$tmp/user/lib/firmware"
echo microcode >"$tmp/user/lib/firmware/blob"
(cd "$tmp/user" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) | gzip -n >"$tmp/user.img"
build appended --kernel "$k" --append-to "$tmp/user.img" -o "$tmp/appended.img"
"$BOOTRIG" build --list "$tmp/appended.img" >"$tmp/appended.list" 2>&1
if head -c "$(stat -c %s "$tmp/user.img")" "$tmp/appended.img" | cmp -s - "$tmp/user.img" &&
	grep -q ' /lib/firmware/blob$' "$tmp/appended.list" && grep -q ' /init$' "$tmp/appended.list"; then
	ok "--append-to: the user's initramfs first, ours after; --list reads both"
else
	not_ok "--append-to" "$(cat "$tmp/appended.err" "$tmp/appended.list" | head)"
fi

# 5. Bad input: exit 65 with the path, nothing written at -o.
printf 'just some text\n' >"$tmp/text"
: >"$tmp/empty"
head -c 60 "$k" >"$tmp/truncated"
mkdir -p "$tmp/deb/DEBIAN" "$tmp/deb/usr/share/doc/x"
printf 'Package: not-a-kernel\nVersion: 1\nArchitecture: all\nMaintainer: t <t@t>\nDescription: t\n' \
	>"$tmp/deb/DEBIAN/control"
echo hi >"$tmp/deb/usr/share/doc/x/README"
dpkg-deb --build "$tmp/deb" "$tmp/nokernel.deb" >/dev/null 2>&1
for bad in text empty truncated nokernel.deb missing-file; do
	build "bad-$bad" --kernel "$tmp/$bad" -o "$tmp/bad-$bad.img"
	if [ "$(status_of "bad-$bad")" = 65 ] && grep -q "$tmp/$bad" "$tmp/bad-$bad.err" &&
		[ ! -e "$tmp/bad-$bad.img" ]; then
		ok "bad kernel '$bad': exit 65, the path in the message, no output ($(head -n 1 "$tmp/bad-$bad.err" | cut -c1-90))"
	else
		not_ok "bad kernel '$bad'" "exit $(status_of "bad-$bad"): $(cat "$tmp/bad-$bad.err")"
	fi
done
gzip -dc "$tmp/full1.img" | head -c 3000 >"$tmp/cut.cpio"
for bad in cut.cpio text empty truncated; do
	"$BOOTRIG" build --list "$tmp/$bad" >/dev/null 2>"$tmp/list.err"
	rc=$?
	if [ $rc = 65 ] && grep -q "$tmp/$bad" "$tmp/list.err"; then ok "--list of a bad image '$bad': exit 65"
	else not_ok "--list of a bad image '$bad'" "exit $rc: $(cat "$tmp/list.err")"; fi
done

# 6. Config errors (78, file:line) and usage errors (64).
# config_error NAME TEXT PATTERN LABEL: a build with config TEXT exits 78
# and its message matches PATTERN (grep, file:line first).
config_error() {
	printf '%b' "$2" >"$tmp/$1.cfg"
	build "$1" --kernel "$k" --config "$tmp/$1.cfg" -o "$tmp/$1.img"
	if [ "$(status_of "$1")" = 78 ] && grep -q "$3" "$tmp/$1.err"; then
		ok "$4: exit 78, file:line"
	else
		not_ok "$4: exit 78, file:line" "exit $(status_of "$1"): $(cat "$tmp/$1.err")"
	fi
}
config_error typo 'suites = (\n  { name = "smoke";\n    sampels = 3; }\n);\n' \
	"^bootrig: $tmp/typo.cfg:3: unknown key 'sampels'" "config typo"
config_error type 'suites = ( { name = "smoke"; samples = "many"; } );\n' \
	"type.cfg:1: 'samples' must be an integer" "config type error"
config_error syntax 'targets = ( {\n name = "x";\n' "syntax.cfg:[0-9]*: syntax error" \
	"config syntax error"
for args in "--kernel $k" "-o $tmp/x.img" "--kernel $k -o $tmp/x.img --abi x86_64" \
	"--kernel $k -o $tmp/x.img --bogus" "--kernel $k -o $tmp/x.img --suite nope" \
	"--list $tmp/full1.img --kernel $k" "--kernel $k -o $tmp/x.img --dtb /etc/hostname"; do
	# shellcheck disable=SC2086
	"$BOOTRIG" build $args >/dev/null 2>"$tmp/usage.err"
	rc=$?
	if [ $rc = 64 ] && [ ! -e "$tmp/x.img" ]; then ok "usage error exits 64: build $(echo "$args" | sed "s|$tmp/||g; s|$kernels/||g")"
	else not_ok "usage error exits 64: $args" "exit $rc: $(cat "$tmp/usage.err")"; fi
done
if "$BOOTRIG" build --help | grep -q -- '--sd-image' && "$BOOTRIG" build --help | grep -q 'IMAGE.json'; then
	ok "--help prints the option table and names the manifest"
else
	not_ok "--help"
fi
