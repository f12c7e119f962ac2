#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# GRUB integration: `make install` into a temporary DESTDIR, the entry
# /etc/grub.d/20_tempo prints (standalone, with /etc/default/tempo, and as
# grub-mkconfig runs it), its errors for missing files, and that entry booted
# from a grub-mkrescue ISO in Bochs with 4 CPUs, where the partitions of
# guests/demo.cfg must run to the end.
#   tests/grub/test_grubd.sh [--no-boot]
# One line per test: PASS name, FAIL name: why, SKIP name: why. Exit status 1
# if any failed. Logs of the boot: $BUILD/test-logs/grub-boot/.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

BUILD=${BUILD:-build}
boot=1
[ "${1:-}" = --no-boot ] && boot=0
work=$(mktemp -d "${TMPDIR:-/tmp}/tempo-grub.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; failed=1; }
skip() { echo "SKIP $1: $2"; }

# has FILE LINE: FILE holds LINE exactly (leading tabs/blanks ignored)
has() { sed 's/^[[:blank:]]*//' "$1" | grep -xF -- "$2" > /dev/null; }

# The images demo.cfg names, found the simple way (a second opinion on the
# script's awk): "image = NAME" lines, in order, without repeats.
cfg=guests/demo.cfg
mapfile -t images < <(sed -n 's/^[[:blank:]]*image[[:blank:]]*=[[:blank:]]*\([^[:blank:]#]*\).*/\1/p' \
	"$cfg" | awk '!seen[$0]++')

dest=$work/dest
root=$dest/boot/tempo
script=$dest/etc/grub.d/20_tempo

# ---- install ----
if ! make -s install DESTDIR="$dest" BUILD="$BUILD" > "$work/install.log" 2>&1; then
	fail install "make install failed: $(tail -n 5 "$work/install.log")"
	exit 1
fi
why=""
for f in tempo.elf partitions.cfg hello-mb2.elf hello-mb1.elf rtbench-mb2.elf; do
	[ -f "$root/$f" ] || why+="$root/$f missing; "
done
cmp -s "$cfg" "$root/partitions.cfg" || why+="partitions.cfg is not $cfg; "
[ -x "$script" ] || why+="$script missing or not executable; "
[ "$(stat -c %a "$script" 2>/dev/null)" = 755 ] || why+="$script mode $(stat -c %a "$script" 2>/dev/null), not 755; "
[ -f "$dest/etc/default/tempo" ] || why+="no example /etc/default/tempo; "
if [ -z "$why" ]; then pass install; else fail install "$why"; fi

# run_script OUT ERR [VAR=value ...]: the installed script under sh -e, as
# grub-mkconfig runs it, no system defaults, the installed tempo-config on PATH
run_script() {
	local out=$1 err=$2
	shift 2
	env TEMPO_DEFAULTS=/dev/null PATH="$dest/usr/local/sbin:$PATH" "$@" sh -e "$script" \
		> "$out" 2> "$err"
}

# check_entry NAME FILE DIR CMDLINE: the menu entry in FILE, paths under DIR
check_entry() {
	local name=$1 f=$2 dir=$3 cmdline=$4 why="" n
	head -n 1 "$f" | grep "^menuentry 'Tempo hypervisor' .*{$" > /dev/null ||
		why+="first line is not the menuentry: $(head -n 1 "$f"); "
	[ "$(tail -n 1 "$f")" = "}" ] || why+="last line is not '}'; "
	[ "$(grep -c '^menuentry' "$f")" = 1 ] || why+="not exactly one menuentry; "
	has "$f" "multiboot2 $dir/tempo.elf $cmdline" ||
		why+="no line 'multiboot2 $dir/tempo.elf $cmdline'; "
	has "$f" "module2 $dir/partitions.cfg partitions" || why+="no module2 line for the config; "
	for img in "${images[@]}"; do
		has "$f" "module2 $dir/$img.elf $img" || why+="no module2 line for image $img; "
	done
	n=$(grep -c 'module2 ' "$f")
	[ "$n" = $((1 + ${#images[@]})) ] || why+="$n module2 lines, expected $((1 + ${#images[@]})); "
	if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why (entry: $(tr '\n\t' '| ' < "$f"))"; fi
}

# ---- the entry, standalone ----
e=$work/entry.txt
if run_script "$e" "$work/err.txt" TEMPO_ROOT="$root"; then
	check_entry entry_standalone "$e" /boot/tempo loglevel=3
	grep -qE 'search|insmod' "$e" && fail entry_standalone_plain "search/insmod outside grub-mkconfig"
	[ -s "$work/err.txt" ] && fail entry_standalone_quiet "stderr: $(cat "$work/err.txt")"
else
	fail entry_standalone "exit status $?: $(cat "$work/err.txt")"
fi

# ---- the entry, settings from /etc/default/tempo (the installed example + two lines) ----
defaults=$dest/etc/default/tempo
printf 'TEMPO_ROOT=%s\nTEMPO_CMDLINE="loglevel=3 exit=emu"\n' "$root" >> "$defaults"
boot_entry=$work/boot-entry.txt
if env TEMPO_DEFAULTS="$defaults" "$script" > "$boot_entry" 2> "$work/err.txt"; then
	check_entry entry_defaults "$boot_entry" /boot/tempo "loglevel=3 exit=emu"
else
	fail entry_defaults "exit status $?: $(cat "$work/err.txt")"
fi

# ---- the entry as grub-mkconfig runs it: fake grub-probe, /boot its own fs ----
if [ -r /usr/share/grub/grub-mkconfig_lib ]; then
	cat > "$work/grub-probe" <<'EOF'
#!/bin/sh
for a; do case $a in --target=*) t=${a#--target=} ;; esac; done
case $t in
device) echo /dev/fakeboot ;;
partmap) echo gpt ;;
fs) echo ext2 ;;
fs_uuid) echo 0123-4567 ;;
abstraction | compatibility_hint | hints_string) ;;
*) exit 1 ;;
esac
EOF
	printf '#!/bin/sh\necho /tempo\n' > "$work/grub-mkrelpath"
	chmod +x "$work/grub-probe" "$work/grub-mkrelpath"
	m=$work/mkconfig.txt
	if run_script "$m" "$work/err.txt" TEMPO_ROOT="$root" GRUB_DEVICE_BOOT=/dev/fakeboot \
		pkgdatadir=/usr/share/grub grub_probe="$work/grub-probe" \
		grub_mkrelpath="$work/grub-mkrelpath"; then
		check_entry entry_grub_mkconfig "$m" /tempo loglevel=3
		why=""
		has "$m" "search --no-floppy --fs-uuid --set=root 0123-4567" || why+="no search --fs-uuid; "
		has "$m" "insmod part_gpt" || why+="no insmod part_gpt; "
		has "$m" "insmod ext2" || why+="no insmod ext2; "
		if [ -z "$why" ]; then pass entry_grub_mkconfig_device; else fail entry_grub_mkconfig_device "$why"; fi
	else
		fail entry_grub_mkconfig "exit status $?: $(cat "$work/err.txt")"
	fi
