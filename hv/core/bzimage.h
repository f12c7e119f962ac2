/* SPDX-License-Identifier: MIT */
/*
 * Linux bzImage guests entered through the 64-bit boot protocol
 * (Documentation/arch/x86/boot.rst, "64-bit Boot Protocol"): check the setup
 * header, plan where the protected-mode kernel and an initrd go, and write
 * what the kernel expects to find at its 64-bit entry: a GDT with __BOOT_CS
 * and __BOOT_DS, identity page tables, the zero page (struct boot_params)
 * with an E820 map, and the command line.
 *
 * Outside input: every header field is read within the image length and
 * every range is checked against guest memory before a byte is written.
 * Pure and host-testable; fuzzed.
 */
#ifndef TEMPO_HV_BZIMAGE_H
#define TEMPO_HV_BZIMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Fixed guest-physical layout of what linux_build_boot() writes, all in the
 * first 64 KiB, which the E820 map reports reserved.
 */
#define LINUX_GDT_GPA		0x1000ull	/* boot GDT, LINUX_GDT_SIZE bytes */
#define LINUX_GDT_SIZE		32		/* null, null, __BOOT_CS, __BOOT_DS: limit 31 */
#define LINUX_BOOT_CS		0x10		/* 64-bit flat code, execute/read */
#define LINUX_BOOT_DS		0x18		/* flat data, read/write */
#define LINUX_PT_GPA		0x2000ull	/* PML4; PDPT at 0x3000; 4 PDs 0x4000-0x7fff */
#define LINUX_PT_SIZE		0x6000ull	/* identity map of 0-4 GiB in 2 MiB pages */
#define LINUX_ZERO_PAGE_GPA	0x8000ull	/* struct boot_params, 4 KiB; %rsi at entry */
#define LINUX_CMDLINE_GPA	0x9000ull	/* NUL-terminated, up to LINUX_CMDLINE_MAX */
#define LINUX_CMDLINE_MAX	2048
#define LINUX_RESERVED_END	0x10000ull	/* E820: 0 up to here reserved */
#define LINUX_LOW_USABLE_END	0x9f000ull	/* E820: usable to here, reserved to 1 MiB */
#define LINUX_HIGH_START	0x100000ull	/* E820: usable from here to the MMIO window */
#define LINUX_E820_ENTRIES	5		/* at most: the fifth is RAM from 4 GiB */

struct linux_plan {
	bool vmlinux;		/* an uncompressed ELF kernel (linux_plan_vmlinux), not a bzImage */
	uint16_t version;	/* boot protocol, e.g. 0x020f (a vmlinux: the one Tempo writes) */
	uint64_t kernel_gpa;	/* where the protected-mode kernel is copied */
	uint64_t kernel_offset;	/* file offset of the protected-mode kernel */
	uint64_t kernel_size;	/* bytes to copy from the file (to its end) */
	uint64_t entry64;	/* kernel_gpa + 0x200 */
	uint64_t initrd_gpa;	/* 0 if none */
	uint64_t initrd_size;
	uint64_t init_size;	/* from the header: memory the kernel needs at its run address */
	uint64_t kernel_end;	/* one past all the kernel uses before it reads the E820 map */
};

/*
 * Check a bzImage and plan where it and an initrd of @initrd_size bytes
 * (0 = none) go in a guest of @mem_size bytes of RAM (hv/core/guest_ram.h),
 * both in the RAM from 1 MiB up to the MMIO window (below 1 MiB is the
 * hypervisor's; above the window, 4 GiB up, only the E820 map). The kernel goes at
 * pref_address when relocatable, else at 1 MiB; it then decompresses at its
 * run address (pref_address, or the load address rounded up to
 * kernel_alignment if that is higher) and needs init_size bytes there. The
 * initrd goes as high as allowed (below initrd_addr_max unless
 * XLF_CAN_BE_LOADED_ABOVE_4G), page aligned, above kernel_end. Returns 0, or
 * -1 with a reason in @why and @out zeroed.
 */
int linux_plan_load(const uint8_t *img, size_t len, uint64_t mem_size, uint64_t initrd_size,
		    struct linux_plan *out, char *why, size_t whylen);

