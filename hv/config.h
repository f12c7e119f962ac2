/* SPDX-License-Identifier: MIT */
/*
 * The partition configuration: a text file passed as a GRUB module2 whose
 * string starts with "partitions". Parsed once at boot, checked against the
 * platform, and refused with file:line and what was expected before any guest
 * starts. Host-testable; fuzzed.
 *
 * Grammar (one statement a line; '#' starts a comment; blank lines ignored):
 *
 *   [hypervisor]                 optional, at most once
 *   tick_us = 1000               host tick period, 0 = tickless (default 1000)
 *
 *   [partition NAME]             NAME: 1-31 of [A-Za-z0-9_.-]
 *   cpus = 1,2-3                 physical CPUs by MADT index (list and ranges)
 *   memory = 64M                 RAM size, K/M/G suffix, multiple of 2 MiB
 *   base = 0x10000000            optional fixed host-physical base (2 MiB aligned)
 *   image = hello                the module whose string's first word is this
 *   cmdline = "text"             guest command line (quotes optional; \" and \\ escapes)
 *   modules = initrd extra       more modules handed to the guest, by name
 *   timer = direct               direct | inject | emulated
 *   console = on                 on | off
 *
 * Keys may appear in any order within a section; each at most once. cpus,
 * memory and image are required.
 */
#ifndef TEMPO_HV_CONFIG_H
#define TEMPO_HV_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CONFIG_MAX_PARTITIONS	8
#define CONFIG_MAX_CPUS		64	/* physical CPU indexes 0..63 */
#define CONFIG_NAME_LEN		32
#define CONFIG_CMDLINE_LEN	256
#define CONFIG_MAX_MODULES	4
#define CONFIG_MAX_TEXT		(64 * 1024)	/* larger config files are refused */
#define CONFIG_MEM_ALIGN	(2ull << 20)
#define CONFIG_DEFAULT_TICK_US	1000

enum timer_mode {
	TIMER_DIRECT = 0,
	TIMER_INJECT = 1,
	TIMER_EMULATED = 2,
};

struct partition_config {
	char name[CONFIG_NAME_LEN];
	uint64_t cpu_mask;		/* bit i: physical CPU i */
	uint64_t memory_bytes;
	uint64_t base;			/* 0: carved from usable RAM */
	char image[CONFIG_NAME_LEN];
	char cmdline[CONFIG_CMDLINE_LEN];
	uint32_t module_count;
	char modules[CONFIG_MAX_MODULES][CONFIG_NAME_LEN];
	enum timer_mode timer;
	bool console;
	uint32_t line;			/* where its section starts, for messages */
};

struct hv_config {
	uint32_t tick_us;
	uint32_t partition_count;
	struct partition_config partitions[CONFIG_MAX_PARTITIONS];
};

struct config_error {
	uint32_t line;			/* 0 when the error is not tied to a line */
	char msg[160];
};

/* What the platform offers, for config_validate. */
struct config_platform {
	uint32_t cpu_count;		/* CPUs the MADT lists and that are enabled */
	uint32_t module_count;
	const char *module_names[16];	/* first word of each module string */
	uint64_t usable_bytes;		/* RAM left for partitions */
};

/*
 * Parse @len bytes of @text (need not be NUL-terminated). Returns 0, or -1
 * with @err filled. Syntax only: ranges, duplicates, required keys.
 */
int config_parse(const char *text, size_t len, struct hv_config *out, struct config_error *err);

/*
 * Check a parsed config against the platform: CPUs exist and are given to at
 * most one partition, images and modules exist, fixed bases do not overlap,
 * memory fits. Returns 0, or -1 with @err (line = the partition's section).
 */
int config_validate(const struct hv_config *cfg, const struct config_platform *plat,
		    struct config_error *err);

const char *timer_mode_name(enum timer_mode m);

#endif
