/* SPDX-License-Identifier: MIT */
/*
 * The guest's interrupt controller (hv/apic/): its x2APIC registers checked
 * in every mode, the virtual LAPIC off the LAPIC-owning modes, IPIs inside
 * a partition, delivery into the guest before each entry, and the VMCS
 * interrupt model (MSR bitmap, virtual-interrupt delivery, posted
 * interrupts) that a vCPU's timer mode and APIC mode make. The timer
 * registers of the LAPIC are the time room's (hv/time/time.h).
 */
#ifndef TEMPO_HV_APIC_APIC_H
#define TEMPO_HV_APIC_APIC_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/core/timer_modes.h"
#include "hv/state/exit_ctx.h"

struct partition;
struct vcpu;

/* ---- regs.c: the registers; each false means #GP ---- */

/* What a write to IA32_APIC_BASE did, beyond being taken. */
struct apic_base_effect {
	bool reset;		/* the APIC was disabled: its state back to power-up (apic_reset_live) */
	bool mode_changed;	/* x2APIC, xAPIC or off: the MSR bitmap follows (apic_apply_model) */
	bool base_moved;	/* the xAPIC page moved */
};

bool apic_base_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value);
/* The APIC base state machine (hv/core/apic_base.c); the caller acts on @e. */
bool apic_base_take(struct vcpu *v, uint64_t value, struct apic_base_effect *e);
bool ldr_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value);
bool svr_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value);
bool lvt_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value);
/* The vLAPIC's registers but the timer's (MSR_VAPIC rows). */
bool vapic_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value);
bool vapic_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value);
/* @v's APIC registers at power-up (not IA32_APIC_BASE, not the timer). */
void apic_reset(struct vcpu *v);
/*
 * The same while @v runs (its APIC disabled through IA32_APIC_BASE): what
 * the physical APIC holds for a LAPIC-owning mode, the IPIs and posted
 * vectors waiting for it, then apic_reset. The timer is reset first by the
 * caller (hv/time/).
 */
void apic_reset_live(struct vcpu *v);
/* The timer mode changed from @old_mode: the APIC state moves between hardware and vLAPIC. */
void x2apic_move_state(struct vcpu *v, enum timer_mode old_mode);
/* The physical LAPIC back to Tempo's settings (leaving direct mode, a restart). */
void x2apic_give_back(void);

/* ---- ipi.c: interrupts inside a partition ---- */

bool icr_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value);
/* A reserved bit is #GP; a denied destination stops the partition (@x). */
bool icr_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value);
/* ICR_LOW written through the xAPIC page: the same checks and delivery. */
void apic_xapic_send_ipi(struct vcpu *v, struct exit_ctx *x, uint32_t low);
/* A fixed interrupt for @t from @from (an IPI, a doorbell); false: @t cannot take it now. */
bool vcpu_send_fixed(struct vcpu *from, struct vcpu *t, uint8_t vector);

/* ---- deliver.c: into the guest ---- */

/*
 * Off the LAPIC-owning modes, before every entry (after the timer's due
 * events were raised, hv/time/): the IPIs and posted vectors that waited
 * into the vLAPIC, and its highest deliverable vector injected when the
 * guest can take it, else the interrupt window opened.
 */
void apic_deliver(struct vcpu *v);
/*
 * Off APIC virtualization: @vector (the vLAPIC's pending one, or -1) into
 * the guest if it can take it now, and the interrupt window and HLT exiting
 * for what is left. @entry_free: nothing is being injected at this entry
 * (an exit that never comes during event delivery, nothing injected since),
 * which saves reading the field.
 */
void apic_inject(struct vcpu *v, int vector, bool entry_free);
/* An NMI IPI from @v's partition: injected, or at the NMI window. */
void deliver_nmi(struct vcpu *v);
/* A LAPIC-owning vCPU: the IPIs that waited in its bitmap go to its own APIC. */
void deliver_pending_to_apic(struct vcpu *v);
/* Virtual-interrupt delivery (v->apic.apicv): the vLAPIC into the page, and back. */
void apicv_sync_out(struct vcpu *v);
void apicv_sync_in(struct vcpu *v);

/* ---- model.c: the VMCS interrupt model ---- */

/* Tempo's posted=on, where the CPU has posted interrupts (hv/core/posted.h) */
extern bool posted_enabled;
/* posted=soft: no posted-interrupt processing in the VMCS; notifications exit */
extern bool posted_soft;

/* Boot: the MSR bitmaps of every timer mode and APIC mode. */
void apic_model_boot(void);
/*
 * A guest that owns the LAPIC (direct) takes its interrupts in its IDT with
 * no exit; otherwise every physical interrupt exits, acknowledged, and is
 * delivered through the virtual LAPIC. The VMCS of @v is current.
 */
void apic_apply_model(struct vcpu *v);
/* @v takes posted interrupts in the modes with virtual-interrupt delivery (fixed) */
bool vcpu_takes_posted(const struct vcpu *v);

#endif
