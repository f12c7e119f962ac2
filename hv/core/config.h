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
 *   tick_slack_us = 250          how late a dedicated core's tick may be placed so it
 *                                falls just after a direct/inject guest's deadline
 *                                (default tick_us / 4; 0 = on the grid; < tick_us)
 *   watchdog_ms = 0              count a vCPU that runs this long without an exit
 *                                (0 = off, the default; 1-60000)
 *   irq_storm_per_ms = 50        an input on the exit path that fires more often in a
 *                                millisecond is masked until the guest rewrites its
 *                                IOAPIC entry (default 50; 1-1000000)
 *   all_ended = reboot           what follows the end of the last partition:
 *                                reboot (the default) | halt | monitor
 *
 *   [partition NAME]             NAME: 1-31 of [A-Za-z0-9_.-]
 *   cpus = 1,2-3                 physical CPUs by MADT index (list and ranges)
 *   memory = 64M                 RAM size, K/M/G suffix, multiple of 2 MiB
 *   base = 0x10000000            optional fixed host-physical base (2 MiB aligned)
 *   image = hello                the module whose string's first word is this
 *   cmdline = "text"             guest command line (quotes optional; \" and \\ escapes)
 *   modules = initrd extra       more modules handed to the guest, by name
 *   timer = direct               direct | inject | emulated | pv-lazy
 *   console = on                 on | off
 *   restart = never              never | on-failure | always (default never): what
 *                                follows the partition's end (docs/operating.md)
 *   restart_limit = 3            at most this many restarts within restart_window_s
 *                                (default 3; 1-1000000); one more ends it for good
 *   restart_window_s = 60        the limit's window in seconds (default 60; 0 = the
 *                                whole run; at most 86400)
 *   debug_exit = off             on: a write to port 0xF4 shuts the partition down with
 *                                exit code (value << 1) | 1, as QEMU's isa-debug-exit
 *   fw_cfg = off                 on: ports 0x510-0x511 answer as QEMU's fw_cfg (its
 *                                signature, CPU count and RAM size), for test kernels
 *
 *   [channel NAME]               shared memory between partitions (docs/channels.md)
 *   size = 64K                   4 KiB to 1 GiB, a multiple of 4 KiB (K/M/G suffix)
 *   peer = rt0 rw                a partition that sees it: NAME rw|ro [GPA]; 2 to
 *   peer = linux ro 0x80000000   CONFIG_MAX_PEERS of them, each partition at most once;
 *                                GPA (4 KiB aligned, 2 MiB for a channel of 2 MiB or more)
 *                                where that peer sees it, default:
 *                                the first free range above its RAM (channel_place)
 *   doorbell_limit = 1000        rings per millisecond a peer may send on it
 *                                (default 1000; 1-1000000); faster rings are refused
 *
 *   [schedule N]                 physical CPU N runs several vCPUs in turn
 *   frame_us = 1000              optional; if given, must equal the windows' sum
 *   window = rt0 400             partition NAME (or idle) for so many microseconds
 *
 * Keys may appear in any order within a section; each at most once, except
 * window and peer, which repeat: windows run in the order written, over and over, and
 * a partition may have several. cpus, memory and image are required; a
 * [schedule N] needs at least one window. Window names may refer to
 * partitions defined further down; `idle` (no vCPU runs) is therefore not
 * allowed as a partition name.
 *
 * What is checked where: config_parse checks syntax, ranges, duplicates,
 * required keys, that every window names a partition and that the partition
 * uses that CPU (the only check that needs a window's own line, which
 * struct window_config does not keep). config_validate checks everything that
 * needs the platform or several sections at once; see there.
 */
#ifndef TEMPO_HV_CONFIG_H
#define TEMPO_HV_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hv/core/cpuset.h"
#include "hv/core/devassign.h"
#include "hv/core/timer_modes.h"

#define CONFIG_MAX_PARTITIONS	8
#define CONFIG_MAX_CPUS		TEMPO_MAX_CPUS	/* physical CPU indexes 0..4095 */
/*
 * A partition's vCPUs: its IPIs name their targets as a 64-bit set
 * (hv/core/icr.h), its guest tables list at most that many (guest_boot.h).
 */
