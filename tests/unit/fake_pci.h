/* SPDX-License-Identifier: MIT */
/*
 * A fake PCI segment for the host tests: functions with 4 KiB of
 * configuration space each, per-bit write masks (read-only bits, BARs
 * that size as hardware does: their low address bits read back 0) and
 * write-one-to-clear bits, served through struct pci_cfg_ops; and a fake
 * MMIO space for an MSI-X table. Every write is logged, so a test can
 * check what reached the "hardware" and in which order.
 */
#ifndef TEMPO_TESTS_FAKE_PCI_H
#define TEMPO_TESTS_FAKE_PCI_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/lib/pci_defs.h"

#define FAKE_MAX_FNS	16
#define FAKE_LOG	512
#define FAKE_MMIO_SIZE	0x8000

struct fake_write {
	uint32_t bdf, offset;
	uint8_t size;
	uint32_t value;
};

struct fake_fn {
	bool present;
	uint32_t bdf;
	uint8_t cfg[PCI_EXT_CONFIG_SIZE];
	uint8_t wmask[PCI_EXT_CONFIG_SIZE];
	uint8_t w1c[PCI_EXT_CONFIG_SIZE];
	uint32_t reads;		/* config reads served */
};

struct fake_pci {
	struct fake_fn fn[FAKE_MAX_FNS];
	uint32_t limit;			/* from this offset up, reads are all ones */
	uint32_t log_count;
	struct fake_write log[FAKE_LOG];
	uint64_t mmio_base;		/* the MMIO window's host-physical address */
	uint8_t mmio[FAKE_MMIO_SIZE];
	uint32_t mmio_writes;
	struct {
		uint64_t hpa, value;
	} mmio_log[FAKE_LOG];		/* the first writes since the log was cleared */
	uint64_t mmio_bad;		/* accesses outside the window */
};

extern struct fake_pci fake;
extern const struct pci_cfg_ops fake_ops;

void fake_reset(uint32_t limit);
/* A type 0 function with @vendor:@device and @class (24 bits), nothing else writable. */
struct fake_fn *fake_add(uint32_t bdf, uint16_t vendor, uint16_t device, uint32_t class_code,
			 uint8_t header_type);
struct fake_fn *fake_find(uint32_t bdf);
/* Bytes and their write masks at @off (little-endian). */
void fake_set(struct fake_fn *f, uint32_t off, uint8_t size, uint32_t value, uint32_t wmask);
uint32_t fake_get(const struct fake_fn *f, uint32_t off, uint8_t size);
/* BAR @i: memory (32- or 64-bit, @prefetch) or I/O of @size at @addr; 64-bit takes i + 1 too. */
void fake_bar_mem(struct fake_fn *f, uint32_t i, uint64_t addr, uint64_t size, bool is64,
		  bool prefetch);
void fake_bar_io(struct fake_fn *f, uint32_t i, uint32_t port, uint32_t size);
/* A capability @id at @off, linked after the list's current last. */
void fake_cap(struct fake_fn *f, uint8_t off, uint8_t id);
/* Writes logged to @bdf at @off (any size) since the log was cleared. */
uint32_t fake_writes_at(uint32_t bdf, uint32_t off);
void fake_log_clear(void);

uint64_t fake_mmio_read(void *ctx, uint64_t hpa, uint8_t size);
void fake_mmio_write(void *ctx, uint64_t hpa, uint8_t size, uint64_t value);

#endif
