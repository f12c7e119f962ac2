// SPDX-License-Identifier: MIT
/*
 * ACPI table discovery. Firmware tables are outside input: every table is
 * read through mem->map, first its 36-byte header, then (once the header's
 * length is sane) the whole table, whose checksum is verified before any
 * field past the header is used. Fields are read with memcpy because the
 * tables are byte-packed and their entries are often misaligned.
 */
#include "drivers/acpi.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"

#define RSDP_V1_LEN		20
#define RSDP_V2_LEN		36
#define SDT_HDR_LEN		36
/*
 * No table we walk (RSDT/XSDT, MADT, HPET, and the ones we only checksum)
 * comes near this; a larger length is taken as corruption rather than mapped.
 */
#define SDT_MAX_LEN		(1u << 20)

#define MADT_ENTRIES_OFF	44	/* header, u32 local APIC address, u32 flags */
#define HPET_LEN		56
#define MCFG_ENTRIES_OFF	44	/* header, 8 reserved bytes */
#define MCFG_ENTRY_LEN		16	/* base, segment, start and end bus, reserved */
#define ECAM_BUS_SHIFT		20
/* FADT fields (ACPI 6.5 Table 5.9): Flags, RESET_REG (a GAS), RESET_VALUE. */
#define FADT_FLAGS_OFF		112
#define FADT_RESET_REG_OFF	116
#define FADT_RESET_VALUE_OFF	128
#define FADT_RESET_LEN		129	/* up to RESET_VALUE: ACPI 2.0 and later */
#define FADT_RESET_REG_SUP	(1u << 10)
/* FADT fields (ACPI 6.5 Table 5.9): the fixed-hardware port blocks and their lengths. */
#define FADT_SMI_CMD_OFF	48
#define FADT_PM1A_EVT_OFF	56
#define FADT_PM1B_EVT_OFF	60
#define FADT_PM1A_CNT_OFF	64
#define FADT_PM1B_CNT_OFF	68
#define FADT_PM_TMR_OFF		76
#define FADT_PM1_EVT_LEN_OFF	88
#define FADT_PM1_CNT_LEN_OFF	89
#define FADT_PM_TMR_LEN_OFF	91
#define FADT_PORTS_LEN		92	/* through PM_TMR_LEN: every FADT since ACPI 1.0 */

/* DMAR (VT-d spec 8.1): header, host address width, flags, 10 reserved bytes. */
#define DMAR_STRUCTS_OFF	48
#define DMAR_DRHD_LEN		16	/* type, length, flags, size, segment, base */
#define DMAR_RMRR_LEN		24	/* type, length, reserved, segment, base, limit */
#define DMAR_SCOPE_LEN		6	/* type, length, reserved, enumeration id, start bus */
#define DMAR_DRHD_INCLUDE_ALL	(1u << 0)

enum {
	DMAR_DRHD = 0,
	DMAR_RMRR = 1,
};

enum {
	MADT_LAPIC = 0,
	MADT_IOAPIC = 1,
	MADT_IRQ_OVERRIDE = 2,
	MADT_LAPIC_OVERRIDE = 5,
	MADT_X2APIC = 9,
};

struct acpi_ctx {
	const struct acpi_mem *mem;
	struct acpi_info *out;
	char *err;
	size_t errlen;
	char *warn;
	size_t warnlen;
	bool saw_madt;		/* an "APIC" / "HPET" table was listed, valid or not */
	bool saw_hpet;
	bool saw_mcfg_valid;	/* an MCFG with a good checksum was parsed: the first wins */
};

uint8_t acpi_checksum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	while (len--)
		sum += *b++;
	return sum;
}

/*
 * Warnings are joined with "; " into the one line the caller gets, so a bad
 * MADT does not hide a bad HPET; what does not fit is cut (still terminated).
 */