#define CONFIG_MAX_VCPUS	64
#define CONFIG_NAME_LEN		32
#define CONFIG_CMDLINE_LEN	256
#define CONFIG_MAX_MODULES	4
#define CONFIG_MAX_TEXT		(64 * 1024)	/* larger config files are refused */
#define CONFIG_MEM_ALIGN	(2ull << 20)
/*
 * The most RAM one partition may have: past its MMIO window it continues at
 * 4 GiB (hv/core/guest_ram.h), and all of it must lie below 256 TiB, which
 * 4-level EPT reaches. (The boot also holds it to the CPU's address width.)
 */
#define CONFIG_MAX_MEMORY	(255ull << 40)
#define CONFIG_DEFAULT_TICK_US	1000
#define CONFIG_DEFAULT_SLACK_DIV	4	/* tick_slack_us defaults to tick_us / 4 */
/*
 * Interrupts one input may bring on the exit path in a millisecond before
 * it is masked (until the guest writes its entry again): 50 kHz, above
 * any device a real-time partition drives by IOAPIC input (a UART at
 * 115200 baud with no FIFO interrupts at 11.5 kHz), far below what would
 * spend a core on exits. [hypervisor] irq_storm_per_ms sets it (1-1000000).
 */
#define CONFIG_DEFAULT_IRQ_STORM_PER_MS	50
#define CONFIG_MAX_SCHEDULES	8	/* [schedule N] sections, one per shared CPU */
#define CONFIG_MAX_WINDOWS	16	/* windows in one schedule */
/*
 * A window switch costs a preemption-timer exit, a VMCS switch and the
 * guest's timer state moved, a few microseconds; below 50 us that overhead
 * would eat a tenth of the window or more, and such a window would be mostly
 * jitter.
 */
#define CONFIG_MIN_WINDOW_US	50
#define CONFIG_MAX_WINDOW_US	1000000	/* so a frame's sum fits 32 bits */
#define CONFIG_DEFAULT_RESTART_LIMIT	3
#define CONFIG_MAX_RESTART_LIMIT	1000000
#define CONFIG_DEFAULT_RESTART_WINDOW_S	60
#define CONFIG_MAX_RESTART_WINDOW_S	86400
#define CONFIG_MAX_CHANNELS	8
#define CONFIG_MAX_PEERS	CONFIG_MAX_PARTITIONS	/* each partition at most once */
#define CONFIG_CHANNEL_MIN	4096ull
#define CONFIG_CHANNEL_MAX	(1ull << 30)
#define CONFIG_DEFAULT_DOORBELL_LIMIT	1000	/* rings per ms per sending peer */
#define CONFIG_MAX_DOORBELL_LIMIT	1000000
/*
 * Guest-physical addresses a channel may not use: the window where the
 * channels' PCI functions have their registers (hv/core/chan_pci_abi.h) and
 * a PC its IOAPIC, LAPIC and firmware (0xFEB00000 up to 4 GiB), and
 * everything at or above CONFIG_GUEST_PHYS_LIMIT (64 GiB: every x86-64 CPU
 * has at least 36 physical address bits, so every guest can reach it).
 */
#define CONFIG_GUEST_MMIO_START	0xfeb00000ull	/* TEMPO_PCI_BAR0_BASE */
#define CONFIG_GUEST_MMIO_END	0x100000000ull
#define CONFIG_GUEST_PHYS_LIMIT	(1ull << 36)
/*
 * What Tempo emulates in that window, where an mmio = range (mapped at its
 * own address) may not go: the channels' BAR0s below the IOAPIC's page
 * (hv/core/chan_pci_abi.h), the virtual IOAPIC of a partition with irqs =,
 * and the xAPIC page at its power-up address.
 */
#define CONFIG_GUEST_CHAN_BAR_END	0xfec00000ull
#define CONFIG_GUEST_IOAPIC_BASE	0xfec00000ull
#define CONFIG_GUEST_XAPIC_BASE		0xfee00000ull
#define CONFIG_GUEST_REG_PAGE		0x1000ull
/* Tempo's console, COM1, on every machine (hv/start/main.c) */
#define CONFIG_CONSOLE_PORT		0x3f8

/* What follows a partition's end (hv/run/life.c). */
enum restart_policy {
	RESTART_NEVER,		/* every end is final; a guest's reset request stops it */
	RESTART_ON_FAILURE,	/* restart after a stop by Tempo or a reset request */
	RESTART_ALWAYS,		/* ... and after a shutdown or power-off too */
};

