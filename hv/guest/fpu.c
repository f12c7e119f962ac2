// SPDX-License-Identifier: MIT
/* The XSAVE plan of the boot CPU, and the FPU state a shared core switches. */
#include "hv/guest/fpu.h"

#include "arch/x86/cpu.h"
#include "hv/lib/lib.h"
#include "hv/lib/log.h"
#include "hv/state/partition.h"
#include "hv/state/platform.h"


static bool host_has_xsave(void)
{
	return cpuid(1, 0).ecx & (1u << 26);
}

static uint64_t xgetbv0(void)
{
	uint32_t lo, hi;

	asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

static void xsetbv0(uint64_t value)
{
	asm volatile("xsetbv" : : "c"(0), "a"((uint32_t)value), "d"((uint32_t)(value >> 32)));
}

/*
 * Boot: what the CPU's XSAVE components need (CPUID 0xD, standard format)
 * and which of them a guest may enable (hv/core/xcr0.c): all that fit
 * XSAVE_AREA_MAX. A guest's XSETBV is checked against it, its CPUID hides
 * the rest, and a shared core's areas are this large.
 */
void xsave_plan_boot(void)
{
	struct xsave_cpuid x;
	struct cpuid_regs r;

	if (!host_has_xsave() || platform.cpuid_max_basic < 0xd)
		return;
	memset(&x, 0, sizeof(x));
	r = cpuid(0xd, 0);
	x.supported = ((uint64_t)r.edx << 32) | r.eax;
	x.size_all = r.ecx;
	for (uint32_t i = 2; i < XSAVE_COMPONENTS; i++) {
		if (!(x.supported & (1ull << i)))
			continue;
		r = cpuid(0xd, i);
		x.size[i] = r.eax;
		x.offset[i] = r.ebx;
	}
	xsave_plan = xsave_plan_make(&x, XSAVE_AREA_MAX);
	log_info("XSAVE: CPU XCR0 bits 0x%lx (%u bytes), guests may set 0x%lx (%u bytes)\n",
		 x.supported, x.size_all, xsave_plan.xcr0_allowed, xsave_plan.area_bytes);
}

/*
 * x87/SSE/AVX state: the hypervisor never touches it, so on a dedicated core
 * it simply stays the guest's; on a shared core it must be switched, or one
 * partition would read (and clobber) another's registers. XSAVE with the
 * guest's XCR0 as the mask, into an area sized for every component it may
 * enable (xsave_plan: a 4 KiB area took AMX's 8 KiB of tile data into the
 * next page). The restore runs with XCR0 = every allowed component, so the
 * ones this vCPU never saved get their initial state (XSTATE_BV clear, SDM
 * Vol. 1 13.8.1) instead of keeping the previous vCPU's; then its own XCR0.
 * FXSAVE on CPUs without XSAVE (or where no XCR0 bit could be offered).
 */
static void fpu_save(struct vcpu *v)
{
	if (xsave_plan.xcr0_allowed)
		asm volatile("xsave64 %0" : "=m"(*(uint8_t(*)[XSAVE_AREA_MAX])v->saved.fpu)
			     : "a"((uint32_t)v->saved.xcr0), "d"((uint32_t)(v->saved.xcr0 >> 32)) : "memory");
	else
		asm volatile("fxsave64 %0" : "=m"(*(uint8_t(*)[512])v->saved.fpu) : : "memory");
}

static void restore_area(const void *area, uint64_t xcr0)
{
	uint64_t all = xsave_plan.xcr0_allowed;

	if (all) {
		xsetbv0(all);
		asm volatile("xrstor64 %0" : : "m"(*(const uint8_t(*)[XSAVE_AREA_MAX])area),
			     "a"((uint32_t)all), "d"((uint32_t)(all >> 32)) : "memory");
		xsetbv0(xcr0);
	} else {
		asm volatile("fxrstor64 %0" : : "m"(*(const uint8_t(*)[512])area) : "memory");
	}
}

static void fpu_restore(struct vcpu *v)
{
	restore_area(v->saved.fpu, v->saved.xcr0);
}

void fpu_area_reset(void *area, uint64_t bytes)
{
	memset(area, 0, bytes);
	/*
	 * XRSTOR/FXRSTOR load MXCSR from the legacy area even for components
	 * in their init state (SDM 13.8.1): its reset value, not 0 (every
	 * SIMD exception unmasked). FXRSTOR also loads FCW: its FNINIT value.
	 */
	((uint32_t *)area)[6] = 0x1f80;
	if (!xsave_plan.xcr0_allowed)
		((uint16_t *)area)[0] = 0x37f;
}

void fpu_reset_core(void)
{
	/*
	 * Never written, so cores restarting at once share it safely: FCW
	 * 0x37F and MXCSR 0x1F80 for FXRSTOR; for XRSTOR, XSTATE_BV = 0 brings
	 * every component up in its init state (MXCSR still from the legacy area).
	 */
	static const uint8_t init_area[XSAVE_AREA_MAX] __attribute__((aligned(64))) = {
		[0] = 0x7f, [1] = 0x03, [24] = 0x80, [25] = 0x1f,
	};

	restore_area(init_area, 1);
}

void fpu_switch_out(struct vcpu *v)
{
	if (xsave_plan.xcr0_allowed)
		v->saved.xcr0 = xgetbv0();
	fpu_save(v);
}

void fpu_switch_in(struct vcpu *v)
{
	fpu_restore(v);	/* a fresh area gives the reset state */
}
