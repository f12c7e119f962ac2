// SPDX-License-Identifier: MIT
/*
 * What a guest finds in memory at entry: ACPI tables and a multiboot1 or
 * multiboot2 information block, laid out as GRUB and a PC BIOS would leave
 * them.
 *
 * Guest memory is written byte by byte with explicit little-endian stores
 * through a bounded writer: no structure is cast onto guest memory (the
 * tables are byte-packed and the host view need not be aligned), and every
 * store is checked against both the area the object may use and the end of
 * guest memory, so a builder can fail but never write outside @mem. Each
 * block is emitted twice, dry to measure it and then for real, so a builder
 * that fails has written nothing at all.
 *
 * References: ACPI 6.5, 5.2.5 (RSDP), 5.2.6 (table header), 5.2.7 (RSDT),
 * 5.2.8 (XSDT), 5.2.9 (FADT), 5.2.3.2 (Generic Address Structure), 5.2.11.1
 * (DSDT), 5.2.12 (MADT, types 0 and 9), 4.1 (hardware-reduced ACPI), 4.8.3.7
 * (sleep control and status registers), 6.4 (resource descriptors), 20.2
 * (AML grammar); PCI Firmware Specification 3.2, 4.1 (host bridges in ACPI);
 * Multiboot2
 * Specification 2.0, 3.6 (boot information); Multiboot Specification
 * 0.6.96, 3.3.
 */
#include "hv/core/guest_boot.h"
#include "hv/core/chan_pci_abi.h"
#include "hv/core/guest_ram.h"
#include "hv/core/io_policy.h"
#include "hv/core/vuart.h"
#include "hv/lib/lib.h"

#include <stdbool.h>

/* ---- bounded little-endian writer ---- */

struct wr {
	uint8_t *mem;	/* NULL: a dry run that only measures */
	uint64_t pos;	/* guest-physical cursor */
	uint64_t end;	/* exclusive limit: min(area end, the RAM below the MMIO window) */
	uint64_t mem_size;	/* guest RAM, for what the blocks describe */
	bool overflow;	/* a store would have crossed end; nothing past it was written */
};

static void wr_init(struct wr *w, uint8_t *mem, uint64_t mem_size, uint64_t start,
		    uint64_t area)
{
	w->mem = mem;
	w->mem_size = mem_size;
	w->pos = start;
	w->end = MIN(start + area, guest_ram_low(mem_size));
	w->overflow = start >= w->end;
}

/*
 * Claim @n bytes at the cursor. Returns where to store them, or NULL in a
 * dry run or when they do not fit (which poisons the writer for good).
 */
static uint8_t *wr_take(struct wr *w, uint64_t n)
{
	uint8_t *p;

	if (w->overflow || n > w->end - w->pos) {
		w->overflow = true;
		return NULL;
	}
	p = w->mem ? w->mem + w->pos : NULL;
	w->pos += n;
	return p;
}

static void st8(uint8_t *p, uint8_t v)
{
	p[0] = v;
}

static void put8(struct wr *w, uint8_t v)
{
	uint8_t *p = wr_take(w, 1);

	if (p)
		st8(p, v);
}

static void put16(struct wr *w, uint16_t v)
{
	uint8_t *p = wr_take(w, 2);

	if (p)
		st16(p, v);
}

static void put32(struct wr *w, uint32_t v)
{
	uint8_t *p = wr_take(w, 4);

	if (p)
		st32(p, v);
}

static void put64(struct wr *w, uint64_t v)
{
	uint8_t *p = wr_take(w, 8);

	if (p)
		st64(p, v);
}

static void put_bytes(struct wr *w, const void *src, uint64_t n)
{
	uint8_t *p = wr_take(w, n);

	if (p)
		memcpy(p, src, n);
}

static void put_zero(struct wr *w, uint64_t n)
{
	uint8_t *p = wr_take(w, n);

	if (p)
		memset(p, 0, n);
}

/* Zero-pad the cursor up to a multiple of @align (a power of two). */
static void put_align(struct wr *w, uint64_t align)
{
	put_zero(w, ALIGN_UP(w->pos, align) - w->pos);
}

static uint8_t sum8(const uint8_t *p, uint64_t n)
{
	uint8_t s = 0;

	while (n--)
		s += *p++;
	return s;
}

/*
 * Patch fields written earlier, at guest-physical @gpa: callers only patch
 * what they wrote before, so the bytes are in bounds once the writer is
 * known not to have overflowed; a dry run has nothing to patch.
 */
static bool can_patch(const struct wr *w)
{
	return w->mem && !w->overflow;
}

static void patch32(struct wr *w, uint64_t gpa, uint32_t v)
{
	if (can_patch(w))
		st32(w->mem + gpa, v);
}

static void patch64(struct wr *w, uint64_t gpa, uint64_t v)
{
	if (can_patch(w))
		st64(w->mem + gpa, v);
}

/* Make [gpa, gpa+len) sum to 0 mod 256 by its byte at @csum (ACPI 5.2.5.3, 5.2.6). */
static void patch_checksum(struct wr *w, uint64_t gpa, uint64_t len, uint64_t csum)
{
	if (!can_patch(w))
		return;
	w->mem[csum] = 0;
	w->mem[csum] = (uint8_t)-sum8(w->mem + gpa, len);
}

typedef void emit_fn(struct wr *w, const struct guest_platform *p, uint64_t arg);

/*
 * Run @emit over [@start, @start + @area) of guest memory: first dry, to
 * learn whether it fits, then for real, so a block that does not fit leaves
 * guest memory untouched rather than half written.
 */
static bool emit_twice(uint8_t *mem, uint64_t mem_size, uint64_t start, uint64_t area,
		       emit_fn *emit, const struct guest_platform *p, uint64_t arg)
{
	struct wr w;

	wr_init(&w, NULL, mem_size, start, area);
	emit(&w, p, arg);
	if (w.overflow)
		return false;
	wr_init(&w, mem, mem_size, start, area);
	emit(&w, p, arg);
	return !w.overflow;
}

/*
 * Length of a caller string including its NUL, or 0 when it is longer than
 * any area here could hold (so an unterminated string is not read forever).
 * NULL counts as the empty string.
 */
