/* SPDX-License-Identifier: MIT */
/*
 * Partitions, their vCPUs and the physical CPUs that run them: the data, and
 * the ends of a partition (hv/run/life.c). The rest, per concern:
 * hv/build/build.c (partitions_build, hv/build/build.h), hv/run/loop.c (the
 * root-mode loop), hv/run/switch.c (shared cores), hv/guest/fpu.c, hv/time/vcpu_timer.c,
 * hv/ops/console.c, hv/ops/report.c.
 */
#ifndef TEMPO_HV_PARTITION_H
#define TEMPO_HV_PARTITION_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/smp.h"
#include "arch/x86/vmx.h"
#include "arch/x86/vmx_defs.h"
#include "hv/core/apic_base.h"
#include "hv/core/chan_regs.h"
#include "hv/core/config.h"
#include "hv/core/fw_cfg.h"
#include "hv/core/guest_ram.h"
#include "hv/core/hypercall_abi.h"
#include "hv/core/posted.h"
#include "hv/core/restart.h"
#include "hv/core/sched.h"
#include "hv/core/timer.h"
#include "hv/core/vpci.h"
#include "hv/core/vuart.h"
#include "hv/core/xapic.h"
#include "hv/core/xcr0.h"

#define MAX_VCPUS_PER_PART	CONFIG_MAX_VCPUS

/* Counters copied on the guest's request, formatted later by the console core. */
struct vcpu_snapshot {
	uint64_t tsc, exits, tick_exits, timer_exits, deadline_write_exits, extint_exits;
	uint64_t eoi_exits, fast_exits, host_ticks, tick_late_max_ticks, tick_hits, tick_defer_exits;
	uint64_t posted_taken, tick_busy;
	struct vtimer_stats timer;
	uint32_t mode;
};

#define VCPU_SNAPSHOTS 8

/* A ring of the vCPU's recent timer-state transitions, printed at its end. */
enum trace_event {
	TRACE_DEADLINE_WRITE = 1,	/* trapped IA32_TSC_DEADLINE write (value) */
	TRACE_PV_UPDATE,		/* pv-lazy deadline taken from the page (value) */
	TRACE_HW_FIRE,			/* inject: the hypervisor's vector arrived */
	TRACE_INJECT,			/* a vector injected (value = vector) */
	TRACE_LVT,			/* LVT timer written (value) */
	TRACE_SAVE,			/* deadline out of the hardware (value = MSR) */
	TRACE_RESTORE,			/* deadline back (value written) */
	TRACE_MODE,			/* timer mode switched (value = new mode) */
	TRACE_WINDOW_IN,		/* shared core: its window began (value = window) */
};

#define TRACE_RING 32

struct trace_entry {
	uint64_t tsc;
	uint64_t value;
	uint32_t event;
};

enum vcpu_state {
	VCPU_WAIT_SIPI,		/* an AP before its partition's INIT-SIPI-SIPI */
	VCPU_RUNNING,
	VCPU_STOPPED,
};

struct partition;
struct pcpu;