const char *restart_policy_name(enum restart_policy r);

/*
 * What Tempo does once every partition has ended for good. reboot is the
 * default: a server reached over the network comes back by itself (to the
 * boot loader's default entry) instead of waiting for someone at the rack.
 */
enum all_ended_action {
	ALL_ENDED_REBOOT,	/* stop, then reset after the command line's reboot= delay */
	ALL_ENDED_HALT,		/* stop and halt, whatever reboot= says */
	ALL_ENDED_MONITOR,	/* stay up with the monitor on the console */
};

const char *all_ended_name(enum all_ended_action a);


struct partition_config {
	char name[CONFIG_NAME_LEN];
	struct cpuset cpus;		/* its physical CPUs, one vCPU each */
	uint64_t memory_bytes;
	uint64_t base;			/* 0: carved from usable RAM */
	char image[CONFIG_NAME_LEN];
	char cmdline[CONFIG_CMDLINE_LEN];
	uint32_t module_count;
	char modules[CONFIG_MAX_MODULES][CONFIG_NAME_LEN];
	enum timer_mode timer;
	bool console;
	bool debug_exit;		/* port 0xF4 ends the partition (QEMU's isa-debug-exit) */
	bool fw_cfg;			/* ports 0x510-0x511 answer as QEMU's fw_cfg (hv/core/fw_cfg.h) */
	/* emulated, pv-lazy: the deadline armed early, the interrupt at it (hv/core/timer.h) */
	bool timer_advance;
	enum restart_policy restart;
	uint32_t restart_limit;		/* restarts allowed within restart_window_s */
	uint32_t restart_window_s;	/* 0: the whole run */
	struct dev_assignment dev;	/* pci, ports, mmio, irqs (hv/core/devassign.h) */
	uint32_t line;			/* where its section starts, for messages */
};

/* One partition's view of a channel. */
struct channel_peer {
	uint32_t partition;		/* index into partitions[] */
	bool writable;			/* rw; ro: reads only (a write is an EPT violation) */
	bool gpa_given;			/* the config named the address */
	uint64_t gpa;			/* where this peer sees the channel (always set by
					 * config_parse: given, or placed by channel_place) */
	uint32_t line;			/* its peer = line */
};

/*
 * A [channel NAME]: @size bytes of host RAM, zeroed at boot, mapped into each
 * peer at its gpa and into no other partition. A peer's local index of a
 * channel (what the hypercalls take) is its rank among the channels that
 * list it, in file order.
 */
struct channel_config {
	char name[CONFIG_NAME_LEN];
	uint64_t size;			/* CONFIG_CHANNEL_MIN..MAX, 4 KiB multiple */
	uint32_t doorbell_limit;	/* rings per ms per sending peer */
	uint32_t peer_count;		/* 2..CONFIG_MAX_PEERS */
	struct channel_peer peers[CONFIG_MAX_PEERS];
	uint32_t line;			/* where its section starts */
};

/* One slot of a cyclic schedule. */
struct window_config {
	int32_t partition;		/* index into partitions[], -1 = idle */
	uint32_t length_us;		/* CONFIG_MIN_WINDOW_US..CONFIG_MAX_WINDOW_US */
};

/*
 * A [schedule N]: physical CPU @cpu runs @windows in order, then starts over
 * (a major frame of @frame_us). A partition's vCPU on @cpu runs in the
 * windows that name it; in idle windows no vCPU runs.
 */
struct schedule_config {
	uint32_t cpu;			/* N, < CONFIG_MAX_CPUS */
	uint32_t frame_us;		/* the sum of the windows' lengths */
	uint32_t window_count;		/* 1..CONFIG_MAX_WINDOWS */
	struct window_config windows[CONFIG_MAX_WINDOWS];
	uint32_t line;			/* where its section starts, for messages */
};

