// SPDX-License-Identifier: MIT
/*
 * Linux bzImage guests: the setup header, the load plan and the state the
 * 64-bit boot protocol asks a loader to leave.
 *
 * The image is outside input (a module the operator chose): every field is
 * read with rd16/rd32/rd64 at an offset first checked against the image
 * length, every address range against guest memory, with sums kept below
 * 2^34 or arranged as subtractions so none can wrap. linux_build_boot()
 * checks everything before it writes a byte, and writes only the first
 * 64 KiB of guest memory.
 *
 * References: Linux Documentation/arch/x86/boot.rst ("The Real-Mode Kernel
 * Header", "Details of Header Fields", "64-bit Boot Protocol") and
 * Documentation/arch/x86/zero-page.rst; the decompressor's choice of its
 * run address is arch/x86/boot/compressed/head_64.S (startup_64). Intel SDM
 * Vol. 3A 3.4.5 (segment descriptors) and 4.5 (4-level paging).
 */
#include "hv/core/bzimage.h"
#include "hv/core/elf.h"
#include "hv/core/guest_ram.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"

#include <stdbool.h>

/* Setup header fields: offsets in the image and in the zero page alike. */
#define HDR_START		0x1f1	/* setup_sects: the first byte copied */
#define HDR_SETUP_SECTS		0x1f1	/* u8: 512-byte setup sectors after the boot sector */
#define HDR_ROOT_FLAGS		0x1f2	/* u16: 1 = mount the root read-only */
#define HDR_SYSSIZE		0x1f4	/* u32: protected-mode kernel, 16-byte paragraphs */
#define HDR_VID_MODE		0x1fa	/* u16: 0xffff = "normal" */
#define HDR_BOOT_FLAG		0x1fe	/* u16: 0xAA55 */
#define HDR_JUMP_LEN		0x201	/* u8: the jump's displacement: header ends 0x202 + it */
#define HDR_MAGIC		0x202	/* "HdrS" */
#define HDR_VERSION		0x206	/* u16: protocol, major << 8 | minor */
#define HDR_TYPE_OF_LOADER	0x210	/* u8 */
#define HDR_LOADFLAGS		0x211	/* u8 */
#define HDR_RAMDISK_IMAGE	0x218	/* u32 */
#define HDR_RAMDISK_SIZE	0x21c	/* u32 */
#define HDR_HEAP_END_PTR	0x224	/* u16 */
#define HDR_CMD_LINE_PTR	0x228	/* u32 */
#define HDR_INITRD_ADDR_MAX	0x22c	/* u32: highest address the initrd may occupy */
#define HDR_KERNEL_ALIGNMENT	0x230	/* u32 */
#define HDR_RELOCATABLE		0x234	/* u8 */
#define HDR_XLOADFLAGS		0x236	/* u16 (2.12+) */
#define HDR_CMDLINE_SIZE	0x238	/* u32: longest command line, without its NUL */
#define HDR_HW_SUBARCH		0x23c	/* u32 */
#define HDR_HW_SUBARCH_DATA	0x240	/* u64 */
#define HDR_SETUP_DATA		0x250	/* u64: list of struct setup_data */
#define HDR_PREF_ADDRESS	0x258	/* u64 */
#define HDR_INIT_SIZE		0x260	/* u32 */
#define HDR_MIN_END		0x264	/* every field read here lies below this */

/* Zero page fields outside the setup header (zero-page.rst). */
#define ZP_SIZE			0x1000
#define ZP_ACPI_RSDP_ADDR	0x070	/* u64 (2.14+) */
#define ZP_EXT_RAMDISK_IMAGE	0x0c0	/* u32: bits 63:32 of ramdisk_image */
#define ZP_EXT_RAMDISK_SIZE	0x0c4
#define ZP_EXT_CMD_LINE_PTR	0x0c8
#define ZP_E820_ENTRIES		0x1e8	/* u8 */
#define ZP_SENTINEL		0x1ef	/* u8: must stay 0, which says the loader zeroed the page */
#define ZP_E820_TABLE		0x2d0	/* 20-byte entries, up to 128 */
#define E820_ENTRY_SIZE		20