static uint64_t str_size(const char *s)
{
	size_t n;

	if (!s)
		return 1;
	n = strnlen(s, GUEST_INFO_MAX);
	return n == GUEST_INFO_MAX ? 0 : n + 1;
}

/* Write @s with its NUL; an oversized string poisons the writer. */
static void put_str(struct wr *w, const char *s)
{
	uint64_t n = str_size(s);

	if (!n) {
		w->overflow = true;
		return;
	}
	if (!s)
		put8(w, 0);
	else
		put_bytes(w, s, n);
}

/* ---- ACPI ---- */

#define ACPI_RSDP_LEN		36
#define ACPI_RSDP_V1_LEN	20
#define ACPI_HDR_LEN		36
#define ACPI_TABLE_ALIGN	16	/* as firmware places them; the RSDP must be 16-aligned */
#define ACPI_LAPIC_ADDR		0xfee00000u

#define ACPI_OEM_ID		"TEMPO "	/* 6 bytes */
#define ACPI_OEM_TABLE_ID	"TEMPOHV "	/* 8 bytes */
#define ACPI_OEM_REVISION	1
#define ACPI_CREATOR_ID		"TMPO"
#define ACPI_CREATOR_REVISION	1

#define MADT_REVISION		3	/* ACPI 4.0: the first with x2APIC entries */
#define MADT_LAPIC		0
#define MADT_LAPIC_LEN		8
#define MADT_IOAPIC		1
#define MADT_IOAPIC_LEN		12
#define MADT_IRQ_OVERRIDE	2
#define MADT_IRQ_OVERRIDE_LEN	10
#define MADT_X2APIC		9
#define MADT_X2APIC_LEN		16
#define MADT_ENABLED		1u	/* Local APIC flags bit 0 */
/*
 * ACPI 6.5 5.2.12.12: x2APIC entries are for IDs of 255 and above; 255
 * itself is the xAPIC broadcast ID, so a type 0 entry cannot carry it.
 */
#define MADT_XAPIC_MAX_ID	254

/* FADT revision 6 (ACPI 6.5 5.2.9): field offsets, 276 bytes in all. */
#define FADT_REVISION		6
#define FADT_MINOR_VERSION	5	/* ACPI 6.5 */
#define FADT_LEN		276
#define FADT_IAPC_BOOT_ARCH	109	/* u16 */
#define FADT_FLAGS		112	/* u32 */
#define FADT_RESET_REG		116	/* GAS */
#define FADT_RESET_VALUE	128	/* u8 */
#define FADT_MINOR		131	/* u8 */
#define FADT_X_DSDT		140	/* u64 */
#define FADT_SLEEP_CONTROL	244	/* GAS */
#define FADT_SLEEP_STATUS	256	/* GAS */
#define FADT_HYPERVISOR_ID	268	/* 8 bytes */
/*
 * IA-PC boot architecture flags (5.2.9.3): no VGA to probe, no CMOS RTC.
 * Bit 1 (8042) is left clear: there is no keyboard controller, and Linux
 * then does not probe ports 0x60/0x64. Bit 0 clear: no legacy (ISA) devices.
 * Bit 3 (MSI not supported) is left clear: the channel functions' doorbell
 * is an MSI, and Linux turns MSI off for good when it is set (pci_no_msi()
 * from acpi_pci_init()); nothing in a hardware-reduced FADT stands in for it.
 */
#define IAPC_VGA_NOT_PRESENT	(1u << 2)
#define IAPC_MSI_NOT_SUPPORTED	(1u << 3)
#define IAPC_CMOS_RTC_NOT_PRESENT (1u << 5)
#define IAPC_BOOT_ARCH_FLAGS	(IAPC_VGA_NOT_PRESENT | IAPC_CMOS_RTC_NOT_PRESENT)
_Static_assert(!(IAPC_BOOT_ARCH_FLAGS & IAPC_MSI_NOT_SUPPORTED), "MSI is supported");
#define FADT_HW_REDUCED_ACPI	(1u << 20)	/* fixed feature flags: no fixed hardware, no SCI */
/*
 * FORCE_APIC_PHYSICAL_DESTINATION_MODE: with an IOAPIC, Linux leaves x2APIC
 * mode (no interrupt remapping); in xAPIC mode physical destinations name
 * the vCPU's APIC id. A hint: the virtual IOAPIC follows logical IDs too.
 */
#define FADT_APIC_PHYSICAL	(1u << 19)
#define FADT_RESET_REG_SUP	(1u << 10)	/* RESET_REG is there: a reboot writes it */
#define FADT_HYPERVISOR_VENDOR	"TEMPO   "
#define GAS_SYSTEM_IO		1	/* GAS address space ID */
#define GAS_ACCESS_BYTE		1
#define DSDT_REVISION		2	/* 64-bit AML integers */

/*
 * The DSDT's AML (ACPI 6.5 20.2): Name (_S5, Package () {5, 5, 0, 0}) at the
 * root, the S5 sleep type for both sleep type registers (Linux writes the
 * first, SLP_TYPa, as SLP_TYP to the sleep control register); the two zeroes
 * are reserved. Then the virtual 16550 as a PNP0501 device with its ports
 * and no interrupt (6.4.2.5 I/O port descriptor): Linux's 8250 driver takes
 * it as ttyS0 with IRQ 0, which it polls, where the legacy port it would
 * otherwise assume has IRQ 4, which no interrupt controller here raises.
 *
 *   Device (\_SB.COM1) {
 *       Name (_HID, EisaId ("PNP0501"))
 *       Name (_UID, 1)
 *       Name (_CRS, ResourceTemplate () { IO (Decode16, 0x3F8, 0x3F8, 1, 8) })
 *   }
 */
