// SPDX-License-Identifier: MIT
/*
 * Configuration mechanism #1 and ECAM, and the boot's PCI enumeration
 * (drivers/pci_cfg.h). References: PCI Local Bus Specification 3.0,
 * 3.2.2.3.2 (mechanism #1); PCI Express Base 4.0, 7.2.2 (ECAM); PCI
 * Firmware Specification 3.0, 4.1.2 (MCFG).
 */
#include "drivers/pci_cfg.h"

#include "arch/x86/boot_layout.h"
#include "hv/lib/lib.h"
#include "hv/lib/log.h"
#include "hv/lib/spin.h"
#include "hv/lib/x86.h"

static struct pci_enum boot_enum;
static const struct pci_cfg_ops *boot_ops;

static bool access_ok(uint32_t offset, uint8_t size, uint32_t limit)
{
	return (size == 1 || size == 2 || size == 4) && offset < limit && (offset & 3) + size <= 4;
}

static uint32_t width_mask(uint8_t size)
{
	return size >= 4 ? 0xffffffffu : (1u << (size * 8)) - 1;
}

/* ---- mechanism #1 ---- */

static uint32_t cf8_lock;

static void cf8_take(void)
{
	spin_lock(&cf8_lock);
}

static void cf8_give(void)
{
	spin_unlock(&cf8_lock);
}

static uint32_t cf8_read(void *ctx, uint32_t bdf, uint32_t offset, uint8_t size)
{
	uint16_t port = (uint16_t)(PCI_CONFIG_DATA_PORT + (offset & 3));
	uint32_t v;

	(void)ctx;
	if (!access_ok(offset, size, PCI_CONFIG_SIZE) || bdf > 0xffff)
		return width_mask(size);
	cf8_take();
	outl(PCI_CONFIG_ADDRESS_PORT, PCI_CF8(bdf, offset));
	v = size == 1 ? inb(port) : size == 2 ? inw(port) : inl(port);
	cf8_give();
	return v;
}

static void cf8_write(void *ctx, uint32_t bdf, uint32_t offset, uint8_t size, uint32_t value)
{
	uint16_t port = (uint16_t)(PCI_CONFIG_DATA_PORT + (offset & 3));

	(void)ctx;
	if (!access_ok(offset, size, PCI_CONFIG_SIZE) || bdf > 0xffff)
		return;
	cf8_take();
	outl(PCI_CONFIG_ADDRESS_PORT, PCI_CF8(bdf, offset));
	if (size == 1)
		outb(port, (uint8_t)value);
	else if (size == 2)
		outw(port, (uint16_t)value);
	else
		outl(port, value);
	cf8_give();
}

static const struct pci_cfg_ops cf8_ops = { .read = cf8_read, .write = cf8_write };

/* Does CONFIG_ADDRESS latch a 32-bit write (Linux's pci_check_type1 test)? */
static bool cf8_present(void)
{
	uint32_t saved, echo;

	cf8_take();
	saved = inl(PCI_CONFIG_ADDRESS_PORT);
	outl(PCI_CONFIG_ADDRESS_PORT, PCI_CF8_ENABLE);
	echo = inl(PCI_CONFIG_ADDRESS_PORT);
	outl(PCI_CONFIG_ADDRESS_PORT, saved);
	cf8_give();
	return echo == PCI_CF8_ENABLE;
}

/* ---- ECAM ---- */

struct ecam {
	uint64_t base;		/* bus 0's address */
	uint8_t bus_start, bus_end;
};

static struct ecam ecam;

/*
 * The function's 4 KiB through the boot's identity map. Below 3 GiB that
 * map is write-back; the MTRRs firmware sets make an MMIO hole uncacheable
 * whatever the page tables say (SDM Vol. 3A 12.5.2.2), so accesses reach
 * the device as they must.
 */
static volatile void *ecam_addr(const struct ecam *e, uint32_t bdf, uint32_t offset)
{
	return (volatile void *)(uintptr_t)(e->base + PCI_ECAM_OFFSET(bdf) + offset);
}