static void warnf(struct acpi_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warnf(struct acpi_ctx *c, const char *fmt, ...)
{
	va_list ap;
	size_t used;

	if (!c->warnlen)
		return;
	used = strnlen(c->warn, c->warnlen - 1);
	if (used) {
		if (used + 3 > c->warnlen)
			return;
		memcpy(c->warn + used, "; ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	fmt_vsnprintf(c->warn + used, c->warnlen - used, fmt, ap);
	va_end(ap);
}

/* A zero address is a firmware hole in the root table, never a table. */
static const uint8_t *map(struct acpi_ctx *c, uint64_t phys, size_t len)
{
	if (!phys || phys > UINT64_MAX - len)
		return NULL;
	return c->mem->map(c->mem->ctx, phys, len);
}

/* The signature as a printable string; firmware may put anything there. */
static void sig_str(char dst[5], const uint8_t *sig)
{
	for (int i = 0; i < 4; i++)
		dst[i] = sig[i] >= 0x20 && sig[i] < 0x7f ? (char)sig[i] : '?';
	dst[4] = 0;
}

/*
 * Map the table at @phys and check its length and checksum. On success
 * returns the table and its length in *@len; on failure NULL with the reason
 * in @why (a one-line fragment the caller prefixes with the table's name).
 * *@sig receives the signature whenever the header could be mapped.
 */
static const uint8_t *map_table(struct acpi_ctx *c, uint64_t phys, uint32_t *len, char sig[5],
				char *why, size_t whylen)
{
	const uint8_t *t = map(c, phys, SDT_HDR_LEN);
	uint8_t sum;

	if (!t) {
		fmt_snprintf(why, whylen, "header not in mapped memory");
		return NULL;
	}
	sig_str(sig, t);
	*len = rd32(t + 4);
	if (*len < SDT_HDR_LEN || *len > SDT_MAX_LEN) {
		fmt_snprintf(why, whylen, "length %u invalid (need %u..%u)", *len, SDT_HDR_LEN,
			     SDT_MAX_LEN);
		return NULL;
	}
	t = map(c, phys, *len);
	if (!t) {
		fmt_snprintf(why, whylen, "length %u runs outside mapped memory", *len);
		return NULL;
	}
	sum = acpi_checksum(t, *len);
	if (sum) {
		fmt_snprintf(why, whylen, "checksum 0x%02x, expected 0", sum);
		return NULL;
	}
	return t;
}

static bool cpu_known(const struct acpi_info *out, uint32_t apic_id)
{
	for (uint32_t i = 0; i < out->cpu_count; i++)
		if (out->cpus[i].apic_id == apic_id)
			return true;
	return false;
}

static void add_cpu(struct acpi_ctx *c, uint64_t phys, uint32_t apic_id, uint32_t uid,
		    uint32_t flags, bool x2)
{
	struct acpi_info *out = c->out;
	struct acpi_cpu *cpu;

	if (cpu_known(out, apic_id)) {
		warnf(c, "ACPI: MADT at 0x%llx: APIC ID 0x%x listed twice, keeping the first",
		      (unsigned long long)phys, apic_id);
		return;
	}
	if (out->cpu_count >= ACPI_MAX_CPUS) {
		out->cpus_truncated = true;
		return;
	}
	cpu = &out->cpus[out->cpu_count++];
	cpu->apic_id = apic_id;
	cpu->acpi_uid = uid;
	cpu->enabled = flags & 1;
	cpu->online_capable = flags & 2;
	cpu->from_x2apic_entry = x2;
}

/* Smallest length each entry type we read needs; other types need only 2. */
static uint8_t madt_min_len(uint8_t type)
{
	switch (type) {
	case MADT_LAPIC:
		return 8;
	case MADT_IRQ_OVERRIDE:
		return 10;
	case MADT_IOAPIC:
	case MADT_LAPIC_OVERRIDE:
		return 12;
	case MADT_X2APIC:
		return 16;
	default:
		return 2;
	}
}

/*
 * A malformed entry (length below 2, below what its type needs, or running
 * past the table) ends the walk with a warning; what was parsed before it is
 * kept and has_madt stays true. The table's checksum was good, so the entries
 * before the bad one are what the firmware meant, and booting with the CPUs
 * found so far beats booting with none.
 */
static void parse_madt(struct acpi_ctx *c, uint64_t phys, const uint8_t *t, uint32_t len)
{
	struct acpi_info *out = c->out;
	uint32_t off;

	if (len < MADT_ENTRIES_OFF) {
		warnf(c, "ACPI: MADT at 0x%llx: length %u too short for its fixed fields (%u)",
		      (unsigned long long)phys, len, MADT_ENTRIES_OFF);
		return;
	}
	out->has_madt = true;
	out->lapic_phys = rd32(t + 36);
	out->madt_flags = rd32(t + 40);

	for (off = MADT_ENTRIES_OFF; off < len;) {
		uint8_t type, elen;
		const uint8_t *e = t + off;

		if (len - off < 2) {
			warnf(c, "ACPI: MADT at 0x%llx: entry at offset %u: header runs past "
			      "length %u, ignoring the rest", (unsigned long long)phys, off, len);
			return;
		}
		type = e[0];
		elen = e[1];
		if (elen < madt_min_len(type) || elen > len - off) {
			warnf(c, "ACPI: MADT at 0x%llx: entry type %u at offset %u: length %u "
			      "invalid (need %u, %u left), ignoring the rest",
			      (unsigned long long)phys, type, off, elen, madt_min_len(type),
			      len - off);
			return;
		}
		switch (type) {
		case MADT_LAPIC:
			add_cpu(c, phys, e[3], e[2], rd32(e + 4), false);
			break;
		case MADT_IOAPIC:
			if (out->ioapic_count >= ACPI_MAX_IOAPICS) {
				warnf(c, "ACPI: MADT at 0x%llx: more than %u IO APICs, ignoring "
				      "ID %u", (unsigned long long)phys, ACPI_MAX_IOAPICS, e[2]);
				break;
			}
			out->ioapics[out->ioapic_count].id = e[2];
			out->ioapics[out->ioapic_count].phys = rd32(e + 4);
			out->ioapics[out->ioapic_count].gsi_base = rd32(e + 8);
			out->ioapic_count++;
			break;
		case MADT_IRQ_OVERRIDE:
			/* bus 0 (ISA) is the only one defined; a full table keeps the first */
			if (e[2] != 0 || out->irq_override_count >= ACPI_MAX_IRQ_OVERRIDES)
				break;
			out->irq_overrides[out->irq_override_count].source = e[3];
			out->irq_overrides[out->irq_override_count].gsi = rd32(e + 4);
			out->irq_overrides[out->irq_override_count].flags = rd16(e + 8);
			out->irq_override_count++;
			break;
		case MADT_LAPIC_OVERRIDE:
			out->lapic_phys = rd64(e + 4);
			break;
		case MADT_X2APIC:
			add_cpu(c, phys, rd32(e + 4), rd32(e + 12), rd32(e + 8), true);
			break;
		default:
			break;
		}
		off += elen;
	}
}

static void parse_hpet(struct acpi_ctx *c, uint64_t phys, const uint8_t *t, uint32_t len)
{
	struct acpi_info *out = c->out;
	uint64_t addr;

	if (len < HPET_LEN) {
		warnf(c, "ACPI: HPET at 0x%llx: length %u too short (need %u)",
		      (unsigned long long)phys, len, HPET_LEN);
		return;
	}
	/* Generic Address Structure at 40: space id, width, offset, access size, address. */
	if (t[40] != 0) {
		warnf(c, "ACPI: HPET at 0x%llx: address space %u is not system memory",
		      (unsigned long long)phys, t[40]);
		return;
	}
	addr = rd64(t + 44);
	if (!addr) {
		warnf(c, "ACPI: HPET at 0x%llx: base address is 0", (unsigned long long)phys);
		return;
	}
	out->has_hpet = true;
	out->hpet_phys = addr;
	out->hpet_number = t[52];
	out->hpet_min_tick = rd16(t + 53);
}

/*
 * The MCFG (PCI Firmware Specification 3.0, 4.1.2). Entries that are no
 * usable range are skipped with a warning; a length that is not the
 * header plus whole entries keeps the whole entries.
 */
static void parse_mcfg(struct acpi_ctx *c, uint64_t phys, const uint8_t *t, uint32_t len)
{
	struct acpi_info *out = c->out;
	uint32_t n;

	if (len < MCFG_ENTRIES_OFF) {
		warnf(c, "ACPI: MCFG at 0x%llx: length %u too short (need %u)",
		      (unsigned long long)phys, len, MCFG_ENTRIES_OFF);
		return;
	}
	if ((len - MCFG_ENTRIES_OFF) % MCFG_ENTRY_LEN)
		warnf(c, "ACPI: MCFG at 0x%llx: length %u is not header + %u-byte entries, "
		      "ignoring the %u bytes left", (unsigned long long)phys, len, MCFG_ENTRY_LEN,
		      (len - MCFG_ENTRIES_OFF) % MCFG_ENTRY_LEN);
	n = (len - MCFG_ENTRIES_OFF) / MCFG_ENTRY_LEN;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = t + MCFG_ENTRIES_OFF + (size_t)i * MCFG_ENTRY_LEN;
		uint64_t base = rd64(e);
		uint16_t seg = rd16(e + 8);
		uint8_t start = e[10], end = e[11];
		uint64_t top = ((uint64_t)end + 1) << ECAM_BUS_SHIFT;

		if (!base || start > end || base > UINT64_MAX - top + 1) {
			warnf(c, "ACPI: MCFG at 0x%llx: entry %u (base 0x%llx, segment %u, buses "
			      "%u-%u) is not a usable range, ignored", (unsigned long long)phys, i,
			      (unsigned long long)base, seg, start, end);
			continue;
		}
		if (out->mcfg_count >= ACPI_MAX_MCFG) {
			warnf(c, "ACPI: MCFG at 0x%llx: more than %u ranges, ignoring segment %u "
			      "buses %u-%u", (unsigned long long)phys, ACPI_MAX_MCFG, seg, start,
			      end);
			continue;
		}
		out->mcfg[out->mcfg_count++] = (struct acpi_mcfg){
			.base = base, .segment = seg, .bus_start = start, .bus_end = end,
		};
		out->has_mcfg = true;
	}
}

/* ---- DMAR ---- */

struct dmar_ctx {
	struct acpi_dmar *out;
	char *err;
	size_t errlen;
};

static int dmar_fail(struct dmar_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int dmar_fail(struct dmar_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->errlen) {
		int n = fmt_snprintf(c->err, c->errlen, "ACPI: DMAR: ");

		va_start(ap, fmt);
		if (n >= 0 && (size_t)n < c->errlen)
			fmt_vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	memset(c->out, 0, sizeof(*c->out));
	return -1;
}

static const char *dmar_struct_name(uint16_t type)
{
	static const char *const names[] = { "DRHD", "RMRR", "ATSR", "RHSA", "ANDD", "SATC",
					     "SIDP" };

	return type < ARRAY_SIZE(names) ? names[type] : "unknown structure";
}

/*
 * The device scopes in [off, end) of the structure at @base (@what names it
 * in errors): each one checked and appended to out->scopes. RMRRs may name
 * PCI functions only (VT-d spec 8.4).
 */
static int dmar_scopes(struct dmar_ctx *c, const uint8_t *t, uint32_t base, uint32_t off,
		       uint32_t end, const char *what, bool pci_only, uint16_t *first,
		       uint16_t *count)
{
	struct acpi_dmar *out = c->out;

	*first = (uint16_t)out->scope_count;
	*count = 0;
	while (off < end) {
		const uint8_t *e = t + off;
		struct acpi_dmar_scope *s;
		uint8_t slen, hops;

		if (end - off < 2)
			return dmar_fail(c, "%s at offset %u: device scope at offset %u: header "
					 "runs past the structure", what, base, off);
		slen = e[1];
		if (slen < DMAR_SCOPE_LEN + 2 || slen > end - off || (slen - DMAR_SCOPE_LEN) % 2)
			return dmar_fail(c, "%s at offset %u: device scope at offset %u: length "
					 "%u invalid (need 6 + 2 per path hop, at least one hop, "
					 "%u left)", what, base, off, slen, end - off);
		hops = (uint8_t)((slen - DMAR_SCOPE_LEN) / 2);
		if (hops > ACPI_DMAR_MAX_PATH)
			return dmar_fail(c, "%s at offset %u: device scope at offset %u: path of "
					 "%u hops, at most %u supported", what, base, off, hops,
					 ACPI_DMAR_MAX_PATH);
		if (e[0] < ACPI_DMAR_SCOPE_ENDPOINT || e[0] > ACPI_DMAR_SCOPE_NAMESPACE ||
		    (pci_only && e[0] > ACPI_DMAR_SCOPE_BRIDGE))
			return dmar_fail(c, "%s at offset %u: device scope at offset %u: type %u "
					 "not allowed here", what, base, off, e[0]);
		if (out->scope_count >= ACPI_DMAR_MAX_SCOPES)
			return dmar_fail(c, "more than %u device scopes in all",
					 ACPI_DMAR_MAX_SCOPES);
		s = &out->scopes[out->scope_count];
		s->type = e[0];
		s->enum_id = e[4];
		s->start_bus = e[5];
		s->path_len = hops;
		for (uint8_t h = 0; h < hops; h++) {
			s->path[h][0] = e[DMAR_SCOPE_LEN + 2 * h];
			s->path[h][1] = e[DMAR_SCOPE_LEN + 2 * h + 1];
			if (s->path[h][0] > 31 || s->path[h][1] > 7)
				return dmar_fail(c, "%s at offset %u: device scope at offset %u: "
						 "hop %u is device %u function %u (at most 31, "
						 "7)", what, base, off, h, s->path[h][0],
						 s->path[h][1]);
		}
		out->scope_count++;
		(*count)++;
		off += slen;
	}
	return 0;
}

static int dmar_drhd(struct dmar_ctx *c, const uint8_t *t, uint32_t off, uint16_t slen)
{
	struct acpi_dmar *out = c->out;
	struct acpi_dmar_unit *u;
	const uint8_t *e = t + off;
	uint64_t base = rd64(e + 8);

	if (out->unit_count >= ACPI_DMAR_MAX_UNITS)
		return dmar_fail(c, "more than %u DRHD units", ACPI_DMAR_MAX_UNITS);
	if (!base || base & 0xfff)
		return dmar_fail(c, "DRHD at offset %u: register base 0x%llx is not a 4 KiB "
				 "aligned address", off, (unsigned long long)base);
	/* the size field counts 4 KiB pages as a power of two; 0 (older tables): one page */
	if (e[5] > 8)
		return dmar_fail(c, "DRHD at offset %u: register set of 2^%u pages", off, e[5]);
	for (uint32_t i = 0; i < out->unit_count; i++) {
		if (out->units[i].reg_phys == base)
			return dmar_fail(c, "DRHD at offset %u: register base 0x%llx listed "
					 "twice", off, (unsigned long long)base);
		if ((e[4] & DMAR_DRHD_INCLUDE_ALL) && out->units[i].include_pci_all &&
		    out->units[i].segment == rd16(e + 6))
			return dmar_fail(c, "DRHD at offset %u: a second INCLUDE_PCI_ALL unit "
					 "for segment %u", off, rd16(e + 6));
	}
	u = &out->units[out->unit_count];
	u->reg_phys = base;
	u->reg_bytes = 4096u << e[5];
	u->segment = rd16(e + 6);
	u->include_pci_all = e[4] & DMAR_DRHD_INCLUDE_ALL;
	if (dmar_scopes(c, t, off, off + DMAR_DRHD_LEN, off + slen, "DRHD", false,
			&u->scope_first, &u->scope_count))
		return -1;
	out->unit_count++;
	return 0;
}

static int dmar_rmrr(struct dmar_ctx *c, const uint8_t *t, uint32_t off, uint16_t slen)
{
	struct acpi_dmar *out = c->out;
	struct acpi_dmar_rmrr *r;
	const uint8_t *e = t + off;
	uint64_t base = rd64(e + 8), limit = rd64(e + 16);

	if (out->rmrr_count >= ACPI_DMAR_MAX_RMRRS)
		return dmar_fail(c, "more than %u RMRRs", ACPI_DMAR_MAX_RMRRS);
	if (base & 0xfff || (limit & 0xfff) != 0xfff || limit < base)
		return dmar_fail(c, "RMRR at offset %u: [0x%llx, 0x%llx] is not a range of "
				 "whole 4 KiB pages", off, (unsigned long long)base,
				 (unsigned long long)limit);
	r = &out->rmrrs[out->rmrr_count];
	r->base = base;
	r->limit = limit;
	r->segment = rd16(e + 6);
	if (dmar_scopes(c, t, off, off + DMAR_RMRR_LEN, off + slen, "RMRR", true,
			&r->scope_first, &r->scope_count))
		return -1;
	if (!r->scope_count)
		return dmar_fail(c, "RMRR at offset %u: no device scope", off);
	out->rmrr_count++;
	return 0;
}

int acpi_dmar_parse(const uint8_t *t, uint32_t len, struct acpi_dmar *out, char *err,
		    size_t errlen)
{
	struct dmar_ctx c = { .out = out, .err = err, .errlen = err ? errlen : 0 };
	uint32_t off;

	if (c.errlen)
		err[0] = 0;
	memset(out, 0, sizeof(*out));
	if (!t || len < DMAR_STRUCTS_OFF)
		return dmar_fail(&c, "length %u too short for its fixed fields (%u)", t ? len : 0,
				 DMAR_STRUCTS_OFF);
	/* the field holds the width minus one */
	if (t[36] > 63)
		return dmar_fail(&c, "host address width %u bits", t[36] + 1);
	out->host_addr_width = (uint8_t)(t[36] + 1);
	out->flags = t[37];
	for (off = DMAR_STRUCTS_OFF; off < len;) {
		const uint8_t *e = t + off;
		uint16_t type, slen;
		int ret = 0;

		if (len - off < 4)
			return dmar_fail(&c, "structure at offset %u: header runs past length %u",
					 off, len);
		type = rd16(e);
		slen = rd16(e + 2);
		if (slen < 4 || slen > len - off)
			return dmar_fail(&c, "%s at offset %u: length %u invalid (%u left)",
					 dmar_struct_name(type), off, slen, len - off);
		if (type == DMAR_DRHD || type == DMAR_RMRR) {
			uint16_t need = type == DMAR_DRHD ? DMAR_DRHD_LEN : DMAR_RMRR_LEN;

			if (slen < need)
				return dmar_fail(&c, "%s at offset %u: length %u, need at least %u",
						 dmar_struct_name(type), off, slen, need);
			ret = type == DMAR_DRHD ? dmar_drhd(&c, t, off, slen) :
						  dmar_rmrr(&c, t, off, slen);
		} else {
			out->skipped++;
		}
		if (ret)
			return -1;
		off += slen;
	}
	if (!out->unit_count)
		return dmar_fail(&c, "no DRHD (remapping unit) listed");
	return 0;
}

bool acpi_dmar_scope_bdf(const struct acpi_dmar_scope *s, uint16_t segment,
			 const struct acpi_pci_bridges *br, uint16_t *bdf)
{
	uint8_t bus = s->start_bus;

	if (!s->path_len || s->path_len > ACPI_DMAR_MAX_PATH)
		return false;
	for (uint8_t h = 0; h + 1 < s->path_len; h++) {
		uint8_t sec, sub;

		if (!br || !br->buses ||
		    !br->buses(br->ctx, segment, acpi_bdf(bus, s->path[h][0], s->path[h][1]),
			       &sec, &sub))
			return false;
		bus = sec;
	}
	*bdf = acpi_bdf(bus, s->path[s->path_len - 1][0], s->path[s->path_len - 1][1]);
	return true;
}

bool acpi_dmar_scope_covers(const struct acpi_dmar_scope *s, uint16_t segment, uint16_t bdf,
			    const struct acpi_pci_bridges *br)
{
	uint16_t at;
	uint8_t sec, sub;

	if (s->type == ACPI_DMAR_SCOPE_NAMESPACE || !acpi_dmar_scope_bdf(s, segment, br, &at))
		return false;
	if (at == bdf)
		return true;
	if (s->type != ACPI_DMAR_SCOPE_BRIDGE || !br || !br->buses ||
	    !br->buses(br->ctx, segment, at, &sec, &sub))
		return false;
	return (bdf >> 8) >= sec && (bdf >> 8) <= sub;
}

int acpi_dmar_unit_of(const struct acpi_dmar *d, uint16_t segment, uint16_t bdf,
		      const struct acpi_pci_bridges *br)
{
	int all = -1;

	for (uint32_t i = 0; i < d->unit_count && i < ACPI_DMAR_MAX_UNITS; i++) {
		const struct acpi_dmar_unit *u = &d->units[i];

		if (u->segment != segment)
			continue;
		for (uint32_t k = u->scope_first;
		     k < (uint32_t)u->scope_first + u->scope_count && k < ACPI_DMAR_MAX_SCOPES; k++)
			if (acpi_dmar_scope_covers(&d->scopes[k], segment, bdf, br))
				return (int)i;
		if (u->include_pci_all)
			all = (int)i;
	}
	return all;
}

int acpi_dmar_rmrr_of(const struct acpi_dmar *d, uint16_t segment, uint16_t bdf,
		      const struct acpi_pci_bridges *br)
{
	for (uint32_t i = 0; i < d->rmrr_count && i < ACPI_DMAR_MAX_RMRRS; i++) {
		const struct acpi_dmar_rmrr *r = &d->rmrrs[i];

		if (r->segment != segment)
			continue;
		for (uint32_t k = r->scope_first;
		     k < (uint32_t)r->scope_first + r->scope_count && k < ACPI_DMAR_MAX_SCOPES; k++)
			if (acpi_dmar_scope_covers(&d->scopes[k], segment, bdf, br))
				return (int)i;
	}
	return -1;
}

int acpi_dmar_ioapic_unit(const struct acpi_dmar *d, uint8_t ioapic_id,
			  const struct acpi_pci_bridges *br, uint16_t *sid)
{
	for (uint32_t i = 0; i < d->unit_count && i < ACPI_DMAR_MAX_UNITS; i++) {
		const struct acpi_dmar_unit *u = &d->units[i];

		for (uint32_t k = u->scope_first;
		     k < (uint32_t)u->scope_first + u->scope_count && k < ACPI_DMAR_MAX_SCOPES; k++) {
			const struct acpi_dmar_scope *s = &d->scopes[k];

			if (s->type == ACPI_DMAR_SCOPE_IOAPIC && s->enum_id == ioapic_id &&
			    acpi_dmar_scope_bdf(s, u->segment, br, sid))
				return (int)i;
		}
	}
	return -1;
}

static void parse_dmar(struct acpi_ctx *c, uint64_t phys, const uint8_t *t, uint32_t len)
{
	char why[160];

	if (acpi_dmar_parse(t, len, &c->out->dmar, why, sizeof(why))) {
		warnf(c, "%s (table at 0x%llx); treated as no IOMMU", why,
		      (unsigned long long)phys);
		return;
	}
	c->out->has_dmar = true;
}

/*
 * The reset register, where the FADT offers one. Its absence (an ACPI 1.0
 * FADT, or RESET_REG_SUP clear) is normal and not warned about: the reset
 * then goes to port 0xCF9 and the keyboard controller. A register the spec
 * does not allow (ACPI 6.5 5.2.9: system memory, system I/O or PCI
 * configuration space on bus 0, 8 bits wide at bit 0) is refused with a
 * warning rather than written.
 */
void acpi_fadt_ports(const uint8_t *t, uint32_t len, struct acpi_fadt_ports *out)
{
	memset(out, 0, sizeof(*out));
	if (!t || len < FADT_PORTS_LEN)
		return;
	out->smi_cmd = rd32(t + FADT_SMI_CMD_OFF);
	out->pm1a_evt = rd32(t + FADT_PM1A_EVT_OFF);
	out->pm1b_evt = rd32(t + FADT_PM1B_EVT_OFF);
	out->pm1a_cnt = rd32(t + FADT_PM1A_CNT_OFF);
	out->pm1b_cnt = rd32(t + FADT_PM1B_CNT_OFF);
	out->pm_tmr = rd32(t + FADT_PM_TMR_OFF);
	out->pm1_evt_len = t[FADT_PM1_EVT_LEN_OFF];
	out->pm1_cnt_len = t[FADT_PM1_CNT_LEN_OFF];
	out->pm_tmr_len = t[FADT_PM_TMR_LEN_OFF];
}

int acpi_fadt_reset_reg(const uint8_t *t, uint32_t len, struct acpi_reset_reg *out, char *why,
			size_t whylen)
{
	const uint8_t *gas = t + FADT_RESET_REG_OFF;
	uint64_t addr;

	if (len < FADT_RESET_LEN || !(rd32(t + FADT_FLAGS_OFF) & FADT_RESET_REG_SUP))
		return 1;
	addr = rd64(gas + 4);
	if (gas[0] > ACPI_SPACE_PCI_CONFIG) {
		fmt_snprintf(why, whylen, "reset register in address space %u, not memory, "
			     "I/O or PCI configuration", gas[0]);
		return -1;
	}
	if (gas[1] != 8 || gas[2] != 0) {
		fmt_snprintf(why, whylen, "reset register is %u bits at bit %u, not 8 at 0",
			     gas[1], gas[2]);
		return -1;
	}
	if (!addr || (gas[0] == ACPI_SPACE_IO && addr > 0xffff) ||
	    (gas[0] == ACPI_SPACE_PCI_CONFIG && (addr >> 48 || (addr >> 32 & 0xffff) > 31 ||
						 (addr >> 16 & 0xffff) > 7 ||
						 (addr & 0xffff) > 0xff))) {
		fmt_snprintf(why, whylen, "reset register address 0x%llx is not valid in "
			     "address space %u", (unsigned long long)addr, gas[0]);
		return -1;
	}
	out->space = gas[0];
	out->address = addr;
	out->value = t[FADT_RESET_VALUE_OFF];
	return 0;
}

static void parse_fadt(struct acpi_ctx *c, uint64_t phys, const uint8_t *t, uint32_t len)
{
	struct acpi_info *out = c->out;
	char why[96];
	int r;

	out->has_fadt = true;
	out->fadt_revision = t[8];
	acpi_fadt_ports(t, len, &out->fadt_ports);
	r = acpi_fadt_reset_reg(t, len, &out->reset_reg, why, sizeof(why));
	if (r < 0)
		warnf(c, "ACPI: FADT at 0x%llx: %s", (unsigned long long)phys, why);
	out->has_reset_reg = r == 0;
}

static void visit_table(struct acpi_ctx *c, const char *root, uint32_t idx, uint64_t phys)
{
	struct acpi_info *out = c->out;
	char sig[5] = "????";
	char why[96];
	const uint8_t *t;
	uint32_t len = 0;

	t = map_table(c, phys, &len, sig, why, sizeof(why));
	if (out->table_count < ACPI_MAX_TABLES) {
		memcpy(out->table_sigs[out->table_count], sig, sizeof(sig));
		out->table_phys[out->table_count] = phys;
		out->table_count++;
	}
	c->saw_madt |= !memcmp(sig, "APIC", 4);
	c->saw_hpet |= !memcmp(sig, "HPET", 4);
	if (!t) {
		warnf(c, "ACPI: %s entry %u: table %s at 0x%llx: %s", root, idx,
		      !memcmp(sig, "APIC", 4) ? "MADT (APIC)" : sig,
		      (unsigned long long)phys, why);
		return;
	}
	/* The first valid MADT / HPET wins; a second copy is firmware noise. */
	if (!memcmp(sig, "APIC", 4) && !out->has_madt)
		parse_madt(c, phys, t, len);
	else if (!memcmp(sig, "HPET", 4) && !out->has_hpet)
		parse_hpet(c, phys, t, len);
	else if (!memcmp(sig, "MCFG", 4) && !c->saw_mcfg_valid)
		parse_mcfg(c, phys, t, len);
	else if (!memcmp(sig, "DMAR", 4) && !out->has_dmar)
		parse_dmar(c, phys, t, len);
	else if (!memcmp(sig, "FACP", 4) && !out->has_fadt)
		parse_fadt(c, phys, t, len);
	c->saw_mcfg_valid |= !memcmp(sig, "MCFG", 4);
}

static int fail(struct acpi_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct acpi_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(c->err, c->errlen, fmt, ap);
	va_end(ap);
	/* Never hand back half-parsed tables. */
	if (c->out)
		memset(c->out, 0, sizeof(*c->out));
	return -1;
}

int acpi_parse(const uint8_t *rsdp, size_t rsdp_len, const struct acpi_mem *mem,
	       struct acpi_info *out, char *err, size_t errlen, char *warn, size_t warnlen)
{
	struct acpi_ctx c = {
		.mem = mem, .out = out,
		.err = err, .errlen = err ? errlen : 0,
		.warn = warn, .warnlen = warn ? warnlen : 0,
	};
	const char *root;
	const uint8_t *t;
	uint32_t len, esize, n;
	uint8_t sum;
	char sig[5] = "????";
	char why[96];

	if (c.errlen)
		err[0] = 0;
	if (c.warnlen)
		warn[0] = 0;
	if (!out || !mem || !mem->map)
		return fail(&c, "ACPI: no %s given", out ? "memory accessor" : "output");
	memset(out, 0, sizeof(*out));
	if (!rsdp || rsdp_len < RSDP_V1_LEN)
		return fail(&c, "ACPI: RSDP copy is %zu bytes, need at least %u",
			    rsdp ? rsdp_len : 0, RSDP_V1_LEN);
	if (memcmp(rsdp, "RSD PTR ", 8))
		return fail(&c, "ACPI: RSDP: bad signature");
	sum = acpi_checksum(rsdp, RSDP_V1_LEN);
	if (sum)
		return fail(&c, "ACPI: RSDP: checksum 0x%02x, expected 0", sum);

	out->rsdp_revision = rsdp[15];
	memcpy(out->oem_id, rsdp + 9, 6);
	out->oem_id[6] = 0;
	out->root_phys = rd32(rsdp + 16);
	if (out->rsdp_revision >= 2) {
		if (rsdp_len < RSDP_V2_LEN)
			return fail(&c, "ACPI: RSDP: revision %u but copy is %zu bytes, need %u",
				    out->rsdp_revision, rsdp_len, RSDP_V2_LEN);
		len = rd32(rsdp + 20);
		if (len < RSDP_V2_LEN || len > rsdp_len)
			return fail(&c, "ACPI: RSDP: length %u invalid (need %u..%zu)", len,
				    RSDP_V2_LEN, rsdp_len);
		sum = acpi_checksum(rsdp, len);
		if (sum)
			return fail(&c, "ACPI: RSDP: extended checksum 0x%02x, expected 0", sum);
		if (rd64(rsdp + 24)) {
			out->use_xsdt = true;
			out->root_phys = rd64(rsdp + 24);
		}
	}
	root = out->use_xsdt ? "XSDT" : "RSDT";
	esize = out->use_xsdt ? 8 : 4;
	if (!out->root_phys)
		return fail(&c, "ACPI: RSDP: %s address is 0", root);

	t = map_table(&c, out->root_phys, &len, sig, why, sizeof(why));
	if (!t)
		return fail(&c, "ACPI: %s at 0x%llx: %s", root, (unsigned long long)out->root_phys,
			    why);
	if (memcmp(sig, root, 4))
		return fail(&c, "ACPI: %s at 0x%llx: signature \"%s\"", root,
			    (unsigned long long)out->root_phys, sig);
	if ((len - SDT_HDR_LEN) % esize)
		return fail(&c, "ACPI: %s at 0x%llx: length %u is not header + %u-byte entries",
			    root, (unsigned long long)out->root_phys, len, esize);

	n = (len - SDT_HDR_LEN) / esize;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = t + SDT_HDR_LEN + (size_t)i * esize;

		/*
		 * Tables past ACPI_MAX_TABLES are still visited (the MADT may be
		 * one of them), just not recorded.
		 */
		visit_table(&c, root, i, esize == 8 ? rd64(e) : rd32(e));
	}
	if (n > ACPI_MAX_TABLES)
		warnf(&c, "ACPI: %s lists %u tables, only the first %u recorded", root, n,
		      ACPI_MAX_TABLES);
	if (!c.saw_madt)
		warnf(&c, "ACPI: no MADT (APIC) listed in the %s", root);
	if (!c.saw_hpet)
		warnf(&c, "ACPI: no HPET listed in the %s", root);
	return 0;
}
