// SPDX-License-Identifier: MIT
/*
 * The machine as the device keys are checked against it at boot
 * (hv/core/devassign.h): the PCI functions the boot enumerated, the GSIs
 * of the IOAPICs it found, and what Tempo keeps (its console, the LAPIC,
 * IOAPIC and ECAM pages, the HPET if it calibrated with it, every range of
 * RAM the firmware lists, and firmware's own: the FADT's SMI command port,
 * PM1 blocks, PM timer and reset register, the DMAR's remapping units, the
 * TPM's pages when a TPM table is listed). tempo-config check --machine
 * builds the same from Linux's view of the machine (tools/).
 */
#include "hv/start/start.h"

#include "drivers/ioapic.h"
#include "drivers/pci_cfg.h"
#include "hv/lib/lib.h"

#define MACHINE_RAM_MAX		BOOT_INFO_MAX_MMAP
#define MACHINE_RESERVED_MAX	(48 + IOAPIC_MAX + ACPI_MAX_MCFG + MACHINE_RAM_MAX)

static struct dev_fn_info fns[PCI_MAX_FUNCTIONS];
static struct dev_gsi_range gsis[IOAPIC_MAX];
static struct dev_mmio_range ram[MACHINE_RAM_MAX];
static struct dev_reserved reserved[MACHINE_RESERVED_MAX];
static struct dev_machine machine;

/* RAM, whatever the firmware does with it: an mmio = range there would be memory, not a device. */
static bool is_ram(uint32_t type)
{
	return type == BOOT_MEM_USABLE || type == BOOT_MEM_ACPI_RECLAIM ||
	       type == BOOT_MEM_ACPI_NVS || type == BOOT_MEM_BAD;
}

const struct dev_machine *boot_dev_machine(const struct boot_info *bi,
					   const struct acpi_info *ai, bool hpet_in_use)
{
	const struct pci_enum *e = pci_boot_functions();
	struct dev_platform pf = {
		.console_port = CONFIG_CONSOLE_PORT,
		.debugcon = true,
		.lapic_phys = ai->lapic_phys,
		.hpet_in_use = hpet_in_use && ai->has_hpet,
		.hpet_phys = ai->has_hpet ? ai->hpet_phys : 0,
		.ram = ram,
	};

	machine.fn_count = 0;
	for (uint32_t i = 0; i < e->count && i < ARRAY_SIZE(fns); i++) {
		const struct pci_function *f = &e->fn[i];
		struct dev_fn_info *d = &fns[machine.fn_count++];

		memset(d, 0, sizeof(*d));
		d->bdf = f->bdf;
		d->header_type = f->header_type;
		d->class_code = f->class_code;
		d->interrupt_pin = f->interrupt_pin;
		d->interrupt_line = f->interrupt_line;
		for (uint32_t b = 0; b < f->bar_count && b < ARRAY_SIZE(d->bar); b++) {
			d->bar[b].io = f->bar[b].kind == PCI_BAR_IO;
			d->bar[b].base = f->bar[b].addr;
			d->bar[b].size = f->bar[b].kind == PCI_BAR_NONE ? 0 : f->bar[b].size;
		}
	}
	machine.gsi_range_count = 0;
	for (uint32_t i = 0; i < ioapic_count(); i++) {
		const struct ioapic_chip *c = ioapic_get(i);

		gsis[machine.gsi_range_count++] = (struct dev_gsi_range){ c->gsi_base, c->entries };
		if (pf.ioapic_count < ARRAY_SIZE(pf.ioapic_phys))
			pf.ioapic_phys[pf.ioapic_count++] = c->phys;
	}
	/* an IOAPIC left out (unreachable) keeps its page all the same */
	for (uint32_t i = 0; i < ai->ioapic_count; i++) {
		bool kept = false;

		for (uint32_t k = 0; k < pf.ioapic_count; k++)
			kept |= pf.ioapic_phys[k] == ai->ioapics[i].phys;
		if (!kept && pf.ioapic_count < ARRAY_SIZE(pf.ioapic_phys))
			pf.ioapic_phys[pf.ioapic_count++] = ai->ioapics[i].phys;
	}
	for (uint32_t i = 0; i < ai->mcfg_count && pf.ecam_count < ARRAY_SIZE(pf.ecam); i++) {
		const struct acpi_mcfg *m = &ai->mcfg[i];

		pf.ecam[pf.ecam_count++] = (struct dev_mmio_range){
			m->base + ((uint64_t)m->bus_start << 20),
			(uint64_t)(m->bus_end - m->bus_start + 1) << 20 };
	}
	for (uint32_t i = 0; i < bi->mmap_count && pf.ram_count < ARRAY_SIZE(ram); i++)
		if (is_ram(bi->mmap[i].type) && bi->mmap[i].length)
			ram[pf.ram_count++] = (struct dev_mmio_range){ bi->mmap[i].base,
								       bi->mmap[i].length };
	pf.smi_cmd_port = ai->fadt_ports.smi_cmd;
	pf.pm1a_evt_port = ai->fadt_ports.pm1a_evt;
	pf.pm1b_evt_port = ai->fadt_ports.pm1b_evt;
	pf.pm1a_cnt_port = ai->fadt_ports.pm1a_cnt;
	pf.pm1b_cnt_port = ai->fadt_ports.pm1b_cnt;
	pf.pm_tmr_port = ai->fadt_ports.pm_tmr;
	pf.pm1_evt_len = ai->fadt_ports.pm1_evt_len;
	pf.pm1_cnt_len = ai->fadt_ports.pm1_cnt_len;
	pf.pm_tmr_len = ai->fadt_ports.pm_tmr_len;
	pf.reset_reg_valid = ai->has_reset_reg && ai->reset_reg.space != ACPI_SPACE_PCI_CONFIG;
	pf.reset_reg_io = ai->reset_reg.space == ACPI_SPACE_IO;
	pf.reset_reg_addr = ai->reset_reg.address;
	for (uint32_t i = 0; ai->has_dmar && i < ai->dmar.unit_count &&
			     pf.drhd_count < ARRAY_SIZE(pf.drhd); i++)
		pf.drhd[pf.drhd_count++] = (struct dev_mmio_range){ ai->dmar.units[i].reg_phys,
								    ai->dmar.units[i].reg_bytes };
	for (uint32_t i = 0; i < ai->table_count && i < ACPI_MAX_TABLES; i++)
		pf.tpm |= !memcmp(ai->table_sigs[i], "TPM2", 4) ||
			  !memcmp(ai->table_sigs[i], "TCPA", 4);
	machine.fns = fns;
	machine.gsis = gsis;
	machine.reserved = reserved;
	machine.reserved_count = MIN(devassign_reserved(&pf, reserved, ARRAY_SIZE(reserved)),
				     (uint32_t)ARRAY_SIZE(reserved));
	machine.unknown = false;
	return &machine;
}
