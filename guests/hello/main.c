// SPDX-License-Identifier: MIT
/*
 * hello: the smallest guest that exercises what a partition needs. It runs
 * as a Tempo guest and bare metal from GRUB (multiboot1 or 2), prints what it
 * finds (boot info, hypervisor, CPUs), starts its APs, optionally misbehaves
 * on purpose (fault=oob|triple|vmxon|ud|reset) and ends. Every line starts "hello: "
 * so tests can match it; the lines are listed in guests/hello/README.md.
 */
#include "guests/common/acpi.h"
#include "guests/common/bootinfo.h"
#include "guests/common/console.h"
#include "guests/common/exc.h"
#include "guests/common/guest.h"
#include "guests/common/smp.h"
#include "guests/common/tempo.h"
#include "guests/common/x86.h"
#include "hv/lib/uart16550.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"

#define QEMU_DEBUG_EXIT_PORT	0xf4
#define BOCHS_SHUTDOWN_PORT	0x8900
/* The codes Tempo's hv_stop() reports (hv/upcalls.h), so run.sh judges us alike. */
#define EXIT_CODE_OK		16
#define EXIT_CODE_FAILURE	17

/*
 * AP start-up waits. Bare metal the TSC rate is unknown: assume ~3 GHz but
 * cap each wait at 10M ticks, which in Bochs (1 tick per instruction,
 * 50M ips) is 0.2 s of emulated time. Under Tempo CPUID gives the rate.
 */
#define INIT_WAIT_MAX_TSC	10000000ull
#define SIPI_WAIT_DEFAULT_TSC	600000ull
#define AP_WAIT_DEFAULT_TSC	100000000ull
#define INIT_WAIT_MS		10
#define SIPI_WAIT_US		200
#define AP_WAIT_MS		1000

#define OOB_DISTANCE		(16ull << 20)
#define VALUE_MAX		16

const char guest_name[] = "hello";

static struct tempo_cpuid tempo;
static struct boot_params boot;
static bool exit_emu;
static uint32_t aps_online;
static struct tempo_partition_info part_info __attribute__((aligned(64)));
static char hc_text[64];
static uint8_t vmxon_region[4096] __attribute__((aligned(4096)));

static void __attribute__((noreturn)) emulator_exit(bool ok, const char *why)
{
	asm volatile("cli");
	con_printf("TEMPO_EXIT code=%d status=%s reason=\"%s\"\n",
		   ok ? EXIT_CODE_OK : EXIT_CODE_FAILURE, ok ? "ok" : "failure", why);
	uart_flush();	/* the emulator ends at once: the line must be out first */
	outb(QEMU_DEBUG_EXIT_PORT, ok ? EXIT_CODE_OK : EXIT_CODE_FAILURE);
	if (ok) {
		asm volatile("xchg %bx, %bx");	/* Bochs magic breakpoint */
	} else {
		for (const char *s = "Shutdown"; *s; s++)
			outb(BOCHS_SHUTDOWN_PORT, *s);
	}
	con_printf("hello: halted\n");
	halt_forever();
}

void guest_panic(const char *why)
{
	con_printf("hello: FAILED: %s\n", why);
	if (tempo.present) {
		tempo_hypercall(TEMPO_HC_SHUTDOWN, 1, 0, 0);
		con_printf("hello: error: shutdown hypercall returned\n");
	} else if (exit_emu) {
		emulator_exit(false, why);
	}
	halt_forever();
}

static void report_tempo(void)
{
	int32_t ret;
	size_t len;

	if (!tempo.present) {
		con_printf("hello: bare metal\n");
		return;
	}
	con_printf("hello: under Tempo\n");
	ret = tempo_hypercall(TEMPO_HC_PARTITION_INFO, (uint32_t)&part_info, 0, 0);
	if (ret) {
		con_printf("hello: partition info hypercall failed: %d\n", (int)ret);
	} else {
		part_info.name[sizeof(part_info.name) - 1] = '\0';
		for (char *c = part_info.name; *c; c++) {
			if (*c < 0x20 || *c >= 0x7f)
				*c = '?';
		}
		con_printf("hello: partition=%s vcpus=%u memory=%llu\n", part_info.name,
			   part_info.vcpu_count, part_info.memory_bytes);
	}
	len = fmt_scnprintf(hc_text, sizeof(hc_text), "hello: hypercall console ok\n");
	ret = tempo_hypercall(TEMPO_HC_CONSOLE_WRITE, (uint32_t)hc_text, len, 0);
	if (ret < 0)
		con_printf("hello: console hypercall failed: %d\n", (int)ret);
}

