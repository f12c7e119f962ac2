/* SPDX-License-Identifier: MIT */
/*
 * Posted interrupts (SDM Vol. 3C 29.6): another core hands a vCPU a fixed
 * vector with no exit on the vCPU's core. The sender sets the vector's bit
 * in the vCPU's posted-interrupt descriptor (PIR) and, if the descriptor's
 * outstanding-notification bit (ON) was clear, sends the notification
 * vector to the vCPU's core. There, in VMX non-root operation, the CPU
 * takes the notification itself: it clears ON, moves PIR into the virtual
 * APIC page's VIRR and raises RVI, and virtual-interrupt delivery does the
 * rest. In root mode (an exit in progress) hv takes PIR itself before the
 * next entry (pi_take).
 *
 * Opt-in (Tempo's command line `posted=on`) and never run here: Bochs 2.7
 * has no posted interrupts, so this logic is unit-tested only and untested
 * on hardware (docs/timer-modes.md). Pure: no hardware access.
 */
#ifndef TEMPO_HV_CORE_POSTED_H
#define TEMPO_HV_CORE_POSTED_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The descriptor, 64 bytes and 64-byte aligned (SDM Vol. 3C 29.6): bits
 * 255:0 the PIR, one per vector; bit 256 ON; bit 257 SN (suppress
 * notification); bits 279:272 NV and 319:288 NDST, which only VT-d's
 * posting reads (the CPU's own processing takes the vector from the VMCS).
 */
struct pi_desc {
	uint32_t pir[8];
	uint32_t control;	/* PI_ON, PI_SN, NV in bits 23:16 */
	uint32_t ndst;
	uint32_t reserved[6];
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct pi_desc) == 64, "the SDM's 512-bit descriptor");
_Static_assert(__builtin_offsetof(struct pi_desc, control) == 32, "ON is bit 256");

#define PI_ON		(1u << 0)
#define PI_SN		(1u << 1)
#define PI_NV_SHIFT	16

/* An empty descriptor naming @nv and @ndst (VT-d's fields; the CPU's are in the VMCS). */
void pi_init(struct pi_desc *d, uint8_t nv, uint32_t ndst);

/*
 * Post @vector to @d (any core, concurrently with the owner and other
 * senders). True if the caller must send the notification vector to the
 * owner's core: ON was clear and notifications are not suppressed. A
 * false return never loses the vector: a notification is already on its
 * way (ON was set), or the owner is out of VMX non-root operation with SN
 * set and takes PIR before its next entry.
 */
bool pi_post(struct pi_desc *d, uint8_t vector);

/* Anything posted and not yet taken (ON, or a PIR bit). */
bool pi_pending(const struct pi_desc *d);

/*
 * The owner, in root mode: clear ON, then take every PIR bit, ORed into
 * @irr (256 bits). ON first, so that a post that races this one sets ON
 * again and notifies (the notification is then taken in non-root mode, or
 * as a stray vector in root mode, and the bit by the next pi_take).
 * Returns the highest vector taken, or -1.
 */
int pi_take(struct pi_desc *d, uint32_t irr[8]);

/*
 * The VM-entry checks that posted interrupts add (SDM Vol. 3C 26.2.1.1),
 * for the control words and fields a VMCS is about to get: with
 * process-posted-interrupts set, external-interrupt exiting, acknowledge-
 * interrupt-on-exit and virtual-interrupt delivery set; the notification
 * vector a byte (bits 15:8 of its 16-bit field clear); the descriptor
 * 64-byte aligned and below 2^@maxphyaddr. @pin, @exit and @proc2 hold the
 * SDM's bit positions. True if VM entry would accept them.
 */
bool pi_controls_ok(uint32_t pin, uint32_t exit, uint32_t proc2, uint32_t nv, uint64_t desc_pa,
		    uint32_t maxphyaddr);

/*
 * Whether a vCPU uses posted interrupts: the CPU has them and the boot
 * asked for them (@enabled), its vCPU has virtual-interrupt delivery
 * (@apicv, which its timer mode has only when it does not own the LAPIC),
 * its core is its own (@shared false: a shared core's vCPUs take what
 * others send through their IPI bitmaps, in their own windows), and its
 * partition's configured mode does not own the LAPIC (@config_owns_lapic
 * false). The last keeps a vCPU that uses them using them for its
 * partition's life: a notification still on its way when a vCPU entered
 * a mode without external-interrupt exiting would reach the guest's IDT,
 * so no vCPU leaves posted interrupts while it may run. A reset (INIT, a
 * restart) goes back to the configured mode, and a switch into a mode
 * that owns the LAPIC is refused (hypercall_decode: hc_context.posted).
 */
bool pi_usable(bool enabled, bool apicv, bool shared, bool config_owns_lapic);

#endif
