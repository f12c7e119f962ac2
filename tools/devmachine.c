// SPDX-License-Identifier: MIT
/*
 * tempo-config's view of the machine's devices (tools/devmachine.h). Every
 * file is outside input: read to a bound, numbers checked, an unreadable or
 * malformed one skipped with a warning.
 */
#include "tools/devmachine.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hv/lib/lib.h"

#define MAX_FNS		512
#define MAX_RAM		128
#define MAX_RESERVED	(48 + 8 + 8 + MAX_RAM)
#define FADT_MAX	1024	/* ACPI 6.5's is 276 bytes */
#define DMAR_MAX	65536
#define CONSOLE_PORT	0x3f8	/* Tempo's console on every machine */
#define SYSFS_IORESOURCE_IO	0x100
#define SYSFS_IORESOURCE_MEM	0x200

static struct tool_pci_fn fns[MAX_FNS];
static struct dev_fn_info infos[MAX_FNS];
static uint32_t fn_count;
static struct dev_gsi_range gsis[ACPI_MAX_IOAPICS];
static struct dev_mmio_range ram[MAX_RAM];
static struct dev_reserved reserved[MAX_RESERVED];

static char *path_of(const char *sysroot, const char *fmt, const char *name)
{
	static char buf[4][4096];
	static int next;
	char *p = buf[next++ % 4], rel[2048];

	snprintf(rel, sizeof(rel), fmt, name);
	snprintf(p, sizeof(buf[0]), "%s%s", sysroot ? sysroot : "", rel);
	return p;
}

/* Up to @max bytes of @path into @buf; how many, or -1. */
static long read_some(const char *path, void *buf, size_t max)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, max, f);
	fclose(f);
	return (long)n;
}

bool devmachine_parse_bdf(const char *s, uint16_t *bdf)
{
	unsigned int seg = 0, bus, dev, fn;
	int used = 0;

	if (sscanf(s, "%4x:%2x:%2x.%1x%n", &seg, &bus, &dev, &fn, &used) == 4 && !s[used]) {
		if (seg)
			return false;
	} else if (sscanf(s, "%2x:%2x.%1x%n", &bus, &dev, &fn, &used) != 3 || s[used]) {
		return false;
	}
	if (bus > 0xff || dev > 0x1f || fn > 7)
		return false;
	*bdf = (uint16_t)(bus << 8 | dev << 3 | fn);
	return true;
}

/* The BARs from sysfs's resource file: "start end flags" a line, BARs 0-5 first. */
static void read_resources(const char *sysroot, const char *name, struct dev_fn_info *d)
{
	char text[4096];
	long n = read_some(path_of(sysroot, "/sys/bus/pci/devices/%s/resource", name), text,
			   sizeof(text) - 1);
	char *line, *save = NULL;

	if (n < 0)
		return;
	text[n] = 0;
	line = strtok_r(text, "\n", &save);
	for (uint32_t b = 0; b < 6 && line; b++, line = strtok_r(NULL, "\n", &save)) {
		unsigned long long start, end, flags;

		if (sscanf(line, "%llx %llx %llx", &start, &end, &flags) != 3 || end < start ||
		    (!start && !end))
			continue;
		if (!(flags & (SYSFS_IORESOURCE_IO | SYSFS_IORESOURCE_MEM)))
			continue;
		d->bar[b].io = flags & SYSFS_IORESOURCE_IO;
		d->bar[b].base = start;
		d->bar[b].size = end - start + 1;
	}
}