struct hv_config {
	uint32_t tick_us;
	uint32_t tick_slack_us;		/* 0 = ticks on the grid */
	uint32_t watchdog_ms;		/* 0 = off */
	uint32_t irq_storm_per_ms;	/* an exit-path input masked past this many a ms */
	enum all_ended_action all_ended;
	uint32_t partition_count;
	struct partition_config partitions[CONFIG_MAX_PARTITIONS];
	uint32_t schedule_count;	/* in file order, each for a different CPU */
	struct schedule_config schedules[CONFIG_MAX_SCHEDULES];
	uint32_t channel_count;		/* in file order */
	struct channel_config channels[CONFIG_MAX_CHANNELS];
};

struct config_error {
	uint32_t line;			/* 0 when the error is not tied to a line */
	char msg[320];			/* fits the longest message with 31-character names */
};

/*
 * Every error of one run, in the order found: line by line, then what needs
 * the whole file (windows, channel peers). A config that does not parse is
 * not checked against a platform.
 */
#define CONFIG_MAX_ERRORS	20

struct config_errors {
	uint32_t count;			/* errors found; past CONFIG_MAX_ERRORS not kept */
	struct config_error list[CONFIG_MAX_ERRORS];
};

/* What the platform offers, for config_validate. */
struct config_platform {
	uint32_t cpu_count;		/* CPUs the MADT lists and that are enabled */
	uint32_t module_count;
	const char *module_names[16];	/* first word of each module string */
	uint64_t usable_bytes;		/* RAM left for partitions */
	/*
	 * The machine's PCI functions, IOAPIC inputs and what Tempo keeps, for
	 * the device keys (devassign_check); NULL: not known (tempo-config
	 * check without --machine): only the ports Tempo keeps on every PC.
	 */
	const struct dev_machine *machine;
};

/*
 * Parse @len bytes of @text (need not be NUL-terminated). Returns 0, or -1
 * with @err filled. Syntax, ranges, duplicates, required keys, and window
 * names resolved to partitions that use the schedule's CPU.
 */
int config_parse(const char *text, size_t len, struct hv_config *out, struct config_error *err);

/*
 * config_parse, every error kept in @errs (the first as config_parse gives
 * it). After an error the statement is dropped and parsing goes on with the
 * next line; the keys of a refused section header are skipped, and checks
 * that would only repeat an earlier error (a window on a partition whose
 * cpus were refused, a channel's addresses while anything else is wrong)
 * are left out. Returns 0, or -1 with errs->count > 0.
 */
int config_parse_all(const char *text, size_t len, struct hv_config *out,
		     struct config_errors *errs);

/*
 * Check a parsed config against the platform: CPUs exist; a CPU is given to
 * several partitions only if it has a [schedule N], and then every partition
 * on it has a window there and none of them uses timer = direct (which needs
 * the core to itself); every [schedule N] is for a CPU that exists and that a
 * partition uses; images and modules exist, fixed bases do not overlap,
 * memory fits. A hand-built config (not from config_parse) is checked for
 * what config_parse would have refused too. Returns 0, or -1 with @err
 * (line = the section the error is about).
 */
int config_validate(const struct hv_config *cfg, const struct config_platform *plat,
		    struct config_error *err);

/* config_validate, every error kept in @errs: each partition, schedule and channel is checked. */
int config_validate_all(const struct hv_config *cfg, const struct config_platform *plat,
			struct config_errors *errs);

/*
 * The alignment a channel of @size gets where its address is not given: its
 * size rounded up to a power of two, at least 2 MiB (a PCI BAR's natural
 * alignment, and 2 MiB EPT pages).
 */
uint64_t channel_align(uint64_t size);

/*
 * Where peer @peer of channel @ch sees it when no gpa is given: the lowest
 * address aligned to channel_align(size), at or above the partition's RAM
 * (memory_bytes), that overlaps neither the guest MMIO window nor any
 * channel of the same partition placed before it (explicit addresses
 * first, then the defaults in file order). Returns 0 when nothing below
 * CONFIG_GUEST_PHYS_LIMIT fits. @cfg's earlier placements must be set.
 */
uint64_t channel_place(const struct hv_config *cfg, uint32_t ch, uint32_t peer);

/*
 * The local index of channel @ch for partition @part (its rank among the
 * channels listing it), or -1 if @part is no peer; and the inverse.
 */
int32_t channel_local_index(const struct hv_config *cfg, uint32_t part, uint32_t ch);
int32_t channel_by_local_index(const struct hv_config *cfg, uint32_t part, uint32_t local);


#endif
