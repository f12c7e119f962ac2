// SPDX-License-Identifier: MIT
/*
 * hostile: a guest that attacks the hypervisor, one documented attack at a
 * time (docs/attacks.md lists them with what must happen). Before each it
 * prints "ATTACK_BEGIN name=NAME"; when it gets control back it prints
 * "ATTACK_SURVIVED name=NAME observed=WHAT". An attack that stops the
 * partition never returns; tests/attack/run_attacks.sh pairs these lines
 * with the PARTITION_STOP line and tests/attack/expected.txt.
 *
 * Command line: first=N last=M (indexes into the table below, inclusive;
 * default all), list=1 prints the table and ends.
 */
#include "guests/common/bootinfo.h"
#include "guests/common/console.h"
#include "guests/common/exc.h"
#include "guests/common/fmt.h"
#include "guests/common/guest.h"
#include "guests/common/lib.h"
#include "guests/common/smp.h"
#include "guests/common/tempo.h"
#include "guests/common/x86.h"

#define VALUE_MAX	16

const char guest_name[] = "hostile";

static struct boot_params boot;
static struct tempo_cpuid tempo;
static struct tempo_partition_info info __attribute__((aligned(64)));
static uint8_t vmxon_region[4096] __attribute__((aligned(4096)));
static char text[32] = "hostile: console hypercall\n";

void guest_panic(const char *why)
{
	con_printf("hostile: FAILED: %s\n", why);
	tempo_hypercall(TEMPO_HC_SHUTDOWN, 1, 0, 0);
	halt_forever();
}

/* ---- faulting instructions, resumed after (exc_resume_eip) ---- */

static const char *vector_name(void)
{
	switch (exc_caught_vector) {
	case -1:
		return "ok";
	case 6:
		return "ud";
	case 13:
		return "gp";
	default:
		return "other_exception";
	}
}

static const char *try_rdmsr(uint32_t msr, uint64_t *value)
{
	uint32_t lo = 0, hi = 0;

	exc_caught_vector = -1;
	asm volatile("movl $1f, %0\n\trdmsr\n1:\n\tmovl $0, %0"
		     : "+m"(exc_resume_eip), "+a"(lo), "+d"(hi) : "c"(msr) : "memory");
	if (value)
		*value = ((uint64_t)hi << 32) | lo;
	return vector_name();
}

static const char *try_wrmsr(uint32_t msr, uint64_t value)
{
	exc_caught_vector = -1;
	asm volatile("movl $1f, %0\n\twrmsr\n1:\n\tmovl $0, %0"
		     : "+m"(exc_resume_eip)
		     : "c"(msr), "a"((uint32_t)value), "d"((uint32_t)(value >> 32)) : "memory");
	return vector_name();
}

static const char *hc_result(int32_t ret)
{
	switch (ret) {
	case TEMPO_HC_EINVAL:
		return "einval";
	case TEMPO_HC_ENOSYS:
		return "enosys";
	case TEMPO_HC_EBUSY:
		return "ebusy";
	default:
		return ret >= 0 ? "ok" : "other_error";
	}
}

/* ---- attacks that must leave the partition running ---- */

static const char *a_cpuid_vmx(void)
{
	uint32_t a, b, c, d;

	cpuid(1, 0, &a, &b, &c, &d);
	return (c & (1u << 5)) ? "visible" : "hidden";
}

static const char *a_cpuid_storm(void)
{
	uint32_t a, b, c, d;

	for (uint32_t i = 0; i < 2000; i++)
		cpuid(i & 0x1f, 0, &a, &b, &c, &d);
	return "ok";
}