static const uint8_t dsdt_aml[] = {
	0x08,			/* NameOp */
	'_', 'S', '5', '_',	/* NameSeg "_S5_" (relative to the root, where it stands) */
	0x12,			/* PackageOp */
	0x08,			/* PkgLength: 8 bytes, this one included, to the package's end */
	0x04,			/* NumElements */
	0x0a, GUEST_ACPI_S5_SLP_TYP,	/* BytePrefix 5: SLP_TYPa */
	0x0a, GUEST_ACPI_S5_SLP_TYP,	/* BytePrefix 5: SLP_TYPb */
	0x00,			/* ZeroOp: reserved */
	0x00,			/* ZeroOp: reserved */
	0x5b, 0x82,		/* DeviceOp */
	0x2e,			/* PkgLength: 46 bytes, this one included */
	'\\', 0x2e, '_', 'S', 'B', '_', 'C', 'O', 'M', '1',	/* \_SB.COM1 (RootChar, DualNamePrefix) */
	0x08, '_', 'H', 'I', 'D',	/* NameOp _HID */
	0x0c, 0x41, 0xd0, 0x05, 0x01,	/* DWordPrefix EisaId ("PNP0501") = 0x0105D041 */
	0x08, '_', 'U', 'I', 'D', 0x01,	/* NameOp _UID OneOp */
	0x08, '_', 'C', 'R', 'S',	/* NameOp _CRS */
	0x11, 0x0d, 0x0a, 0x0a,		/* BufferOp, PkgLength 13, BytePrefix size 10 */
	0x47, 0x01,			/* I/O port descriptor, 16-bit decode */
	VUART_BASE & 0xff, VUART_BASE >> 8, VUART_BASE & 0xff, VUART_BASE >> 8,	/* min, max */
	0x01, VUART_PORTS,		/* alignment 1, length 8 */
	0x79, 0x00,			/* End Tag, checksum 0: "treat as valid" */
};
_Static_assert(sizeof(dsdt_aml) == 14 + 3 + 45, "the device's PkgLength is 46");

/* The standard 36-byte header; length and checksum are patched by acpi_end(). */
static uint64_t acpi_begin(struct wr *w, const char sig[4], uint8_t revision)
{
	uint64_t start;

	put_align(w, ACPI_TABLE_ALIGN);
	start = w->pos;
	put_bytes(w, sig, 4);
	put32(w, 0);			/* length */
	put8(w, revision);
	put8(w, 0);			/* checksum */
	put_bytes(w, ACPI_OEM_ID, 6);
	put_bytes(w, ACPI_OEM_TABLE_ID, 8);
	put32(w, ACPI_OEM_REVISION);
	put_bytes(w, ACPI_CREATOR_ID, 4);
	put32(w, ACPI_CREATOR_REVISION);
	return start;
}

static void acpi_end(struct wr *w, uint64_t start)
{
	uint32_t len = (uint32_t)(w->pos - start);

	patch32(w, start + 4, len);
	patch_checksum(w, start, len, start + 9);
}

static bool cpus_valid(const struct guest_platform *p)
{
	if (!p->cpu_count || p->cpu_count > GUEST_MAX_CPUS)
		return false;
	/* The same ID twice would make two CPUs one; an OS keeps only the first. */
	for (uint32_t i = 0; i < p->cpu_count; i++)
		for (uint32_t j = 0; j < i; j++)
			if (p->apic_ids[i] == p->apic_ids[j])
				return false;
	return true;
}

static void madt_entries(struct wr *w, const struct guest_platform *p)
{
	for (uint32_t i = 0; i < p->cpu_count; i++) {
		uint32_t id = p->apic_ids[i];

		/* The UID is the CPU's index, [0] being the boot vCPU. */
		if (id <= MADT_XAPIC_MAX_ID) {
			put8(w, MADT_LAPIC);
			put8(w, MADT_LAPIC_LEN);
			put8(w, (uint8_t)i);	/* ACPI processor UID */
			put8(w, (uint8_t)id);
			put32(w, MADT_ENABLED);
		} else {
			put8(w, MADT_X2APIC);
			put8(w, MADT_X2APIC_LEN);
			put16(w, 0);		/* reserved */
			put32(w, id);
			put32(w, MADT_ENABLED);
			put32(w, i);		/* ACPI processor UID */
		}
	}
	if (!p->ioapic)
		return;
	put8(w, MADT_IOAPIC);
	put8(w, MADT_IOAPIC_LEN);
	put8(w, 0);			/* I/O APIC id: the virtual one's reset value */
	put8(w, 0);
	put32(w, GUEST_IOAPIC_ADDR);
	put32(w, 0);			/* its GSI base */
	for (uint32_t i = 0; i < p->irq_override_count && i < GUEST_IRQ_OVERRIDES_MAX; i++) {
		put8(w, MADT_IRQ_OVERRIDE);
		put8(w, MADT_IRQ_OVERRIDE_LEN);
		put8(w, 0);		/* bus: ISA */
		put8(w, p->irq_overrides[i].source);
		put32(w, p->irq_overrides[i].gsi);
		put16(w, p->irq_overrides[i].flags);
	}
}

/* A Generic Address Structure (5.2.3.2) for an 8-bit I/O port, byte access. */
static void put_gas_io8(struct wr *w, uint16_t port)
{
	put8(w, GAS_SYSTEM_IO);
	put8(w, 8);			/* register bit width */
	put8(w, 0);			/* register bit offset */
	put8(w, GAS_ACCESS_BYTE);
	put64(w, port);
}

/*
 * A hardware-reduced FADT (ACPI 6.5 4.1): no PM1 blocks, PM timer, GPEs or
 * SCI, so every legacy field stays 0; sleep goes through the sleep control
 * and status registers (4.8.3.7) at @port and @port + 1.
 */
static uint64_t fadt_emit(struct wr *w, uint16_t port, uint64_t dsdt, bool ioapic)
{
	uint64_t fadt = acpi_begin(w, "FACP", FADT_REVISION);

	put_zero(w, FADT_IAPC_BOOT_ARCH - ACPI_HDR_LEN);	/* FACS, DSDT (X_DSDT used), ... */
	put16(w, IAPC_BOOT_ARCH_FLAGS);
	put8(w, 0);						/* reserved */
	put32(w, FADT_HW_REDUCED_ACPI | FADT_RESET_REG_SUP | (ioapic ? FADT_APIC_PHYSICAL : 0));
	put_gas_io8(w, IO_RESET_PORT);				/* RESET_REG (hv/exit/io.c) */
	put8(w, IO_RESET_VALUE);				/* RESET_VALUE */
	put_zero(w, FADT_MINOR - (FADT_RESET_VALUE + 1));	/* ARM_BOOT_ARCH */
	put8(w, FADT_MINOR_VERSION);
	put64(w, 0);						/* X_FIRMWARE_CTRL: no FACS */
	put64(w, dsdt);						/* X_DSDT */
	put_zero(w, FADT_SLEEP_CONTROL - (FADT_X_DSDT + 8));	/* X_PM1a_EVT_BLK .. X_GPE1_BLK */
	put_gas_io8(w, port);					/* SLEEP_CONTROL_REG */
	put_gas_io8(w, (uint16_t)(port + 1));			/* SLEEP_STATUS_REG */
	put_bytes(w, FADT_HYPERVISOR_VENDOR, 8);
	acpi_end(w, fadt);
	return fadt;
}

