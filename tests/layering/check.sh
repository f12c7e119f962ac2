#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The layering of docs/architecture.md, checked on every #include "..." of the
# tree (C and assembly). Prints one line per include a layer may not make and
# ends with
#   LAYERING files=N includes=N violations=N
# Exit status 0 only with no violation.
#
#   tests/layering/check.sh [ROOT]      (default: the repository)
set -uo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || exit 2

# hv/'s rooms, lowest first (the Makefile's HV_ROOMS): a room may include
# its own headers and those of the rooms below it, and every room's
# parts.h (its part of struct vcpu: types only, which may include no room)
rooms=$(sed -n 's/^HV_ROOMS[[:blank:]]*:=[[:blank:]]*//p' Makefile 2>/dev/null)
rank() {
	local i=0 r
	for r in $rooms; do
		[ "$r" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
	echo 99
}

# layer PATH: the layer a file (or an included header) belongs to
layer() {
	case $1 in
	hv/lib/*) echo lib ;;
	hv/core/*) echo core ;;
	hv/upcalls.h) echo upcalls ;;
	hv/*/parts.h) echo parts ;;
	hv/*/*) r=${1#hv/}; echo "room:${r%%/*}" ;;
	hv/*) echo hv ;;
	arch/*) echo arch ;;
	drivers/*) echo drivers ;;
	boot/efi/*) echo efi ;;
	boot/*) echo boot ;;
	guests/*) echo guests ;;
	tools/*) echo tools ;;
	tests/*) echo tests ;;
	*) echo other ;;
	esac
}

# allowed FROM TO HEADER: may a FROM file include HEADER (of layer TO)?
allowed() {
	case $1:$2 in
	*:other) return 1 ;;		# a header outside the tree's layers
	lib:lib) return 0 ;;
	core:lib | core:core) return 0 ;;
	parts:lib | parts:core | parts:arch) return 0 ;;	# types only
	room:*:lib | room:*:core | room:*:arch | room:*:drivers | room:*:upcalls | room:*:parts)
		return 0 ;;
	room:*:room:*)		# its own room or one below it
		[ "$(rank "${1#room:}")" -ge "$(rank "${2#room:}")" ] ;;
	hv:*) return 0 ;;
	arch:arch | arch:lib | arch:upcalls | arch:drivers) return 0 ;;
	drivers:drivers | drivers:lib | drivers:arch) return 0 ;;
	boot:arch | boot:lib) return 0 ;;
	# the EFI loader: the parsers, and the boot layout and serial port it hands on
	efi:efi | efi:lib | efi:core | efi:arch | efi:drivers) return 0 ;;
	# guests: their own code, the library and the hypercall ABI only
	guests:guests | guests:lib) return 0 ;;
	guests:core) [ "$3" = hv/core/hypercall_abi.h ] || [ "$3" = hv/core/chan_pci_abi.h ] ;;
	tools:tools | tools:lib | tools:core | tools:drivers) return 0 ;;
	tests:*) return 0 ;;
	*) return 1 ;;
	esac
}

files=0 includes=0 violations=0
while IFS= read -r f; do
	files=$((files + 1))
	from=$(layer "$f")
	while IFS= read -r hdr; do
		includes=$((includes + 1))
		# relative to the including file's folder, as the compiler looks first
		[ -f "$hdr" ] || [ ! -f "$(dirname "$f")/$hdr" ] || hdr=$(dirname "$f")/$hdr
		if [ ! -f "$hdr" ]; then
			echo "LAYERING_VIOLATION file=$f include=$hdr why=no_such_header"
			violations=$((violations + 1))
			continue
		fi
		to=$(layer "$hdr")
		if ! allowed "$from" "$to" "$hdr"; then
			echo "LAYERING_VIOLATION file=$f include=$hdr from=$from to=$to"
			violations=$((violations + 1))
		fi
	done < <(sed -n 's/^[[:blank:]]*#[[:blank:]]*include[[:blank:]]*"\([^"]*\)".*/\1/p' "$f")
done < <(git ls-files -- '*.c' '*.h' '*.S' 2>/dev/null || find . -name '*.[chS]' | sed 's|^\./||')
echo "LAYERING files=$files includes=$includes violations=$violations"
[ "$violations" -eq 0 ]