static bool ecam_reaches(const struct ecam *e, uint32_t bdf)
{
	return bdf <= 0xffff && PCI_BDF_BUS(bdf) >= e->bus_start && PCI_BDF_BUS(bdf) <= e->bus_end;
}

static uint32_t ecam_read(void *ctx, uint32_t bdf, uint32_t offset, uint8_t size)
{
	const struct ecam *e = ctx;
	volatile void *p;

	if (!access_ok(offset, size, PCI_EXT_CONFIG_SIZE) || !ecam_reaches(e, bdf))
		return width_mask(size);
	p = ecam_addr(e, bdf, offset);
	if (size == 1)
		return *(volatile uint8_t *)p;
	if (size == 2)
		return *(volatile uint16_t *)p;
	return *(volatile uint32_t *)p;
}

static void ecam_write(void *ctx, uint32_t bdf, uint32_t offset, uint8_t size, uint32_t value)
{
	const struct ecam *e = ctx;
	volatile void *p;

	if (!access_ok(offset, size, PCI_EXT_CONFIG_SIZE) || !ecam_reaches(e, bdf))
		return;
	p = ecam_addr(e, bdf, offset);
	if (size == 1)
		*(volatile uint8_t *)p = (uint8_t)value;
	else if (size == 2)
		*(volatile uint16_t *)p = (uint16_t)value;
	else
		*(volatile uint32_t *)p = value;
}

static const struct pci_cfg_ops ecam_ops = { .read = ecam_read, .write = ecam_write, .ctx = &ecam };

/* ---- the boot's choice and report ---- */

/* Segment 0's MCFG range, if the identity map holds it. */
static const struct acpi_mcfg *usable_mcfg(const struct acpi_info *ai)
{
	for (uint32_t i = 0; i < ai->mcfg_count && i < ACPI_MAX_MCFG; i++) {
		const struct acpi_mcfg *m = &ai->mcfg[i];
		uint64_t end = m->base + (((uint64_t)m->bus_end + 1) << PCI_ECAM_BUS_SHIFT);

		if (m->segment)
			log_info("PCI: segment %u (buses %02x-%02x, ECAM at 0x%lx) is not "
				 "enumerated: Tempo uses segment 0\n", m->segment, m->bus_start,
				 m->bus_end, m->base);
		else if (end > IDENTITY_MAP_LIMIT)
			log_info("PCI: ECAM at 0x%lx (buses %02x-%02x) lies above the boot's "
				 "map; using the ports\n", m->base, m->bus_start, m->bus_end);
		else
			return m;
	}
	return NULL;
}

void pci_boot_scan(const struct acpi_info *ai)
{
	const struct acpi_mcfg *m = usable_mcfg(ai);
	uint8_t first = 0, last = PCI_MAX_BUS;
	uint32_t bridges = 0;
	char line[256];

	if (m) {
		ecam = (struct ecam){ m->base, m->bus_start, m->bus_end };
		boot_ops = &ecam_ops;
		first = m->bus_start;
		last = m->bus_end;
		log_info("PCI: ECAM at 0x%lx (ACPI MCFG), buses %02x-%02x\n", m->base, first, last);
	} else if (cf8_present()) {
		boot_ops = &cf8_ops;
		log_info("PCI: configuration mechanism #1 (ports 0xcf8/0xcfc), buses %02x-%02x\n",
			 first, last);
	} else {
		log_info("PCI: no configuration mechanism answers: no PCI functions\n");
		return;
	}
	pci_enumerate(boot_ops, first, last, &boot_enum);
	for (uint32_t i = 0; i < boot_enum.count; i++) {
		bridges += boot_enum.fn[i].bridge;
		log_info("PCI: %s\n", pci_describe(&boot_enum.fn[i], line, sizeof(line)));
	}
	if (boot_enum.found > boot_enum.count)
		log_warn("PCI: %u functions answered; the first %u are kept\n", boot_enum.found,
			 boot_enum.count);
	log_info("PCI: %u functions (%u bridges)\n", boot_enum.found, bridges);
}

const struct pci_enum *pci_boot_functions(void)
{
	return &boot_enum;
}

const struct pci_cfg_ops *pci_boot_cfg(void)
{
	return boot_ops;
}