/*
 * The PCI host bridge (PCI Firmware 3.2, 4.1.1; ACPI 6.5 6.4.3.5, 6.4.2.5):
 *
 *   Device (\_SB.PCI0) {
 *       Name (_HID, EisaId ("PNP0A03"))
 *       Name (_UID, 0)
 *       Name (_BBN, 0)
 *       Name (_SEG, 0)
 *       Name (_PRT, Package () {         with pci_intx: one entry each
 *           Package () { 0xDDDDFFFF, pin, Zero, GSI } })
 *       Name (_CRS, ResourceTemplate () {
 *           WordBusNumber (ResourceProducer, MinFixed, MaxFixed, PosDecode,
 *                          0, 0, 0, 0, 1)
 *           IO (Decode16, 0xCF8, 0xCF8, 1, 8)
 *           DWordMemory (ResourceProducer, PosDecode, MinFixed, MaxFixed,
 *                        NonCacheable, ReadWrite,
 *                        0, 0xFEB00000, 0xFEBFFFFF, 0, 0x100000)
 *           QWordMemory (ResourceProducer, PosDecode, MinFixed, MaxFixed,
 *                        Prefetchable, ReadWrite,
 *                        0, start, end - 1, 0, end - start)   one per range
 *           WordIO (ResourceProducer, MinFixed, MaxFixed, PosDecode, EntireRange,
 *                   0, start, end - 1, 0, end - start)   one per pci_io range
 *           QWordMemory (ResourceProducer, PosDecode, MinFixed, MaxFixed,
 *                        NonCacheable, ReadWrite,
 *                        0, start, end - 1, 0, end - start)   one per pci_mem range
 *       })
 *   }
 *
 * The windows are producers (general flags bit 0 clear), so Linux takes
 * them as the bridge's apertures; it drops the 0xCF8 descriptor itself
 * (the config ports are no window). The DWordMemory window holds the BAR0s
 * (TEMPO_PCI_BAR0_BASE, below the IOAPIC's range); each QWordMemory window
 * the BAR2s it names, prefetchable as they are. Both being where the BARs
 * already are, Linux keeps the addresses the hypervisor gave them.
 */
#define AML_NAME_OP		0x08
#define AML_ZERO_OP		0x00
#define AML_DWORD_PREFIX	0x0c
#define AML_BYTE_PREFIX		0x0a
#define AML_WORD_PREFIX		0x0b
#define AML_BUFFER_OP		0x11
#define AML_EXT_OP		0x5b
#define AML_DEVICE_OP		0x82	/* after AML_EXT_OP */
#define EISAID_PNP0A03		0x030ad041u	/* "PNP" compressed, product 0x0A03 */

#define RES_IO			0x47	/* small item: I/O port, 8 bytes */
#define RES_IO_DECODE16		0x01
#define RES_END_TAG		0x79	/* small item: end, checksum 0 follows */
#define RES_DWORD_SPACE		0x87	/* large items: address space descriptors */
#define RES_WORD_SPACE		0x88
#define RES_QWORD_SPACE		0x8a
#define RES_TYPE_MEMORY		0
#define RES_TYPE_IO		1
#define RES_TYPE_BUS		2
#define RES_IO_ENTIRE		0x03	/* type-specific: _RNG, both ISA and non-ISA ports */
#define RES_FLAGS_WINDOW	0x0c	/* MaxFixed, MinFixed, PosDecode, producer */
#define RES_MEM_RW		0x01	/* type-specific: ReadWrite ... */
#define RES_MEM_PREFETCH	0x06	/* ... and _MEM 3, prefetchable (0: non-cacheable) */
#define RES_WORD_LEN		16	/* each descriptor whole, tag and length included */
#define RES_IO_LEN		8
#define RES_DWORD_LEN		26
#define RES_QWORD_LEN		46
#define RES_END_LEN		2
#define PCI0_PATH_LEN		10	/* \_SB_PCI0 */
#define PCI0_NAMES_LEN		(10 + 3 * 6)	/* _HID (a DWord), _UID, _BBN, _SEG (Zero) */

static bool range_empty(const struct guest_range *r)
{
	return r->start == r->end;
}

static bool pci_on(const struct guest_platform *p)
{
	return p->pci_bus && p->acpi_pm_port;
}

/* The bytes a PkgLength takes for @body bytes after it (ACPI 6.5 20.2.4). */
static uint32_t pkg_length_size(uint32_t body)
{
	if (body + 1 <= 0x3f)
		return 1;
	if (body + 2 <= 0xfff)
		return 2;
	if (body + 3 <= 0xfffff)
		return 3;
	return 4;
}

/*
 * A PkgLength counts its own bytes. One byte holds up to 63 in bits 5:0;
 * otherwise bits 7:6 say how many bytes follow, bits 3:0 are the length's
 * low nibble and each following byte the next 8 bits.
 */
static void put_pkg_length(struct wr *w, uint32_t body)
{
	uint32_t n = pkg_length_size(body), len = body + n;

	if (n == 1) {
		put8(w, (uint8_t)len);
		return;
	}
	put8(w, (uint8_t)((n - 1) << 6 | (len & 0xf)));
	for (uint32_t i = 1; i < n; i++)
		put8(w, (uint8_t)(len >> (4 + 8 * (i - 1))));
}

static void put_name_seg(struct wr *w, const char seg[4])
{
	put8(w, AML_NAME_OP);
	put_bytes(w, seg, 4);
}

/* An address space descriptor's header: tag, length, type, flags (6.4.3.5.1-3). */
static void put_space_header(struct wr *w, uint8_t tag, uint16_t total, uint8_t type,
			     uint8_t type_flags)
{
	put8(w, tag);
	put16(w, (uint16_t)(total - 3));	/* the length field counts what follows it */
	put8(w, type);
	put8(w, RES_FLAGS_WINDOW);
	put8(w, type_flags);
}