struct vcpu {
	/* VMX's own: guest registers, VMCS, VPID, CR shadows (arch/x86/vmx.h) */
	struct vcpu_arch arch;
	struct partition *part;
	struct pcpu *pcpu;
	uint32_t index;		/* within the partition; 0 is the boot vCPU */
	uint32_t apic_id;	/* the physical x2APIC id, shown to the guest as is */
	volatile enum vcpu_state state;
	volatile uint32_t sipi_vector;	/* set by the partition's emulated SIPI */
	volatile bool sipi_pending;
	volatile bool halted_forever;	/* seen in HLT with IF = 0 at a host tick (hv/core/halt.h) */
	uint64_t exits[EXIT_REASON_COUNT];
	uint64_t exits_total;
	uint64_t host_tick_exits;	/* exit 52s that were host ticks */
	/*
	 * Host-tick exits at whose end the timer's vector was pending in the
	 * physical IRR: the guest's timer fired while the core was in root
	 * mode, and the exit delayed its interrupt (issue 14).
	 */
	uint64_t tick_hits;
	uint64_t tick_defer_exits;	/* exit 52s that moved a tick past a guest deadline */
	/*
	 * Host-tick exits that found the guest running, not in HLT: a tick in
	 * its work, a wake-up's included, which tick_hits does not see once the
	 * interrupt was taken (an idle guest's ticks cost it nothing).
	 */
	uint64_t tick_busy;
	bool tick_exit;			/* this exit is a host tick (direct, inject) */
	/* IA32_TSC_DEADLINE as tick_defer_early read it at this exit */
	bool tick_deadline_valid;
	uint64_t tick_deadline;
	/*
	 * The exit stub's tick step-aside (arch.aside, hv/time/timer_exit.c):
	 * tick_aside, this vCPU has the stub that can (direct mode on a core of
	 * its own, fixed at VMCS setup); aside_armed, it was armed at the last
	 * entry; aside_decided: this exit is the armed tick's, so the stub has
	 * judged the guest's deadline already and hv does not defer.
	 */
	bool tick_aside;
	bool aside_armed;
	bool aside_decided;
	uint64_t aside_tick;	/* the placed time it was planned for */
	struct tick_aside_plan aside_plan;	/* and that plan (steps 0: none) */
	uint8_t aside_vec;	/* and the guest's timer vector it was made for */
	uint64_t deadline_write_exits;	/* trapped IA32_TSC_DEADLINE writes (emulated) */
	uint64_t eoi_exits;		/* virtual EOIs (inject, emulated) */
	/*
	 * Where the CPU has virtual-interrupt delivery (vmx_ctl.has_apicv):
	 * the virtual-APIC page, and whether this vCPU's mode uses it now
	 * (not direct). The vLAPIC stays the truth in root mode; the page
	 * carries its IRR, ISR and TPR into the guest (apicv_sync_out, before
	 * each entry) and back (apicv_sync_in, at each exit).
	 */
	uint32_t *vapic;
	bool apicv;
	uint16_t apicv_status;	/* guest interrupt status (SVI:RVI) as the page last matched the vLAPIC */
	/*
	 * Posted interrupts (Tempo's `posted=on`, hv/core/posted.h): other
	 * cores post this vCPU's fixed vectors in @pi and notify its core,
	 * which takes them with no exit while the guest runs. @pi_on is set
	 * by vcpu_timer_apply_mode and read by senders.
	 */
	struct pi_desc pi;
	volatile bool pi_on;
	uint64_t pi_taken;	/* vectors hv took from @pi in root mode (VCPU_STATS posted_taken) */
	uint64_t fast_exits;		/* finished on the fast path (hv/exit/exit.c) */
	uint64_t ipis_dropped;		/* fixed IPIs to a sibling not running yet */
	uint64_t icr_last;		/* what the guest last wrote to its ICR */
	struct vtimer vt;	/* the guest's LAPIC timer and, off direct mode, its vLAPIC */
	/* IA32_APIC_BASE as the guest set it (x2APIC at entry), and its xAPIC page's own registers */
	struct apic_base_state apic_base;
	struct xapic_regs xapic;
	/* what the VMCS does not switch, kept while another vCPU has the core */
	uint64_t msrs[6];	/* STAR, LSTAR, CSTAR, FMASK, KERNEL_GS_BASE, TSC_AUX */
	uint64_t cr2;
	uint64_t dr[4], dr6;	/* DR7 and DEBUGCTL are in the VMCS */
	uint64_t xcr0;
	uint64_t spec_ctrl;	/* IA32_SPEC_CTRL, where the CPU has it */
	void *fpu;		/* XSAVE area (xsave_plan.area_bytes, shared cores only) */
	uint64_t fpu_bytes;
	/* its partition was restarted: reset the core's state at its next start */
	volatile bool restarted;
	uint32_t left_gen;	/* generation + 1 of the incarnation it last left; 0: none */
	volatile uint32_t mode_request;	/* the monitor's timer mode + 1; 0: none */
	volatile bool mode_busy;	/* that switch was refused: the console core says so */
	volatile uint32_t ipi_pending[8];	/* fixed IPIs for it while it may be out */
	/* an NMI IPI from its partition, injected at its next entry (a virtual NMI) */
	volatile uint32_t nmi_pending;
	/* an INIT IPI: at its next exit it resets and waits for SIPI, as hardware does */
	volatile uint32_t init_pending;
	/* a SIPI sent while that reset was pending: 0x100 | its vector, taken by the reset */
	volatile uint32_t sipi_after_init;
	struct tempo_pv_timer *pv;	/* pv-lazy: the shared page, NULL until registered */
	uint64_t pv_seen;		/* the last `next` the hypervisor took */
	uint64_t pv_updates;		/* deadlines taken from the page without a trap */
	struct vcpu_snapshot snaps[VCPU_SNAPSHOTS];
	struct trace_entry trace[TRACE_RING];
	uint32_t trace_next;
	volatile uint32_t snap_head;	/* written by the vCPU's core */
	uint32_t snap_tail;		/* read by the console core */
};

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
	/*
	 * Its PCI bus: one function per channel, by local index (hv/dev/channel.c).
	 * Config space and the BAR0 blocks' own fields change under pci_lock.
	 */
	struct vpci_bus pci;
	struct chan_regs chan_regs[CONFIG_MAX_CHANNELS];
	volatile uint32_t pci_lock;
};

/* Has @p ended for good? STOPPED and SHUTDOWN are final: they never change. */
static inline bool partition_final(const struct partition *p)
{
	uint32_t s = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE);

	return s == PART_STOPPED || s == PART_SHUTDOWN;
}

/* Mailbox bits: why another CPU kicked this one (NMIs coalesce). */
#define MAILBOX_STOP_VCPU	(1u << 0)
#define MAILBOX_SIPI		(1u << 1)
#define MAILBOX_IPI		(1u << 2)	/* a vCPU's ipi_pending grew (hv/apic/x2apic.c) */
#define MAILBOX_MODE		(1u << 3)	/* a vCPU's mode_request is set (hv/ops/monitor.c) */
#define MAILBOX_EVENT		(1u << 4)	/* a vCPU's nmi_pending or init_pending is set */

