// SPDX-License-Identifier: MIT
/*
 * ACPI tables are firmware (or hypervisor) output: each table's header is
 * read first, its length is bounded and must stay below 4 GiB (paging is off,
 * nothing above is reachable), and its checksum is verified over that length
 * before any field past the header is used.
 */
#include "guests/common/acpi.h"

#include "guests/common/x86.h"
#include "hv/lib/lib.h"

#define RSDP_V1_LEN		20
#define RSDP_V2_LEN		36
#define RSDP_OFF_REVISION	15
#define RSDP_OFF_RSDT		16
#define RSDP_OFF_LENGTH		20
#define RSDP_OFF_XSDT		24
#define SDT_HDR_LEN		36
#define SDT_OFF_LENGTH		4
/* No table we walk comes near this; larger is taken as corruption. */
#define SDT_MAX_LEN		(1u << 20)
#define MADT_ENTRIES_OFF	44	/* header, u32 local APIC address, u32 flags */

#define MADT_LAPIC		0
#define MADT_X2APIC		9
#define MADT_LAPIC_LEN		8
#define MADT_X2APIC_LEN		16
#define MADT_CPU_ENABLED	(1u << 0)

#define BDA_EBDA_SEGMENT	0x40e
#define EBDA_SCAN_LEN		1024
#define BIOS_ROM_START		0xe0000u
#define BIOS_ROM_END		0x100000u

static uint8_t checksum(const uint8_t *p, uint32_t len)
{
	uint8_t sum = 0;

	while (len--)
		sum += *p++;
	return sum;
}

/* @p points at @room readable bytes; returns the RSDP's length or 0. */
static uint32_t rsdp_valid(const uint8_t *p, uint32_t room)
{
	uint32_t len;

	if (room < RSDP_V1_LEN || memcmp(p, "RSD PTR ", 8) || checksum(p, RSDP_V1_LEN))
		return 0;
	if (p[RSDP_OFF_REVISION] < 2)
		return RSDP_V1_LEN;
	len = room >= RSDP_V2_LEN ? rd32(p + RSDP_OFF_LENGTH) : 0;
	/* A 2.0 RSDP whose extended part is broken still has a usable RSDT. */
	if (len < RSDP_V2_LEN || len > room || checksum(p, RSDP_V2_LEN))
		return RSDP_V1_LEN;
	return RSDP_V2_LEN;
}

static uint32_t scan(uint32_t start, uint32_t end, uint8_t rsdp[ACPI_RSDP_MAX])
{
	for (uint32_t a = start; a + RSDP_V1_LEN <= end; a += 16) {
		uint32_t len = rsdp_valid(phys_ptr(a), end - a);

		if (len) {
			memcpy(rsdp, phys_ptr(a), len);
			return len;
		}
	}
	return 0;
}

uint32_t acpi_find_rsdp_bios(uint8_t rsdp[ACPI_RSDP_MAX])
{
	uint32_t ebda = (uint32_t)rd16(phys_ptr(BDA_EBDA_SEGMENT)) << 4;
	uint32_t len = 0;

	/* The EBDA sits just below 640 KiB; anything else is not one. */
	if (ebda >= 0x80000 && ebda + EBDA_SCAN_LEN <= 0xa0000)
		len = scan(ebda, ebda + EBDA_SCAN_LEN, rsdp);
	if (!len)
		len = scan(BIOS_ROM_START, BIOS_ROM_END, rsdp);
	return len;
}

/* Returns the table at @addr when its header, length and checksum hold. */
static const uint8_t *sdt_map(uint64_t addr, const char *sig, uint32_t *len)
{
	const uint8_t *t;

	if (!addr || addr >= 0x100000000ull - SDT_HDR_LEN)
		return NULL;
	t = phys_ptr((uint32_t)addr);
	if (sig && memcmp(t, sig, 4))
		return NULL;
	*len = rd32(t + SDT_OFF_LENGTH);
	if (*len < SDT_HDR_LEN || *len > SDT_MAX_LEN || addr + *len > 0x100000000ull)
		return NULL;
	if (checksum(t, *len))
		return NULL;
	return t;
}

static void add_cpu(struct acpi_cpus *out, uint32_t id)
{
	for (unsigned int i = 0; i < out->count; i++) {
		if (out->apic_ids[i] == id)
			return;	/* firmware may list a CPU as both type 0 and 9 */
	}
	if (out->count < ACPI_MAX_CPUS)
		out->apic_ids[out->count++] = id;
	else
		out->cut = true;
}

static const char *madt_walk(const uint8_t *madt, uint32_t len, struct acpi_cpus *out)
{
	uint32_t off = MADT_ENTRIES_OFF;

	if (len < MADT_ENTRIES_OFF)
		return "MADT shorter than its fixed fields";
	while (len - off >= 2) {
		const uint8_t *e = madt + off;
		uint8_t type = e[0], elen = e[1];

		if (elen < 2 || elen > len - off)
			return "MADT entry length out of bounds";
		if (type == MADT_LAPIC && elen >= MADT_LAPIC_LEN) {
			if (rd32(e + 4) & MADT_CPU_ENABLED)
				add_cpu(out, e[3]);
		} else if (type == MADT_X2APIC && elen >= MADT_X2APIC_LEN) {
			if (rd32(e + 8) & MADT_CPU_ENABLED)
				add_cpu(out, rd32(e + 4));
		}
		off += elen;
	}
	if (!out->count)
		return "MADT lists no enabled CPU";
	return NULL;
}

const char *acpi_madt_cpus(const uint8_t *rsdp, uint32_t len, struct acpi_cpus *out)
{
	const uint8_t *root = NULL, *madt = NULL;
	uint32_t root_len = 0, entry_size = 4;
	uint32_t valid = rsdp_valid(rsdp, len);

	memset(out, 0, sizeof(*out));
	if (!valid)
		return "RSDP signature or checksum invalid";
	/* The XSDT when there is one we can reach, else the RSDT. */
	if (valid >= RSDP_V2_LEN) {
		root = sdt_map(rd64(rsdp + RSDP_OFF_XSDT), "XSDT", &root_len);
		entry_size = 8;
	}
	if (!root) {
		root = sdt_map(rd32(rsdp + RSDP_OFF_RSDT), "RSDT", &root_len);
		entry_size = 4;
	}
	if (!root)
		return "no valid RSDT or XSDT";
	for (uint32_t off = SDT_HDR_LEN; root_len - off >= entry_size; off += entry_size) {
		uint64_t addr = entry_size == 8 ? rd64(root + off) : rd32(root + off);
		uint32_t tlen;
		const uint8_t *t;

		if (!addr || addr >= 0x100000000ull - SDT_HDR_LEN)
			continue;
		if (memcmp(phys_ptr((uint32_t)addr), "APIC", 4))
			continue;
		t = sdt_map(addr, "APIC", &tlen);
		if (!t)
			return "MADT length or checksum invalid";
		madt = t;
		return madt_walk(madt, tlen, out);
	}
	return "no MADT";
}