static uint32_t nonempty(const struct guest_range *r, uint32_t count)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < count; i++)
		n += !range_empty(&r[i]);
	return n;
}

static uint32_t pci0_mem64_count(const struct guest_platform *p)
{
	return nonempty(p->pci_mem64, p->pci_mem64_count);
}

/* A QWordMemory producer window [@r->start, @r->end), @type_flags (6.4.3.5.1). */
static void put_qword_window(struct wr *w, const struct guest_range *r, uint8_t type_flags)
{
	put_space_header(w, RES_QWORD_SPACE, RES_QWORD_LEN, RES_TYPE_MEMORY, type_flags);
	put64(w, 0);
	put64(w, r->start);
	put64(w, r->end - 1);
	put64(w, 0);
	put64(w, r->end - r->start);
}

#define AML_PACKAGE_OP		0x12
#define PRT_ENTRY_LEN		16	/* PackageOp, PkgLength, 4, DWord, Byte, Zero, DWord */

/* The bytes of Name (_PRT, Package () {...}) for @p's INTx, 0 without any. */
static uint32_t prt_len(const struct guest_platform *p)
{
	uint32_t body = 1 + PRT_ENTRY_LEN * p->pci_intx_count;

	return p->pci_intx_count ? 5 + 1 + pkg_length_size(body) + body : 0;
}

/*
 * Name (_PRT, Package () { Package () { 0xDDDDFFFF, pin, Zero, GSI }, ... })
 * (ACPI 6.5 6.2.13: the address's function field all ones means any
 * function of the device; a Zero source makes the last field a GSI).
 */
static void prt_emit(struct wr *w, const struct guest_platform *p)
{
	if (!p->pci_intx_count)
		return;
	put_name_seg(w, "_PRT");
	put8(w, AML_PACKAGE_OP);
	put_pkg_length(w, 1 + PRT_ENTRY_LEN * p->pci_intx_count);
	put8(w, (uint8_t)p->pci_intx_count);
	for (uint32_t i = 0; i < p->pci_intx_count; i++) {
		put8(w, AML_PACKAGE_OP);
		put_pkg_length(w, PRT_ENTRY_LEN - 2);
		put8(w, 4);
		put8(w, AML_DWORD_PREFIX);
		put32(w, (uint32_t)p->pci_intx[i].device << 16 | 0xffff);
		put8(w, AML_BYTE_PREFIX);
		put8(w, p->pci_intx[i].pin);
		put8(w, AML_ZERO_OP);
		put8(w, AML_DWORD_PREFIX);
		put32(w, p->pci_intx[i].gsi);
	}
}

static void pci0_emit(struct wr *w, const struct guest_platform *p)
{
	uint32_t crs = RES_WORD_LEN + RES_IO_LEN + RES_DWORD_LEN +
		       RES_QWORD_LEN * pci0_mem64_count(p) +
		       RES_WORD_LEN * nonempty(p->pci_io, p->pci_io_count) +
		       RES_QWORD_LEN * nonempty(p->pci_mem, p->pci_mem_count) + RES_END_LEN;
	uint32_t size_len = crs <= 0xff ? 2 : 3;	/* BytePrefix or WordPrefix BufferSize */
	uint32_t buffer = size_len + crs;
	uint32_t device = PCI0_PATH_LEN + PCI0_NAMES_LEN + prt_len(p) + 5 + 1 +
			  pkg_length_size(buffer) + buffer;

	put8(w, AML_EXT_OP);
	put8(w, AML_DEVICE_OP);
	put_pkg_length(w, device);
	put_bytes(w, "\\" "\x2e" "_SB_" "PCI0", PCI0_PATH_LEN);	/* RootChar, DualNamePrefix */
	put_name_seg(w, "_HID");
	put8(w, AML_DWORD_PREFIX);
	put32(w, EISAID_PNP0A03);
	put_name_seg(w, "_UID");
	put8(w, AML_ZERO_OP);
	put_name_seg(w, "_BBN");
	put8(w, AML_ZERO_OP);
	put_name_seg(w, "_SEG");
	put8(w, AML_ZERO_OP);
	prt_emit(w, p);

	put_name_seg(w, "_CRS");
	put8(w, AML_BUFFER_OP);
	put_pkg_length(w, buffer);
	if (size_len == 2) {
		put8(w, AML_BYTE_PREFIX);
		put8(w, (uint8_t)crs);
	} else {
		put8(w, AML_WORD_PREFIX);
		put16(w, (uint16_t)crs);
	}

	put_space_header(w, RES_WORD_SPACE, RES_WORD_LEN, RES_TYPE_BUS, 0);
	put16(w, 0);			/* granularity */
	put16(w, 0);			/* bus 0 ... */
	put16(w, 0);			/* ... to bus 0 */
	put16(w, 0);			/* translation */
	put16(w, 1);			/* one bus */

	put8(w, RES_IO);
	put8(w, RES_IO_DECODE16);
	put16(w, TEMPO_PCI_CF8);	/* minimum */
	put16(w, TEMPO_PCI_CF8);	/* maximum */
	put8(w, 1);			/* alignment */
	put8(w, TEMPO_PCI_CFC + 4 - TEMPO_PCI_CF8);

	put_space_header(w, RES_DWORD_SPACE, RES_DWORD_LEN, RES_TYPE_MEMORY, RES_MEM_RW);
	put32(w, 0);
	put32(w, TEMPO_PCI_BAR0_BASE);
	put32(w, TEMPO_PCI_MMIO_WINDOW_END - 1);
	put32(w, 0);
	put32(w, TEMPO_PCI_MMIO_WINDOW_END - TEMPO_PCI_BAR0_BASE);

	for (uint32_t i = 0; i < p->pci_mem64_count; i++)
		if (!range_empty(&p->pci_mem64[i]))
			put_qword_window(w, &p->pci_mem64[i], RES_MEM_RW | RES_MEM_PREFETCH);

	/* assigned functions' I/O BARs: WordIO, ISA and non-ISA ranges (_RNG 3) */
	for (uint32_t i = 0; i < p->pci_io_count; i++) {
		const struct guest_range *r = &p->pci_io[i];

		if (range_empty(r))
			continue;
		put_space_header(w, RES_WORD_SPACE, RES_WORD_LEN, RES_TYPE_IO, RES_IO_ENTIRE);
		put16(w, 0);
		put16(w, (uint16_t)r->start);
		put16(w, (uint16_t)(r->end - 1));
		put16(w, 0);
		put16(w, (uint16_t)(r->end - r->start));
	}
	/* ... and their memory BARs, non-cacheable */
	for (uint32_t i = 0; i < p->pci_mem_count; i++)
		if (!range_empty(&p->pci_mem[i]))
			put_qword_window(w, &p->pci_mem[i], RES_MEM_RW);

	put8(w, RES_END_TAG);
	put8(w, 0);
}