static const char *a_rdmsr_unknown(void) { return try_rdmsr(0x611, NULL); }	/* RAPL */
static const char *a_wrmsr_unknown(void) { return try_wrmsr(0x199, 0xffff); }	/* PERF_CTL */
static const char *a_rdmsr_vmx_basic(void) { return try_rdmsr(0x480, NULL); }
static const char *a_wrmsr_feature_control(void) { return try_wrmsr(0x3a, 5); }
static const char *a_wrmsr_apic_disable(void) { return try_wrmsr(0x1b, 0xfee00000); }
static const char *a_wrmsr_apic_move(void) { return try_wrmsr(0x1b, 0xfed00c00); }
static const char *a_wrmsr_vmx_cap(void) { return try_wrmsr(0x481, 0); }
static const char *a_wrmsr_x2apic_id(void) { return try_wrmsr(0x802, 7); }
static const char *a_rdmsr_eoi(void) { return try_rdmsr(0x80b, NULL); }
static const char *a_wrmsr_isr(void) { return try_wrmsr(0x810, 1); }
static const char *a_wrmsr_tmccr(void) { return try_wrmsr(0x839, 1); }
static const char *a_wrmsr_x2apic_reserved(void) { return try_wrmsr(0x8ff, 0); }
static const char *a_wrmsr_tsc(void) { return try_wrmsr(0x10, 0); }

static const char *a_wrmsr_svr_disable(void)
{
	uint64_t svr = 0;
	const char *r = try_wrmsr(0x80f, 0xff & ~0x100);

	if (r[0] != 'o')
		return r;
	try_rdmsr(0x80f, &svr);
	return (svr & 0x100) ? "apic_enabled" : "apic_disabled";
}

static const char *a_wrmsr_lint0_nmi(void)
{
	uint64_t lvt = 0;
	const char *r = try_wrmsr(0x835, 4u << 8);	/* LINT0: NMI delivery, unmasked */

	if (r[0] != 'o')
		return r;
	try_rdmsr(0x835, &lvt);
	return (lvt & (1u << 16)) && !(lvt & (7u << 8)) ? "masked" : "nmi_armed";
}

static const char *a_wrmsr_lvt_error_low(void)
{
	uint64_t lvt = 0;
	const char *r = try_wrmsr(0x837, 3);	/* vector 3, unmasked */

	if (r[0] != 'o')
		return r;
	try_rdmsr(0x837, &lvt);
	return (lvt & (1u << 16)) ? "masked" : "armed";
}

static const char *a_hc_console_oob(void)
{
	return hc_result(tempo_hypercall(TEMPO_HC_CONSOLE_WRITE, 0xfff00000, 16, 0));
}

static const char *a_hc_console_wrap(void)
{
	return hc_result(tempo_hypercall(TEMPO_HC_CONSOLE_WRITE, 0xfffffff0, 0x20, 0));
}

static const char *a_hc_console_long(void)
{
	return hc_result(tempo_hypercall(TEMPO_HC_CONSOLE_WRITE, (uint32_t)text, 4097, 0));
}

static const char *a_hc_console_ok(void)
{
	return hc_result(tempo_hypercall(TEMPO_HC_CONSOLE_WRITE, (uint32_t)text, 27, 0));
}

static const char *a_hc_info_edge(void)
{
	int32_t r = tempo_hypercall(TEMPO_HC_PARTITION_INFO, (uint32_t)&info, 0, 0);

	if (r != 0)
		return hc_result(r);
	/* the last bytes of RAM and one byte more */
	return hc_result(tempo_hypercall(TEMPO_HC_PARTITION_INFO,
					 (uint32_t)info.memory_bytes - sizeof(info) + 1, 0, 0));
}

static const char *a_hc_unknown(void)
{
	return hc_result(tempo_hypercall(0x7fffffff, 0, 0, 0));
}

static const char *a_hc_mode_bad(void)
{
	return hc_result(tempo_hypercall(TEMPO_HC_TIMER_MODE_SET, 7, 0, 0));
}

static const char *a_hc_pv_timer_wrong_mode(void)
{
	return hc_result(tempo_hypercall(TEMPO_HC_PV_TIMER, 0x1000, 0, 0));
}

