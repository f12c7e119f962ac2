// SPDX-License-Identifier: MIT
/*
 * The xAPIC register page (hv/core/xapic.h): where a guest that left
 * x2APIC mode finds its APIC, trapped where nothing is mapped. Each
 * register is the x2APIC MSR's (SDM Vol. 3A 11.12.1.2), so an access runs
 * through the same table and checks as RDMSR and WRMSR (msr_read,
 * msr_write). The page is each vCPU's own region in its partition's
 * registry (hv/state/region.h), registered at its reset and moved with
 * IA32_APIC_BASE (hv/exit/msr.c).
 */
#include "hv/apic/apic.h"
#include "hv/exit/exit.h"
#include "hv/guest/mmio.h"
#include "hv/state/hooks.h"
#include "hv/state/pages.h"

static uint64_t xapic_page_read(struct vcpu *v, void *ctx, uint64_t gpa, uint8_t size)
{
	struct xapic_op op;
	uint64_t value = 0;

	(void)ctx;
	if (!apic_base_page_decoded(&v->apic.base))
		return apic_base_undecoded_read(size);
	op = xapic_access(&v->apic.xapic, (uint32_t)(gpa & (PAGE_SIZE - 1)), size, false, 0);
	if (op.kind == XAPIC_OP_DONE)
		return op.value;
	if (op.kind == XAPIC_OP_MSR_READ && msr_read(v, op.msr, &value))
		return xapic_read_finish(&op, value);
	return 0;
}

static void xapic_page_write(struct vcpu *v, void *ctx, uint64_t gpa, uint8_t size,
			     uint64_t value)
{
	struct exit_ctx *x = ctx;
	struct xapic_op op;

	if (!apic_base_page_decoded(&v->apic.base))
		return;		/* the write goes nowhere, as on a bus with no APIC there */
	op = xapic_access(&v->apic.xapic, (uint32_t)(gpa & (PAGE_SIZE - 1)), size, true, value);
	if (op.kind == XAPIC_OP_MSR_WRITE)
		msr_write(v, x, op.msr, op.value);	/* a refused value is dropped: no #GP on MMIO */
	else if (op.kind == XAPIC_OP_SEND_IPI)
		apic_xapic_send_ipi(v, x, (uint32_t)op.value);
}

static bool xapic_page_mmio(struct vcpu *v, struct exit_ctx *x, uint64_t gpa, void *opaque,
			    enum exit_action *a)
{
	struct mmio_device dev = { xapic_page_read, xapic_page_write, x };

	(void)opaque;
	if ((gpa & ~(uint64_t)(PAGE_SIZE - 1)) != v->apic.base.base)
		return false;
	*a = mmio_emulate(v, x, gpa, &dev);
	if (*a == EXIT_RESUME && x->stop_reason)
		*a = EXIT_STOP;		/* an IPI aimed outside the partition */
	return true;
}

/* Out of reset the page is at IA32_APIC_BASE's (the apic hook, earlier, set it). */
static void xapic_page_vcpu_reset(struct vcpu *v)
{
	if (!v->apic.xapic_region)
		v->apic.xapic_region = 1 + mmio_region_add(v->part, v, v->apic.base.base, PAGE_SIZE,
							   xapic_page_mmio, NULL, "xAPIC page");
	else
		mmio_region_set(v->part, v->apic.xapic_region - 1, v->apic.base.base, PAGE_SIZE);
}

PART_HOOK(80, xapic_page, .vcpu_reset = xapic_page_vcpu_reset);