#define HDR_MAGIC_VALUE		0x53726448u	/* "HdrS" */
#define BOOT_FLAG_VALUE		0xaa55
#define PROTOCOL_MIN		0x020c	/* 2.12: xloadflags, so XLF_KERNEL_64 can be known */
#define PROTOCOL_RSDP		0x020e	/* 2.14: acpi_rsdp_addr */
#define SETUP_SECTS_DEFAULT	4	/* "if this field is 0, the real value is 4" */
#define SECTOR_SIZE		512
#define ENTRY64_OFFSET		0x200	/* the 64-bit entry: load address + 0x200 */
#define LOADER_UNDEFINED	0xff	/* type_of_loader: "undefined", no ID assigned */

#define LOADED_HIGH		(1u << 0)	/* loadflags: protected-mode code at 0x100000 */
#define XLF_KERNEL_64		(1u << 0)	/* xloadflags: has the 64-bit entry at +0x200 */
#define XLF_CAN_BE_LOADED_ABOVE_4G (1u << 1)

#define E820_RAM		1
#define E820_RESERVED		2

/* Boot GDT entries (SDM Vol. 3A 3.4.5): flat 4 GiB, accessed bit preset. */
#define GDT_CODE64		0x00af9b000000ffffull	/* G, L, P, DPL 0, code execute/read */
#define GDT_DATA		0x00cf93000000ffffull	/* G, D/B, P, DPL 0, data read/write */

/* Paging (SDM Vol. 3A 4.5): present | writable, and PS for a 2 MiB leaf. */
#define PTE_P			(1ull << 0)
#define PTE_RW			(1ull << 1)
#define PTE_PS			(1ull << 7)
#define PAGE_SIZE_4K		0x1000ull
#define PAGE_SIZE_2M		0x200000ull
#define PT_PML4			LINUX_PT_GPA
#define PT_PDPT			(LINUX_PT_GPA + 0x1000)
#define PT_PD			(LINUX_PT_GPA + 0x2000)	/* four, one per GiB */
#define PT_ENTRIES		512
#define IDENTITY_END		(1ull << 32)

/* What the checks learn from the header. */
struct setup_hdr {
	uint16_t version;
	uint8_t loadflags;
	uint16_t xloadflags;
	bool relocatable;
	uint32_t hdr_end;	/* one past the header's last byte */
	uint32_t initrd_addr_max;
	uint32_t kernel_alignment;
	uint32_t cmdline_size;
	uint32_t init_size;
	uint64_t pref_address;
	uint64_t kernel_offset;
	uint64_t kernel_size;
};

#define bz_fail(c, out, ...) fmt_fail((c), (out), sizeof(struct linux_plan), __VA_ARGS__)

