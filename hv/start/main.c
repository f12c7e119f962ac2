// SPDX-License-Identifier: MIT
/*
 * The boot CPU's path from the loader to the platform report: console,
 * exception handling, boot information, ACPI, CPU features, TSC frequency
 * and the VMX capabilities. Any error stops the run with its cause.
 */
#include "arch/x86/boot_layout.h"
#include "arch/x86/highmap.h"
#include "arch/x86/cpu.h"
#include "arch/x86/cpu_report.h"
#include "arch/x86/trap.h"
#include "arch/x86/tsc.h"
#include "drivers/acpi.h"
#include "drivers/debugcon.h"
#include "drivers/ioapic.h"
#include "drivers/pci_cfg.h"
#include "drivers/reset.h"
#include "hv/lib/uart16550.h"
#include "arch/x86/smp.h"
#include "arch/x86/spec_ctl.h"
#include "arch/x86/vmx.h"
#include "arch/x86/vmx_check.h"
#include "hv/core/cmdline.h"
#include "hv/core/config.h"
#include "hv/core/spec.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"
#include "arch/x86/cpu_quirks.h"
#include "hv/lib/log.h"
#include "hv/core/mb2.h"
#include "hv/dev/channel.h"
#include "hv/core/memplan.h"
#include "hv/state/pages.h"
#include "hv/state/partition.h"
#include "hv/build/build.h"
#include "hv/ops/report.h"
#include "hv/state/platform.h"
#include "hv/time/time.h"
#include "hv/apic/apic.h"
#include "hv/run/run.h"
#include "hv/start/start.h"
#include "hv/upcalls.h"
#include "hv/core/version.h"
#include "hv/start/iommu_test.h"
#include "hv/dev/dma.h"

#define CONFIG_MODULE_NAME	"partitions"
#define LOW_MEM_END		0x9f000ul	/* the AP trampoline's page is below */

extern char __image_start[], __image_end[];

static struct boot_info boot_info;
static struct acpi_info acpi_info;
static struct hv_config hv_config;
static struct memplan memplan;


static const char *mem_type_name(uint32_t type)
{
	switch (type) {
	case BOOT_MEM_USABLE:
		return "usable";
	case BOOT_MEM_RESERVED:
		return "reserved";
	case BOOT_MEM_ACPI_RECLAIM:
		return "ACPI reclaimable";
	case BOOT_MEM_ACPI_NVS:
		return "ACPI NVS";
	case BOOT_MEM_BAD:
		return "bad";
	}
	return "unknown";
}

static void apply_cmdline(const char *cmdline)
{
	unsigned long level, reboot_s;
	char val[16];

	if (cmdline_get_uint(cmdline, "loglevel", &level))
		log_set_level((int)level);
	if (cmdline_get(cmdline, "exit", val, sizeof(val)) && !strcmp(val, "emu"))
		stop_set_emulator_exit(1);
	if (cmdline_get(cmdline, "debugcon", val, sizeof(val)) && !strcmp(val, "off"))
		debugcon_enable(0);
	if (cmdline_reboot_delay(cmdline, &reboot_s) == CMDLINE_REBOOT_MALFORMED)
		log_warn("reboot= takes seconds from 0 (halt) to %u; rebooting %u s after a "
			 "stop\n", CMDLINE_REBOOT_MAX_S, CMDLINE_REBOOT_DEFAULT_S);
	stop_set_reboot((uint32_t)reboot_s);
}

static void run_self_test(const char *cmdline)
{
	char val[16];

	if (!cmdline_get(cmdline, "test", val, sizeof(val)))
		return;
	if (!strcmp(val, "fault")) {
		/* A read far outside the identity map: must end in a #PF dump. */
		log_info("test=fault: reading unmapped address 0x%lx\n", 0x100000000000ul);
		(void)*(volatile uint64_t *)0x100000000000ul;
	} else if (!strcmp(val, "exit_fault")) {
		log_info("test=exit_fault: a guest's CPUID 0x%x faults in its exit handler\n",
			 HV_TEST_FAULT_LEAF);
		hv_test_exit_fault = true;
	} else if (!strncmp(val, "iommu", 5)) {
		/* later, once ACPI, PCI and the TSC are known: iommu_self_test */
	} else if (!strcmp(val, "vmcs_break") || !strcmp(val, "vmcs_break_regs")) {
		log_info("test=%s: the VMCS checker must refuse the 100th resume%s\n", val,
			 vmx_check_test_break(!strcmp(val, "vmcs_break_regs")) ? "" :
			 " (not a VMCS_CHECK build: nothing done)");
	} else if (!strcmp(val, "ud")) {
		log_info("test=ud: executing ud2\n");
		asm volatile("ud2");
	} else {
		log_warn("unknown test=%s ignored\n", val);
	}
}