static const char *a_io_pic(void)
{
	outb(0x20, 0x11);	/* ICW1: would re-initialize a real PIC */
	outb(0x21, 0xff);
	return inb(0x21) == 0xff ? "ones" : "value";
}

static const char *a_io_pci_config(void)
{
	uint32_t v;

	asm volatile("outl %0, %1" : : "a"(0x80000000u), "Nd"((uint16_t)0xcf8));
	asm volatile("inl %1, %0" : "=a"(v) : "Nd"((uint16_t)0xcfc));
	return v == 0xffffffffu ? "ones" : "value";
}

static const char *a_io_reset(void)
{
	outb(0xcf9, 0x06);	/* reset control: a full reset on a real chipset */
	outb(0x64, 0xfe);	/* keyboard controller reset */
	outb(0x92, 0x01);	/* fast A20 / reset */
	return "ok";
}

static const char *a_invd(void)
{
	asm volatile("invd" ::: "memory");
	return "ok";
}

static const char *a_wbinvd(void)
{
	asm volatile("wbinvd" ::: "memory");
	return "ok";
}

static const char *a_monitor_mwait(void)
{
	static volatile uint32_t line;

	exc_caught_vector = -1;
	asm volatile("movl $1f, %0\n\tmonitor\n\tmwait\n1:\n\tmovl $0, %0"
		     : "+m"(exc_resume_eip) : "a"(&line), "c"(0), "d"(0) : "memory");
	return vector_name();
}

static const char *a_getsec(void)
{
	exc_caught_vector = -1;
	asm volatile("movl $1f, %0\n\tgetsec\n1:\n\tmovl $0, %0"
		     : "+m"(exc_resume_eip) : "a"(0) : "memory", "ebx", "ecx");
	return vector_name();
}

static const char *a_cr4_vmxe(void)
{
	uint32_t cr4;

	asm volatile("mov %%cr4, %0" : "=r"(cr4));
	exc_caught_vector = -1;
	asm volatile("movl $1f, %0\n\tmov %1, %%cr4\n1:\n\tmovl $0, %0"
		     : "+m"(exc_resume_eip) : "r"(cr4 | (1u << 13)) : "memory");
	return vector_name();
}

static const char *a_xsetbv_bad(void)
{
	uint32_t a, b, c, d, cr4;

	cpuid(1, 0, &a, &b, &c, &d);
	if (!(c & (1u << 26)))
		return "gp";	/* no XSAVE: nothing to attack */
	asm volatile("mov %%cr4, %0" : "=r"(cr4));
	asm volatile("mov %0, %%cr4" : : "r"(cr4 | (1u << 18)));	/* OSXSAVE */
	exc_caught_vector = -1;
	/* XCR0 with AVX but without SSE */
	asm volatile("movl $1f, %0\n\txsetbv\n1:\n\tmovl $0, %0"
		     : "+m"(exc_resume_eip) : "c"(0), "a"(5), "d"(0) : "memory");
	return vector_name();
}

static const char *a_cli_spin(void)
{
	uint64_t end = rdtsc() + (uint64_t)tempo.tsc_khz * 20;	/* 20 ms */

	asm volatile("cli");
	while (rdtsc() < end)
		asm volatile("pause");
	return "ok";
}

static const char *a_deadline_storm(void)
{
	for (uint32_t i = 0; i < 2000; i++)
		wrmsr(0x6e0, i & 1 ? 1 : ~0ull);
	wrmsr(0x6e0, 0);
	return "ok";
}

static const char *a_tpr_max(void)
{
	const char *r = try_wrmsr(0x808, 0xff);

	try_wrmsr(0x808, 0);
	return r;
}

/* ---- attacks that must stop the partition ---- */

static const char *s_ept_beyond_ram(void)
{
	*(volatile uint8_t *)phys_ptr((uint32_t)info.memory_bytes + 0x100000) = 0x5a;
	return "wrote";
}

