/* SPDX-License-Identifier: MIT */
/*
 * Device assignment in the partition config, and its checks. Pure and
 * host-testable: the boot (hv/core/config.c, with the machine as the boot
 * found it) and tempo-config's `check --machine` (the machine from
 * /sys/bus/pci and the ACPI tables) call the same functions.
 *
 * The four keys of a [partition NAME] section, each at most once, each a
 * comma-separated list (blanks around items are ignored):
 *
 *   pci = 00:19.0, 01:00.0        PCI functions, bus:device.function in hex
 *                                 (an optional 0000: segment prefix, as sysfs
 *                                 names them; Tempo uses segment 0 only)
 *   ports = 0x2f8-0x2ff, 0x80     I/O port ranges, FIRST-LAST inclusive or one
 *                                 port; numbers in hex (0x) or decimal
 *   mmio = 0xfed00000+0x1000      physical memory ranges, BASE+SIZE, both
 *                                 multiples of 4 KiB; SIZE may end in K, M or G
 *   irqs = 3, 4, 16-19            IOAPIC inputs (GSIs), and ranges of them
 *
 * At most DEV_MAX_PCI functions, DEV_MAX_PORTS port ranges, DEV_MAX_MMIO
 * memory ranges and DEV_MAX_IRQS GSIs per partition. Within one list an
 * item may not repeat or overlap another.
 *
 * What devassign_check() refuses, every instance with its reason (a
 * refusal names the line of the key and what is wrong):
 * - given to two partitions: the same function or GSI, overlapping port or
 *   memory ranges (reported at the later partition); a port or memory
 *   range over a BAR of a function given to another partition (reported
 *   at the range's);
 * - reserved by Tempo: any range over one of devassign_reserved()'s (its
 *   console UART, the PICs, PIT, RTC/NMI mask, reset and PCI
 *   configuration ports, the LAPIC and IOAPIC registers, ECAM, the HPET
 *   while Tempo calibrates with it, RAM; and firmware's, which reach SMM,
 *   power or reset or hold secrets: the FADT's SMI command port, PM1
 *   blocks, PM timer and reset register, the DMAR's remapping units, the
 *   TPM);
 * - a port or memory range over a BAR of a PCI function: such a device is
 *   given with `pci =`, whose configuration space Tempo filters;
 * - a bridge: header type 1 or 2, or base class 0x06 (host, ISA/LPC,
 *   PCI-to-PCI and other bridges): what is behind it, and its windows, are
 *   shared;
 * - a function or a GSI the machine does not have.
 */
#ifndef TEMPO_HV_CORE_DEVASSIGN_H
#define TEMPO_HV_CORE_DEVASSIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DEV_MAX_PCI		16
#define DEV_MAX_PORTS		16
#define DEV_MAX_MMIO		16
#define DEV_MAX_IRQS		32
#define DEV_GSI_LIMIT		1024	/* GSIs 0..1023: eight IOAPICs of 120 inputs fit */
#define DEV_MMIO_GRAIN		0x1000ull	/* an EPT page */
#define DEV_MSG_LEN		192
/* The TPM's locality 0-4 register pages (TCG PC Client Platform TPM Profile, TIS and CRB) */
#define DEV_TPM_PHYS		0xfed40000ull
#define DEV_TPM_SIZE		0x5000ull

enum dev_key {
	DEV_KEY_PCI,
	DEV_KEY_PORTS,
	DEV_KEY_MMIO,
	DEV_KEY_IRQS,
	DEV_KEY_COUNT
};

struct dev_port_range {
	uint16_t first, last;		/* inclusive */
};

struct dev_mmio_range {
	uint64_t base, size;		/* page-aligned, no wrap */
};

/* One partition's devices, as its section of the config gives them. */
struct dev_assignment {
	uint32_t pci_count;
	uint16_t pci[DEV_MAX_PCI];	/* bus 15:8, device 7:3, function 2:0 */
	uint32_t port_count;
	struct dev_port_range ports[DEV_MAX_PORTS];
	uint32_t mmio_count;
	struct dev_mmio_range mmio[DEV_MAX_MMIO];
	uint32_t irq_count;
	uint32_t irqs[DEV_MAX_IRQS];
	uint32_t given;			/* 1 << enum dev_key for each key given */
	uint32_t line[DEV_KEY_COUNT];	/* each key's line in the config */
};

/* The key's name ("pci", "ports", "mmio", "irqs"). */
const char *devassign_key_name(enum dev_key k);

/* The key @key (@len bytes) names, or -1 for none of the four. */
int devassign_key(const char *key, size_t len);

/*
 * Parse the value of @key (@len bytes at @value, need not be terminated)
 * into @a (zeroed before its section's first key), noting @line. Returns
 * 0, or -1 with a one-line message in @err that starts with the key
 * ("pci: expected BB:DD.F in hex (00:19.0), found 'x'"); @a's list for
 * @key is then left empty. A key given twice is refused too.
 */
int devassign_parse(struct dev_assignment *a, enum dev_key key, const char *value, size_t len,
		    uint32_t line, char *err, size_t errlen);

/* ---- the machine ---- */

struct dev_bar {
	bool io;
	uint64_t base, size;		/* size 0: no BAR */
};

/* A PCI function as the machine has it (the boot's enumeration, or sysfs). */
struct dev_fn_info {
	uint16_t bdf;
	uint8_t header_type;		/* bit 7 (multi-function) ignored */
	uint32_t class_code;		/* 24 bits */
	struct dev_bar bar[6];
	uint8_t interrupt_pin;		/* 0 none, 1-4 INTA-INTD */
	uint8_t interrupt_line;		/* as firmware wrote it; 0 or 0xFF: not routed */
};