static void print_boot_info(const struct boot_info *bi)
{
	uint64_t usable = 0;

	log_info("Boot: loader \"%s\", command line \"%s\"\n", bi->loader_name, bi->cmdline);
	log_info("Memory map (%u entries%s):\n", bi->mmap_count,
		 bi->mmap_truncated ? ", truncated" : "");
	for (uint32_t i = 0; i < bi->mmap_count; i++) {
		const struct boot_mmap_entry *e = &bi->mmap[i];

		log_info("  [%016lx-%016lx] %s (type %u)\n", e->base, e->base + e->length - 1,
			 mem_type_name(e->type), e->type);
		if (e->type == BOOT_MEM_USABLE)
			usable += e->length;
	}
	log_info("Memory: %lu KiB usable\n", usable >> 10);
	log_info("Modules: %u%s\n", bi->module_count, bi->modules_truncated ? " (truncated)" : "");
	for (uint32_t i = 0; i < bi->module_count; i++)
		log_info("  module %u: [%lx-%lx) %lu bytes \"%s\"\n", i, bi->modules[i].start,
			 bi->modules[i].end, bi->modules[i].end - bi->modules[i].start,
			 bi->modules[i].cmdline);
	if (bi->has_efi64_system_table)
		log_info("EFI: 64-bit system table at 0x%lx\n", bi->efi64_system_table);
	if (bi->has_efi32_system_table)
		log_info("EFI: 32-bit system table at 0x%x\n", bi->efi32_system_table);
}

/* Physical memory as the ACPI parser sees it: the boot identity map. */
static const void *identity_map(void *ctx, uint64_t phys, size_t len)
{
	(void)ctx;
	if (!phys || phys >= IDENTITY_MAP_LIMIT || len > IDENTITY_MAP_LIMIT - phys)
		return NULL;
	return (const void *)(uintptr_t)phys;
}

static void discover_acpi(const struct boot_info *bi, struct acpi_info *ai)
{
	struct acpi_mem mem = { .map = identity_map };
	char err[160], warn[160];

	if (!bi->has_rsdp) {
		log_err("ACPI: the loader passed no RSDP (multiboot2 tags 14/15); "
			"Tempo needs the MADT to find the CPUs\n");
		hv_stop(STOP_FAILURE, "no ACPI RSDP");
	}
	warn[0] = 0;
	if (acpi_parse(bi->rsdp, bi->rsdp_len, &mem, ai, err, sizeof(err), warn,
		       sizeof(warn))) {
		log_err("%s\n", err);
		hv_stop(STOP_FAILURE, "bad ACPI tables");
	}
	if (warn[0])
		log_warn("%s\n", warn);
	log_info("ACPI: RSDP found, revision %u, OEM \"%s\", %s at 0x%lx, %u tables:",
		 ai->rsdp_revision, ai->oem_id, ai->use_xsdt ? "XSDT" : "RSDT", ai->root_phys,
		 ai->table_count);
	for (uint32_t i = 0; i < ai->table_count; i++)
		log_info(" %s", ai->table_sigs[i]);
	log_info("\n");
	if (!ai->has_madt) {
		log_err("ACPI: no usable MADT; cannot enumerate CPUs\n");
		hv_stop(STOP_FAILURE, "no MADT");
	}
	log_info("ACPI: MADT: local APIC at 0x%lx, %u CPUs%s, %u I/O APICs\n", ai->lapic_phys,
		 ai->cpu_count, ai->cpus_truncated ? " (truncated)" : "", ai->ioapic_count);
	for (uint32_t i = 0; i < ai->cpu_count; i++)
		log_info("  cpu %u: apic_id %u acpi_uid %u %s%s\n", i, ai->cpus[i].apic_id,
			 ai->cpus[i].acpi_uid,
			 ai->cpus[i].enabled ? "enabled"
					     : ai->cpus[i].online_capable ? "online-capable"
									  : "disabled",
			 ai->cpus[i].from_x2apic_entry ? " (x2APIC entry)" : "");
	for (uint32_t i = 0; i < ai->irq_override_count && i < GUEST_IRQ_OVERRIDES_MAX; i++)
		platform.isa_overrides[platform.isa_override_count++] = (struct guest_irq_override){
			ai->irq_overrides[i].source, ai->irq_overrides[i].gsi, ai->irq_overrides[i].flags
		};
	if (ai->has_hpet)
		log_info("ACPI: HPET at 0x%lx\n", ai->hpet_phys);
	else
		log_info("ACPI: no HPET table\n");
	if (ai->has_reset_reg)
		log_info("ACPI: FADT reset register: space %u address 0x%lx value 0x%x\n",
			 ai->reset_reg.space, ai->reset_reg.address, ai->reset_reg.value);
	reset_set_fadt_register(ai->has_reset_reg ? &ai->reset_reg : NULL);
}