/*
 * The windows: each in order; the memory ones clear of the BAR0 window, the
 * I/O ones below 0x10000 and clear of the configuration ports.
 */
static bool pci_valid(const struct guest_platform *p)
{
	if (!p->pci_bus)
		return true;
	if (p->pci_mem64_count > GUEST_PCI_MEM64_MAX)
		return false;
	for (uint32_t i = 0; i < p->pci_mem64_count; i++) {
		const struct guest_range *r = &p->pci_mem64[i];

		if (r->start > r->end)
			return false;
		if (!range_empty(r) && r->start < TEMPO_PCI_MMIO_WINDOW_END &&
		    r->end > TEMPO_PCI_BAR0_BASE)
			return false;
	}
	if (p->pci_io_count > GUEST_PCI_IO_MAX || p->pci_mem_count > GUEST_PCI_MEM_MAX ||
	    p->pci_intx_count > GUEST_PCI_INTX_MAX)
		return false;
	for (uint32_t i = 0; i < p->pci_intx_count; i++)
		if (p->pci_intx[i].device > 31 || p->pci_intx[i].pin > 3)
			return false;
	for (uint32_t i = 0; i < p->pci_io_count; i++) {
		const struct guest_range *r = &p->pci_io[i];

		if (r->start > r->end || r->end > 0x10000)
			return false;
		if (!range_empty(r) && r->start < TEMPO_PCI_CFC + 4 && r->end > TEMPO_PCI_CF8)
			return false;
	}
	for (uint32_t i = 0; i < p->pci_mem_count; i++) {
		const struct guest_range *r = &p->pci_mem[i];

		if (r->start > r->end)
			return false;
		if (!range_empty(r) && r->start < TEMPO_PCI_MMIO_WINDOW_END &&
		    r->end > TEMPO_PCI_BAR0_BASE)
			return false;
	}
	return true;
}

static uint64_t dsdt_emit(struct wr *w, const struct guest_platform *p)
{
	uint64_t dsdt = acpi_begin(w, "DSDT", DSDT_REVISION);

	put_bytes(w, dsdt_aml, sizeof(dsdt_aml));
	if (pci_on(p))
		pci0_emit(w, p);
	acpi_end(w, dsdt);
	return dsdt;
}

/*
 * Layout from GUEST_ACPI_GPA, each 16-aligned after the previous: RSDP
 * (36), RSDT (40), XSDT (44), MADT (44 + 8 or 16 per CPU), and with a PM
 * port the RSDT (44) and XSDT (52) list a second table and the DSDT (98,
 * more with a PCI bus) and FADT (276) follow the MADT. Inside the BIOS area so a multiboot1 guest
 * finds the RSDP by the usual scan of 0xE0000-0xFFFFF (ACPI 6.5 5.2.5.1).
 * Each table's address is patched into the one pointing at it once it is
 * placed.
 */
static void acpi_emit(struct wr *w, const struct guest_platform *p, uint64_t unused)
{
	uint64_t rsdp, rsdt, xsdt, madt, dsdt, fadt = 0;
	uint32_t n = p->acpi_pm_port ? 2 : 1;	/* tables the RSDT and XSDT list */

	(void)unused;
	rsdp = w->pos;
	put_bytes(w, "RSD PTR ", 8);
	put8(w, 0);			/* checksum over the first 20 bytes */
	put_bytes(w, ACPI_OEM_ID, 6);
	put8(w, 2);			/* revision: ACPI 2.0+, XSDT valid */
	put32(w, 0);			/* RsdtAddress */
	put32(w, ACPI_RSDP_LEN);
	put64(w, 0);			/* XsdtAddress */
	put8(w, 0);			/* extended checksum over all 36 */
	put_zero(w, 3);

	rsdt = acpi_begin(w, "RSDT", 1);
	put_zero(w, 4 * n);		/* the MADT (and FADT), below the 4 GiB line */
	acpi_end(w, rsdt);

	xsdt = acpi_begin(w, "XSDT", 1);
	put_zero(w, 8 * n);
	acpi_end(w, xsdt);

	madt = acpi_begin(w, "APIC", MADT_REVISION);
	put32(w, ACPI_LAPIC_ADDR);
	put32(w, 0);			/* flags: no PC-AT 8259s, the guest has none */
	madt_entries(w, p);
	acpi_end(w, madt);

	if (p->acpi_pm_port) {
		dsdt = dsdt_emit(w, p);
		fadt = fadt_emit(w, p->acpi_pm_port, dsdt, p->ioapic);
	}

	/* Pointers, then the checksums over them, innermost first. */
	patch32(w, rsdt + ACPI_HDR_LEN, (uint32_t)madt);
	patch64(w, xsdt + ACPI_HDR_LEN, madt);
	if (fadt) {
		patch32(w, rsdt + ACPI_HDR_LEN + 4, (uint32_t)fadt);
		patch64(w, xsdt + ACPI_HDR_LEN + 8, fadt);
	}
	patch_checksum(w, rsdt, ACPI_HDR_LEN + 4 * n, rsdt + 9);
	patch_checksum(w, xsdt, ACPI_HDR_LEN + 8 * n, xsdt + 9);
	patch32(w, rsdp + 16, (uint32_t)rsdt);
	patch64(w, rsdp + 24, xsdt);
	patch_checksum(w, rsdp, ACPI_RSDP_V1_LEN, rsdp + 8);
	patch_checksum(w, rsdp, ACPI_RSDP_LEN, rsdp + 32);
}