/* Its state, stack and VMXON region are arch's: smp_cpus[index] (arch/x86/smp.h). */
struct pcpu {
	struct pcpu *self;	/* first: this_pcpu() reads it through GS */
	uint32_t index;		/* MADT order */
	uint32_t apic_id;
	struct vcpu *vcpu;	/* the vCPU this core runs (dedicated cores) */
	struct vcpu *exit_vcpu;	/* whose VM exit this core is handling, or NULL */
	/* a shared core: the vCPU whose window it is running, from switch_in on; NULL between */
	struct vcpu *window_vcpu;
	bool vmcs_loaded;	/* a VMCS is current on this core (hv_root_nmi) */
	bool faulted;		/* took a hypervisor fault while handling an exit (hv_exit_fault) */
	volatile uint32_t mailbox;
	volatile uint64_t nmis;
	bool console;		/* drains the partitions' console buffers */
	bool ran_guest;		/* its LAPIC has held a guest's state (idle_wait) */
	/* this core took the inject vector in timer_save_hw's STI window (hv/time/vcpu_timer.c) */
	volatile bool hv_timer_seen;
	struct host_timer ht;	/* this core's own events, on the preemption timer */
	/* a shared core: several vCPUs in a cyclic schedule ([schedule N]) */
	bool shared;
	bool sched_started;
	uint32_t slot_count;
	struct vcpu *slots[SCHED_MAX_WINDOWS];
	struct cyclic_sched sched;
	uint64_t window_len_tsc[SCHED_MAX_WINDOWS];
	int32_t window_slot[SCHED_MAX_WINDOWS];
	uint32_t window_count;
	struct partition *last_part;	/* whose vCPU ran here last: IBPB on a change */
};

extern struct pcpu *pcpus;	/* pcpu_count of them, from the pool at boot (pcpus_init) */
extern uint32_t pcpu_count;
extern struct partition partitions[CONFIG_MAX_PARTITIONS];
extern uint32_t partition_count;

static inline struct pcpu *this_pcpu(void)
{
	struct pcpu *p;

	asm volatile("mov %%gs:0, %0" : "=r"(p));
	return p;
}

extern volatile bool partitions_go;

/* Stop @p with a PARTITION_STOP report; the caller's vCPU leaves for good. */
__attribute__((noreturn)) void partition_stop(struct vcpu *v, const char *reason, uint64_t qual,
					      const char *detail);
/* The guest asked to shut down (hypercall). */
__attribute__((noreturn)) void partition_shutdown(struct vcpu *v, int64_t code);
/* The guest wrote S5 to its ACPI sleep control register: a clean end, code 0. */
__attribute__((noreturn)) void partition_poweroff(struct vcpu *v);
/*
 * @v's core, with @v out of the guest: if @v's partition has ended or is
 * restarting, @v counts as left (once an incarnation). True if it was just
 * counted.
 */
bool vcpu_note_end(struct vcpu *v);
/* @v leaves its core for good (its partition ended); the core goes idle. */
__attribute__((noreturn)) void vcpu_leave(struct vcpu *v);
/* An INIT IPI reached @v (at an exit on its core): it resets and waits for SIPI. */
__attribute__((noreturn)) void vcpu_init_reset(struct vcpu *v);
/*
 * @v waits for SIPI: drop INIT and NMI that reached it, take a SIPI parked
 * for a reset that has ended. True if a SIPI is there to start it.
 */
bool vcpu_sipi_poll(struct vcpu *v);
/* @v's registers, timer, APIC and SIPI state at reset (hv/build/build.c). */
void vcpu_reset(struct vcpu *v);
/* Ask every vCPU of @p but @self to leave: mailbox first, then the NMI. */
void kick_partition(struct partition *p, struct vcpu *self);
/* The guest asked for a reset (@how: which register): a restart, or its end. */
__attribute__((noreturn)) void partition_reset(struct vcpu *v, const char *how);
/* An operator's stop or restart (the monitor): as if a vCPU had stopped it. */
bool partition_stop_request(struct partition *p, bool restart);
/* Rebuild and start the partitions whose vCPUs have all left for a restart. */
void partition_restart_poll(void);
/* Zero @p's RAM, reload its image and boot information, reset its vCPUs (hv/build/build.c). */
int partition_rebuild(struct partition *p, char *err, size_t errlen);

/* Off direct mode: fire an expired software deadline, inject what is pending (hv/apic/inject.c). */
void hv_deliver_virtual(struct vcpu *v);
/* Virtual-interrupt delivery (v->apicv, hv/apic/inject.c): the vLAPIC into the page, and back. */
void apicv_sync_out(struct vcpu *v);
void apicv_sync_in(struct vcpu *v);

static inline void vcpu_trace(struct vcpu *v, enum trace_event e, uint64_t value, uint64_t tsc)
{
	struct trace_entry *t = &v->trace[v->trace_next++ % TRACE_RING];

	t->tsc = tsc;
	t->value = value;
	t->event = e;
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

#include "hv/ops/console.h"
#include "hv/run/loop.h"
#include "hv/run/switch.h"
#include "hv/time/vcpu_timer.h"

#endif