static const char *s_xapic_mmio(void)
{
	return *(volatile uint32_t *)phys_ptr(0xfee00030) ? "read" : "read0";
}

static const char *s_hpet_mmio(void)
{
	return *(volatile uint32_t *)phys_ptr(0xfed00000) ? "read" : "read0";
}

static const char *s_vmxon(void)
{
	static uint64_t region_pa;

	region_pa = (uint32_t)vmxon_region;
	exc_caught_vector = -1;
	asm volatile("movl $1f, %0\n\tvmxon %1\n1:\n\tmovl $0, %0"
		     : "+m"(exc_resume_eip) : "m"(region_pa) : "memory", "cc");
	return vector_name();
}

static const char *s_vmread(void)
{
	uint32_t v = 0;

	exc_caught_vector = -1;
	asm volatile("movl $1f, %0\n\tvmread %2, %1\n1:\n\tmovl $0, %0"
		     : "+m"(exc_resume_eip), "=r"(v) : "r"(0x681e) : "memory", "cc");
	return vector_name();
}

static const char *s_string_io(void)
{
	asm volatile("rep outsb" : : "S"(text), "c"(4), "d"(0x80) : "memory");
	return "ok";
}

static const char *s_triple_fault(void)
{
	static const struct {
		uint16_t limit;
		uint32_t base;
	} __attribute__((packed)) empty_idt = { 0, 0 };

	asm volatile("lidt %0; int3" : : "m"(empty_idt));
	return "ok";
}

static const char *s_icr(uint64_t icr)
{
	return try_wrmsr(MSR_X2APIC_ICR, icr);
}

static const char *s_icr_nmi_self(void) { return s_icr((4u << 8) | (1u << 18)); }
static const char *s_icr_foreign(void) { return s_icr(0x40 | (0ull << 32)); }
static const char *s_icr_broadcast(void) { return s_icr(0x40 | (0xffffffffull << 32)); }
static const char *s_icr_low_vector(void) { return s_icr(2 | (1u << 18)); }
static const char *s_icr_init_foreign(void) { return s_icr((5u << 8) | (1u << 14)); }
static const char *s_icr_smi(void) { return s_icr((2u << 8) | (1u << 18)); }

static const char *s_hlt_cli(void)
{
	asm volatile("cli; hlt");
	return "woke";
}

struct attack {
	const char *name;
	const char *(*fn)(void);
};