/* An IOAPIC's inputs: GSIs @first .. @first + @count - 1. */
/*
 * The GSI @f's INTx reaches, or -1 (no interrupt pin, or a line of 0 or
 * 0xFF: firmware routed it nowhere). Tempo reads no _PRT: the line firmware
 * wrote is taken as the GSI, which holds where firmware routes PCI
 * interrupts to ISA IRQs that the IOAPIC takes at the same number (PC
 * chipsets in PIC-compatible routing, Bochs' i440FX); a machine whose _PRT
 * routes the pin elsewhere needs the line to say so.
 */
int32_t devassign_intx_gsi(const struct dev_fn_info *f);

struct dev_gsi_range {
	uint32_t first, count;
};

enum dev_space {
	DEV_SPACE_PORT,
	DEV_SPACE_MMIO,
};

/* A range Tempo keeps for itself. */
struct dev_reserved {
	enum dev_space space;
	uint64_t first, last;		/* inclusive */
	const char *what;		/* "Tempo's console UART", "RAM", ... */
};

struct dev_machine {
	const struct dev_fn_info *fns;
	uint32_t fn_count;
	const struct dev_gsi_range *gsis;
	uint32_t gsi_range_count;
	const struct dev_reserved *reserved;
	uint32_t reserved_count;
	/*
	 * The machine is not known (tempo-config check without --machine):
	 * functions and GSIs are not looked for, @fns and @gsis are ignored;
	 * the partitions are checked against each other and @reserved only.
	 */
	bool unknown;
};

/* What devassign_reserved() needs to know of the platform. */
struct dev_platform {
	uint16_t console_port;		/* the 16550 Tempo prints on (8 ports); 0: none */
	bool debugcon;			/* Tempo writes port 0xE9 */
	uint64_t lapic_phys;		/* 0: none */
	uint32_t ioapic_count;
	uint64_t ioapic_phys[8];
	bool hpet_in_use;		/* Tempo calibrates (or times) with the HPET */
	uint64_t hpet_phys;
	uint32_t ecam_count;
	struct dev_mmio_range ecam[8];
	uint32_t ram_count;
	const struct dev_mmio_range *ram;	/* every range of RAM, usable or Tempo's */
	/*
	 * The FADT's (0: none): the SMI command port, the PM1a/PM1b event and
	 * control blocks and the PM timer, each with its length in bytes
	 * (0: the least the spec allows).
	 */
	uint32_t smi_cmd_port;
	uint32_t pm1a_evt_port, pm1b_evt_port, pm1a_cnt_port, pm1b_cnt_port, pm_tmr_port;
	uint8_t pm1_evt_len, pm1_cnt_len, pm_tmr_len;
	/* the FADT's reset register, where it has one: port or memory */
	bool reset_reg_valid;
	bool reset_reg_io;
	uint64_t reset_reg_addr;
	/* the DMAR's remapping units: their register sets */
	uint32_t drhd_count;
	struct dev_mmio_range drhd[16];
	bool tpm;			/* the ACPI tables list a TPM (TPM2 or TCPA) */
};

/*
 * Fill @out (room for @max) with the ranges Tempo keeps on @p: the fixed
 * legacy ports (below), then @p's own. Returns how many there are (more
 * than @max means some did not fit: size the array again).
 *
 * Fixed: the PICs (0x20-0x21, 0xA0-0xA1) and their edge/level registers
 * (0x4D0-0x4D1), kept masked; the PIT (0x40-0x43), which calibrates the
 * TSC; the 8042 (0x60, 0x64) and port 0x92, whose reset lines reset the
 * machine; the RTC's index port and NMI mask (0x70-0x77); and the PCI
 * configuration ports with the reset control register (0xCF8-0xCFF).
 */
uint32_t devassign_reserved(const struct dev_platform *p, struct dev_reserved *out,
			    uint32_t max);

/* ---- the checks ---- */

struct dev_partition {
	const char *name;
	const struct dev_assignment *a;
};

enum dev_reason {
	DEV_REASON_TWICE,		/* given to two partitions */
	DEV_REASON_RESERVED,		/* Tempo keeps it */
	DEV_REASON_FUNCTION_BAR,	/* a range over a PCI function's BAR */
	DEV_REASON_BRIDGE,
	DEV_REASON_NO_FUNCTION,		/* no such PCI function */
	DEV_REASON_NO_GSI,		/* no IOAPIC input with that GSI */
	DEV_REASON_INTX_GSI,		/* a function's INTx GSI is not in the partition's irqs */
};

struct dev_refusal {
	uint32_t partition;		/* index into the partitions given */
	enum dev_key key;
	uint32_t line;			/* the key's line */
	enum dev_reason reason;
	char msg[DEV_MSG_LEN];		/* "pci: 00:1e.0 is a bridge (...)" */
};

/*
 * Check @n partitions' assignments against each other and @m. Fills @out
 * with up to @max refusals, in partition order and then key order, and
 * returns how many there are in all (0: the assignment is accepted). A
 * clash between two partitions is reported once. @out may be NULL (with
 * @max 0) to count only.
 */
uint32_t devassign_check(const struct dev_partition *parts, uint32_t n,
			 const struct dev_machine *m, struct dev_refusal *out, uint32_t max);

#endif