bool guest_irq_override_pci(struct guest_platform *p, uint32_t gsi)
{
	uint32_t n = 0;

	if (gsi >= 16 || p->irq_override_count > GUEST_IRQ_OVERRIDES_MAX)
		return false;
	for (uint32_t i = 0; i < p->irq_override_count; i++)
		if (p->irq_overrides[i].source != gsi && p->irq_overrides[i].gsi != gsi)
			p->irq_overrides[n++] = p->irq_overrides[i];
	if (n >= GUEST_IRQ_OVERRIDES_MAX)
		return false;	/* none matched, so none was dropped */
	p->irq_overrides[n++] = (struct guest_irq_override){
		(uint8_t)gsi, gsi, GUEST_INTI_LEVEL | GUEST_INTI_ACTIVE_LOW };
	p->irq_override_count = n;
	return true;
}

uint64_t guest_build_acpi(uint8_t *mem, uint64_t mem_size, const struct guest_platform *p)
{
	if (!mem || !p || !cpus_valid(p))
		return 0;
	/* The sleep status register is the port after the control register. */
	if (p->acpi_pm_port == UINT16_MAX)
		return 0;
	if (!pci_valid(p))
		return 0;
	if (!emit_twice(mem, mem_size, GUEST_ACPI_GPA, GUEST_ACPI_MAX, acpi_emit, p, 0))
		return 0;
	return GUEST_ACPI_GPA;
}

/* ---- the memory map both multiboot versions describe ---- */

enum { MEM_USABLE = 1, MEM_RESERVED = 2 };	/* multiboot / E820 numbering */

struct map_entry {
	uint64_t base, len;
	uint32_t type;
};

#define MAP_ENTRIES 4
#define KIB 1024ull

/*
 * Usable low memory up to GUEST_LOW_USABLE_END, the rest of the first MiB
 * (EBDA, VGA hole and BIOS area, where the ACPI tables live) reserved, all
 * RAM from 1 MiB up to the MMIO window usable, and the rest of the RAM
 * from 4 GiB up (hv/core/guest_ram.h). Needs mem_size > GUEST_HIGH_START.
 * Returns how many entries it filled: 3, or 4 with RAM above 4 GiB.
 */
static int memory_map(uint64_t mem_size, struct map_entry m[MAP_ENTRIES])
{
	m[0] = (struct map_entry){ 0, GUEST_LOW_USABLE_END, MEM_USABLE };
	m[1] = (struct map_entry){ GUEST_LOW_USABLE_END, GUEST_HIGH_START - GUEST_LOW_USABLE_END,
				   MEM_RESERVED };
	m[2] = (struct map_entry){ GUEST_HIGH_START, guest_ram_low(mem_size) - GUEST_HIGH_START,
				   MEM_USABLE };
	if (!guest_ram_high(mem_size))
		return 3;
	m[3] = (struct map_entry){ GUEST_RAM_HIGH_BASE, guest_ram_high(mem_size), MEM_USABLE };
	return 4;
}

/*
 * mem_lower is the usable memory from 0 in KiB: 636, the low usable range
 * the map lists (a BIOS reports 639 because its EBDA starts at 0x9FC00;
 * here 0x9F000 up is reserved, and the two must agree). mem_upper is the
 * memory from 1 MiB to the first hole: the MMIO window, below 4 GiB, so
 * it fits the 32-bit field (GRUB caps it at 4 GiB the same way).
 */
static uint32_t mem_lower_kib(void)
{
	return (uint32_t)(GUEST_LOW_USABLE_END / KIB);
}

static uint32_t mem_upper_kib(uint64_t mem_size)
{
	return (uint32_t)((guest_ram_low(mem_size) - GUEST_HIGH_START) / KIB);
}

/*
 * Modules must be 32-bit addressable (both formats carry u32 addresses) and
 * in the RAM below the MMIO window.
 */
static bool platform_valid(uint64_t mem_size, const struct guest_platform *p)
{
	if (mem_size <= GUEST_HIGH_START || p->module_count > GUEST_MAX_MODULES)
		return false;
	for (uint32_t i = 0; i < p->module_count; i++) {
		const struct guest_module *m = &p->modules[i];

		/* end is exclusive, so one at 4 GiB would not fit the u32 either. */
		if (m->end < m->start || m->end > guest_ram_low(mem_size) || m->end > UINT32_MAX)
			return false;
	}
	return true;
}

/* ---- multiboot2 ---- */

enum {
	MB2_TAG_END = 0,
	MB2_TAG_CMDLINE = 1,
	MB2_TAG_LOADER_NAME = 2,
	MB2_TAG_MODULE = 3,
	MB2_TAG_BASIC_MEMINFO = 4,
	MB2_TAG_MMAP = 6,
	MB2_TAG_ACPI_NEW = 15,
};

#define MB2_MMAP_ENTRY_SIZE	24
#define MB2_TAG_ALIGN		8

static uint64_t mb2_tag_begin(struct wr *w, uint32_t type)
{
	uint64_t start;

	put_align(w, MB2_TAG_ALIGN);
	start = w->pos;
	put32(w, type);
	put32(w, 0);		/* size, patched by mb2_tag_end() */
	return start;
}

/* The size excludes the padding to the next tag (mb2 3.6.2). */
static void mb2_tag_end(struct wr *w, uint64_t start)
{
	patch32(w, start + 4, (uint32_t)(w->pos - start));
}

