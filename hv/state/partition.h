/* SPDX-License-Identifier: MIT */
/*
 * Partitions: the objects, and the changes of their state word, which any
 * core may make (a vCPU's exit, the monitor, a restart) and the first one
 * wins (hv/state/partition.c). The channels between them are here too.
 */
#ifndef TEMPO_HV_STATE_PARTITION_H
#define TEMPO_HV_STATE_PARTITION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hv/core/chan_regs.h"
#include "hv/core/config.h"
#include "hv/core/fw_cfg.h"
#include "hv/core/guest_ram.h"
#include "hv/core/restart.h"
#include "hv/core/vpci.h"
#include "hv/core/vuart.h"
#include "hv/state/pcpu.h"
#include "hv/state/region.h"
#include "hv/state/vcpu.h"

#define MAX_VCPUS_PER_PART	CONFIG_MAX_VCPUS

enum partition_state {
	PART_RUNNING = 0,
	PART_SHUTDOWN,		/* the guest asked (hypercall) */
	PART_STOPPED,		/* the hypervisor stopped it */
	PART_RESTARTING,	/* its vCPUs leave, then it is rebuilt and runs again */
};

struct partition {
	const struct partition_config *cfg;
	uint32_t id;
	uint64_t mem_hpa;	/* host-physical base of its RAM: one range */
	uint64_t mem_size;	/* its bytes; the guest's layout: hv/core/guest_ram.h */
	uint64_t eptp;
	uint64_t entry;		/* guest-physical entry point of the boot vCPU */
	uint64_t info_gpa;	/* the multiboot information block */
	uint32_t boot_magic;	/* EAX at entry: multiboot1 or multiboot2 magic */
	uint32_t mb_version;	/* 1 or 2 */
	uint64_t image_end;	/* one past the image's highest byte (guest-physical) */
	/* a Linux bzImage: the boot vCPU enters its 64-bit entry in long mode,
	 * with hv/core/bzimage.h's GDT and identity map */
	bool linux_boot;
	uint32_t vcpu_count;
	struct vcpu *vcpus[MAX_VCPUS_PER_PART];
	/*
	 * Its state, and its incarnations so far (one more at each restart),
	 * read and published together as one word (run): a core must never
	 * pair a new generation with the old instance's state (vcpu_note_end).
	 * Changes of state alone are 32-bit CASes on state.
	 */
	union {
		struct {
			volatile uint32_t state;	/* enum partition_state */
			volatile uint32_t generation;
		};
		volatile uint64_t run;
	};
	volatile uint32_t vcpus_done;	/* vCPUs that have left for good */
	int64_t exit_code;		/* from TEMPO_HC_SHUTDOWN */
	/* its end, reported by the console core after the partition's last words */
	char end_report[480];
	volatile bool end_report_pending;
	struct vuart uart;
	uint8_t port92;		/* system control port A as the guest last wrote it */
	struct fw_cfg fw_cfg;	/* fw_cfg = on: the item the guest selected */
	/* restarts (hv/run/life.c): all of them, and those in the limit's window */
	uint32_t restarts;
	struct restart_window window;
	volatile uint32_t rebuilding;	/* a core has claimed its rebuild */
	/* the channels that list it, by local index (hv/dev/channel.c) */
	uint32_t channel_count;
	uint8_t channel_of[CONFIG_MAX_CHANNELS];	/* index into channels[] */
	uint8_t channel_self[CONFIG_MAX_CHANNELS];	/* its index among their peers */
	int chan_region[CONFIG_MAX_CHANNELS];		/* its BAR0's MMIO region */
	/*
	 * Its PCI bus: one function per channel, by local index (hv/dev/channel.c).
	 * Config space and the BAR0 blocks' own fields change under pci_lock.
	 */
	struct vpci_bus pci;
	struct chan_regs chan_regs[CONFIG_MAX_CHANNELS];
	volatile uint32_t pci_lock;
	/* who answers its accesses outside its RAM (hv/state/region.h) */
	struct region_table regions;
	/* its I/O bitmaps (A then B), its assigned ports clear (hv/dev/devices.c); 0: none */
	uint64_t io_bitmap_pa;
	/* the guest's virtual EOI of @vector, for its level-triggered inputs (hv/dev/irqs.c) */
	void (*dev_eoi)(struct vcpu *v, uint8_t vector);
};

