/* SPDX-License-Identifier: MIT */
/*
 * The guest-visible interface of Tempo: CPUID leaves and VMCALL hypercalls.
 * Guests include this header; it has no dependency but <stdint.h>.
 *
 * Detect Tempo: CPUID.1:ECX[31] (hypervisor present), then CPUID 0x40000000
 * returns EAX = highest hypervisor leaf, EBX:ECX:EDX = "Tempo-RT-HV ".
 * CPUID 0x40000010: EAX = TSC frequency in kHz, EBX = LAPIC timer (bus)
 * frequency in kHz (the VMware/KVM convention).
 * CPUID 0x40000011: prints the calling vCPU's exit and timer counters on the
 * console as TEMPO_HC_STATS does, EAX = 1 (0: the snapshot ring was full).
 * CPUID works at any privilege level, so a user-space benchmark in a guest
 * with no Tempo driver (Linux) can mark the start and end of its window.
 *
 * Hypercall: VMCALL with RAX = number, arguments in RDI, RSI, RDX; the result
 * comes back in RAX (negative values are errors). From 32-bit code the same
 * registers' low halves are used. Any pointer argument is guest-physical.
 */
#ifndef TEMPO_HV_HYPERCALL_ABI_H
#define TEMPO_HV_HYPERCALL_ABI_H

#define TEMPO_CPUID_BASE		0x40000000u
#define TEMPO_CPUID_TIMING		0x40000010u
#define TEMPO_CPUID_STATS		0x40000011u	/* the highest Tempo leaf */
#define TEMPO_CPUID_SIG_EBX		0x706d6554u	/* "Temp" */
#define TEMPO_CPUID_SIG_ECX		0x54522d6fu	/* "o-RT" */
#define TEMPO_CPUID_SIG_EDX		0x2056482du	/* "-HV " */

enum tempo_hypercall {
	/*
	 * RDI = guest-physical address of text, RSI = length (at most 4096).
	 * Returns the length, or 0 when the partition's console ring had no
	 * room for all of it: the text is then dropped whole (never cut) and
	 * counted, and the log gets a CONSOLE_DROP line.
	 */
	TEMPO_HC_CONSOLE_WRITE = 0,
	/*
	 * RDI = guest-physical address of a struct tempo_partition_info to fill.
	 * Returns 0.
	 */
	TEMPO_HC_PARTITION_INFO = 1,
	/* RDI = exit code the partition reports. Does not return. */
	TEMPO_HC_SHUTDOWN = 2,
	/*
	 * RDI = timer mode for the calling vCPU (0 direct, 1 inject, 2 emulated,
	 * 3 pv-lazy; direct is refused on a shared core, and with
	 * TEMPO_HC_EINVAL for a vCPU that takes posted interrupts: Tempo's
	 * posted=on, a partition configured in another mode).
	 * Refused with TEMPO_HC_EBUSY while an interrupt is in service. The
	 * armed deadline carries over.
	 */
	TEMPO_HC_TIMER_MODE_SET = 3,
	/* Returns the calling vCPU's timer mode. */
	TEMPO_HC_TIMER_MODE_GET = 4,
	/* Prints the calling vCPU's exit and timer counters on the console. */
	TEMPO_HC_STATS = 5,
	/*
	 * pv-lazy mode: RDI = guest-physical address of a struct
	 * tempo_pv_timer (8-byte aligned, inside the partition's RAM) the guest
	 * and the hypervisor share. TEMPO_HC_EINVAL in the other modes.
	 */
	TEMPO_HC_PV_TIMER = 6,
	/*
	 * Channels (docs/channels.md). A channel's local index is its rank
	 * among the channels that list the calling partition, in config order
	 * (0 .. tempo_partition_info.channel_count - 1).
	 *
	 * RDI = local index, RSI = guest-physical address of a struct
	 * tempo_channel_info to fill (in RAM). Returns 0 or TEMPO_HC_EINVAL.
	 */
	TEMPO_HC_CHANNEL_INFO = 7,
	/*
	 * RDI = local index, RSI = the vector this partition takes the
	 * channel's doorbells on (TEMPO_CHANNEL_VECTOR_MIN..MAX; 0: none, and
	 * doorbells are then dropped and counted), RDX = the index of the vCPU
	 * that takes them. Returns 0 or TEMPO_HC_EINVAL. A restart forgets it.
	 */
	TEMPO_HC_CHANNEL_BIND = 8,
	/*
	 * RDI = local index, RSI = the peer to ring (its index in
	 * tempo_channel_info.peers) or TEMPO_CHANNEL_ALL_PEERS (every peer but
	 * the caller; a 64-bit caller may also pass -1). Returns how many doorbells were sent (a peer that is
	 * not running or has bound no vector gets none: it is counted as
	 * dropped), TEMPO_HC_EINVAL (no such channel or peer, or the caller
	 * itself) or TEMPO_HC_EAGAIN (the caller rang doorbell_limit times in
	 * this millisecond already: counted as throttled, nothing sent).
	 */
	TEMPO_HC_CHANNEL_RING = 9,
};