static void mb2_emit(struct wr *w, const struct guest_platform *p, uint64_t rsdp_gpa)
{
	struct map_entry map[MAP_ENTRIES];
	int n;
	uint8_t rsdp[ACPI_RSDP_LEN];
	uint64_t start = w->pos, t;

	put32(w, 0);		/* total_size, patched at the end */
	put32(w, 0);		/* reserved */

	t = mb2_tag_begin(w, MB2_TAG_CMDLINE);
	put_str(w, p->cmdline);
	mb2_tag_end(w, t);

	t = mb2_tag_begin(w, MB2_TAG_LOADER_NAME);
	put_str(w, p->loader_name);
	mb2_tag_end(w, t);

	for (uint32_t i = 0; i < p->module_count; i++) {
		t = mb2_tag_begin(w, MB2_TAG_MODULE);
		put32(w, (uint32_t)p->modules[i].start);
		put32(w, (uint32_t)p->modules[i].end);
		put_str(w, p->modules[i].string);
		mb2_tag_end(w, t);
	}

	t = mb2_tag_begin(w, MB2_TAG_BASIC_MEMINFO);
	put32(w, mem_lower_kib());
	put32(w, mem_upper_kib(w->mem_size));
	mb2_tag_end(w, t);

	n = memory_map(w->mem_size, map);
	t = mb2_tag_begin(w, MB2_TAG_MMAP);
	put32(w, MB2_MMAP_ENTRY_SIZE);
	put32(w, 0);		/* entry_version */
	for (int i = 0; i < n; i++) {
		put64(w, map[i].base);
		put64(w, map[i].len);
		put32(w, map[i].type);
		put32(w, 0);	/* reserved */
	}
	mb2_tag_end(w, t);

	/*
	 * Copied through a local buffer before anything is written over it:
	 * the caller's RSDP could in principle lie in the info area itself.
	 */
	if (w->mem)
		memcpy(rsdp, w->mem + rsdp_gpa, sizeof(rsdp));
	else
		memset(rsdp, 0, sizeof(rsdp));
	t = mb2_tag_begin(w, MB2_TAG_ACPI_NEW);
	put_bytes(w, rsdp, sizeof(rsdp));
	mb2_tag_end(w, t);

	t = mb2_tag_begin(w, MB2_TAG_END);
	mb2_tag_end(w, t);
	patch32(w, start, (uint32_t)(w->pos - start));
}

/*
 * @rsdp_gpa must be what guest_build_acpi() returned for this memory: the
 * 36 bytes there are copied into tag 15, so they must lie within the low RAM
 * (0 means no RSDP was built and is refused).
 */
uint64_t guest_build_mb2_info(uint8_t *mem, uint64_t mem_size, const struct guest_platform *p,
			      uint64_t rsdp_gpa)
{
	if (!mem || !p || !platform_valid(mem_size, p))
		return 0;
	if (!rsdp_gpa || rsdp_gpa > guest_ram_low(mem_size) ||
	    guest_ram_low(mem_size) - rsdp_gpa < ACPI_RSDP_LEN)
		return 0;
	if (!emit_twice(mem, mem_size, GUEST_INFO_GPA, GUEST_INFO_MAX, mb2_emit, p, rsdp_gpa))
		return 0;
	return GUEST_INFO_GPA;
}

/* ---- multiboot1 ---- */

/* multiboot_info flags (mb1 3.3) */
#define MB1_INFO_MEMORY		(1u << 0)
#define MB1_INFO_CMDLINE	(1u << 2)
#define MB1_INFO_MODS		(1u << 3)
#define MB1_INFO_MMAP		(1u << 6)
#define MB1_INFO_LOADER_NAME	(1u << 9)

/*
 * The structure proper is 88 bytes in 0.6.96 (up to vbe_interface_len);
 * GRUB 2 appends framebuffer fields up to 116. The zeroed 120 bytes keep
 * a kernel that reads the newer fields (guarded by flags it will find
 * clear) inside the block.
 */
#define MB1_INFO_SIZE		120
#define MB1_OFF_FLAGS		0
#define MB1_OFF_MEM_LOWER	4
#define MB1_OFF_MEM_UPPER	8
#define MB1_OFF_CMDLINE		16
#define MB1_OFF_MODS_COUNT	20
#define MB1_OFF_MODS_ADDR	24
#define MB1_OFF_MMAP_LENGTH	44
#define MB1_OFF_MMAP_ADDR	48
#define MB1_OFF_LOADER_NAME	64
#define MB1_MOD_SIZE		16	/* mod_start, mod_end, string, reserved */
#define MB1_MMAP_SIZE_FIELD	20	/* u64 base, u64 length, u32 type; size excludes itself */

/*
 * Layout at GUEST_INFO_GPA: the structure, the module list, the memory
 * map, then the strings (command line, loader name, module strings). The
 * pointers are guest-physical and below 0x8000, so 32 bits hold them.
 */
static void mb1_emit(struct wr *w, const struct guest_platform *p, uint64_t unused)
{
	struct map_entry map[MAP_ENTRIES];
	int n;
	uint64_t info = w->pos, mods, mmap;

	(void)unused;
	put_zero(w, MB1_INFO_SIZE);
	mods = w->pos;
	put_zero(w, (uint64_t)p->module_count * MB1_MOD_SIZE);

	n = memory_map(w->mem_size, map);
	mmap = w->pos;
	for (int i = 0; i < n; i++) {
		put32(w, MB1_MMAP_SIZE_FIELD);
		put64(w, map[i].base);
		put64(w, map[i].len);
		put32(w, map[i].type);
	}
	patch32(w, info + MB1_OFF_FLAGS, MB1_INFO_MEMORY | MB1_INFO_CMDLINE | MB1_INFO_MODS |
		MB1_INFO_MMAP | MB1_INFO_LOADER_NAME);
	patch32(w, info + MB1_OFF_MEM_LOWER, mem_lower_kib());
	patch32(w, info + MB1_OFF_MEM_UPPER, mem_upper_kib(w->mem_size));
	patch32(w, info + MB1_OFF_MODS_COUNT, p->module_count);
	patch32(w, info + MB1_OFF_MODS_ADDR, (uint32_t)mods);
	patch32(w, info + MB1_OFF_MMAP_LENGTH, (uint32_t)(w->pos - mmap));
	patch32(w, info + MB1_OFF_MMAP_ADDR, (uint32_t)mmap);

	patch32(w, info + MB1_OFF_CMDLINE, (uint32_t)w->pos);
	put_str(w, p->cmdline);
	patch32(w, info + MB1_OFF_LOADER_NAME, (uint32_t)w->pos);
	put_str(w, p->loader_name);
	for (uint32_t i = 0; i < p->module_count; i++) {
		uint64_t m = mods + (uint64_t)i * MB1_MOD_SIZE;

		patch32(w, m, (uint32_t)p->modules[i].start);
		patch32(w, m + 4, (uint32_t)p->modules[i].end);
		patch32(w, m + 8, (uint32_t)w->pos);
		put_str(w, p->modules[i].string);
	}
}

uint64_t guest_build_mb1_info(uint8_t *mem, uint64_t mem_size, const struct guest_platform *p)
{
	if (!mem || !p || !platform_valid(mem_size, p))
		return 0;
	if (!emit_twice(mem, mem_size, GUEST_INFO_GPA, GUEST_INFO_MAX, mb1_emit, p, 0))
		return 0;
	return GUEST_INFO_GPA;
}