static void read_pci(const char *sysroot)
{
	const char *dir = path_of(sysroot, "/sys/bus/pci/devices", "");
	DIR *d = opendir(dir);
	struct dirent *e;

	fn_count = 0;
	if (!d)
		return;		/* no PCI (or no sysfs): no functions */
	while ((e = readdir(d)) && fn_count < MAX_FNS) {
		struct tool_pci_fn *f = &fns[fn_count];
		uint8_t cfg[64];
		char num[32];
		uint16_t bdf;
		long n;

		if (e->d_name[0] == '.' || !devmachine_parse_bdf(e->d_name, &bdf))
			continue;	/* another segment, or not a function's name */
		n = read_some(path_of(sysroot, "/sys/bus/pci/devices/%s/config", e->d_name), cfg,
			      sizeof(cfg));
		if (n < 16) {
			printf("warning: %s: no configuration header, function left out\n",
			       path_of(sysroot, "/sys/bus/pci/devices/%s/config", e->d_name));
			continue;
		}
		memset(f, 0, sizeof(*f));
		f->info.bdf = bdf;
		f->info.class_code = (uint32_t)cfg[9] | (uint32_t)cfg[10] << 8 |
				     (uint32_t)cfg[11] << 16;
		f->info.header_type = cfg[14] & 0x7f;
		f->interrupt_pin = n > 0x3d ? cfg[0x3d] : 0;
		f->irq = -1;
		n = read_some(path_of(sysroot, "/sys/bus/pci/devices/%s/irq", e->d_name), num,
			      sizeof(num) - 1);
		if (n > 0) {
			char *end;
			long irq;

			num[n] = 0;
			irq = strtol(num, &end, 10);
			if (end != num && irq > 0 && irq < DEV_GSI_LIMIT)
				f->irq = (int32_t)irq;
		}
		read_resources(sysroot, e->d_name, &f->info);
		fn_count++;
	}
	closedir(d);
}

const struct tool_pci_fn *devmachine_fn(uint16_t bdf)
{
	for (uint32_t i = 0; i < fn_count; i++)
		if (fns[i].info.bdf == bdf)
			return &fns[i];
	return NULL;
}

/* ECAM ranges of segment 0 from the MCFG, if Linux lets us read it. */
static void read_mcfg(const char *sysroot, struct dev_platform *pf)
{
	static uint8_t t[4096];
	long n = read_some(path_of(sysroot, "/sys/firmware/acpi/tables/MCFG", ""), t, sizeof(t));

	if (n < 44)
		return;
	for (long off = 44; off + 16 <= n && pf->ecam_count < 8; off += 16) {
		uint64_t base;
		uint16_t seg;

		memcpy(&base, t + off, 8);
		memcpy(&seg, t + off + 8, 2);
		if (!base || seg || t[off + 11] < t[off + 10])
			continue;
		pf->ecam[pf->ecam_count++] = (struct dev_mmio_range){
			base + ((uint64_t)t[off + 10] << 20),
			(uint64_t)(t[off + 11] - t[off + 10] + 1) << 20 };
	}
}

/* The HPET's base from its table (a Generic Address in system memory at 44). */
static uint64_t read_hpet(const char *sysroot)
{
	uint8_t t[56];
	uint64_t addr;

	if (read_some(path_of(sysroot, "/sys/firmware/acpi/tables/HPET", ""), t, sizeof(t)) <
	    52 || t[40] != 0)
		return 0;
	memcpy(&addr, t + 44, 8);
	return addr;
}

/*
 * Firmware's own registers, from the same tables the boot reads: the FADT's
 * SMI command port, PM1 blocks, PM timer and reset register, the DMAR's
 * remapping units, and the TPM's pages when a TPM table is there. A table
 * that is missing or unreadable adds nothing (the boot checks again).
 */
static void read_firmware_regs(const char *sysroot, struct dev_platform *pf)
{
	static uint8_t t[DMAR_MAX];
	static struct acpi_dmar dmar;
	struct acpi_fadt_ports fp;
	struct acpi_reset_reg rr;
	char why[160];
	long n;

	n = read_some(path_of(sysroot, "/sys/firmware/acpi/tables/FACP", ""), t, FADT_MAX);
	if (n >= 36) {
		acpi_fadt_ports(t, (uint32_t)n, &fp);
		pf->smi_cmd_port = fp.smi_cmd;
		pf->pm1a_evt_port = fp.pm1a_evt;
		pf->pm1b_evt_port = fp.pm1b_evt;
		pf->pm1a_cnt_port = fp.pm1a_cnt;
		pf->pm1b_cnt_port = fp.pm1b_cnt;
		pf->pm_tmr_port = fp.pm_tmr;
		pf->pm1_evt_len = fp.pm1_evt_len;
		pf->pm1_cnt_len = fp.pm1_cnt_len;
		pf->pm_tmr_len = fp.pm_tmr_len;
		if (acpi_fadt_reset_reg(t, (uint32_t)n, &rr, why, sizeof(why)) == 0 &&
		    rr.space != ACPI_SPACE_PCI_CONFIG) {
			pf->reset_reg_valid = true;
			pf->reset_reg_io = rr.space == ACPI_SPACE_IO;
			pf->reset_reg_addr = rr.address;
		}
	}
	n = read_some(path_of(sysroot, "/sys/firmware/acpi/tables/DMAR", ""), t, sizeof(t));
	if (n >= 36 && !acpi_dmar_parse(t, (uint32_t)n, &dmar, why, sizeof(why)))
		for (uint32_t i = 0; i < dmar.unit_count && pf->drhd_count < 16; i++)
			pf->drhd[pf->drhd_count++] = (struct dev_mmio_range){
				dmar.units[i].reg_phys, dmar.units[i].reg_bytes };
	pf->tpm = read_some(path_of(sysroot, "/sys/firmware/acpi/tables/TPM2", ""), t, 4) > 0 ||
		  read_some(path_of(sysroot, "/sys/firmware/acpi/tables/TCPA", ""), t, 4) > 0;
}