/* tsc_calibrate=pit skips the HPET (to test the PIT path, or avoid a bad HPET). */
static void discover_tsc(const struct acpi_info *ai, const char *cmdline, struct tsc_report *t)
{
	char how[8] = "";

	cmdline_get(cmdline, "tsc_calibrate", how, sizeof(how));
	memset(t, 0, sizeof(*t));
	t->cpuid_hz = tsc_cpuid_hz();
	if (ai->has_hpet && strcmp(how, "pit")) {
		t->measured_hz = tsc_calibrate_hpet(ai->hpet_phys);
		t->measured_by = TSC_SRC_HPET;
	}
	if (!t->measured_hz) {
		t->measured_hz = tsc_calibrate_pit();
		t->measured_by = TSC_SRC_PIT;
	}
	tsc_pick(t);
	if (t->mismatch)
		log_warn("TSC: CPUID 0x15 says %lu Hz but %s measures %lu Hz (%lu ppm apart); "
			 "using the measured figure\n",
			 t->cpuid_hz, tsc_source_name(t->measured_by), t->measured_hz,
			 t->mismatch_ppm);
	if (!t->hz) {
		log_err("TSC: no frequency: CPUID 0x15 is incomplete and neither HPET nor "
			"PIT could be used\n");
		hv_stop(STOP_FAILURE, "no TSC frequency");
	}
	log_info("TSC: %lu kHz (source %s; cpuid_hz=%lu measured_hz=%lu by %s)\n",
		 t->hz / 1000, tsc_source_name(t->source), t->cpuid_hz, t->measured_hz,
		 tsc_source_name(t->measured_by));
}

/* The config module: the one whose string's first word is "partitions". */
static const struct boot_module *find_config(const struct boot_info *bi)
{
	size_t n = strlen(CONFIG_MODULE_NAME);

	for (uint32_t i = 0; i < bi->module_count; i++) {
		const char *s = bi->modules[i].cmdline;

		if (!strncmp(s, CONFIG_MODULE_NAME, n) && (s[n] == 0 || s[n] == ' '))
			return &bi->modules[i];
	}
	return NULL;
}

static struct config_errors config_errors;

/* Every error, as tempo-config prints them, so one look at the console finds them all. */
static void print_config_errors(void)
{
	for (uint32_t i = 0; i < config_errors.count && i < CONFIG_MAX_ERRORS; i++)
		log_err("config: %s:%u: %s\n", CONFIG_MODULE_NAME, config_errors.list[i].line,
			config_errors.list[i].msg);
	if (config_errors.count > CONFIG_MAX_ERRORS)
		log_err("config: %u more errors not shown\n",
			config_errors.count - CONFIG_MAX_ERRORS);
}

static void parse_config(const struct boot_module *m)
{
	if (config_parse_all((const char *)(uintptr_t)m->start, m->end - m->start, &hv_config,
			     &config_errors)) {
		print_config_errors();
		hv_stop(STOP_FAILURE, "malformed partition config");
	}
	if (hv_config.all_ended == ALL_ENDED_HALT)
		stop_set_ok_halts("all_ended = halt");
	report_end_waits(hv_config.all_ended == ALL_ENDED_MONITOR);
}

static void validate_config(const struct boot_info *bi, bool hpet_calibrated)
{
	struct config_platform plat;
	static char names[BOOT_INFO_MAX_MODULES][CONFIG_NAME_LEN];

	memset(&plat, 0, sizeof(plat));
	plat.machine = boot_dev_machine(bi, &acpi_info, hpet_calibrated);
	plat.cpu_count = pcpu_count;
	plat.usable_bytes = memplan_free_bytes(&memplan);
	for (uint32_t i = 0; i < bi->module_count && i < ARRAY_SIZE(plat.module_names); i++) {
		const char *s = bi->modules[i].cmdline;
		size_t n = 0;

		while (s[n] && s[n] != ' ' && n + 1 < CONFIG_NAME_LEN)
			n++;
		memcpy(names[i], s, n);
		names[i][n] = 0;
		plat.module_names[plat.module_count++] = names[i];
	}
	if (config_validate_all(&hv_config, &plat, &config_errors)) {
		print_config_errors();
		hv_stop(STOP_FAILURE, "partition config does not fit this machine");
	}
}

