/* SPDX-License-Identifier: MIT */
/*
 * The apic room's part of struct vcpu (hv/state/vcpu.h): types only. The
 * guest's interrupt controller as root mode keeps it, beside the vLAPIC
 * itself (struct vtimer's vlapic, hv/core/vlapic.h). Written by hv/apic/;
 * the pending words by any core that sends this vCPU an interrupt.
 */
#ifndef TEMPO_HV_APIC_PARTS_H
#define TEMPO_HV_APIC_PARTS_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/core/apic_base.h"
#include "hv/core/posted.h"
#include "hv/core/xapic.h"

struct vcpu_apic {
	/*
	 * Where the CPU has virtual-interrupt delivery (vmx_ctl.has_apicv):
	 * the virtual-APIC page, and whether this vCPU's mode uses it now
	 * (not direct). The vLAPIC stays the truth in root mode; the page
	 * carries its IRR, ISR and TPR into the guest (apicv_sync_out, before
	 * each entry) and back (apicv_sync_in, at each exit).
	 */
	uint32_t *page;
	bool apicv;
	uint16_t status;	/* guest interrupt status (SVI:RVI) as the page last matched the vLAPIC */
	/*
	 * Posted interrupts (Tempo's `posted=on`, hv/core/posted.h): other
	 * cores post this vCPU's fixed vectors in @pi and notify its core,
	 * which takes them with no exit while the guest runs. @pi_on is set
	 * by apic_apply_model and read by senders.
	 */
	struct pi_desc pi;
	volatile bool pi_on;
	uint64_t icr_last;	/* what the guest last wrote to its ICR */
	/*
	 * The LAPIC version register (SDM Vol. 3A 11.4.8), read once when the
	 * vCPU is set up: its Max LVT Entry decides whether LVT CMCI exists,
	 * asked on every LVT access, which then costs no RDMSR.
	 */
	uint32_t lvr;
	/* IA32_APIC_BASE as the guest set it (x2APIC at entry), and its xAPIC page's own registers */
	struct apic_base_state base;
	struct xapic_regs xapic;
	volatile uint32_t ipi_pending[8];	/* fixed IPIs for it while it may be out */
	/* an NMI IPI from its partition, injected at its next entry (a virtual NMI) */
	volatile uint32_t nmi_pending;
	/* an INIT IPI: at its next exit it resets and waits for SIPI, as hardware does */
	volatile uint32_t init_pending;
	/* a SIPI sent while that reset was pending: 0x100 | its vector, taken by the reset */
	volatile uint32_t sipi_after_init;
	/*
	 * On a shared core, where no mailbox bit may say whose it is: set by
	 * a sender after its ipi_pending bit, nmi_pending or init_pending and
	 * before it reads the core's window_vcpu; cleared by the vCPU's
	 * exit_tail, and by switch_in at its window's start, before they read
	 * them. Set at its entry, it makes that entry exit at once
	 * (timer_arm_due, hv_root_nmi).
	 */
	volatile uint32_t kicked;
	int xapic_region;	/* its xAPIC page's region id + 1; 0: none yet (hv/exit/xapic_page.c) */
};

#endif
