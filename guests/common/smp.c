// SPDX-License-Identifier: MIT
#include "guests/common/smp.h"

#include "guests/common/exc.h"
#include "guests/common/x86.h"
#include "hv/lib/lib.h"

/* x2APIC ICR values (SDM Vol. 3A 10.6.1): INIT and SIPI, level asserted. */
#define ICR_INIT_ASSERT		0x4500u
#define ICR_STARTUP		0x4600u
#define SIPI_VECTOR		(SMP_TRAMPOLINE_PHYS >> 12)

_Static_assert(SMP_TRAMPOLINE_PHYS % 4096 == 0 && SMP_TRAMPOLINE_PHYS < 0x100000,
	       "SIPI can only start an AP at a page below 1 MiB");

extern const uint8_t smp_tramp_start[], smp_tramp_end[];	/* entry.S */
void smp_ap_main(void);

uint32_t smp_ap_ticket;		/* taken with lock xadd in entry.S */
static smp_ap_fn smp_ap_callback;

bool x2apic_enable(void)
{
	uint32_t a, b, c, d;
	uint64_t base;

	cpuid(1, 0, &a, &b, &c, &d);
	if (!(c & CPUID1_ECX_X2APIC))
		return false;
	base = rdmsr(MSR_IA32_APIC_BASE);
	if (base & APIC_BASE_X2APIC_EN)
		return true;
	/* Disabled -> x2APIC goes through xAPIC (SDM Vol. 3A 10.12.5). */
	if (!(base & APIC_BASE_GLOBAL_EN)) {
		base |= APIC_BASE_GLOBAL_EN;
		wrmsr(MSR_IA32_APIC_BASE, base);
	}
	wrmsr(MSR_IA32_APIC_BASE, base | APIC_BASE_X2APIC_EN);
	return (rdmsr(MSR_IA32_APIC_BASE) & (APIC_BASE_GLOBAL_EN | APIC_BASE_X2APIC_EN)) ==
	       (APIC_BASE_GLOBAL_EN | APIC_BASE_X2APIC_EN);
}

uint32_t x2apic_id(void)
{
	return (uint32_t)rdmsr(MSR_X2APIC_ID);
}

void smp_ap_main(void)
{
	exc_load();
	if (x2apic_enable() && smp_ap_callback)
		smp_ap_callback(x2apic_id());
	halt_forever();
}

static void icr_send(uint32_t apic_id, uint32_t icr)
{
	/* x2APIC: one 64-bit write, destination in the high half, no busy bit. */
	wrmsr(MSR_X2APIC_ICR, ((uint64_t)apic_id << 32) | icr);
}

unsigned int smp_start_aps(const uint32_t *ids, unsigned int count, uint32_t self, smp_ap_fn fn,
			   const struct smp_timing *t)
{
	uint32_t targets[SMP_MAX_CPUS - 1];
	unsigned int n = 0;

	for (unsigned int i = 0; i < count && n < SMP_MAX_CPUS - 1; i++) {
		if (ids[i] != self)
			targets[n++] = ids[i];
	}
	if (!n)
		return 0;
	if ((size_t)(smp_tramp_end - smp_tramp_start) > 4096)
		return 0;	/* cannot happen: the trampoline is ~100 bytes */
	memcpy(phys_ptr(SMP_TRAMPOLINE_PHYS), smp_tramp_start, smp_tramp_end - smp_tramp_start);
	smp_ap_callback = fn;
	/* The stores above must be visible before any AP runs; wrmsr serializes. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);

	for (unsigned int i = 0; i < n; i++)
		icr_send(targets[i], ICR_INIT_ASSERT);
	tsc_delay(t->init_wait_tsc);
	for (int round = 0; round < 2; round++) {
		for (unsigned int i = 0; i < n; i++)
			icr_send(targets[i], ICR_STARTUP | SIPI_VECTOR);
		tsc_delay(t->sipi_wait_tsc);
	}
	return n;
}
