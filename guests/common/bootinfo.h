/* SPDX-License-Identifier: MIT */
/*
 * What a guest needs from its multiboot (v1 or v2) information block, copied
 * out once at start-up so the block itself can be overwritten later (the AP
 * trampoline goes to low memory, where a loader may have put it).
 */
#ifndef TEMPO_GUESTS_COMMON_BOOTINFO_H
#define TEMPO_GUESTS_COMMON_BOOTINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MB1_BOOT_MAGIC		0x2badb002u
#define MB2_BOOT_MAGIC		0x36d76289u

#define BOOTINFO_CMDLINE_MAX	256
#define BOOTINFO_RAM_MAX	32
#define BOOTINFO_RSDP_MAX	36

struct ram_range {
	uint64_t base;
	uint64_t end;		/* exclusive */
};

struct boot_params {
	int mb_version;		/* 1 or 2; 0 when the magic is neither */
	char cmdline[BOOTINFO_CMDLINE_MAX];	/* NUL-terminated, "" when absent */
	bool cmdline_cut;	/* longer than the buffer */
	/* End (exclusive) of the highest usable RAM; 0 when unknown. */
	uint64_t ram_top;
	/* Usable RAM ranges; ram_count 0 means the loader gave no map. */
	struct ram_range ram[BOOTINFO_RAM_MAX];
	unsigned int ram_count;
	/* mb2 only: the loader's copy of the ACPI RSDP (tag 15, else 14). */
	uint8_t rsdp[BOOTINFO_RSDP_MAX];
	uint32_t rsdp_len;	/* 0 when absent */
	const char *error;	/* the first problem found in the block, or NULL */
};

/* Fills @bp from @magic and the block at physical @info; never faults on bad input. */
void bootinfo_parse(uint32_t magic, uint32_t info, struct boot_params *bp);

/* Whether [base, base + len) lies inside one usable RAM range of the map. */
bool bootinfo_is_ram(const struct boot_params *bp, uint64_t base, uint64_t len);

/*
 * Finds the word "key=value" in @cmdline and copies value into @val (cut to
 * fit, NUL-terminated). Returns false when there is no such word.
 */
bool cmdline_value(const char *cmdline, const char *key, char *val, size_t vallen);

/* A decimal or 0x-hexadecimal number, all of @s; false if not one or too big. */
bool parse_number(const char *s, uint64_t *out);

#endif