extern struct partition partitions[CONFIG_MAX_PARTITIONS];
extern uint32_t partition_count;

/* One peer's side of a channel: its doorbell and its counters. */
struct channel_peer_state {
	/* the vector it takes doorbells on | the vCPU index << 8; 0: none */
	volatile uint32_t bound;
	uint8_t local;			/* the channel's local index in that partition */
	/* its rings in the current millisecond: (ms << 24) | count */
	volatile uint64_t throttle;
	volatile uint64_t rings;	/* ring hypercalls that sent (as a sender) */
	volatile uint64_t throttled;	/* ring hypercalls refused by doorbell_limit */
	volatile uint64_t delivered;	/* doorbells that reached it */
	volatile uint64_t dropped;	/* doorbells for it while it had no vector or was not running */
};

/* Shared memory between partitions, with doorbells (hv/dev/channel.c, docs/channels.md). */
struct channel {
	const struct channel_config *cfg;
	uint64_t hpa;			/* host-physical base of its memory */
	struct channel_peer_state peers[CONFIG_MAX_PEERS];
};

extern struct channel channels[CONFIG_MAX_CHANNELS];
extern uint32_t channel_count;

/* Has @p ended for good? STOPPED and SHUTDOWN are final: they never change. */
static inline bool partition_final(const struct partition *p)
{
	uint32_t s = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE);

	return s == PART_STOPPED || s == PART_SHUTDOWN;
}

/*
 * Guest-physical to host pointer, or NULL unless [gpa, gpa+len) is in one
 * piece of guest RAM (hv/core/guest_ram.h: below the MMIO window, or from
 * 4 GiB up).
 */
static inline void *gpa_to_hva(const struct partition *p, uint64_t gpa, uint64_t len)
{
	uint64_t off;

	if (!guest_ram_offset(p->mem_size, gpa, len, &off))
		return (void *)0;
	return (void *)(uintptr_t)(p->mem_hpa + off);
}

/* Ask every vCPU of @p but @self to leave: mailbox first, then the NMI. */
void kick_partition(struct partition *p, struct vcpu *self);

/*
 * The ends of a partition, from one of its vCPUs (@v, at its exit). Each
 * moves @p out of PART_RUNNING if no one was first, formats its report
 * (printed by the console core after the partition's last console lines)
 * and kicks the other vCPUs; @v itself still has to leave (vcpu_leave).
 */
/* The hypervisor stops it: a PARTITION_STOP line (or its restart, by the config). */
void partition_stop(struct vcpu *v, const char *reason, uint64_t qual, const char *detail);
/* The guest asked for a reset (@how: which register): a restart, or its end. */
void partition_reset(struct vcpu *v, const char *how);
/* The guest asked to shut down (hypercall), or powered off (ACPI S5): a clean end. */
void partition_shutdown(struct vcpu *v, int64_t code);
void partition_poweroff(struct vcpu *v);
/*
 * The hypervisor stops @p from outside it (a core that is not one of its
 * vCPUs, e.g. a DMA fault seen by the console core): a PARTITION_STOP
 * line with vcpu=0 and rip=0, or its restart as the config says. False if
 * @p was not running.
 */
bool partition_stop_outside(struct partition *p, const char *reason, uint64_t qual,
			    const char *detail);
/* An operator's stop or restart (the monitor): false if @p was not running. */
bool partition_stop_request(struct partition *p, bool restart);

enum start_refusal {
	START_OK,
	START_RUNNING,		/* running or already restarting: restart NAME is for that */
	/* ended, but a vCPU has not left yet or its end is not reported */
	START_LEAVING,
};

/*
 * An operator's start of a partition that has ended (stopped or shut down):
 * it is rebuilt from its image and runs again on its own CPUs, as a
 * restart does (PARTITION_RESTART reason=start, outside the restart
 * limit's count). START_OK, or why not.
 */
enum start_refusal partition_start_request(struct partition *p);

/*
 * @v's core, with @v out of the guest: if @v's partition has ended or is
 * restarting, @v counts as left (once an incarnation). True if it was just
 * counted.
 */
bool vcpu_note_end(struct vcpu *v);

#endif