/*
 * Threads of one core share its L1D, branch predictors and buffers: two
 * partitions on siblings can see each other through them whatever the
 * hypervisor flushes on entry (docs/containment.md). A warning, not a refusal.
 */
static void warn_smt_split(void)
{
	struct cpuid_regs r = cpuid(0xb, 0);
	uint32_t shift = spec_smt_shift(platform.cpuid_max_basic, r.eax, r.ecx);
	const struct cpuset *masks[CONFIG_MAX_PARTITIONS];

	for (uint32_t i = 0; i < hv_config.partition_count; i++)
		masks[i] = &hv_config.partitions[i].cpus;
	for (uint32_t a = 0; a < pcpu_count; a++)
		for (uint32_t b = a + 1; b < pcpu_count; b++)
			if (spec_smt_siblings(pcpus[a].apic_id, pcpus[b].apic_id, shift) &&
			    spec_cpus_split(masks, hv_config.partition_count, a, b))
				log_warn("config: CPUs %u and %u (x2APIC ids %u, %u) are SMT "
					 "siblings of one core and run different partitions: "
					 "they share its L1D and branch predictors\n", a, b,
					 pcpus[a].apic_id, pcpus[b].apic_id);
}

extern uint64_t boot_pml4[512];	/* boot/entry.S: every CPU's page tables */

/*
 * Table pages for the map above 4 GiB come from the pool, at most a quarter
 * of it (2 MiB: 512 GiB in 2 MiB pages, far more in 1 GiB pages), so a
 * memory map that claims absurd amounts cannot starve the VMCSs and EPTs.
 */
#define HIGHMAP_TABLE_BUDGET	(HV_POOL_BASE_BYTES / 4 / PAGE_SIZE)

static uint64_t *page_table_page(void *ctx)
{
	uint32_t *left = ctx;

	if (!*left)
		return NULL;
	(*left)--;
	return hv_pages_alloc(PAGE_SIZE, "page tables above 4 GiB");
}

/*
 * Usable RAM above 4 GiB: mapped one to one into the boot tables
 * that every CPU runs on (the APs start later, on the same PML4), in 1 GiB
 * pages where the CPU has them, each range trimmed to whole 2 MiB, then
 * handed to the planner, whose top-down carving puts partitions and channels
 * there first. Tempo's own pool and everything that must be low (the AP
 * trampoline, modules, the boot info) stay below 4 GiB. Nothing but usable
 * RAM is mapped; reserved ranges and holes above 4 GiB stay unmapped.
 */
static void map_high_ram(const struct boot_info *bi)
{
	uint32_t ext = cpuid(0x80000000, 0).eax, table_pages = HIGHMAP_TABLE_BUDGET;
	bool gib_pages = ext >= 0x80000001 && (cpuid(0x80000001, 0).edx & (1u << 26));	/* Page1GB */
	/* nothing past the CPU's physical address width: such "RAM" cannot be reached */
	uint64_t phys_end = ext >= 0x80000008 ? 1ull << (cpuid(0x80000008, 0).eax & 0xff) : 1ull << 36;
	uint64_t limit = MIN(phys_end, HIGHMAP_LIMIT), top = IDENTITY_MAP_LIMIT, mapped = 0;
	uint64_t cut = 0;	/* the first address left unmapped for want of table pages */

	for (uint32_t i = 0; i < bi->mmap_count && !cut; i++) {
		const struct boot_mmap_entry *e = &bi->mmap[i];
		uint64_t base = ALIGN_UP(MAX(e->base, IDENTITY_MAP_LIMIT), HIGHMAP_GRAIN), end;

		if (e->type != BOOT_MEM_USABLE || e->length > UINT64_MAX - e->base)
			continue;
		end = MIN(e->base + e->length, limit) & ~(HIGHMAP_GRAIN - 1);
		/* a GiB at a time: what is mapped is handed out, and no more */
		for (uint64_t a = base, next; a < end; a = next) {
			int64_t n;

			next = MIN(end, (a | ((1ull << 30) - 1)) + 1);
			n = highmap_map(boot_pml4, a, next, gib_pages, page_table_page, &table_pages);
			if (n < 0) {
				cut = a;
				break;
			}
			if (!mapped)
				memplan_raise_limit(&memplan, limit);
			mapped += (uint64_t)n;
			memplan_add(&memplan, a, next - a);
			top = MAX(top, next);
		}
	}
	if (!mapped)
		return;
	write_cr3(read_cr3());	/* new entries only; the reload is for certainty */
	log_info("Memory: %lu MiB above 4 GiB mapped (%s pages), up to 0x%lx\n", mapped >> 20,
		 gib_pages ? "1 GiB" : "2 MiB", top);
	if (cut)
		log_warn("memory: RAM from 0x%lx up is not used: its page tables would take more "
			 "than %lu KiB of the hypervisor's pool\n", cut, HIGHMAP_TABLE_BUDGET * 4);
}