/* A size for a message: "64 MiB" when it is whole MiB, else hex bytes. */
static void size_str(char *buf, size_t len, uint64_t bytes)
{
	if (bytes && !(bytes & 0xfffff))
		fmt_snprintf(buf, len, "%llu MiB", (unsigned long long)(bytes >> 20));
	else
		fmt_snprintf(buf, len, "0x%llx bytes", (unsigned long long)bytes);
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/*
 * Check the setup header of @img and read what the plan needs. The refusals
 * come in the order a reader would look: size, magic, boot flag, protocol,
 * header length, then the flags and fields of a 64-bit capable kernel.
 */
static int hdr_read(struct fmt_err *c, struct linux_plan *plan, const uint8_t *img, size_t len,
		    struct setup_hdr *h)
{
	uint32_t sects;

	memset(h, 0, sizeof(*h));
	if (!img)
		return bz_fail(c, plan, "bzImage: no image");
	if (len < HDR_MIN_END)
		return bz_fail(c, plan, "bzImage: image of %zu bytes is too short for a setup "
			       "header (needs 0x%x)", len, HDR_MIN_END);
	if (rd32(img + HDR_MAGIC) != HDR_MAGIC_VALUE)
		return bz_fail(c, plan, "bzImage: no \"HdrS\" magic at 0x%x: not a Linux bzImage",
			       HDR_MAGIC);
	if (rd16(img + HDR_BOOT_FLAG) != BOOT_FLAG_VALUE)
		return bz_fail(c, plan, "bzImage: boot_flag at 0x%x is 0x%04x, expected 0xaa55",
			       HDR_BOOT_FLAG, rd16(img + HDR_BOOT_FLAG));
	h->version = rd16(img + HDR_VERSION);
	if (h->version < PROTOCOL_MIN)
		return bz_fail(c, plan, "bzImage: boot protocol %u.%02u, need 2.12 or later for "
			       "the 64-bit entry (xloadflags)", h->version >> 8,
			       h->version & 0xff);
	h->hdr_end = 0x202u + img[HDR_JUMP_LEN];
	if (h->hdr_end < HDR_MIN_END || h->hdr_end > len)
		return bz_fail(c, plan, "bzImage: setup header ends at 0x%x (jump at 0x200), "
			       "need 0x%x..0x%zx (protocol 2.12 fields, within the image)",
			       h->hdr_end, HDR_MIN_END, len);
	h->loadflags = img[HDR_LOADFLAGS];
	if (!(h->loadflags & LOADED_HIGH))
		return bz_fail(c, plan, "bzImage: loadflags 0x%02x: LOADED_HIGH (bit 0) clear, a "
			       "zImage loaded low is not supported", h->loadflags);
	h->xloadflags = rd16(img + HDR_XLOADFLAGS);
	if (!(h->xloadflags & XLF_KERNEL_64))
		return bz_fail(c, plan, "bzImage: xloadflags 0x%04x: XLF_KERNEL_64 (bit 0) clear, "
			       "the kernel has no 64-bit entry", h->xloadflags);
	sects = img[HDR_SETUP_SECTS] ? img[HDR_SETUP_SECTS] : SETUP_SECTS_DEFAULT;
	h->kernel_offset = (uint64_t)(sects + 1) * SECTOR_SIZE;
	if (h->kernel_offset >= len)
		return bz_fail(c, plan, "bzImage: setup_sects %u puts the kernel at 0x%llx, past "
			       "the image's 0x%zx bytes", img[HDR_SETUP_SECTS],
			       (unsigned long long)h->kernel_offset, len);
	h->kernel_size = len - h->kernel_offset;
	if (h->kernel_size <= ENTRY64_OFFSET)
		return bz_fail(c, plan, "bzImage: protected-mode kernel of 0x%llx bytes does not "
			       "reach the 64-bit entry at +0x%x",
			       (unsigned long long)h->kernel_size, ENTRY64_OFFSET);
	/* a file cut short (a failed download or copy) would crash decompressing */
	if ((uint64_t)rd32(img + HDR_SYSSIZE) * 16 > h->kernel_size + 15)
		return bz_fail(c, plan, "bzImage: truncated: the header's syssize says the "
			       "protected-mode kernel is 0x%llx bytes, the file holds 0x%llx",
			       (unsigned long long)rd32(img + HDR_SYSSIZE) * 16,
			       (unsigned long long)h->kernel_size);
	h->kernel_alignment = rd32(img + HDR_KERNEL_ALIGNMENT);
	if (!is_pow2(h->kernel_alignment))
		return bz_fail(c, plan, "bzImage: kernel_alignment 0x%x is not a power of two",
			       h->kernel_alignment);
	h->relocatable = img[HDR_RELOCATABLE] != 0;
	h->initrd_addr_max = rd32(img + HDR_INITRD_ADDR_MAX);
	h->cmdline_size = rd32(img + HDR_CMDLINE_SIZE);
	h->pref_address = rd64(img + HDR_PREF_ADDRESS);
	h->init_size = rd32(img + HDR_INIT_SIZE);
	return 0;
}

/*
 * Where the kernel goes and what it occupies. The decompressor runs at
 * LOAD_PHYSICAL_ADDR (which pref_address holds) when not relocatable, and
 * when relocatable at its load address rounded up to kernel_alignment but
 * never below LOAD_PHYSICAL_ADDR (head_64.S). So pref_address is where
 * init_size is needed in either case, and loading a relocatable kernel
 * anywhere else would gain nothing: it goes at pref_address, a fixed one at
 * 1 MiB (boot.rst). Everything must lie below 4 GiB, inside the identity
 * map the kernel is entered with; all sums below stay under 2^34.
 */
static int plan_kernel(struct fmt_err *c, struct linux_plan *plan, const struct setup_hdr *h,
		       uint64_t mem_size)
{
	uint64_t run, end;
	char sz[32];

	if (h->pref_address < LINUX_HIGH_START || h->pref_address >= IDENTITY_END)
		return bz_fail(c, plan, "bzImage: pref_address 0x%llx is outside [1 MiB, 4 GiB)",
			       (unsigned long long)h->pref_address);
	plan->kernel_gpa = h->relocatable ? h->pref_address : LINUX_HIGH_START;
	run = h->pref_address;
	if (h->relocatable)
		run = MAX(ALIGN_UP(plan->kernel_gpa, (uint64_t)h->kernel_alignment), run);
	end = MAX(plan->kernel_gpa + h->kernel_size, run + h->init_size);
	if (end > IDENTITY_END)
		return bz_fail(c, plan, "bzImage: kernel needs [0x%llx, 0x%llx), past the 4 GiB "
			       "identity map", (unsigned long long)MIN(plan->kernel_gpa, run),
			       (unsigned long long)end);
	if (end > guest_ram_low(mem_size)) {
		size_str(sz, sizeof(sz), guest_ram_low(mem_size));
		return bz_fail(c, plan, "bzImage: kernel needs [0x%llx, 0x%llx) (init_size 0x%x "
			       "at 0x%llx), past the partition's %s%s",
			       (unsigned long long)MIN(plan->kernel_gpa, run),
			       (unsigned long long)end, h->init_size, (unsigned long long)run, sz,
			       guest_ram_high(mem_size) ? " below its MMIO window" : "");
	}
	plan->kernel_end = end;
	return 0;
}

/*
 * The initrd as high as allowed in the RAM below the MMIO window (inside the
 * identity map the kernel is entered with), page aligned, above everything
 * the kernel uses.
 */
static int plan_initrd(struct fmt_err *c, struct linux_plan *plan, const struct setup_hdr *h,
		       uint64_t mem_size, uint64_t initrd_size)
{
	uint64_t lo = ALIGN_UP(plan->kernel_end, PAGE_SIZE_4K);
	uint64_t hi = guest_ram_low(mem_size);
	char sz[32];

	if (!initrd_size)
		return 0;
	if (!(h->xloadflags & XLF_CAN_BE_LOADED_ABOVE_4G))
		hi = MIN(hi, (uint64_t)h->initrd_addr_max + 1);
	if (initrd_size > hi || hi - initrd_size < lo) {
		size_str(sz, sizeof(sz), initrd_size);
		return bz_fail(c, plan, "bzImage: initrd of %s does not fit between the kernel's "
			       "end 0x%llx and 0x%llx (%s)", sz, (unsigned long long)lo,
			       (unsigned long long)hi, hi < guest_ram_low(mem_size) ? "initrd_addr_max" :
			       guest_ram_high(mem_size) ? "the MMIO window" : "end of memory");
	}
	/* lo is page aligned and hi - initrd_size >= lo, so this stays >= lo. */
	plan->initrd_gpa = (hi - initrd_size) & ~(PAGE_SIZE_4K - 1);
	plan->initrd_size = initrd_size;
	return 0;
}

int linux_plan_load(const uint8_t *img, size_t len, uint64_t mem_size, uint64_t initrd_size,
		    struct linux_plan *out, char *why, size_t whylen)
{
	struct fmt_err c = { .msg = why, .len = why ? whylen : 0 };
	struct setup_hdr h;

	if (c.len)
		why[0] = 0;
	if (!out)
		return bz_fail(&c, NULL, "bzImage: no plan given");
	memset(out, 0, sizeof(*out));
	if (hdr_read(&c, out, img, len, &h))
		return -1;
	out->version = h.version;
	out->kernel_offset = h.kernel_offset;
	out->kernel_size = h.kernel_size;
	out->init_size = h.init_size;
	if (plan_kernel(&c, out, &h, mem_size))
		return -1;
	out->entry64 = out->kernel_gpa + ENTRY64_OFFSET;
	return plan_initrd(&c, out, &h, mem_size, initrd_size);
}

/* ---- an uncompressed kernel (vmlinux) ---- */

#define VMLINUX_VERSION		0x020f	/* 2.15: the fields below are all it needs */
#define VMLINUX_ALIGN		PAGE_SIZE_2M	/* head_64.S: a 2 MiB-aligned load address */
#define VMLINUX_CMDLINE_SIZE	2047	/* x86's COMMAND_LINE_SIZE, less the NUL */

/*
 * The setup header a bzImage would carry, as far as the kernel reads it
 * after decompression (and plan_initrd, linux_build_boot before it), into
 * @hdr (HDR_MIN_END bytes), and what hdr_read would have learnt from it.
 */
static void vmlinux_hdr(uint8_t hdr[HDR_MIN_END], struct setup_hdr *h, const struct linux_plan *plan)
{
	memset(hdr, 0, HDR_MIN_END);
	memset(h, 0, sizeof(*h));
	h->version = VMLINUX_VERSION;
	h->loadflags = LOADED_HIGH;
	h->xloadflags = XLF_KERNEL_64 | XLF_CAN_BE_LOADED_ABOVE_4G;
	h->hdr_end = HDR_MIN_END;
	h->initrd_addr_max = 0x7fffffff;
	h->kernel_alignment = (uint32_t)VMLINUX_ALIGN;
	h->cmdline_size = VMLINUX_CMDLINE_SIZE;
	h->init_size = (uint32_t)plan->init_size;
	h->pref_address = plan->kernel_gpa;
	/* as every bzImage's header has them: root read-only, the normal video mode */
	st16(hdr + HDR_ROOT_FLAGS, 1);
	st16(hdr + HDR_VID_MODE, 0xffff);
	st16(hdr + HDR_BOOT_FLAG, BOOT_FLAG_VALUE);
	hdr[HDR_JUMP_LEN] = (uint8_t)(HDR_MIN_END - 0x202);
	st32(hdr + HDR_MAGIC, HDR_MAGIC_VALUE);
	st16(hdr + HDR_VERSION, h->version);
	hdr[HDR_LOADFLAGS] = h->loadflags;
	st32(hdr + HDR_INITRD_ADDR_MAX, h->initrd_addr_max);
	st32(hdr + HDR_KERNEL_ALIGNMENT, h->kernel_alignment);
	st16(hdr + HDR_XLOADFLAGS, h->xloadflags);
	st32(hdr + HDR_CMDLINE_SIZE, h->cmdline_size);
	st64(hdr + HDR_PREF_ADDRESS, h->pref_address);
	st32(hdr + HDR_INIT_SIZE, h->init_size);
}

int linux_plan_vmlinux(uint64_t lowest, uint64_t highest, uint64_t entry, uint64_t mem_size,
		       uint64_t initrd_size, struct linux_plan *out, char *why, size_t whylen)
{
	struct fmt_err c = { .msg = why, .len = why ? whylen : 0 };
	uint8_t hdr[HDR_MIN_END];
	struct setup_hdr h;
	char sz[32];

	if (c.len)
		why[0] = 0;
	if (!out)
		return bz_fail(&c, NULL, "vmlinux: no plan given");
	memset(out, 0, sizeof(*out));
	if (lowest & (VMLINUX_ALIGN - 1))
		return bz_fail(&c, out, "vmlinux: loads at 0x%llx, not 2 MiB aligned: the kernel "
			       "runs where it is linked only from such an address",
			       (unsigned long long)lowest);
	if (lowest < LINUX_HIGH_START || highest <= lowest || highest > IDENTITY_END)
		return bz_fail(&c, out, "vmlinux: segments [0x%llx, 0x%llx) are not within "
			       "[1 MiB, 4 GiB)", (unsigned long long)lowest,
			       (unsigned long long)highest);
	if (entry < lowest || entry >= highest)
		return bz_fail(&c, out, "vmlinux: entry 0x%llx is outside its segments "
			       "[0x%llx, 0x%llx)", (unsigned long long)entry,
			       (unsigned long long)lowest, (unsigned long long)highest);
	if (ALIGN_UP(highest, PAGE_SIZE_4K) > guest_ram_low(mem_size)) {
		size_str(sz, sizeof(sz), guest_ram_low(mem_size));
		return bz_fail(&c, out, "vmlinux: kernel needs [0x%llx, 0x%llx), past the "
			       "partition's %s%s", (unsigned long long)lowest,
			       (unsigned long long)highest, sz,
			       guest_ram_high(mem_size) ? " below its MMIO window" : "");
	}
	out->vmlinux = true;
	out->version = VMLINUX_VERSION;
	out->kernel_gpa = lowest;
	out->kernel_end = ALIGN_UP(highest, PAGE_SIZE_4K);
	out->init_size = highest - lowest;
	out->entry64 = entry;
	vmlinux_hdr(hdr, &h, out);
	return plan_initrd(&c, out, &h, mem_size, initrd_size);
}

bool linux_image(const uint8_t *img, size_t len)
{
	return (img && len >= HDR_MAGIC + 4 && rd32(img + HDR_MAGIC) == HDR_MAGIC_VALUE) ||
	       elf_has_note(img, len, "Linux");
}

int linux_plan_image(const uint8_t *img, size_t len, uint64_t mem_size, uint64_t initrd_size,
		     struct linux_plan *out, struct elf_plan *segs, char *why, size_t whylen)
{
	memset(segs, 0, sizeof(*segs));
	if (!elf_has_note(img, len, "Linux"))
		return linux_plan_load(img, len, mem_size, initrd_size, out, why, whylen);
	if (out)
		memset(out, 0, sizeof(*out));
	if (elf_plan_load(img, len, LINUX_HIGH_START, guest_ram_low(mem_size), segs, why, whylen))
		return -1;
	if (!segs->is64) {
		fmt_snprintf(why, whylen, "vmlinux: a 32-bit ELF; Tempo boots 64-bit kernels");
		memset(segs, 0, sizeof(*segs));
		return -1;
	}
	if (linux_plan_vmlinux(segs->lowest, segs->highest, segs->entry, mem_size, initrd_size, out,
			       why, whylen)) {
		memset(segs, 0, sizeof(*segs));
		return -1;
	}
	return 0;
}

/* ---- what the kernel finds at its 64-bit entry ---- */

int linux_e820_map(uint64_t mem_size, struct linux_e820 map[LINUX_E820_ENTRIES])
{
	map[0] = (struct linux_e820){ 0, LINUX_RESERVED_END, E820_RESERVED };
	map[1] = (struct linux_e820){ LINUX_RESERVED_END, LINUX_LOW_USABLE_END -
				      LINUX_RESERVED_END, E820_RAM };
	map[2] = (struct linux_e820){ LINUX_LOW_USABLE_END, LINUX_HIGH_START -
				      LINUX_LOW_USABLE_END, E820_RESERVED };
	map[3] = (struct linux_e820){ LINUX_HIGH_START, guest_ram_low(mem_size) - LINUX_HIGH_START,
				      E820_RAM };
	if (!guest_ram_high(mem_size))
		return 4;
	map[4] = (struct linux_e820){ GUEST_RAM_HIGH_BASE, guest_ram_high(mem_size), E820_RAM };
	return 5;
}

/* Null, null, __BOOT_CS at 0x10, __BOOT_DS at 0x18 (boot.rst, 64-bit protocol). */
static void write_gdt(uint8_t *mem)
{
	uint8_t *gdt = mem + LINUX_GDT_GPA;

	memset(gdt, 0, LINUX_GDT_SIZE);
	st64(gdt + LINUX_BOOT_CS, GDT_CODE64);
	st64(gdt + LINUX_BOOT_DS, GDT_DATA);
}

/* PML4[0] -> PDPT, PDPT[0..3] -> four PDs of 512 2 MiB pages: 0-4 GiB identity. */
static void write_page_tables(uint8_t *mem)
{
	memset(mem + LINUX_PT_GPA, 0, LINUX_PT_SIZE);
	st64(mem + PT_PML4, PT_PDPT | PTE_P | PTE_RW);
	for (uint64_t i = 0; i < 4; i++)
		st64(mem + PT_PDPT + 8 * i, (PT_PD + i * PAGE_SIZE_4K) | PTE_P | PTE_RW);
	for (uint64_t i = 0; i < 4 * PT_ENTRIES; i++)
		st64(mem + PT_PD + 8 * i, i * PAGE_SIZE_2M | PTE_P | PTE_RW | PTE_PS);
}

/*
 * The zero page: zeroed (which leaves the sentinel 0 and every field this
 * loader does not know empty), the image's setup header over it as boot.rst
 * asks, then the loader's fields. loadflags is reduced to LOADED_HIGH: with
 * the 64-bit entry the real-mode setup code never runs, and it is the only
 * user of the heap CAN_USE_HEAP offers and of the segments KEEP_SEGMENTS
 * keeps. setup_data and hardware_subarch belong to the loader, which passes
 * no setup_data list and a plain PC.
 */
static void write_zero_page(uint8_t *mem, uint64_t mem_size, const uint8_t *img,
			    const struct setup_hdr *h, const struct linux_plan *plan,
			    uint64_t rsdp_gpa)
{
	uint8_t *zp = mem + LINUX_ZERO_PAGE_GPA;
	struct linux_e820 map[LINUX_E820_ENTRIES];
	int n;

	memset(zp, 0, ZP_SIZE);
	memcpy(zp + HDR_START, img + HDR_START, h->hdr_end - HDR_START);
	zp[HDR_TYPE_OF_LOADER] = LOADER_UNDEFINED;
	zp[HDR_LOADFLAGS] = LOADED_HIGH;
	st16(zp + HDR_HEAP_END_PTR, 0);
	st32(zp + HDR_CMD_LINE_PTR, (uint32_t)LINUX_CMDLINE_GPA);
	st32(zp + ZP_EXT_CMD_LINE_PTR, (uint32_t)(LINUX_CMDLINE_GPA >> 32));
	st32(zp + HDR_RAMDISK_IMAGE, (uint32_t)plan->initrd_gpa);
	st32(zp + ZP_EXT_RAMDISK_IMAGE, (uint32_t)(plan->initrd_gpa >> 32));
	st32(zp + HDR_RAMDISK_SIZE, (uint32_t)plan->initrd_size);
	st32(zp + ZP_EXT_RAMDISK_SIZE, (uint32_t)(plan->initrd_size >> 32));
	st32(zp + HDR_HW_SUBARCH, 0);
	st64(zp + HDR_HW_SUBARCH_DATA, 0);
	st64(zp + HDR_SETUP_DATA, 0);
	if (h->version >= PROTOCOL_RSDP)
		st64(zp + ZP_ACPI_RSDP_ADDR, rsdp_gpa);

	n = linux_e820_map(mem_size, map);
	zp[ZP_E820_ENTRIES] = (uint8_t)n;
	for (int i = 0; i < n; i++) {
		uint8_t *e = zp + ZP_E820_TABLE + i * E820_ENTRY_SIZE;

		st64(e, map[i].addr);
		st64(e + 8, map[i].size);
		st32(e + 16, map[i].type);
	}
}

int linux_build_boot(uint8_t *mem, uint64_t mem_size, const uint8_t *img, size_t len,
		     const struct linux_plan *plan, const char *cmdline, uint64_t rsdp_gpa,
		     char *why, size_t whylen)
{
	struct fmt_err c = { .msg = why, .len = why ? whylen : 0 };
	struct setup_hdr h;
	uint8_t hdr[HDR_MIN_END];
	uint64_t limit, low = guest_ram_low(mem_size);
	size_t n;
	char sz[32];

	if (c.len)
		why[0] = 0;
	if (!mem || !plan)
		return bz_fail(&c, NULL, "bzImage: no guest memory or no plan given");
	if (plan->vmlinux) {
		/* the header is Tempo's: the zero page is made from it, not from @img */
		vmlinux_hdr(hdr, &h, plan);
		img = hdr;
	} else if (hdr_read(&c, NULL, img, len, &h)) {
		return -1;
	}
	if (low <= LINUX_HIGH_START) {
		size_str(sz, sizeof(sz), mem_size);
		return bz_fail(&c, NULL, "bzImage: a partition of %s has no RAM above 1 MiB", sz);
	}
	if (!plan->vmlinux && (plan->version != h.version || plan->kernel_offset != h.kernel_offset ||
			       plan->kernel_size != h.kernel_size))
		return bz_fail(&c, NULL, "bzImage: the plan was not made for this image");
	if (plan->kernel_gpa < LINUX_HIGH_START || plan->kernel_end > low ||
	    plan->kernel_gpa > plan->kernel_end ||
	    plan->kernel_end - plan->kernel_gpa < plan->kernel_size)
		return bz_fail(&c, NULL, "bzImage: planned kernel [0x%llx, 0x%llx) is not within "
			       "RAM from 1 MiB to 0x%llx", (unsigned long long)plan->kernel_gpa,
			       (unsigned long long)plan->kernel_end,
			       (unsigned long long)low);
	if (plan->initrd_size ? plan->initrd_gpa < LINUX_HIGH_START ||
	    plan->initrd_gpa > low || plan->initrd_size > low - plan->initrd_gpa :
	    plan->initrd_gpa != 0)
		return bz_fail(&c, NULL, "bzImage: planned initrd [0x%llx, +0x%llx) is not within "
			       "RAM from 1 MiB to 0x%llx", (unsigned long long)plan->initrd_gpa,
			       (unsigned long long)plan->initrd_size,
			       (unsigned long long)low);
	if (rsdp_gpa >= low)
		return bz_fail(&c, NULL, "bzImage: RSDP at 0x%llx is outside guest memory",
			       (unsigned long long)rsdp_gpa);

	/* cmdline_size excludes the NUL (boot.rst); strnlen never reads past the limit. */
	limit = MIN((uint64_t)h.cmdline_size, (uint64_t)LINUX_CMDLINE_MAX - 1);
	n = cmdline ? strnlen(cmdline, LINUX_CMDLINE_MAX + 1) : 0;
	if (n > limit)
		return bz_fail(&c, NULL, "bzImage: command line of %s%zu bytes exceeds the "
			       "kernel's limit of %llu (%s)", n > LINUX_CMDLINE_MAX ?
			       "at least " : "", n, (unsigned long long)limit,
			       limit == h.cmdline_size ? "cmdline_size" : "LINUX_CMDLINE_MAX - 1");

	write_gdt(mem);
	write_page_tables(mem);
	write_zero_page(mem, mem_size, img, &h, plan, rsdp_gpa);
	memset(mem + LINUX_CMDLINE_GPA, 0, LINUX_CMDLINE_MAX);
	if (n)
		memcpy(mem + LINUX_CMDLINE_GPA, cmdline, n);
	return 0;
}

const char *linux_partition_cmdline(const char *cfg, char *buf, size_t len)
{
	const char *w = cfg;
	size_t n = strlen(cfg);

	while (*w) {
		while (*w == ' ')
			w++;
		if (!strncmp(w, "noapic", 6) && (w[6] == ' ' || !w[6]))
			return cfg;
		while (*w && *w != ' ')
			w++;
	}
	if (n + (n ? 1 : 0) + sizeof("noapic") > len)
		return NULL;
	fmt_snprintf(buf, len, "%s%snoapic", cfg, n ? " " : "");
	return buf;
}