#define TEMPO_CHANNEL_VECTOR_MIN	0x20u
#define TEMPO_CHANNEL_VECTOR_MAX	0xecu	/* 0xed-0xef are Tempo's own (0xec too, but bindable) */
#define TEMPO_CHANNEL_ALL_PEERS		0xffffffffu
#define TEMPO_CHANNEL_MAX_PEERS		8
#define TEMPO_CHANNEL_RW		1u	/* tempo_channel_info.access */
#define TEMPO_CHANNEL_RO		0u

/* CPUID 0x40000001 EAX: what this Tempo offers */
#define TEMPO_FEATURE_PV_LAZY_TIMER	(1u << 0)

/*
 * The lazy TSC deadline (pv-lazy mode). To set deadline D the guest writes
 * next = D, fences (MFENCE), reads armed and then the TSC, and writes
 * IA32_TSC_DEADLINE (which traps) unless armed != 0, armed <= D and the TSC
 * is below armed. Otherwise the hypervisor already has an exit due at
 * armed <= D, and it reads next on every entry and every expiry: it then
 * arms D without the guest having trapped. That exit comes after armed, so
 * the hypervisor cannot tell whether next was written before the old
 * deadline expired: one already due fires first. A deadline moved later
 * may therefore still raise its interrupt (at or after its old value): the
 * guest tells it from the one it waits for by the TSC.
 * A deadline that moves later therefore costs no exit; one that moves
 * earlier (or disarming, D = 0) traps, so nothing fires late or is lost.
 * The hypervisor writes armed (the deadline it will exit for, 0 = none)
 * before every entry; the guest never writes it.
 */
struct tempo_pv_timer {
	volatile unsigned long long next;	/* guest-owned */
	volatile unsigned long long armed;	/* hypervisor-owned */
};

enum tempo_hc_error {
	TEMPO_HC_OK = 0,
	TEMPO_HC_EBUSY = -16,	/* not now (an interrupt is in service) */
	TEMPO_HC_EAGAIN = -11,	/* over a limit: try again later (a channel's doorbell_limit) */
	TEMPO_HC_EINVAL = -22,	/* bad argument (address outside the partition, length) */
	TEMPO_HC_ENOSYS = -38,	/* unknown hypercall number */
};

struct tempo_partition_info {
	char name[32];		/* NUL-terminated */
	unsigned int partition_id;
	unsigned int vcpu_count;
	unsigned int vcpu_index;	/* of the calling vCPU */
	unsigned int timer_mode;	/* 0 direct, 1 inject, 2 emulated */
	unsigned long long memory_bytes;	/* RAM size: above 4,074 MiB the rest is from 4 GiB */
	unsigned long long tsc_khz;
	unsigned int channel_count;	/* channels that list this partition */
	unsigned int reserved;
};

/* What TEMPO_HC_CHANNEL_INFO fills in: one channel as the caller sees it. */
struct tempo_channel_info {
	char name[32];			/* NUL-terminated */
	unsigned long long gpa;		/* where the caller sees it */
	unsigned long long size;	/* bytes, a multiple of 4096 */
	unsigned int access;		/* TEMPO_CHANNEL_RW or TEMPO_CHANNEL_RO */
	unsigned int peer_count;
	unsigned int self;		/* the caller's index in peers[] */
	unsigned int doorbell_limit;	/* rings per millisecond the caller may send */
	char peers[TEMPO_CHANNEL_MAX_PEERS][32];	/* partition names, NUL-terminated */
};

#endif