/* The hypervisor's pool for the CPUs the MADT lists and the vCPUs and RAM the config asks for. */
static uint64_t pool_bytes(void)
{
	uint64_t cpus = 0, vcpus = 0, ram = 0, usable = 0;

	for (uint32_t i = 0; i < acpi_info.cpu_count; i++)
		cpus += acpi_info.cpus[i].enabled;
	cpus = MIN(MAX(cpus, 1), (uint64_t)TEMPO_MAX_CPUS);
	for (uint32_t i = 0; i < hv_config.partition_count; i++) {
		vcpus += cpuset_count(&hv_config.partitions[i].cpus);
		ram += hv_config.partitions[i].memory_bytes;
	}
	/* a config asking for more RAM than there is fails its check, not here */
	for (uint32_t i = 0; i < boot_info.mmap_count; i++)
		if (boot_info.mmap[i].type == BOOT_MEM_USABLE)
			usable += boot_info.mmap[i].length;
	return hv_pool_bytes(cpus, vcpus, MIN(ram, usable));
}

/* Usable RAM minus the low 1 MiB, this image, the loader's info and modules. */
static void plan_memory(const struct boot_info *bi)
{
	memplan_init(&memplan, IDENTITY_MAP_LIMIT);
	for (uint32_t i = 0; i < bi->mmap_count; i++)
		if (bi->mmap[i].type == BOOT_MEM_USABLE)
			memplan_add(&memplan, bi->mmap[i].base, bi->mmap[i].length);
	memplan_reserve(&memplan, 0, 0x1000);	/* page 0 */
	memplan_reserve(&memplan, (uint64_t)__image_start,
			(uint64_t)(__image_end - __image_start));
	memplan_reserve(&memplan, bi->info_phys, bi->info_size);
	for (uint32_t i = 0; i < bi->module_count; i++)
		memplan_reserve(&memplan, bi->modules[i].start,
				bi->modules[i].end - bi->modules[i].start);
	if (pages_init(&memplan, pool_bytes())) {
		log_err("memory: no %lu KiB of free RAM below 4 GiB for the hypervisor\n",
			pool_bytes() >> 10);
		hv_stop(STOP_FAILURE, "out of memory");
	}
	map_high_ram(bi);
}

static const char *const spec_entry_names[] = {
	[SPEC_ENTRY_NONE] = "nothing",
	[SPEC_ENTRY_L1D_FLUSH] = "L1D flush",
	[SPEC_ENTRY_VERW] = "VERW",
};

/* Boot CPU, before any guest: the mitigations this CPU needs, and VM entry told. */
static void spec_boot(uint32_t max_basic_leaf)
{
	struct spec_cpu sc = spec_read_cpu(max_basic_leaf);

	spec_plan = spec_plan_make(sc.edx7, sc.ebx7, sc.arch_caps);
	spec_set_entry_mode(spec_plan.entry);
	log_info("Speculation: CPUID 7 EDX 0x%x, ARCH_CAPABILITIES 0x%lx: IBPB between "
		 "partitions %s, on VM entry %s\n", sc.edx7, sc.arch_caps,
		 spec_plan.pred_cmd ? "yes" : "no", spec_entry_names[spec_plan.entry]);
}

/* A free page below 1 MiB for the APs' real-mode start, or 0. */
static uint64_t take_trampoline_page(struct memplan *mp)
{
	for (uint64_t pa = 0x1000; pa < LOW_MEM_END; pa += PAGE_SIZE)
		if (memplan_take(mp, pa, PAGE_SIZE))
			return pa;
	return 0;
}