else
	skip entry_grub_mkconfig "no /usr/share/grub/grub-mkconfig_lib (grub-common)"
fi

# ---- faults: nothing on stdout, status 0 (update-grub goes on), the fault named ----
# expect_error NAME WORD TREE: the script on TREE prints no entry and names WORD
expect_error() {
	local name=$1 word=$2 tree=$3 status
	run_script "$work/out.txt" "$work/err.txt" TEMPO_ROOT="$tree"
	status=$?
	if [ $status -ne 0 ]; then
		fail "$name" "exit status $status: update-grub would fail"
	elif [ -s "$work/out.txt" ]; then
		fail "$name" "printed an entry anyway: $(head -n 1 "$work/out.txt")"
	elif ! grep -q -- "$word" "$work/err.txt"; then
		fail "$name" "message does not name $word: $(cat "$work/err.txt")"
	else
		pass "$name"
	fi
}

bad=$work/bad/boot/tempo
mkdir -p "$bad"
cp "$root"/* "$bad"/
printf '[partition a]\ncpus = 1\nmemory = 32M\nimage = hello-mb2\n\n[partition b]\ncpus = 2\nmemory = 32M\nimage = no-such-guest   # gone\n' \
	> "$bad/partitions.cfg"
expect_error missing_image "'no-such-guest'" "$bad"
printf '[partition a]\ncpus = 1\nmemory = 32M\nimage = hello-mb2\nmodules = initrd\n' > "$bad/partitions.cfg"
expect_error missing_module "'initrd'" "$bad"
cp "$root/partitions.cfg" "$bad/partitions.cfg"
rm "$bad/tempo.elf"
expect_error missing_hypervisor tempo.elf "$bad"
cp "$root/tempo.elf" "$bad/"
rm "$bad/partitions.cfg"
expect_error missing_config "tempo-config create" "$bad"
printf '[partition a]\ncpus = 1\nmemory = 32M\nimage = hello-mb2\ntimer = fast\n' > "$bad/partitions.cfg"
expect_error refused_config "$bad/partitions.cfg:5: timer: expected direct" "$bad"

# ---- install twice, then uninstall: the admin's config is never lost ----
d3=$work/dest3
why=""
make -s install DESTDIR="$d3" BUILD="$BUILD" > "$work/install3.log" 2>&1 || why+="first install failed; "
printf '# the admin was here\n' >> "$d3/boot/tempo/partitions.cfg"
cp "$d3/boot/tempo/partitions.cfg" "$work/admin.cfg"
printf 'TEMPO_CMDLINE="loglevel=4"\n' >> "$d3/etc/default/tempo"
make -s install DESTDIR="$d3" BUILD="$BUILD" > "$work/install3.log" 2>&1 || why+="second install failed; "
cmp -s "$work/admin.cfg" "$d3/boot/tempo/partitions.cfg" || why+="the admin's partitions.cfg was overwritten; "
cmp -s "$cfg" "$d3/boot/tempo/partitions.cfg.new" || why+="no partitions.cfg.new beside it; "
grep -q "kept your $d3/boot/tempo/partitions.cfg" "$work/install3.log" || why+="install did not say so; "
grep -q 'loglevel=4' "$d3/etc/default/tempo" || why+="/etc/default/tempo overwritten; "
[ -x "$d3/usr/local/sbin/tempo-config" ] || why+="no tempo-config in /usr/local/sbin; "
[ -e "$d3/boot/tempo/hostile-mb2.elf" ] && why+="the attack guest installed; "
if [ -z "$why" ]; then pass install_twice_keeps_config; else fail install_twice_keeps_config "$why"; fi
why=""
if ! make -s uninstall DESTDIR="$d3" BUILD="$BUILD" > "$work/uninstall.log" 2>&1; then
	why+="uninstall failed: $(cat "$work/uninstall.log"); "
fi
left=$(cd "$d3" && find . -type f | sort | tr '\n' ' ')
[ "$left" = "./boot/tempo/partitions.cfg ./etc/default/tempo " ] ||
	why+="left: $left (expected the edited partitions.cfg and /etc/default/tempo); "
cmp -s "$work/admin.cfg" "$d3/boot/tempo/partitions.cfg" || why+="the admin's config changed; "
grep -q "kept $d3/boot/tempo/partitions.cfg" "$work/uninstall.log" || why+="uninstall did not say what it kept; "
if [ -z "$why" ]; then pass uninstall; else fail uninstall "$why"; fi
# an untouched install is removed whole
d4=$work/dest4
make -s install DESTDIR="$d4" BUILD="$BUILD" > /dev/null 2>&1 &&
	make -s uninstall DESTDIR="$d4" BUILD="$BUILD" > "$work/uninstall4.log" 2>&1
left=$(cd "$d4" && find . -type f | tr '\n' ' ')
if [ -z "$left" ] && [ ! -d "$d4/boot/tempo" ]; then
	pass uninstall_clean
else
	fail uninstall_clean "left: $left $(cat "$work/uninstall4.log")"
fi

# ---- PREFIX: another directory, and the script's default follows it ----
d2=$work/dest2
if make -s install DESTDIR="$d2" PREFIX=/boot/rt BUILD="$BUILD" > "$work/install2.log" 2>&1 &&
	[ -f "$d2/boot/rt/tempo.elf" ] && grep -qx 'tempo_default_root=/boot/rt' "$d2/etc/grub.d/20_tempo"; then
	pass install_prefix
else
	fail install_prefix "$(tail -n 3 "$work/install2.log")"
fi

# ---- the entry booted: grub-mkrescue ISO of the installed tree, Bochs, 4 CPUs ----
if [ $boot -eq 0 ]; then
	skip boot_bochs "--no-boot"
elif ! [ -s "$boot_entry" ]; then
	fail boot_bochs "no entry to boot"
else
	iso_root=$work/iso
	mkdir -p "$iso_root/boot/grub"
	cp -r "$dest/boot/tempo" "$iso_root/boot/"
	{
		printf 'set timeout=0\nset default=0\nset gfxpayload=text\n'
		cat "$boot_entry"
	} > "$iso_root/boot/grub/grub.cfg"
	logs=$BUILD/test-logs/grub-boot
	mkdir -p "$logs"
	cp "$iso_root/boot/grub/grub.cfg" "$logs/grub.cfg"
	if ! grub-mkrescue -o "$work/tempo.iso" "$iso_root" > "$work/mkrescue.log" 2>&1; then
		fail boot_bochs "grub-mkrescue: $(tail -n 3 "$work/mkrescue.log")"
	elif ! tests/emu/run.sh --emu bochs --cpus 4 --iso "$work/tempo.iso" --expect ok \
		--timeout 300 --out "$logs" > "$work/run.log" 2>&1; then
		fail boot_bochs "$(cat "$work/run.log")"
	else
		why=""
		for p in rt0 rt1; do
			tr -d '\r' < "$logs/serial.txt" | grep -xF "[$p] hello: done" > /dev/null ||
				why+="no '[$p] hello: done' in $logs/serial.txt; "
		done
		if [ -z "$why" ]; then pass boot_bochs; else fail boot_bochs "$why"; fi
	fi
fi

exit $failed