/* Order matters: the harness runs index ranges (tests/attack/expected.txt). */
static const struct attack attacks[] = {
	{ "cpuid_vmx", a_cpuid_vmx },
	{ "cpuid_storm", a_cpuid_storm },
	{ "rdmsr_unknown", a_rdmsr_unknown },
	{ "wrmsr_unknown", a_wrmsr_unknown },
	{ "rdmsr_vmx_basic", a_rdmsr_vmx_basic },
	{ "wrmsr_vmx_cap", a_wrmsr_vmx_cap },
	{ "wrmsr_feature_control", a_wrmsr_feature_control },
	{ "wrmsr_apic_disable", a_wrmsr_apic_disable },
	{ "wrmsr_apic_move", a_wrmsr_apic_move },
	{ "wrmsr_x2apic_id", a_wrmsr_x2apic_id },
	{ "rdmsr_eoi", a_rdmsr_eoi },
	{ "wrmsr_isr", a_wrmsr_isr },
	{ "wrmsr_tmccr", a_wrmsr_tmccr },
	{ "wrmsr_x2apic_reserved", a_wrmsr_x2apic_reserved },
	{ "wrmsr_tsc", a_wrmsr_tsc },
	{ "wrmsr_svr_disable", a_wrmsr_svr_disable },
	{ "wrmsr_lint0_nmi", a_wrmsr_lint0_nmi },
	{ "wrmsr_lvt_error_low", a_wrmsr_lvt_error_low },
	{ "tpr_max", a_tpr_max },
	{ "deadline_storm", a_deadline_storm },
	{ "hc_console_ok", a_hc_console_ok },
	{ "hc_console_oob", a_hc_console_oob },
	{ "hc_console_wrap", a_hc_console_wrap },
	{ "hc_console_long", a_hc_console_long },
	{ "hc_info_edge", a_hc_info_edge },
	{ "hc_unknown", a_hc_unknown },
	{ "hc_mode_bad", a_hc_mode_bad },
	{ "hc_pv_timer_wrong_mode", a_hc_pv_timer_wrong_mode },
	{ "io_pic", a_io_pic },
	{ "io_pci_config", a_io_pci_config },
	{ "io_reset", a_io_reset },
	{ "invd", a_invd },
	{ "wbinvd", a_wbinvd },
	{ "monitor_mwait", a_monitor_mwait },
	{ "getsec", a_getsec },
	{ "cr4_vmxe", a_cr4_vmxe },
	{ "xsetbv_bad", a_xsetbv_bad },
	{ "cli_spin", a_cli_spin },
	/* from here on each attack stops the partition */
	{ "ept_beyond_ram", s_ept_beyond_ram },
	{ "xapic_mmio", s_xapic_mmio },
	{ "hpet_mmio", s_hpet_mmio },
	{ "vmxon", s_vmxon },
	{ "vmread", s_vmread },
	{ "string_io", s_string_io },
	{ "triple_fault", s_triple_fault },
	{ "icr_nmi_self", s_icr_nmi_self },
	{ "icr_foreign", s_icr_foreign },
	{ "icr_broadcast", s_icr_broadcast },
	{ "icr_low_vector", s_icr_low_vector },
	{ "icr_init_foreign", s_icr_init_foreign },
	{ "icr_smi", s_icr_smi },
	{ "hlt_cli", s_hlt_cli },
};

static uint32_t opt_u32(const char *key, uint32_t def)
{
	char v[VALUE_MAX];
	uint32_t n = 0;

	if (!cmdline_value(boot.cmdline, key, v, sizeof(v)) || !v[0])
		return def;
	for (const char *p = v; *p; p++) {
		if (*p < '0' || *p > '9')
			return def;
		n = n * 10 + (uint32_t)(*p - '0');
	}
	return n;
}

void guest_main(uint32_t magic, uint32_t info_addr)
{
	const uint32_t count = sizeof(attacks) / sizeof(attacks[0]);
	uint32_t first, last;

	tempo_detect(&tempo);
	con_init(!tempo.present);
	exc_init();
	bootinfo_parse(magic, info_addr, &boot);
	if (!tempo.present)
		guest_panic("not under Tempo: these attacks are for a hypervisor");
	if (tempo_hypercall(TEMPO_HC_PARTITION_INFO, (uint32_t)&info, 0, 0) != 0)
		guest_panic("partition info hypercall failed");
	x2apic_enable();
	if (opt_u32("list", 0)) {
		for (uint32_t i = 0; i < count; i++)
			con_printf("ATTACK_LIST index=%u name=%s\n", i, attacks[i].name);
		tempo_hypercall(TEMPO_HC_SHUTDOWN, 0, 0, 0);
	}
	first = opt_u32("first", 0);
	last = opt_u32("last", count - 1);
	if (last >= count)
		last = count - 1;
	for (uint32_t i = first; i <= last; i++) {
		const char *observed;

		con_printf("ATTACK_BEGIN name=%s\n", attacks[i].name);
		observed = attacks[i].fn();
		con_printf("ATTACK_SURVIVED name=%s observed=%s\n", attacks[i].name, observed);
	}
	con_printf("hostile: done\n");
	tempo_hypercall(TEMPO_HC_SHUTDOWN, 0, 0, 0);
	halt_forever();
}