/* Number the CPUs, bring them up with VMX on; returns how many are online. */
static uint32_t boot_cpus(uint64_t tsc_hz)
{
	uint32_t count = smp_enumerate(&acpi_info), online, listed = 0;
	uint64_t tramp;

	for (uint32_t i = 0; i < acpi_info.cpu_count; i++)
		listed += acpi_info.cpus[i].enabled;
	/* never silently: a server with more cores than Tempo's static limit */
	if (listed > count || acpi_info.cpus_truncated)
		log_warn("SMP: the MADT lists %u%s enabled CPUs; Tempo uses the first %u (its limit "
			 "is %u), the others stay halted\n", listed,
			 acpi_info.cpus_truncated ? "+" : "", count, (uint32_t)SMP_MAX_CPUS);

	pcpus_init(count);
	tramp = take_trampoline_page(&memplan);
	online = smp_boot(tramp, tsc_hz);
	if (online && count > 1 && !tramp)
		log_err("SMP: no free page below 0x%lx for the AP trampoline; running on the "
			"boot CPU only\n", LOW_MEM_END);
	pcpu_count = smp_cpu_count;
	return online;
}

static __attribute__((noreturn)) void enter_pcpu_loop(uint64_t stack_top)
{
	asm volatile("mov %0, %%rsp\n\t"
		     "xor %%ebp, %%ebp\n\t"
		     "call hv_pcpu_loop" : : "r"(stack_top) : "memory");
	__builtin_unreachable();
}

static void print_banner(void)
{
	log_info("\nTempo hypervisor %s: real-time partitions with direct TSC-deadline\n",
		 TEMPO_VERSION);
}

static bool any_pci_assigned(void)
{
	for (uint32_t i = 0; i < hv_config.partition_count; i++)
		if (hv_config.partitions[i].dev.pci_count)
			return true;
	return false;
}