/* Every range the firmware's map calls RAM of any kind. */
static uint32_t read_ram(const char *sysroot)
{
	const char *dir = path_of(sysroot, "/sys/firmware/memmap", "");
	DIR *d = opendir(dir);
	struct dirent *e;
	uint32_t count = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && count < MAX_RAM) {
		char type[64], num[32], *end;
		unsigned long long start, last;
		long n;

		if (e->d_name[0] == '.')
			continue;
		n = read_some(path_of(sysroot, "/sys/firmware/memmap/%s/type", e->d_name), type,
			      sizeof(type) - 1);
		if (n <= 0)
			continue;
		type[n] = 0;
		if (strncmp(type, "System RAM", 10) && strncmp(type, "ACPI Tables", 11) &&
		    strncmp(type, "ACPI Non-volatile Storage", 25))
			continue;
		n = read_some(path_of(sysroot, "/sys/firmware/memmap/%s/start", e->d_name), num,
			      sizeof(num) - 1);
		if (n <= 0)
			continue;
		num[n] = 0;
		errno = 0;
		start = strtoull(num, &end, 16);
		if (end == num || errno)
			continue;
		n = read_some(path_of(sysroot, "/sys/firmware/memmap/%s/end", e->d_name), num,
			      sizeof(num) - 1);
		if (n <= 0)
			continue;
		num[n] = 0;
		last = strtoull(num, &end, 16);
		if (end == num || errno || last < start)
			continue;
		ram[count++] = (struct dev_mmio_range){ start, last - start + 1 };
	}
	closedir(d);
	return count;
}

void devmachine_read(const char *sysroot, const struct acpi_info *ai, bool hpet_free,
		     struct dev_machine *m)
{
	struct dev_platform pf = {
		.console_port = CONSOLE_PORT,
		.debugcon = true,
		.lapic_phys = ai->lapic_phys,
		.ram = ram,
	};

	memset(m, 0, sizeof(*m));
	read_pci(sysroot);
	for (uint32_t i = 0; i < fn_count; i++)
		infos[i] = fns[i].info;
	/* an IOAPIC's inputs run up to the next one's base, or a PC's 24 */
	for (uint32_t i = 0; i < ai->ioapic_count && i < ACPI_MAX_IOAPICS; i++) {
		uint32_t base = ai->ioapics[i].gsi_base, count = DEVMACHINE_IOAPIC_PINS;

		for (uint32_t k = 0; k < ai->ioapic_count && k < ACPI_MAX_IOAPICS; k++)
			if (ai->ioapics[k].gsi_base > base &&
			    ai->ioapics[k].gsi_base - base < count)
				count = ai->ioapics[k].gsi_base - base;
		gsis[m->gsi_range_count++] = (struct dev_gsi_range){ base, count };
		pf.ioapic_phys[pf.ioapic_count++] = ai->ioapics[i].phys;
	}
	pf.hpet_phys = read_hpet(sysroot);
	pf.hpet_in_use = pf.hpet_phys && !hpet_free;
	read_mcfg(sysroot, &pf);
	read_firmware_regs(sysroot, &pf);
	pf.ram_count = read_ram(sysroot);
	m->fns = infos;
	m->fn_count = fn_count;
	m->gsis = gsis;
	m->reserved = reserved;
	m->reserved_count = MIN(devassign_reserved(&pf, reserved, MAX_RESERVED),
				(uint32_t)MAX_RESERVED);
}