static bool find_cpus(struct acpi_cpus *cpus)
{
	uint8_t rsdp[ACPI_RSDP_MAX];
	uint32_t rsdp_len;
	const char *why;
	char list[SMP_MAX_CPUS * 11 + 1];
	size_t n = 0;

	if (boot.rsdp_len) {
		rsdp_len = boot.rsdp_len;
		memcpy(rsdp, boot.rsdp, rsdp_len);
	} else {
		/* mb1 gives no RSDP; an mb2 loader without one: try the BIOS way. */
		rsdp_len = acpi_find_rsdp_bios(rsdp);
	}
	if (!rsdp_len) {
		con_printf("hello: no ACPI, cpus=1\n");
		return false;
	}
	why = acpi_madt_cpus(rsdp, rsdp_len, cpus);
	if (why) {
		con_printf("hello: ACPI: %s\n", why);
		con_printf("hello: no ACPI, cpus=1\n");
		return false;
	}
	list[0] = '\0';
	for (unsigned int i = 0; i < cpus->count; i++)
		n += fmt_scnprintf(list + n, sizeof(list) - n, "%s%u", i ? "," : "",
				   cpus->apic_ids[i]);
	con_printf("hello: cpus=%u apic_ids=%s\n", cpus->count, list);
	if (cpus->cut)
		con_printf("hello: MADT lists more than %d CPUs; using the first %d\n",
			   ACPI_MAX_CPUS, ACPI_MAX_CPUS);
	return true;
}

static void hello_ap(uint32_t apic_id)
{
	/* Print first: the BSP's summary line then comes after every AP's line. */
	con_printf("hello: AP apic_id=%u online\n", apic_id);
	__atomic_fetch_add(&aps_online, 1, __ATOMIC_SEQ_CST);
}

static void start_aps(const struct acpi_cpus *cpus)
{
	struct smp_timing t = {
		.init_wait_tsc = INIT_WAIT_MAX_TSC,
		.sipi_wait_tsc = SIPI_WAIT_DEFAULT_TSC,
	};
	uint64_t ap_wait_tsc = AP_WAIT_DEFAULT_TSC, start;
	unsigned int total = cpus->count, started, online;
	uint32_t self;
	bool listed = false;

	if (!x2apic_enable()) {
		con_printf("hello: no x2APIC, APs not started\n");
		con_printf("hello: only 1 of %u CPUs came online\n", total);
		return;
	}
	self = x2apic_id();
	for (unsigned int i = 0; i < cpus->count; i++)
		listed |= cpus->apic_ids[i] == self;
	if (!listed) {
		con_printf("hello: BSP apic_id=%u is not in the MADT\n", self);
		total++;
	}
	if (total > SMP_MAX_CPUS) {
		con_printf("hello: starting only %d of %u CPUs\n", SMP_MAX_CPUS, total);
		total = SMP_MAX_CPUS;
	}
	if (tempo.tsc_khz) {
		t.init_wait_tsc = (uint64_t)tempo.tsc_khz * INIT_WAIT_MS;
		/* kHz * 200 us, divided in 32 bits (no 64-bit libgcc here). */
		t.sipi_wait_tsc = tempo.tsc_khz / (1000 / SIPI_WAIT_US);
		ap_wait_tsc = (uint64_t)tempo.tsc_khz * AP_WAIT_MS;
	}
	if (boot.ram_count && !bootinfo_is_ram(&boot, SMP_TRAMPOLINE_PHYS, 4096))
		con_printf("hello: warning: trampoline page 0x%x is not usable RAM in the map\n",
			   SMP_TRAMPOLINE_PHYS);

	started = smp_start_aps(cpus->apic_ids, cpus->count, self, hello_ap, &t);
	start = rdtsc();
	while (__atomic_load_n(&aps_online, __ATOMIC_SEQ_CST) < started &&
	       rdtsc() - start < ap_wait_tsc)
		cpu_relax();
	online = 1 + __atomic_load_n(&aps_online, __ATOMIC_SEQ_CST);
	if (online == total)
		con_printf("hello: all %u CPUs online\n", total);
	else
		con_printf("hello: only %u of %u CPUs came online\n", online, total);
}