/* Everything after the boot path: boot_info is filled and checked. */
static __attribute__((noreturn)) void boot_continue(void)
{
	struct cpu_features cpu;
	struct vmx_caps vmx;
	struct tsc_report tsc;
	char err[160], missing[96];
	const struct boot_module *config_module;

	apply_cmdline(boot_info.cmdline);
	print_boot_info(&boot_info);
	run_self_test(boot_info.cmdline);

	discover_acpi(&boot_info, &acpi_info);
	pci_boot_scan(&acpi_info);
	ioapic_boot(&acpi_info);
	cpu_features_read(&cpu);
	cpu_features_print(&cpu);
	discover_tsc(&acpi_info, boot_info.cmdline, &tsc);
	reset_set_tsc_hz(tsc.hz);
	if (cmdline_get(boot_info.cmdline, "test", err, sizeof(err)) && !strncmp(err, "iommu", 5))
		iommu_self_test(err, &acpi_info, &boot_info, tsc.hz);

	if (cpu.vmx) {
		vmx_caps_read(&vmx);
		vmx_caps_print(&vmx);
	}
	if (cpu_features_missing(&cpu, missing, sizeof(missing))) {
		log_emerg("FATAL: %sthis CPU lacks %s; Tempo needs Intel VT-x with x2APIC and "
			  "TSC-deadline (under QEMU use -accel kvm -cpu host,+vmx)\n",
			  cpu.vmx && !cpu.vmx_locked_off ? "" : "no VMX here: ", missing);
		hv_stop(STOP_NO_VMX, "missing CPU features");
	}
	if (cpu_preemption_timer_broken(cpuid(1, 0).eax)) {
		log_emerg("FATAL: this CPU (signature 0x%x) has a VMX-preemption timer erratum: "
			  "it does not count at the advertised rate, and Tempo's host ticks and "
			  "emulated deadlines ride on it\n", cpuid(1, 0).eax);
		hv_stop(STOP_NO_VMX, "broken VMX-preemption timer");
	}
	if (!vmx_controls_init(&vmx, err, sizeof(err))) {
		log_emerg("FATAL: %s\n", err);
		hv_stop(STOP_NO_VMX, "a required VMX control is missing");
	}
	/* apicv=off: today's path on a CPU that has it (to compare, or to avoid it) */
	if (cmdline_get(boot_info.cmdline, "apicv", err, sizeof(err)) && !strcmp(err, "off") &&
	    vmx_ctl.has_apicv) {
		vmx_ctl.has_apicv = false;
		log_info("VMX: APIC virtualization turned off by apicv=off\n");
	}
	/*
	 * posted=on: posted interrupts where the CPU has them (opt-in: Bochs
	 * 2.7 has none, so the CPU's half is untested on hardware;
	 * docs/timer-modes.md). posted=soft, for tests on a CPU without them: hv's
	 * half alone (descriptors, notifications, taking the PIR before
	 * entry), each notification an external-interrupt exit.
	 */
	if (cmdline_get(boot_info.cmdline, "posted", err, sizeof(err))) {
		posted_soft = !strcmp(err, "soft");
		if (posted_soft || !strcmp(err, "on"))
			posted_enabled = vmx_ctl.has_apicv && (posted_soft || vmx_ctl.has_posted);
		if (posted_soft && posted_enabled)
			log_info("VMX: posted interrupts soft (posted=soft): hv's half only, "
				 "each notification exits\n");
		else if (posted_enabled)
			log_info("VMX: posted interrupts on (posted=on): fixed IPIs and doorbells "
				 "for inject, emulated and pv-lazy vCPUs on cores of their own take "
				 "no exit; untested on hardware\n");
		else
			log_info("VMX: posted interrupts off (posted=%s): %s\n", err,
				 posted_soft || !strcmp(err, "on") ?
				 "this CPU has no posted interrupts or no APIC virtualization" :
				 "posted= takes on or soft");
	}
	log_info("VMX: APIC virtualization %s\n", vmx_ctl.has_apicv ?
		 "on: inject, emulated and pv-lazy vCPUs get their interrupts by virtual-interrupt "
		 "delivery, and an x2APIC guest's EOI takes no exit" :
		 "off (no virtual-interrupt delivery or x2APIC virtualization): each virtual EOI "
		 "exits");
	platform.tsc_hz = tsc.hz;
	platform.cpuid_max_basic = cpu.max_basic_leaf;
	platform.has_nx = cpuid(0x80000001, 0).edx & (1u << 20);
	platform.maxphyaddr = cpuid(0x80000000, 0).eax >= 0x80000008 ?
				      (uint8_t)cpuid(0x80000008, 0).eax : 36;
	spec_boot(cpu.max_basic_leaf);
	log_info("Platform report complete: %u CPUs, TSC %lu kHz, VMX ready\n",
		 acpi_info.cpu_count, tsc.hz / 1000);

	config_module = find_config(&boot_info);
	if (!config_module) {
		log_info("No partition config (a module2 whose string is \"%s\"): nothing to "
			 "run\n", CONFIG_MODULE_NAME);
		hv_stop(STOP_OK, "platform report done");
	}
	parse_config(config_module);

	plan_memory(&boot_info);
	platform.cpu_count = boot_cpus(tsc.hz);
	if (!platform.cpu_count)
		hv_stop(STOP_FAILURE, "VMX could not be enabled on the boot CPU");
	platform.tsc_deadline_clears = tsc_deadline_clears_on_fire();
	log_info("TSC deadline: the MSR %s when the timer fires\n",
		 platform.tsc_deadline_clears ? "reads 0" : "keeps its value");
	memplan_reserve(&memplan, 0, 0x100000);	/* the low 1 MiB stays out of partitions */
	log_info("SMP: %u of %u CPUs online with VMX; %lu MiB free for partitions\n",
		 platform.cpu_count, pcpu_count, memplan_free_bytes(&memplan) >> 20);
	validate_config(&boot_info, tsc.measured_by == TSC_SRC_HPET);
	warn_smt_split();
	dma_boot(&acpi_info, any_pci_assigned(), boot_info.cmdline);
	if (partitions_build(&hv_config, &boot_info, &memplan, err, sizeof(err)) ||
	    channels_build(&hv_config, &memplan, err, sizeof(err))) {
		log_err("partitions: %s\n", err);
		hv_stop(STOP_FAILURE, "partition setup failed");
	}
	host_tick_tsc = (uint64_t)hv_config.tick_us * (tsc.hz / 1000) / 1000;
	host_watchdog_tsc = (uint64_t)hv_config.watchdog_ms * (tsc.hz / 1000);
	host_tick_slack_tsc = host_tick_tsc ?
		(uint64_t)hv_config.tick_slack_us * (tsc.hz / 1000) / 1000 : 0;
	host_tick_margin_tsc = (uint64_t)HOST_TICK_MARGIN_NS * (tsc.hz / 1000) / 1000000;
	log_info("Host tick: %u us = %lu TSC ticks on the VMX-preemption timer (rate %u)%s\n",
		 hv_config.tick_us, host_tick_tsc, vmx.preemption_timer_rate,
		 host_tick_tsc ? "" : " (tickless)");
	if (host_tick_slack_tsc)
		log_info("Host tick slack: %u us = %lu TSC ticks (a direct guest's ticks placed "
			 "out of its deadlines' way)\n", hv_config.tick_slack_us, host_tick_slack_tsc);
	__atomic_store_n(&partitions_go, true, __ATOMIC_RELEASE);
	enter_pcpu_loop(smp_cpus[0].stack_top);
}