/*
 * Plan an uncompressed kernel, a vmlinux ELF whose PT_LOAD segments occupy
 * [@lowest, @highest) of guest-physical memory (hv/core/elf.c planned and
 * checked them) with its 64-bit entry, startup_64, at @entry: what the
 * bzImage's decompressor would have produced, and where it would have
 * jumped, with RSI the zero page. No decompression at each (re)start: a
 * Debian kernel's xz payload is some 4 billion instructions in Bochs. The
 * kernel runs where it is linked (no relocation), so @lowest must be 2 MiB
 * aligned (head_64.S loops for ever otherwise), @entry within the segments,
 * all of it below 4 GiB and the MMIO window; the initrd as for a bzImage.
 * The zero page gets a setup header Tempo writes (protocol 2.15). Returns 0,
 * or -1 with a reason in @why and @out zeroed.
 */
int linux_plan_vmlinux(uint64_t lowest, uint64_t highest, uint64_t entry, uint64_t mem_size,
		       uint64_t initrd_size, struct linux_plan *out, char *why, size_t whylen);

/* Is @img a Linux kernel: a bzImage ("HdrS" at 0x202) or a vmlinux (an ELF with "Linux" notes)? */
#define NOT_LINUX "nor is it a Linux kernel (no bzImage \"HdrS\" at 0x202, no ELF note \"Linux\")"
bool linux_image(const uint8_t *img, size_t len);

/*
 * The plan for either kind (linux_image): a bzImage's by linux_plan_load
 * (@segs->segment_count 0: the caller copies kernel_size bytes from
 * kernel_offset), a vmlinux's by elf_plan_load and linux_plan_vmlinux (the
 * caller copies @segs, zeroing each one's tail). Returns 0, or -1 with a
 * reason in @why.
 */
struct elf_plan;
int linux_plan_image(const uint8_t *img, size_t len, uint64_t mem_size, uint64_t initrd_size,
		     struct linux_plan *out, struct elf_plan *segs, char *why, size_t whylen);

/* One E820 entry as the zero page holds it (20 bytes, packed there). */
struct linux_e820 {
	uint64_t addr, size;
	uint32_t type;
};

/*
 * The E820 map linux_build_boot() writes for @mem_size (> 1 MiB): reserved
 * 0..LINUX_RESERVED_END (GDT, page tables, zero page, command line), usable
 * to LINUX_LOW_USABLE_END (where Linux finds its real-mode trampoline for
 * starting APs), reserved to 1 MiB (EBDA, VGA hole, BIOS area with the ACPI
 * tables), usable from 1 MiB up to the MMIO window, and, when @mem_size is
 * larger than that, usable from 4 GiB for the rest (hv/core/guest_ram.h).
 * Returns how many entries it filled: 4 or 5.
 */
int linux_e820_map(uint64_t mem_size, struct linux_e820 map[LINUX_E820_ENTRIES]);

/*
 * Write into @mem (host view of guest-physical 0 up, the RAM below the MMIO
 * window of a partition of @mem_size bytes): the GDT, the
 * page tables, the zero page (the image's setup header, or for a vmlinux
 * plan the one Tempo writes, @img then unread, then the loader's
 * fields, the initrd of @plan, the RSDP at @rsdp_gpa (0: none) and the E820
 * map) and @cmdline (NULL: empty). Refuses a plan that is not within that
 * low RAM, and a command line longer than the header's cmdline_size or
 * LINUX_CMDLINE_MAX - 1. Checks everything before writing anything. Does not
 * copy the kernel or the initrd (the caller does, from the plan). Returns 0,
 * or -1 with a reason in @why.
 */
int linux_build_boot(uint8_t *mem, uint64_t mem_size, const uint8_t *img, size_t len,
		     const struct linux_plan *plan, const char *cmdline, uint64_t rsdp_gpa,
		     char *why, size_t whylen);

/*
 * The command line a Linux partition gets: @cfg, plus "noapic" when that word
 * is not in it. There is no I/O APIC (the MADT lists none), and the option is
 * what keeps Linux in x2APIC mode: without interrupt remapping its
 * enable_IR_x2apic() switches a BIOS-enabled x2APIC back to xAPIC (MMIO at
 * 0xfee00000, which a partition does not have) unless I/O APIC setup is
 * skipped (docs/linux.md). Returns @cfg itself, or @buf (@len bytes) holding
 * the longer line; NULL if that does not fit.
 */
const char *linux_partition_cmdline(const char *cfg, char *buf, size_t len);

#endif