/*
 * slowline=y: one 64-character line written a character every 5 ms (every
 * 250,000 TSC ticks without Tempo's frequency), 320 ms in all, so that other
 * partitions start and end while it is half written (their whole runs take
 * a few ms of guest time). The console must print it whole.
 */
static void slow_line(const char *value)
{
	uint64_t gap = tempo.tsc_khz ? (uint64_t)tempo.tsc_khz * 5 : 250000;
	char line[] = "hello: slow line 0123456789abcdefghijklmnopqrstuvwxyz0123456789\n";

	if (value[0] != 'y')
		return;
	for (unsigned int i = 0; line[i]; i++) {
		uint64_t start = rdtsc();

		con_printf("%c", line[i]);
		while (rdtsc() - start < gap)
			cpu_relax();
	}
}

/*
 * burst=N (1-99999): N lines of exactly 64 bytes through the console
 * hypercall, as fast as it takes them: far faster than a UART drains, so
 * the 8 KiB console ring fills and Tempo drops whole lines (the hypercall
 * returns 0 for one it dropped) and says so (CONSOLE_DROP). Then, once a
 * line fits again, the guest's own count (bochs_console_drop checks Tempo's
 * against it): every byte it offered that was refused.
 */
static void wait_ms(const char *value);

static void burst(const char *value)
{
	static char line[65];
	uint64_t n = 0, taken = 0, refused_bytes = 0;
	int len;

	parse_number(value, &n);
	if (n < 1 || n > 99999)
		return;
	for (uint64_t i = 0; i < n; i++) {
		len = fmt_scnprintf(line, sizeof(line), "hello: burst %05llu %s\n",
				    (unsigned long long)i, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH");
		if (tempo_hypercall(TEMPO_HC_CONSOLE_WRITE, (uint32_t)(uintptr_t)line, (uint64_t)len, 0) > 0)
			taken++;
		else
			refused_bytes += (uint64_t)len;
	}
	/* the summary, whole, once the ring has room (each refusal counted too) */
	for (;;) {
		len = fmt_scnprintf(line, sizeof(line), "hello: burst done lines=%llu taken=%llu\n",
				    (unsigned long long)n, (unsigned long long)taken);
		if (tempo_hypercall(TEMPO_HC_CONSOLE_WRITE, (uint32_t)(uintptr_t)line, (uint64_t)len, 0) > 0)
			break;
		refused_bytes += (uint64_t)len;
		wait_ms("5");
	}
	wait_ms("200");	/* the ring drains before the next line goes out byte by byte */
	con_printf("hello: burst refused_bytes=%llu\n", (unsigned long long)refused_bytes);
}

/* wait_ms=N (1-9999): spin N ms before going on, to end later than others. */
static void wait_ms(const char *value)
{
	uint64_t ms = 0, start = rdtsc();

	for (unsigned int i = 0; i < 4 && value[i] >= '0' && value[i] <= '9'; i++)
		ms = ms * 10 + (uint64_t)(value[i] - '0');
	while (rdtsc() - start < ms * (tempo.tsc_khz ? tempo.tsc_khz : 50000))
		cpu_relax();
}

/*
 * A window onto physical memory above 4 GiB for this 32-bit guest: PAE
 * paging, virtual 0-3 GiB mapped one to one in 2 MiB pages (the image,
 * stack and info all lie there), the last virtual GiB onto the 1 GiB block
 * of physical memory that holds @phys. Paging is on from pae_window() to
 * pae_off() only; nothing else runs in between.
 */
#define GIB			(1ull << 30)
#define PAE_WINDOW_VA		0xc0000000u
#define PDE_2M			0x83ull		/* present, writable, 2 MiB page */
#define CR0_PG			0x80000000u
#define CR4_PAE			0x20u

static uint64_t pae_pdpt[4] __attribute__((aligned(32)));
static uint64_t pae_pd[4][512] __attribute__((aligned(4096)));

static uint32_t read_cr0(void)
{
	uint32_t v;

	asm volatile("mov %%cr0, %0" : "=r"(v));
	return v;
}

static uint32_t read_cr4(void)
{
	uint32_t v;

	asm volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

static volatile void *pae_window(uint64_t phys)
{
	uint64_t block = phys & ~(GIB - 1);

	for (uint32_t i = 0; i < 4; i++) {
		for (uint32_t j = 0; j < 512; j++)
			pae_pd[i][j] = (i < 3 ? ((uint64_t)(i * 512 + j) << 21) :
					block + ((uint64_t)j << 21)) | PDE_2M;
		pae_pdpt[i] = (uint32_t)(uintptr_t)pae_pd[i] | 1;	/* present only */
	}
	asm volatile("mov %0, %%cr4" : : "r"(read_cr4() | CR4_PAE) : "memory");
	asm volatile("mov %0, %%cr3" : : "r"((uint32_t)(uintptr_t)pae_pdpt) : "memory");
	asm volatile("mov %0, %%cr0" : : "r"(read_cr0() | CR0_PG) : "memory");
	return phys_ptr(PAE_WINDOW_VA + (uint32_t)(phys - block));
}

static void pae_off(void)
{
	asm volatile("mov %0, %%cr0" : : "r"(read_cr0() & ~CR0_PG) : "memory");
	asm volatile("mov %0, %%cr4" : : "r"(read_cr4() & ~CR4_PAE) : "memory");
}

/* The 8 bytes at @phys (any physical address); with @write, then @v there. */
static uint64_t phys_access64(uint64_t phys, bool write, uint64_t v)
{
	volatile uint64_t *p;
	uint64_t old;

	if (phys + 8 <= 0x100000000ull) {
		p = phys_ptr((uint32_t)phys);
		old = *p;
		if (write)
			*p = v;
		return old;
	}
	p = pae_window(phys);
	old = *p;
	if (write)
		*p = v;
	pae_off();
	return old;
}

/*
 * himem=1: the RAM the memory map lists above 4 GiB is RAM of its own: at
 * the first, middle and last 8 bytes of each such range, it holds zeros
 * (fresh partition RAM), keeps a pattern written there, and writing it
 * changes nothing at its offset from 4 GiB (modulo 16 MiB, so the low RAM
 * is read where the image and zeros are) below: no alias of the low RAM.
 */
static void himem_test(void)
{
	unsigned int ranges = 0;

	for (unsigned int i = 0; i < boot.ram_count; i++) {
		const struct ram_range *r = &boot.ram[i];
		uint64_t base = r->base, at[3];
		bool ok = true;

		if (r->end <= 0x100000000ull || r->end - r->base < 16)
			continue;
		if (base < 0x100000000ull)
			base = 0x100000000ull;
		at[0] = base;
		at[1] = (base + (r->end - base) / 2) & ~7ull;
		at[2] = r->end - 8;
		for (int k = 0; k < 3; k++) {
			uint64_t pattern = 0x48494d454d000000ull ^ at[k];
			/* where a map of 4 GiB onto the RAM's start would alias it */
			uint64_t low = (at[k] - 0x100000000ull) & 0xffffffull;
			uint64_t before = phys_access64(low, false, 0);

			if (phys_access64(at[k], true, pattern) != 0) {
				con_printf("hello: himem 0x%llx did not read zero\n", at[k]);
				ok = false;
			}
			if (phys_access64(at[k], false, 0) != pattern) {
				con_printf("hello: himem 0x%llx did not keep its pattern\n", at[k]);
				ok = false;
			}
			if (phys_access64(low, false, 0) != before) {
				con_printf("hello: himem 0x%llx aliases 0x%llx\n", at[k], low);
				ok = false;
			}
		}
		con_printf("hello: himem range 0x%llx-0x%llx (%llu MiB) %s\n", base, r->end - 1,
			   (r->end - base) >> 20, ok ? "ok" : "FAILED");
		ranges++;
	}
	if (!ranges)
		con_printf("hello: himem: no RAM above 4 GiB in the map\n");
}

static void fault_oob(void)
{
	uint64_t target;

	if (!boot.ram_top) {
		con_printf("hello: no memory map, oob write skipped\n");
		return;
	}
	target = boot.ram_top + OOB_DISTANCE;
	con_printf("hello: oob write to 0x%llx (top of RAM 0x%llx + 16 MiB)\n", target,
		   boot.ram_top);
	if (target < 0x100000000ull) {
		*(volatile uint8_t *)phys_ptr((uint32_t)target) = 0x5a;
	} else {
		*(volatile uint8_t *)pae_window(target) = 0x5a;	/* through PAE paging */
		pae_off();
	}
	con_printf("hello: oob write survived\n");
}

static void fault_triple(void)
{
	static const struct {
		uint16_t limit;
		uint32_t base;
	} __attribute__((packed)) empty_idt = { 0, 0 };

	/* int3 -> #GP (vector beyond the limit) -> #DF -> shutdown. */
	asm volatile("lidt %0; int3" : : "m"(empty_idt));
	con_printf("hello: triple fault survived\n");
}

static void fault_vmxon(void)
{
	/* VMXON's operand is the region's 64-bit physical address in memory. */
	static uint64_t region_pa;

	region_pa = (uint32_t)vmxon_region;
	exc_caught_vector = -1;
	/* Bare metal (CR4.VMXE clear) this is #UD: resume after it and say so. */
	asm volatile("movl $1f, %0\n\t"
		     "vmxon %1\n"
		     "1:\n\t"
		     "movl $0, %0"
		     : "+m"(exc_resume_eip)
		     : "m"(region_pa)
		     : "memory", "cc");
	if (exc_caught_vector >= 0)
		con_printf("hello: vmxon raised exception %d (%s)\n", (int)exc_caught_vector,
			   exc_name(exc_caught_vector));
	else
		con_printf("hello: vmxon returned\n");
}

/*
 * Under Tempo: a mark in RAM past the image, left for a later instance of
 * this partition to find. A restart zeroes the partition's RAM, so a
 * restarted hello must find none (tests/emu/partitions.sh, bochs_restart).
 */
#define RAM_MARK_ADDR	0x1ff000u	/* below 2 MiB, above the image (1 MiB + ~300 KiB) */
#define RAM_MARK	0x4d524554u	/* "TERM" */

static void ram_mark(void)
{
	volatile uint32_t *m = (volatile uint32_t *)(uintptr_t)RAM_MARK_ADDR;

	con_printf(*m == RAM_MARK ? "hello: ram holds an earlier instance's mark\n" :
		   "hello: ram clean\n");
	*m = RAM_MARK;
}

/*
 * console=echo: read lines from the UART (polled: LSR.DR, RBR) and say each
 * back, until "quit". The test of console input (bochs_console_input).
 */
#define ECHO_LINE_MAX	64

static void echo_console(void)
{
	char buf[ECHO_LINE_MAX + 1];
	uint32_t n = 0, cut = 0;

	con_printf("hello: console echo ready\n");
	for (;;) {
		uint8_t c;

		if (!(inb(UART_COM1_PORT + 5) & 1)) {
			for (int i = 0; i < 2000; i++)	/* every poll is an exit: not too often */
				cpu_relax();
			continue;
		}
		c = inb(UART_COM1_PORT);
		if (c != '\r' && c != '\n') {
			if (n < ECHO_LINE_MAX)
				buf[n++] = (char)c;
			else
				cut++;
			continue;
		}
		if (!n)
			continue;
		buf[n] = 0;
		if (!strcmp(buf, "quit"))
			break;
		con_printf("hello: got '%s' (%u more cut)\n", buf, cut);
		n = cut = 0;
	}
	con_printf("hello: console echo done\n");
}

static void self_test(void)
{
	char fault[VALUE_MAX];

	if (!cmdline_value(boot.cmdline, "fault", fault, sizeof(fault)))
		return;
	con_printf("hello: fault=%s\n", fault);
	if (!memcmp(fault, "oob", 4))
		fault_oob();
	else if (!memcmp(fault, "triple", 7))
		fault_triple();
	else if (!memcmp(fault, "vmxon", 6))
		fault_vmxon();
	else if (!memcmp(fault, "ud", 3))
		asm volatile("ud2");	/* unexpected: must end as a reported failure */
	else if (!memcmp(fault, "reset", 6)) {
		outb(0xcf9, 0x06);	/* a PC's hard reset, as Linux's reboot does it */
		con_printf("hello: reset survived\n");
	}
	else if (memcmp(fault, "none", 5))
		con_printf("hello: unknown fault=%s ignored\n", fault);
}

/* fwcfg=1: what QEMU's fw_cfg says (kvm-unit-tests reads the same items). */
static void read_fw_cfg(void)
{
	static const uint16_t keys[] = { 0x0000, 0x0005, 0x0003 };	/* signature, CPUs, RAM */
	uint64_t v[3] = { 0 };

	for (uint32_t k = 0; k < 3; k++) {
		outw(0x510, keys[k]);
		for (uint32_t i = 0; i < (k == 2 ? 8u : k == 1 ? 2u : 4u); i++)
			v[k] |= (uint64_t)inb(0x511) << (8 * i);
	}
	con_printf("hello: fw_cfg signature=0x%llx cpus=%llu ram=%llu\n", v[0], v[1], v[2]);
}

/* debugexit=N: QEMU's isa-debug-exit write; with debug_exit = on it ends us. */
static void debug_exit(const char *value)
{
	uint64_t n = 0;

	parse_number(value, &n);
	con_printf("hello: writing %llu to the debug-exit port\n", n);
	outl(0xf4, (uint32_t)n);
	con_printf("hello: debug-exit write ignored\n");
}

void guest_main(uint32_t magic, uint32_t info)
{
	static const char *const flavour[] = { "unknown", "multiboot1", "multiboot2" };
	struct acpi_cpus cpus;
	char value[VALUE_MAX];

	tempo_detect(&tempo);
	/* Under Tempo the UART is the hypervisor's: write bytes, do not reprogram. */
	con_init(!tempo.present);
	exc_init();
	bootinfo_parse(magic, info, &boot);
	exit_emu = cmdline_value(boot.cmdline, "exit", value, sizeof(value)) &&
		   !memcmp(value, "emu", 4);

	con_printf("hello: start (%s) cmdline=\"%s\"\n", flavour[boot.mb_version], boot.cmdline);
	if (boot.mb_version == 0)
		con_printf("hello: boot magic 0x%x is neither multiboot1 nor multiboot2\n", magic);
	if (boot.error)
		con_printf("hello: boot info: %s\n", boot.error);
	if (boot.cmdline_cut)
		con_printf("hello: command line cut to %d bytes\n", BOOTINFO_CMDLINE_MAX - 1);

	report_tempo();
	if (tempo.present)
		ram_mark();

	if (cmdline_value(boot.cmdline, "slowline", value, sizeof(value)))
		slow_line(value);
	if (cmdline_value(boot.cmdline, "wait_ms", value, sizeof(value)))
		wait_ms(value);
	if (tempo.present && cmdline_value(boot.cmdline, "burst", value, sizeof(value)))
		burst(value);

	if (find_cpus(&cpus))
		start_aps(&cpus);

	if (cmdline_value(boot.cmdline, "himem", value, sizeof(value)))
		himem_test();
	self_test();
	if (cmdline_value(boot.cmdline, "fwcfg", value, sizeof(value)))
		read_fw_cfg();
	if (tempo.present && cmdline_value(boot.cmdline, "debugexit", value, sizeof(value)))
		debug_exit(value);
	if (tempo.present && cmdline_value(boot.cmdline, "console", value, sizeof(value)) &&
	    !memcmp(value, "echo", 5))
		echo_console();

	con_printf("hello: done\n");
	if (tempo.present) {
		tempo_hypercall(TEMPO_HC_SHUTDOWN, 0, 0, 0);
		con_printf("hello: error: shutdown hypercall returned\n");
		halt_forever();
	}
	if (exit_emu)
		emulator_exit(true, "hello done");
	halt_forever();
}