void kmain(uint32_t magic, uint64_t info_phys);
void kmain(uint32_t magic, uint64_t info_phys)
{
	char err[160];
	uint64_t avail;

	uart_init(UART_COM1_PORT);
	trap_init();
	print_banner();

	if (magic != MB2_BOOTLOADER_MAGIC) {
		log_err("boot: EAX is 0x%x, not the multiboot2 magic 0x%x; "
			"boot Tempo with GRUB's multiboot2 command\n", magic, MB2_BOOTLOADER_MAGIC);
		hv_stop(STOP_FAILURE, "not booted by multiboot2");
	}
	avail = info_phys < IDENTITY_MAP_LIMIT ? IDENTITY_MAP_LIMIT - info_phys : 0;
	if (avail > MB2_INFO_MAX_SIZE)
		avail = MB2_INFO_MAX_SIZE;
	if (mb2_parse((const void *)(uintptr_t)info_phys, avail, info_phys, &boot_info, err,
		      sizeof(err))) {
		log_err("boot: malformed multiboot2 information at 0x%lx: %s\n", info_phys, err);
		hv_stop(STOP_FAILURE, "malformed multiboot2 information");
	}
	boot_continue();
}

/*
 * The EFI loader's block is the same structure, built from the same header,
 * but it is still outside input: the strings are terminated, the counts and
 * lengths clamped and the modules checked before anything reads them.
 */
static int efi_info_check(struct boot_info *bi, char *err, size_t errlen)
{
	bi->cmdline[sizeof(bi->cmdline) - 1] = 0;
	bi->loader_name[sizeof(bi->loader_name) - 1] = 0;
	if (bi->mmap_count > BOOT_INFO_MAX_MMAP) {
		fmt_snprintf(err, errlen, "%u memory map entries, at most %u", bi->mmap_count,
			     BOOT_INFO_MAX_MMAP);
		return -1;
	}
	if (bi->module_count > BOOT_INFO_MAX_MODULES) {
		fmt_snprintf(err, errlen, "%u modules, at most %u", bi->module_count,
			     BOOT_INFO_MAX_MODULES);
		return -1;
	}
	for (uint32_t i = 0; i < bi->module_count; i++) {
		struct boot_module *m = &bi->modules[i];

		m->cmdline[sizeof(m->cmdline) - 1] = 0;
		if (m->end < m->start || m->end > IDENTITY_MAP_LIMIT) {
			fmt_snprintf(err, errlen, "module %u: [0x%lx-0x%lx) not below 4 GiB", i,
				     m->start, m->end);
			return -1;
		}
	}
	if (bi->has_rsdp && bi->rsdp_len > sizeof(bi->rsdp)) {
		fmt_snprintf(err, errlen, "RSDP length %u, at most %zu", bi->rsdp_len,
			     sizeof(bi->rsdp));
		return -1;
	}
	return 0;
}

void kmain_efi(uint32_t magic, uint64_t info_phys, uint64_t info_size);
void kmain_efi(uint32_t magic, uint64_t info_phys, uint64_t info_size)
{
	char err[160];

	uart_init(UART_COM1_PORT);
	trap_init();
	print_banner();

	if (magic != EFI_BOOT_MAGIC) {
		log_err("boot: the 64-bit entry got magic 0x%x, not the Tempo EFI loader's 0x%x\n",
			magic, EFI_BOOT_MAGIC);
		hv_stop(STOP_FAILURE, "not booted by the Tempo EFI loader");
	}
	/* A loader built from another version of boot_info.h passes another size. */
	if (info_size != sizeof(boot_info) || !info_phys || info_phys >= IDENTITY_MAP_LIMIT ||
	    info_size > IDENTITY_MAP_LIMIT - info_phys) {
		log_err("boot: EFI loader's boot info at 0x%lx is %lu bytes, expected %zu below "
			"4 GiB: loader and hypervisor do not match\n", info_phys, info_size,
			sizeof(boot_info));
		hv_stop(STOP_FAILURE, "bad EFI loader boot info");
	}
	memcpy(&boot_info, (const void *)(uintptr_t)info_phys, sizeof(boot_info));
	if (efi_info_check(&boot_info, err, sizeof(err))) {
		log_err("boot: EFI loader's boot info at 0x%lx: %s\n", info_phys, err);
		hv_stop(STOP_FAILURE, "bad EFI loader boot info");
	}
	/* Memory planning keeps the block (and so the copy's source) out of use. */
	boot_info.info_phys = info_phys;
	boot_info.info_size = info_size;
	boot_continue();
}
