#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian package: `make deb`, its contents and lintian; installed into a
# scratch root with dpkg itself; the installed 20_tempo run on the installed
# files; the entry it prints booted from a grub-mkrescue ISO in Bochs (4
# CPUs, 512 MiB, as tests/grub/test_grubd.sh does), where the installed
# tempo-config's plan must be what the boot did; then dpkg -r (only the
# conffiles and the admin's partitions.cfg stay, and the leftover 20_tempo
# prints no entry) and dpkg -P (nothing stays).
#   tests/tools/test_deb.sh [--no-boot]
#
# Why `dpkg --root=DIR --force-script-chrootless`: it is dpkg's own install
# (unpack, conffiles, maintainer scripts, status database), works as root or
# not (--force-not-root) and needs no chroot with a shell inside. The scripts
# then run on the host with DPKG_ROOT=DIR and touch only DIR (and never run
# update-grub). --force-depends: the scratch root has no libc6 package; the
# host's C library serves tempo-config.
# One line per test: PASS name, FAIL name: why, SKIP name: why.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

BUILD=${BUILD:-build}
boot=1
[ "${1:-}" = --no-boot ] && boot=0
work=$(mktemp -d "${TMPDIR:-/tmp}/tempo-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; failed=1; }
skip() { echo "SKIP $1: $2"; }

# ---- build ----
if ! make -s deb BUILD="$BUILD" > "$work/build.log" 2>&1; then
	fail deb_build "make deb: $(tail -n 5 "$work/build.log")"
	exit 1
fi
mapfile -t debs < <(ls "$BUILD"/tempo_*_amd64.deb 2>/dev/null)
if [ ${#debs[@]} -ne 1 ]; then
	fail deb_build "expected one $BUILD/tempo_*_amd64.deb, found ${#debs[@]}"
	exit 1
fi
deb=${debs[0]}
pass "deb_build ($(basename "$deb"))"

# ---- contents ----
dpkg-deb --contents "$deb" | awk '{ print $1, $6 }' > "$work/contents.txt"
why=""
for f in boot/tempo/tempo.elf boot/tempo/hello-mb2.elf boot/tempo/hello-mb1.elf \
	boot/tempo/rtbench-mb2.elf boot/tempo/chan-mb2.elf boot/tempo/example.cfg usr/sbin/tempo-config \
	usr/lib/tempo/BOOTX64.EFI usr/share/doc/tempo/copyright usr/share/doc/tempo/README.md.gz \
	usr/share/doc/tempo/config.md.gz etc/default/tempo; do
	grep -q " \./$f$" "$work/contents.txt" || why+="no /$f; "
done
# no attack or test-only guest, and no config of the package's own
for f in boot/tempo/hostile-mb2.elf boot/tempo/fuzz-mb2.elf boot/tempo/partitions.cfg; do
	grep -q " \./$f$" "$work/contents.txt" && why+="/$f is in the package; "
done
grep -qx -- '-rwxr-xr-x ./etc/grub.d/20_tempo' "$work/contents.txt" ||
	why+="no /etc/grub.d/20_tempo mode 755; "
dpkg-deb --field "$deb" Package Architecture | tr '\n' ' ' |
	grep -q 'Package: tempo Architecture: amd64' ||
	why+="control: $(dpkg-deb --field "$deb" Package Architecture | tr '\n' ' '); "
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles > "$work/conffiles" 2>/dev/null
[ "$(sort "$work/conffiles" | tr '\n' ' ')" = "/etc/default/tempo /etc/grub.d/20_tempo " ] ||
	why+="conffiles: $(tr '\n' ' ' < "$work/conffiles"); "
if [ -z "$why" ]; then pass deb_contents; else fail deb_contents "$why"; fi

# ---- the control file: a version dpkg sorts in commit order, no placeholders ----
version=$(dpkg-deb --field "$deb" Version)
count=$(git rev-list --count HEAD) rev=$(git rev-parse --short HEAD)
why=""
[ "$version" = "0.1.$count+g$rev" ] || why+="version $version, not 0.1.$count+g$rev; "
if git rev-parse -q --verify HEAD~1 > /dev/null; then
	prev="0.1.$((count - 1))+g$(git rev-parse --short HEAD~1)"
	dpkg --compare-versions "$version" gt "$prev" || why+="$version does not sort after $prev; "
fi
# after every version the old scheme (0.1+gitHASH) made, whatever the hash
for old in 0.1+git5e0ade0 0.1+gitedb25c4 0.1+gitfffffff; do
	dpkg --compare-versions "$version" gt "$old" || why+="$version does not sort after $old; "
done
dpkg-deb --field "$deb" > "$work/control.txt"
grep -qi 'example\.org\|example\.com\|lists\.example' "$work/control.txt" &&
	why+="a placeholder: $(grep -i 'example\.' "$work/control.txt" | tr '\n' ' '); "
grep -q '^Maintainer: [^<]* <[^@ >]*@[^> ]*>$' "$work/control.txt" ||
	why+="no Maintainer 'Name <address>'; "
if [ -z "$why" ]; then pass deb_control; else fail deb_control "$why"; fi

# ---- lintian: no errors or warnings (README, "Install on a server", lists the rest) ----
if command -v lintian > /dev/null; then
	lintian -I -E --pedantic "$deb" > "$work/lintian.txt" 2>&1
	grep -E '^(E|W): ' "$work/lintian.txt" > "$work/lintian-ew.txt"
	if [ -s "$work/lintian-ew.txt" ]; then
		fail lintian "$(tr '\n' '|' < "$work/lintian-ew.txt")"
	else
		pass "lintian ($(grep -cE '^[IPX]: ' "$work/lintian.txt") info/pedantic/experimental tags)"
	fi
else
	skip lintian "not installed (apt-get install lintian)"
fi

# ---- install into a scratch root ----
root=$work/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers"
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
dpkg_root() {
	dpkg --root="$root" --force-not-root --force-script-chrootless --force-depends \
		--log=/dev/null "$@"
}
# files: every file under the root but dpkg's own database, sorted
files() {
	(cd "$root" && find . -path ./var/lib/dpkg -prune -o -type f -print | sort | tr '\n' ' ')
}
status() {
	dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${db:Status-Abbrev}' tempo 2>/dev/null
}

if ! dpkg_root -i "$deb" > "$work/install.log" 2>&1; then
	fail deb_install "dpkg -i: $(tail -n 5 "$work/install.log")"
	exit 1
fi
why=""
[ "$(status)" = "ii " ] || why+="status '$(status)', not ii; "
[ -e "$root/boot/tempo/partitions.cfg" ] && why+="a partitions.cfg the admin did not write; "
grep -q 'tempo-config create' "$work/install.log" ||
	why+="postinst does not say how to write the config; "
cmp -s guests/example.cfg "$root/boot/tempo/example.cfg" ||
	why+="example.cfg is not guests/example.cfg; "
[ -x "$root/usr/sbin/tempo-config" ] || why+="no executable /usr/sbin/tempo-config; "
if [ -z "$why" ]; then pass deb_install; else fail deb_install "$why"; fi

# ---- the installed 20_tempo under sh -e, as grub-mkconfig runs it: never a failure ----
# grub_d NAME [VAR=value...]: the installed script on the installed tree, the
# installed tempo-config on PATH; out.txt, err.txt, and its status
grub_d() {
	local name=$1
	shift
	env TEMPO_DEFAULTS="$root/etc/default/tempo" TEMPO_ROOT="$root/boot/tempo" \
		PATH="$root/usr/sbin:$PATH" "$@" sh -e "$root/etc/grub.d/20_tempo" \
		> "$work/out.txt" 2> "$work/err.txt"
}
# no_entry NAME WORD [VAR=value...]: status 0, nothing on stdout, WORD on stderr
no_entry() {
	local name=$1 word=$2 rc
	shift 2
	grub_d "$name" "$@"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "$name" "status $rc under sh -e (update-grub would fail): $(cat "$work/err.txt")"
	elif [ -s "$work/out.txt" ]; then
		fail "$name" "printed an entry: $(head -n 2 "$work/out.txt" | tr '\n' '|')"
	elif ! grep -qF -- "$word" "$work/err.txt"; then
		fail "$name" "stderr does not say '$word': $(tr '\n' '|' < "$work/err.txt")"
	else
		pass "$name"
	fi
}
tb=$root/boot/tempo
no_entry grubd_no_config "tempo-config create"
cp "$tb/example.cfg" "$tb/partitions.cfg"
if grub_d grubd_example && grep -q "module2 /boot/tempo/rtbench-mb2.elf rtbench-mb2" "$work/out.txt"; then
	pass grubd_example
else
	fail grubd_example "status $?: $(tr '\n' '|' < "$work/out.txt") $(tr '\n' '|' < "$work/err.txt")"
fi
printf '[partition a]\ncpus = 1\nmemory = 3M\nimage = hello-mb2\ntimer = fast\n' > "$tb/partitions.cfg"
no_entry grubd_refused_config "$tb/partitions.cfg:5: timer: expected direct, inject, emulated or pv-lazy, found 'fast'"
grep -qF "$tb/partitions.cfg:3: memory: 3M is not a multiple of 2 MiB" "$work/err.txt" ||
	fail grubd_refused_config_all "the first error only: $(tr '\n' '|' < "$work/err.txt")"
printf '[partition a]\ncpus = 1\nmemory = 32M\nimage = hostile-mb2\n' > "$tb/partitions.cfg"
no_entry grubd_missing_image "image 'hostile-mb2' not found"
# without tempo-config on PATH the image check of the script itself says no
no_entry grubd_missing_image_unchecked "image 'hostile-mb2' not found" PATH=/usr/bin:/bin
cp guests/demo.cfg "$tb/partitions.cfg"
mv "$tb/tempo.elf" "$tb/tempo.elf.away"
no_entry grubd_missing_hypervisor "tempo.elf not found"
mv "$tb/tempo.elf.away" "$tb/tempo.elf"
if grub_d grubd_unchecked PATH=/usr/bin:/bin && grep -q '^menuentry' "$work/out.txt" &&
	grep -q 'tempo-config is not on PATH' "$work/err.txt"; then
	pass grubd_unchecked
else
	fail grubd_unchecked "$(tr '\n' '|' < "$work/out.txt") $(tr '\n' '|' < "$work/err.txt")"
fi
# the admin's config, as the rest of this test boots it
cp guests/demo.cfg "$tb/partitions.cfg"

# ---- the installed tempo-config on the installed config, Bochs' machine ----
tool=$root/usr/sbin/tempo-config
"$tool" check --machine --sysroot tests/tools/machines/bochs-4cpu \
	"$root/boot/tempo/partitions.cfg" > "$work/plan.txt" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q '^plan: partition rt0: RAM ' "$work/plan.txt" &&
	! grep -q '^note: no tempo.elf' "$work/plan.txt"; then
	pass installed_tempo_config
else
	fail installed_tempo_config "status $rc: $(tr '\n' '|' < "$work/plan.txt")"
fi

# ---- the installed 20_tempo on the installed files ----
entry=$work/entry.txt
if TEMPO_DEFAULTS="$root/etc/default/tempo" TEMPO_ROOT="$root/boot/tempo" \
	TEMPO_CMDLINE="loglevel=3 exit=emu" "$root/etc/grub.d/20_tempo" \
	> "$entry" 2> "$work/err.txt"; then
	why=""
	for l in "multiboot2 /boot/tempo/tempo.elf loglevel=3 exit=emu" \
		"module2 /boot/tempo/partitions.cfg partitions" \
		"module2 /boot/tempo/hello-mb2.elf hello-mb2" "module2 /boot/tempo/hello-mb1.elf hello-mb1"; do
		sed 's/^[[:blank:]]*//' "$entry" | grep -xF -- "$l" > /dev/null || why+="no '$l'; "
	done
	if [ -z "$why" ]; then pass installed_grub_entry; else fail installed_grub_entry "$why"; fi
else
	fail installed_grub_entry "exit status $?: $(cat "$work/err.txt")"
fi

# ---- the entry booted: the installed /boot/tempo on a GRUB ISO, Bochs, 4 CPUs ----
if [ $boot -eq 0 ]; then
	skip installed_boot "--no-boot"
elif ! [ -s "$entry" ]; then
	fail installed_boot "no entry to boot"
else
	iso_root=$work/iso
	mkdir -p "$iso_root/boot/grub"
	cp -r "$root/boot/tempo" "$iso_root/boot/"
	{
		printf 'set timeout=0\nset default=0\nset gfxpayload=text\n'
		cat "$entry"
	} > "$iso_root/boot/grub/grub.cfg"
	logs=$BUILD/test-logs/deb-boot
	rm -rf "$logs"
	mkdir -p "$logs"
	cp "$iso_root/boot/grub/grub.cfg" "$logs/grub.cfg"
	if ! grub-mkrescue -o "$work/tempo.iso" "$iso_root" > "$work/mkrescue.log" 2>&1; then
		fail installed_boot "grub-mkrescue: $(tail -n 3 "$work/mkrescue.log")"
	elif ! tests/emu/run.sh --emu bochs --cpus 4 --mem 512 --iso "$work/tempo.iso" --expect ok \
		--timeout 300 --out "$logs" > "$work/run.log" 2>&1; then
		fail installed_boot "$(cat "$work/run.log")"
	else
		why=""
		for p in rt0 rt1; do
			tr -d '\r' < "$logs/serial.txt" | grep -xF "[$p] hello: done" > /dev/null ||
				why+="no '[$p] hello: done' in $logs/serial.txt; "
		done
		if [ -z "$why" ]; then pass installed_boot; else fail installed_boot "$why"; fi
		# The plan's RAM is where the boot put each partition.
		why=""
		for p in rt0 rt1; do
			want=$(sed -n "s/^plan: partition $p: RAM \(0x[0-9a-f]*\)-.*/\1/p" "$work/plan.txt")
			got=$(tr -d '\r' < "$logs/serial.txt" |
				sed -n "s/^Partition '$p': .* MiB at \(0x[0-9a-f]*\),.*/\1/p")
			[ -n "$want" ] && [ "$want" = "$got" ] || why+="$p: plan $want, boot $got; "
		done
		if [ -z "$why" ]; then pass plan_matches_boot; else fail plan_matches_boot "$why"; fi
	fi
fi

# ---- remove: the conffiles and the admin's config stay; 20_tempo prints nothing ----
if ! dpkg_root -r tempo > "$work/remove.log" 2>&1; then
	fail deb_remove "dpkg -r: $(tail -n 5 "$work/remove.log")"
else
	left=$(files)
	want="./boot/tempo/partitions.cfg ./etc/default/tempo ./etc/grub.d/20_tempo "
	why=""
	[ "$left" = "$want" ] || why+="left: $left (expected $want); "
	[ "$(status)" = "rc " ] || why+="status '$(status)', not rc; "
	if TEMPO_DEFAULTS="$root/etc/default/tempo" TEMPO_ROOT="$root/boot/tempo" \
		"$root/etc/grub.d/20_tempo" > "$work/out.txt" 2> "$work/err.txt"; then
		[ -s "$work/out.txt" ] && why+="the leftover 20_tempo printed an entry; "
	else
		why+="the leftover 20_tempo failed (update-grub would stop): $(cat "$work/err.txt"); "
	fi
	if [ -z "$why" ]; then pass deb_remove; else fail deb_remove "$why"; fi
fi

# ---- purge: nothing left ----
if ! dpkg_root -P tempo > "$work/purge.log" 2>&1; then
	fail deb_purge "dpkg -P: $(tail -n 5 "$work/purge.log")"
else
	left=$(files)
	dirs=$(cd "$root" && find . -mindepth 1 -path ./var -prune -o -print | tr '\n' ' ')
	# the admin's config alone stays: the package never wrote it
	if [ "$left" = "./boot/tempo/partitions.cfg " ] &&
		[ "$dirs" = "./boot ./boot/tempo ./boot/tempo/partitions.cfg " ] &&
		[ -z "$(status)" ] && grep -q 'kept /boot/tempo/partitions.cfg' "$work/purge.log"; then
		pass deb_purge
	else
		fail deb_purge "left: files '$left' dirs '$dirs' status '$(status)'"
	fi
fi

exit $failed
