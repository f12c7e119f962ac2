// SPDX-License-Identifier: MIT
/*
 * Partitions: carving their RAM, their EPT, loading their image the way GRUB
 * would, and their life on the cores: started, stopped with a report, shut
 * down on request. Each core runs one vCPU (dedicated cores); cores given to
 * no partition stay in root mode, and the first of them drains the consoles.
 */
#include "hv/partition.h"

#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "arch/x86/spec_ctl.h"
#include "arch/x86/trap.h"
#include "arch/x86/vmx.h"
#include "hv/core/boot_info.h"
#include "hv/core/bzimage.h"
#include "hv/core/elf.h"
#include "hv/lib/fmt.h"
#include "hv/core/guest_boot.h"
#include "hv/lib/lib.h"
#include "hv/lib/log.h"
#include "hv/core/msr_policy.h"
#include "hv/pages.h"
#include "hv/partition_build.h"
#include "hv/platform.h"
#include "hv/upcalls.h"
#include "hv/core/version.h"

#define MB1_BOOT_MAGIC	0x2badb002u
#define MB2_BOOT_MAGIC	0x36d76289u
#define GIB		(1ull << 30)
#define MIB2		(2ull << 20)

struct partition partitions[CONFIG_MAX_PARTITIONS];
uint32_t partition_count;
volatile bool partitions_go;
struct platform platform;
uint64_t host_tick_tsc;
uint64_t host_watchdog_tsc;
uint64_t host_tick_slack_tsc;
uint64_t host_tick_margin_tsc;

static struct vcpu vcpu_pool[MAX_CPUS];
static uint64_t rearm_cost_ticks;	/* see measure_rearm() */
static uint64_t msr_bitmaps[TIMER_MODE_COUNT];

uint64_t msr_bitmap_for(enum timer_mode mode)
{
	return msr_bitmaps[mode];
}

/*
 * direct: the guest's LVT as it wrote it (filtered). inject: the hypervisor's
 * vector in TSC-deadline mode, with the guest's mask, so a masked timer costs
 * no exit; masked too while the guest's LVT is in one-shot or periodic mode,
 * whose count-down timer off direct mode is the vLAPIC's (it never counts),
 * so that the deadline it may still write cannot fire (SDM 11.5.4.1: the
 * MSR is ignored outside TSC-deadline mode). The physical count-down timer
 * is never started off direct mode. emulated: masked; the deadline lives on
 * the preemption timer.
 */
void timer_program_lvt(struct vcpu *v)
{
	const struct timer_mode_desc *m = timer_mode(v->vt.mode);
	uint32_t lvt = v->vt.lvt;

	if (m->injects_fired) {
		if ((lvt & APIC_LVT_TIMER_MODE_MASK) != APIC_LVT_TIMER_TSC_DEADLINE)
			lvt |= APIC_LVT_MASKED;
		lvt = (lvt & APIC_LVT_MASKED) | APIC_LVT_TIMER_TSC_DEADLINE | HV_TIMER_VECTOR;
	} else if (!m->owns_lapic) {
		lvt = APIC_LVT_MASKED | HV_TIMER_VECTOR;
	}
	wrmsr(X2APIC_LVT_TIMER, lvt);
}
static uint32_t vcpu_pool_used;
static volatile int run_ending;

/* ---- building ---- */

static const struct boot_module *find_module(const struct boot_info *bi, const char *name)
{
	size_t n = strlen(name);

	for (uint32_t i = 0; i < bi->module_count; i++) {
		const char *s = bi->modules[i].cmdline;

		if (!strncmp(s, name, n) && (s[n] == 0 || s[n] == ' '))
			return &bi->modules[i];
	}
	return NULL;
}

/* EPT mapping guest-physical 0..size onto host-physical hpa with 2 MiB pages. */
static uint64_t build_ept(uint64_t hpa, uint64_t size)
{
	uint64_t *pml4 = pages_alloc(PAGE_SIZE, "EPT PML4");
	uint64_t *pdpt = pages_alloc(PAGE_SIZE, "EPT PDPT");
	uint64_t gib = (size + GIB - 1) / GIB;

	pml4[0] = (uint64_t)pdpt | EPT_RWX;
	for (uint64_t g = 0; g < gib; g++) {
		uint64_t *pd = pages_alloc(PAGE_SIZE, "EPT PD");

		pdpt[g] = (uint64_t)pd | EPT_RWX;
		for (uint64_t i = 0; i < 512; i++) {
			uint64_t gpa = g * GIB + i * MIB2;

			if (gpa >= size)
				break;
			pd[i] = (hpa + gpa) | EPT_RWX | EPT_MEMTYPE_WB | EPT_LARGE_PAGE;
		}
	}
	return (uint64_t)pml4 | EPTP_MEMTYPE_WB | EPTP_WALK_4;
}

static int load_image(struct partition *p, const struct boot_module *m, char *err,
		      size_t errlen)
{
	const uint8_t *img = (const uint8_t *)(uintptr_t)m->start;
	size_t len = m->end - m->start;
	struct mb_header_info mb;
	struct elf_plan plan;
	char why[120];

	if (mb_find_header(img, len, &mb, why, sizeof(why))) {
		fmt_snprintf(err, errlen, "image '%s': %s", p->cfg->image, why);
		return -1;
	}
	if (mb.has_entry_override) {
		fmt_snprintf(err, errlen, "image '%s': multiboot address/entry tags are not "
			     "supported; link it as a plain ELF", p->cfg->image);
		return -1;
	}
	if (elf_plan_load(img, len, GUEST_HIGH_START, p->mem_size, &plan, why, sizeof(why))) {
		fmt_snprintf(err, errlen, "image '%s': %s", p->cfg->image, why);
		return -1;
	}
	for (uint32_t i = 0; i < plan.segment_count; i++) {
		const struct elf_segment *s = &plan.segments[i];
		uint8_t *dst = gpa_to_hva(p, s->paddr, s->mem_size);

		memcpy(dst, img + s->file_offset, s->file_size);
		memset(dst + s->file_size, 0, s->mem_size - s->file_size);
	}
	p->entry = plan.entry;
	p->boot_magic = mb.version == MB_V2 ? MB2_BOOT_MAGIC : MB1_BOOT_MAGIC;
	p->image_end = plan.highest;
	p->mb_version = mb.version;
	return 0;
}

/* What every guest's boot tables describe: its RAM, CPUs and command line. */
static void guest_platform_of(const struct partition *p, struct guest_platform *gp)
{
	memset(gp, 0, sizeof(*gp));
	gp->mem_size = p->mem_size;
	gp->cmdline = p->cfg->cmdline;
	gp->loader_name = "Tempo " TEMPO_VERSION;
	gp->cpu_count = p->vcpu_count;
	for (uint32_t i = 0; i < p->vcpu_count; i++)
		gp->apic_ids[i] = p->vcpus[i]->apic_id;
}

/* The boot protocol's "HdrS" at 0x202 marks a Linux kernel (bzImage). */
static bool is_bzimage(const struct boot_module *m)
{
	const uint8_t *img = (const uint8_t *)(uintptr_t)m->start;

	return m->end - m->start >= 0x206 && rd32(img + 0x202) == 0x53726448u;
}

/*
 * A Linux partition: the protected-mode kernel where the plan puts it, the
 * first module as its initrd (there is no disk: an initrd is required), ACPI
 * tables with a hardware-reduced FADT (poweroff through GUEST_ACPI_PM_PORT),
 * the zero page, GDT and identity map (hv/core/bzimage.c); the boot vCPU enters
 * the 64-bit entry with RSI = the zero page.
 */
static int load_linux(struct partition *p, const struct boot_info *bi,
		      const struct boot_module *m, char *err, size_t errlen)
{
	const uint8_t *img = (const uint8_t *)(uintptr_t)m->start;
	size_t len = m->end - m->start;
	const struct boot_module *initrd;
	uint8_t *mem = (uint8_t *)(uintptr_t)p->mem_hpa;
	struct guest_platform gp;
	struct linux_plan plan;
	uint64_t rsdp;
	char why[160], cmdline[CONFIG_CMDLINE_LEN + 16];

	if (p->cfg->module_count == 0) {
		fmt_snprintf(err, errlen, "partition '%s' (line %u): image '%s' is a Linux kernel "
			     "and needs an initrd (modules = NAME): Tempo gives guests no disk",
			     p->cfg->name, p->cfg->line, p->cfg->image);
		return -1;
	}
	if (p->cfg->module_count > 1) {
		fmt_snprintf(err, errlen, "partition '%s' (line %u): a Linux partition takes one "
			     "module (its initrd), not %u", p->cfg->name, p->cfg->line,
			     p->cfg->module_count);
		return -1;
	}
	initrd = find_module(bi, p->cfg->modules[0]);
	if (linux_plan_load(img, len, p->mem_size, initrd->end - initrd->start, &plan, why,
			    sizeof(why))) {
		fmt_snprintf(err, errlen, "image '%s': not a bootable Linux kernel: %s",
			     p->cfg->image, why);
		return -1;
	}
	memcpy(gpa_to_hva(p, plan.kernel_gpa, plan.kernel_size), img + plan.kernel_offset,
	       plan.kernel_size);
	memcpy(gpa_to_hva(p, plan.initrd_gpa, plan.initrd_size),
	       (const void *)(uintptr_t)initrd->start, plan.initrd_size);

	guest_platform_of(p, &gp);
	gp.acpi_pm_port = GUEST_ACPI_PM_PORT;
	rsdp = guest_build_acpi(mem, p->mem_size, &gp);
	if (!rsdp) {
		fmt_snprintf(err, errlen, "no room for the guest ACPI tables");
		return -1;
	}
	/* the buffer holds any config line plus the word: never NULL here */
	if (linux_build_boot(mem, p->mem_size, img, len, &plan,
			     linux_partition_cmdline(p->cfg->cmdline, cmdline, sizeof(cmdline)),
			     rsdp, why, sizeof(why))) {
		fmt_snprintf(err, errlen, "image '%s': %s", p->cfg->image, why);
		return -1;
	}
	p->linux_boot = true;
	p->entry = plan.entry64;
	p->vcpus[0]->regs.rsi = LINUX_ZERO_PAGE_GPA;
	log_info("Partition '%s': Linux boot protocol %u.%02u, kernel %lu KiB at 0x%lx "
		 "(needs %lu MiB), initrd '%s' %lu KiB at 0x%lx\n", p->cfg->name,
		 plan.version >> 8, plan.version & 0xff, plan.kernel_size >> 10, plan.kernel_gpa,
		 plan.init_size >> 20, p->cfg->modules[0], plan.initrd_size >> 10,
		 plan.initrd_gpa);
	return 0;
}

static int load_modules_and_info(struct partition *p, const struct boot_info *bi, char *err,
				 size_t errlen)
{
	struct guest_platform gp;
	uint64_t next = ALIGN_UP(p->image_end, PAGE_SIZE), rsdp;
	uint8_t *mem = (uint8_t *)(uintptr_t)p->mem_hpa;

	guest_platform_of(p, &gp);
	for (uint32_t i = 0; i < p->cfg->module_count; i++) {
		const struct boot_module *m = find_module(bi, p->cfg->modules[i]);
		uint64_t len = m->end - m->start;

		if (!gpa_to_hva(p, next, len)) {
			fmt_snprintf(err, errlen, "module '%s' (%lu bytes) does not fit in the "
				     "partition's memory after the image", p->cfg->modules[i], len);
			return -1;
		}
		memcpy(gpa_to_hva(p, next, len), (const void *)(uintptr_t)m->start, len);
		gp.modules[i] = (struct guest_module){ next, next + len, p->cfg->modules[i] };
		gp.module_count++;
		next = ALIGN_UP(next + len, PAGE_SIZE);
	}
	rsdp = guest_build_acpi(mem, p->mem_size, &gp);
	if (!rsdp) {
		fmt_snprintf(err, errlen, "no room for the guest ACPI tables");
		return -1;
	}
	if (p->mb_version == MB_V2)
		p->info_gpa = guest_build_mb2_info(mem, p->mem_size, &gp, rsdp);
	else
		p->info_gpa = guest_build_mb1_info(mem, p->mem_size, &gp);
	if (!p->info_gpa) {
		fmt_snprintf(err, errlen, "the multiboot information does not fit in %lu bytes "
			     "(command line or module strings too long)", GUEST_INFO_MAX);
		return -1;
	}
	return 0;
}

struct xsave_plan xsave_plan;

static void xsave_plan_boot(void);

/*
 * A [schedule N] makes CPU N shared: its vCPUs become slots, each window
 * names one (or none), lengths go to TSC ticks. Each slot gets an XSAVE
 * area as large as every component a guest may enable (xsave_plan).
 */
static int build_schedules(const struct hv_config *cfg, char *err, size_t errlen)
{
	/* pages_alloc rounds up to whole pages; FXSAVE's 512 bytes fit one */
	uint64_t fpu_bytes = xsave_plan.area_bytes ? xsave_plan.area_bytes : PAGE_SIZE;

	for (uint32_t i = 0; i < cfg->schedule_count; i++) {
		const struct schedule_config *sc = &cfg->schedules[i];
		struct pcpu *c = &pcpus[sc->cpu];

		c->shared = true;
		for (uint32_t k = 0; k < vcpu_pool_used; k++)
			if (vcpu_pool[k].pcpu == c && c->slot_count < SCHED_MAX_WINDOWS) {
				vcpu_pool[k].fpu = pages_alloc(fpu_bytes, "FPU state");
				/*
				 * XRSTOR/FXRSTOR load MXCSR from the legacy area
				 * even for components in their init state (SDM
				 * 13.8.1): its reset value, not 0 (every SIMD
				 * exception unmasked).
				 */
				((uint32_t *)vcpu_pool[k].fpu)[6] = 0x1f80;
				c->slots[c->slot_count++] = &vcpu_pool[k];
			}
		c->window_count = sc->window_count;
		for (uint32_t w = 0; w < sc->window_count; w++) {
			const struct window_config *wc = &sc->windows[w];

			c->window_slot[w] = SCHED_IDLE;
			c->window_len_tsc[w] = (uint64_t)wc->length_us * (platform.tsc_hz / 1000) /
					       1000;
			for (uint32_t k = 0; wc->partition >= 0 && k < c->slot_count; k++)
				if (c->slots[k]->part == &partitions[wc->partition])
					c->window_slot[w] = (int32_t)k;
			if (!c->window_len_tsc[w]) {
				fmt_snprintf(err, errlen, "[schedule %u] (line %u): window %u is "
					     "shorter than one TSC tick", sc->cpu, sc->line, w);
				return -1;
			}
		}
		log_info("Schedule on CPU %u: %u windows, frame %u us\n", sc->cpu,
			 sc->window_count, sc->frame_us);
	}
	return 0;
}

int partitions_build(const struct hv_config *cfg, const struct boot_info *bi,
		     struct memplan *mp, char *err, size_t errlen)
{
	static uint16_t next_vpid = 1;

	xsave_plan_boot();
	for (int m = 0; m < TIMER_MODE_COUNT; m++) {
		uint8_t *bm = pages_alloc(PAGE_SIZE, "MSR bitmap");

		if (timer_modes[m].owns_lapic)
			msr_bitmap_build(bm);
		else
			msr_bitmap_build_virtual(bm, timer_modes[m].soft_deadline);
		msr_bitmaps[m] = (uint64_t)bm;
	}
	for (uint32_t i = 0; i < cfg->partition_count; i++) {
		const struct partition_config *pc = &cfg->partitions[i];
		struct partition *p = &partitions[i];
		const struct boot_module *image = find_module(bi, pc->image);
		char kind[16];

		memset(p, 0, sizeof(*p));
		p->cfg = pc;
		p->id = i;
		p->mem_size = pc->memory_bytes;
		vuart_init(&p->uart);
		if (pc->base) {
			if (!memplan_take(mp, pc->base, pc->memory_bytes)) {
				fmt_snprintf(err, errlen, "partition '%s' (line %u): base 0x%lx + "
					     "%lu MiB is not free usable RAM", pc->name, pc->line,
					     pc->base, pc->memory_bytes >> 20);
				return -1;
			}
			p->mem_hpa = pc->base;
		} else {
			p->mem_hpa = memplan_alloc(mp, pc->memory_bytes, MIB2);
			if (!p->mem_hpa) {
				fmt_snprintf(err, errlen, "partition '%s' (line %u): no %lu MiB of "
					     "free RAM below 4 GiB (%lu MiB left)", pc->name,
					     pc->line, pc->memory_bytes >> 20,
					     memplan_free_bytes(mp) >> 20);
				return -1;
			}
		}
		memset((void *)(uintptr_t)p->mem_hpa, 0, p->mem_size);
		p->eptp = build_ept(p->mem_hpa, p->mem_size);

		for (uint32_t cpu = 0; cpu < CONFIG_MAX_CPUS; cpu++) {
			struct vcpu *v;

			if (!(pc->cpu_mask & (1ull << cpu)))
				continue;
			if (cpu >= pcpu_count || pcpus[cpu].state != PCPU_ONLINE) {
				fmt_snprintf(err, errlen, "partition '%s' (line %u): CPU %u is not "
					     "online", pc->name, pc->line, cpu);
				return -1;
			}
			v = &vcpu_pool[vcpu_pool_used++];
			v->part = p;
			v->pcpu = &pcpus[cpu];
			v->index = p->vcpu_count;
			v->apic_id = pcpus[cpu].apic_id;
			v->vpid = next_vpid++;
			v->vmcs_pa = (uint64_t)pages_alloc(PAGE_SIZE, "VMCS");
			v->state = v->index == 0 ? VCPU_RUNNING : VCPU_WAIT_SIPI;
			vtimer_init(&v->vt, pc->timer);
			v->vt.lvt = APIC_LVT_MASKED;	/* the LVT's reset value */
			p->vcpus[p->vcpu_count++] = v;
		}
		if (is_bzimage(image)) {
			if (load_linux(p, bi, image, err, errlen))
				return -1;
		} else {
			if (load_image(p, image, err, errlen) ||
			    load_modules_and_info(p, bi, err, errlen))
				return -1;
			p->vcpus[0]->regs.rax = p->boot_magic;
			p->vcpus[0]->regs.rbx = p->info_gpa;
		}
		log_info("Partition '%s': %u vCPU%s (CPUs", pc->name, p->vcpu_count,
			 p->vcpu_count == 1 ? "" : "s");
		for (uint32_t k = 0; k < p->vcpu_count; k++)
			log_info(" %u", p->vcpus[k]->pcpu->index);
		fmt_snprintf(kind, sizeof(kind), p->linux_boot ? "Linux 64-bit" : "multiboot%u",
			     p->mb_version);
		log_info("), %lu MiB at 0x%lx, image '%s' %s entry 0x%lx, timer %s\n",
			 p->mem_size >> 20, p->mem_hpa, pc->image, kind, p->entry,
			 timer_mode_name(pc->timer));
		partition_count++;
	}
	if (build_schedules(cfg, err, errlen))
		return -1;
	/* hand each vCPU of a dedicated core to it, then let them all go */
	for (uint32_t i = 0; i < vcpu_pool_used; i++)
		if (!vcpu_pool[i].pcpu->shared)
			vcpu_pool[i].pcpu->vcpu = &vcpu_pool[i];
	for (uint32_t c = 0; c < pcpu_count; c++) {
		/* a shared core runs guests in its windows: it is no console core */
		if (pcpus[c].state == PCPU_ONLINE && !pcpus[c].vcpu && !pcpus[c].shared) {
			pcpus[c].console = true;
			return 0;
		}
	}
	/*
	 * Every core runs a guest: each drains the rings on its own exits when
	 * no other core is at it. That puts console work on guest cores.
	 */
	log_warn("every CPU runs a partition: consoles are drained on guest exits, which "
		 "adds to their latency; leave one CPU free for real-time use\n");
	for (uint32_t c = 0; c < pcpu_count; c++)
		pcpus[c].console = true;
	return 0;
}

/* ---- console ---- */

static volatile int drain_lock;	/* 0 free, else the holder's CPU index + 1 */

struct emit_ctx {
	const char *name;
};

static void emit_line(void *ctx, const char *line)
{
	log_printf(LOG_EMERG, "[%s] %s\n", ((struct emit_ctx *)ctx)->name, line);
}

static void print_snapshots(struct partition *p)
{
	for (uint32_t i = 0; i < p->vcpu_count; i++) {
		struct vcpu *v = p->vcpus[i];

		while (v->snap_tail != __atomic_load_n(&v->snap_head, __ATOMIC_ACQUIRE)) {
			const struct vcpu_snapshot *s = &v->snaps[v->snap_tail % VCPU_SNAPSHOTS];

			log_printf(LOG_EMERG, "VCPU_STATS partition=%s vcpu=%u mode=%s tsc=%lu "
				   "exits=%lu tick_exits=%lu timer_exits=%lu "
				   "deadline_write_exits=%lu extint_exits=%lu eoi_exits=%lu fast_exits=%lu "
				   "programmed=%lu fired=%lu injected=%lu dropped_masked=%lu "
				   "mode_switches=%lu host_ticks=%lu tick_late_max_ticks=%lu "
				   "tick_hits=%lu tick_defer_exits=%lu\n",
				   p->cfg->name, v->index, timer_mode_name(s->mode), s->tsc,
				   s->exits, s->tick_exits, s->timer_exits,
				   s->deadline_write_exits, s->extint_exits, s->eoi_exits, s->fast_exits,
				   s->timer.programmed, s->timer.fired, s->timer.injected,
				   s->timer.dropped_masked, s->timer.mode_switches, s->host_ticks,
				   s->tick_late_max, s->tick_hits, s->tick_defer_exits);
			__atomic_store_n(&v->snap_tail, v->snap_tail + 1, __ATOMIC_RELEASE);
		}
	}
}

/*
 * @flush: also the partial last lines of the partitions that have ended, and
 * wait for a drain in progress (a stop report must come after the
 * partition's last words). Without it, a busy drainer means there is nothing
 * to do here.
 */
void console_drain_all(bool flush)
{
	int free = 0, me = (int)this_pcpu()->index + 1;

	while (!__atomic_compare_exchange_n(&drain_lock, &free, me, false, __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED)) {
		free = 0;
		if (!flush)
			return;
		cpu_relax();
	}
	for (uint32_t i = 0; i < partition_count; i++) {
		struct emit_ctx ctx = { partitions[i].cfg->name };
		/*
		 * A partial line is printed only once its partition has ended: one
		 * partition's end must not cut a line another is still writing.
		 */
		bool ended = __atomic_load_n(&partitions[i].vcpus_done, __ATOMIC_ACQUIRE) ==
			     partitions[i].vcpu_count;

		vuart_drain(&partitions[i].uart, flush && ended, emit_line, &ctx);
		print_snapshots(&partitions[i]);
		if (__atomic_load_n(&partitions[i].end_report_pending, __ATOMIC_ACQUIRE)) {
			vuart_drain(&partitions[i].uart, true, emit_line, &ctx);
			log_printf(LOG_EMERG, "%s", partitions[i].end_report);
			partitions[i].end_report_pending = false;
		}
	}
	__atomic_store_n(&drain_lock, 0, __ATOMIC_RELEASE);
}

/* ---- ending ---- */

static bool all_partitions_done(void)
{
	for (uint32_t i = 0; i < partition_count; i++)
		if (partitions[i].vcpus_done != partitions[i].vcpu_count)
			return false;
	return true;
}

static void print_exit_stats(const struct partition *p)
{
	for (uint32_t i = 0; i < p->vcpu_count; i++) {
		const struct vcpu *v = p->vcpus[i];
		char line[480];
		int n = fmt_snprintf(line, sizeof(line), "EXITS partition=%s vcpu=%u total=%lu",
				     p->cfg->name, v->index, v->exits_total);

		for (uint32_t r = 0; r < EXIT_REASON_COUNT; r++)
			if (v->exits[r] && n < (int)sizeof(line))
				n += fmt_snprintf(line + n, sizeof(line) - n, " %s=%lu",
						  vmx_exit_reason_name(r), v->exits[r]);
		log_printf(LOG_EMERG, "%s\n", line);
	}
}

static void print_host_ticks(void)
{
	for (uint32_t i = 0; i < pcpu_count; i++) {
		const struct host_timer *h = &pcpus[i].ht;
		uint8_t last;
		uint64_t strays = trap_root_strays(i, &last);

		if (strays)
			log_printf(LOG_EMERG, "ROOT_STRAY cpu=%u vectors=%lu last_vector=0x%x\n", i,
				   strays, last);

		if (!h->ticks && !h->ticks_missed && !h->watchdog_fired)
			continue;
		log_printf(LOG_EMERG, "HOSTTICK cpu=%u ticks=%lu missed=%lu late_max_ticks=%lu "
			   "late_avg_ticks=%lu period_ticks=%lu watchdog_fired=%lu "
			   "slack_ticks=%lu offset_max_ticks=%lu\n", i, h->ticks,
			   h->ticks_missed, h->late_max, h->ticks ? h->late_sum / h->ticks : 0,
			   h->period_tsc, h->watchdog_fired, h->slack_tsc, h->offset_max);
	}
}

static void print_schedules(void)
{
	for (uint32_t i = 0; i < pcpu_count; i++) {
		const struct pcpu *c = &pcpus[i];

		struct cyclic_sched snap;

		if (!c->shared || !c->sched_started)
			continue;
		/* the core runs on while the UART takes ms a line: print one moment */
		snap = c->sched;
		log_printf(LOG_EMERG, "SCHED cpu=%u windows=%u frame_ticks=%lu frames=%lu "
			   "switches=%lu\n", i, snap.count, snap.frame_tsc, snap.frames,
			   snap.switches);
		for (uint32_t w = 0; w < snap.count; w++) {
			const struct sched_window *sw = &snap.w[w];

			log_printf(LOG_EMERG, "WINDOW cpu=%u index=%u partition=%s length_ticks=%lu "
				   "starts=%lu start_late_max_ticks=%lu start_late_avg_ticks=%lu "
				   "skipped=%lu\n", i, w,
				   sw->slot >= 0 ? c->slots[sw->slot]->part->cfg->name : "idle",
				   sw->length_tsc, sw->starts, sw->start_late_max,
				   sw->starts ? sw->start_late_sum / sw->starts : 0, sw->skipped);
		}
	}
}

static const char *const trace_names[] = {
	[TRACE_DEADLINE_WRITE] = "deadline_write", [TRACE_PV_UPDATE] = "pv_update",
	[TRACE_HW_FIRE] = "hw_fire", [TRACE_INJECT] = "inject", [TRACE_LVT] = "lvt",
	[TRACE_SAVE] = "save", [TRACE_RESTORE] = "restore", [TRACE_MODE] = "mode",
	[TRACE_WINDOW_IN] = "window_in",
};

/* The last few timer-state transitions of every vCPU of @p, oldest first. */
static void print_trace(const struct partition *p)
{
	for (uint32_t i = 0; i < p->vcpu_count; i++) {
		const struct vcpu *v = p->vcpus[i];
		uint32_t n = v->trace_next < 8 ? v->trace_next : 8;

		for (uint32_t k = v->trace_next - n; k != v->trace_next; k++) {
			const struct trace_entry *t = &v->trace[k % TRACE_RING];

			log_printf(LOG_EMERG, "TRACE partition=%s vcpu=%u seq=%u tsc=%lu event=%s "
				   "value=0x%lx\n", p->cfg->name, v->index, k, t->tsc,
				   t->event < ARRAY_SIZE(trace_names) && trace_names[t->event]
					   ? trace_names[t->event] : "?", t->value);
		}
	}
}

static void end_run_if_done(void)
{
	if (!all_partitions_done())
		return;
	if (__atomic_exchange_n(&run_ending, 1, __ATOMIC_ACQ_REL))
		return;
	console_drain_all(true);
	for (uint32_t i = 0; i < partition_count; i++) {
		const struct partition *p = &partitions[i];

		log_printf(LOG_EMERG, "PARTITION_END name=%s state=%s exit_code=%ld\n",
			   p->cfg->name, p->state == PART_SHUTDOWN ? "shutdown" : "stopped",
			   p->exit_code);
		print_exit_stats(p);
		print_trace(p);
	}
	print_host_ticks();
	print_schedules();
	log_printf(LOG_EMERG, "TIMER_COST rearm_instr=%lu\n", rearm_cost_ticks);
	hv_stop(STOP_OK, "all partitions ended");
}

static void kick_partition(struct partition *p, struct vcpu *self);

void hv_exit_fault(uint64_t vector, uint64_t error_code, uint64_t rip)
{
	struct pcpu *c;
	struct vcpu *v;
	char detail[96];

	/* before partitions run there is no exit, and GS may not be this_pcpu() yet */
	if (!partitions_go || hv_stopping)
		return;
	c = this_pcpu();
	v = c->exit_vcpu;
	/* a fault while stopping it is the hypervisor's own: not again */
	if (!v)
		return;
	c->exit_vcpu = NULL;
	/*
	 * What this core held when it faulted is not to be waited for: the
	 * console lock is released (its drain may have been cut short), the
	 * report is left to the console core, and the other vCPUs are kicked
	 * first, in case the fault was inside a stop that had not kicked yet.
	 */
	c->faulted = true;
	if (__atomic_load_n(&drain_lock, __ATOMIC_ACQUIRE) == (int)c->index + 1)
		__atomic_store_n(&drain_lock, 0, __ATOMIC_RELEASE);
	kick_partition(v->part, v);
	fmt_snprintf(detail, sizeof(detail), "exception %lu (error 0x%lx) at hypervisor rip 0x%lx",
		     vector, error_code, rip);
	partition_stop(v, "hv_fault", vector, detail);
}

/*
 * A vCPU leaves its core for good: nothing of its LAPIC timer may go on
 * firing there (a direct-mode guest may have left the count-down timer
 * periodic, or a deadline armed) and its TPR must not block the
 * hypervisor's vectors. The LVT first: masked TSC-deadline mode disarms the
 * count-down timer (SDM 11.5.4.1). What is left in the IRR stays there (IF
 * is 0) or is acknowledged as a stray.
 */
static void apic_quiesce(void)
{
	wrmsr(X2APIC_LVT_TIMER, APIC_LVT_MASKED | APIC_LVT_TIMER_TSC_DEADLINE | HV_TIMER_VECTOR);
	wrmsr(MSR_IA32_TSC_DEADLINE, 0);
	wrmsr(X2APIC_TPR, 0);
}

void vcpu_leave(struct vcpu *v)
{
	struct partition *p = v->part;
	struct pcpu *c = v->pcpu;

	c->exit_vcpu = NULL;
	apic_quiesce();
	/*
	 * A shared core: an inject-mode deadline that fired before the
	 * disarm sits in the IRR as the hypervisor's vector; take it here,
	 * or the next vCPU's entry would credit it to that vCPU.
	 */
	if (c->shared)
		asm volatile("sti; nop; nop; cli" ::: "memory");
	v->state = VCPU_STOPPED;
	if (!c->shared)
		c->vcpu = NULL;
	__atomic_fetch_and(&c->mailbox, ~MAILBOX_STOP_VCPU, __ATOMIC_ACQ_REL);
	__atomic_fetch_add(&p->vcpus_done, 1, __ATOMIC_ACQ_REL);
	hv_pcpu_loop();
}

/* Ask every other vCPU of @p to leave: mailbox first, then the NMI. */
static void kick_partition(struct partition *p, struct vcpu *self)
{
	for (uint32_t i = 0; i < p->vcpu_count; i++) {
		struct vcpu *t = p->vcpus[i];

		if (t == self)
			continue;
		__atomic_fetch_or(&t->pcpu->mailbox, MAILBOX_STOP_VCPU, __ATOMIC_ACQ_REL);
		x2apic_send_nmi(t->pcpu->apic_id);
	}
}

/*
 * The end of a partition is reported by the console core, after the
 * partition's last console lines: the stopping core only formats the line
 * and never waits for the UART (on a shared core that would eat the other
 * vCPUs' windows). With no console core, the stopping core prints it.
 */
static void report_end(struct partition *p)
{
	__atomic_store_n(&p->end_report_pending, true, __ATOMIC_RELEASE);
	if (this_pcpu()->console && !this_pcpu()->faulted)
		console_drain_all(true);
}

void partition_stop(struct vcpu *v, const char *reason, uint64_t qual, const char *detail)
{
	struct partition *p = v->part;
	uint32_t expected = PART_RUNNING;

	if (__atomic_compare_exchange_n(&p->state, &expected, PART_STOPPED, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		fmt_snprintf(p->end_report, sizeof(p->end_report),
			     "PARTITION_STOP name=%s reason=%s rip=0x%lx qual=0x%lx vcpu=%u cpu=%u "
			     "detail=\"%s\"\n", p->cfg->name, reason, vmread(VMCS_GUEST_RIP), qual,
			     v->index, v->pcpu->index, detail);
		report_end(p);
		kick_partition(p, v);
	}
	vcpu_leave(v);
}

static __attribute__((noreturn)) void end_by_request(struct vcpu *v, int64_t code,
						      const char *how)
{
	struct partition *p = v->part;
	uint32_t expected = PART_RUNNING;

	if (__atomic_compare_exchange_n(&p->state, &expected, PART_SHUTDOWN, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		p->exit_code = code;
		fmt_snprintf(p->end_report, sizeof(p->end_report),
			     "Partition '%s' %s (exit code %ld)\n", p->cfg->name, how, code);
		report_end(p);
		kick_partition(p, v);
	}
	vcpu_leave(v);
}

void partition_shutdown(struct vcpu *v, int64_t code)
{
	end_by_request(v, code, "shut down");
}

void partition_poweroff(struct vcpu *v)
{
	end_by_request(v, 0, "powered off (ACPI S5)");
}

/*
 * What the timer adds to a short exit: the preemption-timer re-arm (an RDTSC,
 * the arithmetic, one VMWRITE). Timed with the TSC around the real code; in
 * Bochs a tick is an instruction, so this is an instruction count.
 */
static void measure_rearm(struct vcpu *v)
{
	uint64_t t0, t1, t2, t3, base, cost;

	t0 = rdtsc();
	t1 = rdtsc();
	vmx_arm_preemption_timer(v);
	t2 = rdtsc();
	t3 = rdtsc();
	base = t3 - t2;
	cost = t2 - t1 > base ? t2 - t1 - base : 0;
	(void)t0;
	if (cost > rearm_cost_ticks)
		rearm_cost_ticks = cost;
}

static void start_vcpu(struct pcpu *c, struct vcpu *v)
{
	c->ran_guest = true;
	host_timer_init(&c->ht, rdtsc(), host_tick_tsc, host_watchdog_tsc);
	/* only a dedicated core places its ticks (shared: window ends come first) */
	if (!c->shared)
		c->ht.slack_tsc = host_tick_slack_tsc;
	vmcs_setup(v);
	measure_rearm(v);
	vmx_run(v);
}

/* ---- shared cores ---- */

static const uint32_t switched_msrs[6] = {
	0xc0000081, 0xc0000082, 0xc0000083, 0xc0000084,	/* STAR, LSTAR, CSTAR, FMASK */
	0xc0000102, 0xc0000103,				/* KERNEL_GS_BASE, TSC_AUX */
};

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
static void xsave_plan_boot(void)
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
 * Leaving the core for the rest of the frame (DESIGN.md): the deadline comes
 * out of the hardware by the read / write-0 / IRR protocol. In inject
 * mode a fire that raced the save may sit in the physical IRR: a short STI
 * window takes it (this core runs no direct-mode guest, so its APIC holds no
 * guest state) and credits it to this vCPU, not to the next one.
 */
static volatile bool hv_timer_vector_seen;

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
		asm volatile("xsave64 %0" : "=m"(*(uint8_t(*)[XSAVE_AREA_MAX])v->fpu)
			     : "a"((uint32_t)v->xcr0), "d"((uint32_t)(v->xcr0 >> 32)) : "memory");
	else
		asm volatile("fxsave64 %0" : "=m"(*(uint8_t(*)[512])v->fpu) : : "memory");
}

static void fpu_restore(struct vcpu *v)
{
	uint64_t all = xsave_plan.xcr0_allowed;

	if (all) {
		xsetbv0(all);
		asm volatile("xrstor64 %0" : : "m"(*(uint8_t(*)[XSAVE_AREA_MAX])v->fpu),
			     "a"((uint32_t)all), "d"((uint32_t)(all >> 32)) : "memory");
		xsetbv0(v->xcr0);
	} else {
		asm volatile("fxrstor64 %0" : : "m"(*(uint8_t(*)[512])v->fpu) : "memory");
	}
}

/*
 * DR0-3 and DR6 are not in the VMCS (DR7 and DEBUGCTL are, loaded and saved
 * with the debug controls): on a shared core one partition's breakpoint
 * addresses and debug status would be the next one's. Root mode runs with
 * DR7 = 0x400 after every exit (SDM 27.5.1), so they never fire there.
 */
static void debug_regs_save(struct vcpu *v)
{
	asm volatile("mov %%dr0, %0" : "=r"(v->dr[0]));
	asm volatile("mov %%dr1, %0" : "=r"(v->dr[1]));
	asm volatile("mov %%dr2, %0" : "=r"(v->dr[2]));
	asm volatile("mov %%dr3, %0" : "=r"(v->dr[3]));
	asm volatile("mov %%dr6, %0" : "=r"(v->dr6));
}

static void debug_regs_restore(struct vcpu *v)
{
	asm volatile("mov %0, %%dr0" : : "r"(v->dr[0]));
	asm volatile("mov %0, %%dr1" : : "r"(v->dr[1]));
	asm volatile("mov %0, %%dr2" : : "r"(v->dr[2]));
	asm volatile("mov %0, %%dr3" : : "r"(v->dr[3]));
	asm volatile("mov %0, %%dr6" : : "r"(v->dr6));
}

/* The physical APIC holds nothing in service and nothing pending but @vector. */
static bool apic_holds_only(uint8_t vector)
{
	for (uint32_t i = 0; i < 8; i++) {
		uint64_t mine = i == vector / 32u ? 1ull << (vector % 32) : 0;

		if (rdmsr(X2APIC_ISR0 + i) || (rdmsr(X2APIC_IRR0 + i) & ~mine))
			return false;
	}
	return true;
}

/*
 * direct/inject, leaving the guest for a long stay (DESIGN.md; vtimer_save
 * in hv/core/timer.c says what each finding means): read the TSC and D, write 0,
 * read the TSC, then the physical IRR bit of the timer's vector, IF=0
 * throughout. Hardware clears the MSR when the timer fires (SDM Vol. 3A
 * 11.5.4.1), so a fire just before the RDMSR reads 0 and leaves its vector
 * in the IRR. Inject mode: that vector is ours (0xee) and the fire this
 * vCPU's: a short STI window takes it (hv_timer_vector_handler) and it is
 * credited here, not to the next vCPU on a shared core nor, after a mode
 * switch, delivered to a direct-mode guest as vector 0xee. On a dedicated
 * core the window opens only while the physical APIC holds nothing else
 * (guest IPIs land there, and root mode has no handler for them); else the
 * vector stays, vtimer_switch_mode refuses (hw_firing) and the next entry
 * exits for it.
 */
void timer_save_hw(struct vcpu *v)
{
	struct vtimer *t = &v->vt;
	uint8_t vec = t->mode == TIMER_DIRECT ? vtimer_vector(t) : HV_TIMER_VECTOR;
	uint64_t before = rdtsc(), d = rdmsr(MSR_IA32_TSC_DEADLINE), now;
	bool irr;

	wrmsr(MSR_IA32_TSC_DEADLINE, 0);
	now = rdtsc();
	irr = x2apic_irr_test(vec);
	vtimer_save(t, d, before, now, irr, platform.tsc_deadline_clears);
	vcpu_trace(v, TRACE_SAVE, d, before);
	if (t->mode != TIMER_INJECT)
		return;
	if (!v->pcpu->shared && (!irr || !apic_holds_only(HV_TIMER_VECTOR)))
		return;
	hv_timer_vector_seen = false;
	asm volatile("sti; nop; nop; cli" ::: "memory");
	if (hv_timer_vector_seen)
		vtimer_hw_fired(t);
}

static void switch_out(struct vcpu *v)
{
	struct vtimer *t = &v->vt;
	uint64_t cr2;

	for (int i = 0; i < 6; i++)
		v->msrs[i] = rdmsr(switched_msrs[i]);
	asm volatile("mov %%cr2, %0" : "=r"(cr2));
	v->cr2 = cr2;
	debug_regs_save(v);
	if (xsave_plan.xcr0_allowed)
		v->xcr0 = xgetbv0();
	fpu_save(v);
	if (spec_plan.spec_ctrl)
		v->spec_ctrl = rdmsr(MSR_IA32_SPEC_CTRL);
	if (t->mode == TIMER_INJECT)
		timer_save_hw(v);
}

void hv_timer_vector_handler(void);
void hv_timer_vector_handler(void)
{
	hv_timer_vector_seen = true;
	wrmsr(X2APIC_EOI, 0);
}

static __attribute__((noreturn)) void switch_in(struct pcpu *c, struct vcpu *v)
{
	c->exit_vcpu = v;	/* a fault restoring its state stops its partition */
	if (!v->vmcs_ready) {
		vmcs_setup(v);
		v->vmcs_ready = true;
		v->xcr0 = 1;
		v->dr6 = 0xffff0ff0;	/* the reset value (SDM 18.2.3) */
	} else {
		vmx_vmptrld(v->vmcs_pa);
		*(struct vcpu **)(c->stack_top - 16) = v;	/* the exit stub's vCPU */
		timer_program_lvt(v);
		if (v->vt.mode == TIMER_INJECT) {
			uint64_t d = vtimer_restore(&v->vt);

			wrmsr(MSR_IA32_TSC_DEADLINE, d);	/* after the LVT */
			vcpu_trace(v, TRACE_RESTORE, d, rdtsc());
		}
	}
	/*
	 * Also on its first window (zeros, the reset values): the previous
	 * vCPU's LSTAR, KERNEL_GS_BASE, TSC_AUX and CR2 are another
	 * partition's, and RDMSR of them does not exit.
	 */
	for (int i = 0; i < 6; i++)
		wrmsr(switched_msrs[i], v->msrs[i]);
	asm volatile("mov %0, %%cr2" : : "r"(v->cr2));
	debug_regs_restore(v);
	vcpu_trace(v, TRACE_WINDOW_IN, c->sched.cur, rdtsc());
	fpu_restore(v);	/* a fresh area gives the reset state */
	if (spec_plan.spec_ctrl)
		wrmsr(MSR_IA32_SPEC_CTRL, v->spec_ctrl);
	/*
	 * Another partition ran here last: its branch-predictor entries must
	 * not steer this one's indirect branches (IBPB, Intel "Speculative
	 * Execution Side Channel Mitigations" 2.4.2).
	 */
	if (c->last_part && c->last_part != v->part)
		spec_ibpb();
	c->last_part = v->part;
	hv_deliver_virtual(v);
	vmx_run(v);
}

static bool slot_runnable(struct vcpu *v)
{
	if (!v || v->state == VCPU_STOPPED)
		return false;
	if (v->part->state != PART_RUNNING) {
		v->state = VCPU_STOPPED;
		__atomic_fetch_add(&v->part->vcpus_done, 1, __ATOMIC_ACQ_REL);
		return false;
	}
	if (v->state == VCPU_WAIT_SIPI && __atomic_load_n(&v->sipi_pending, __ATOMIC_ACQUIRE))
		v->state = VCPU_RUNNING;
	return v->state == VCPU_RUNNING;
}

/* Root mode on a shared core: whoever's window it is runs; idle windows poll. */
static __attribute__((noreturn)) void sched_loop(struct pcpu *c)
{
	c->exit_vcpu = NULL;	/* switched out: a fault here is no partition's */
	if (!c->sched_started) {
		uint64_t now = rdtsc();

		host_timer_init(&c->ht, now, host_tick_tsc, host_watchdog_tsc);
		sched_init(&c->sched, c->window_slot, c->window_len_tsc, c->window_count, now);
		c->sched_started = true;
	}
	for (;;) {
		int32_t slot;

		sched_advance(&c->sched, rdtsc());
		slot = sched_slot(&c->sched);
		if (slot >= 0 && slot_runnable(c->slots[slot]))
			switch_in(c, c->slots[slot]);
		if (host_timer_next(&c->ht) <= rdtsc())
			host_timer_run(&c->ht, rdtsc());
		for (uint32_t k = 0; k < c->slot_count; k++)
			slot_runnable(c->slots[k]);	/* notice stopped partitions */
		if (c->console)
			console_drain_all(false);
		if (partitions_go)
			end_run_if_done();
		cpu_relax();
	}
}

void sched_switch(struct vcpu *v)
{
	struct pcpu *c = v->pcpu;
	int32_t slot;

	sched_advance(&c->sched, rdtsc());
	slot = sched_slot(&c->sched);
	if (slot >= 0 && c->slots[slot] == v) {
		/* the next window is ours too: carry on without a switch */
		hv_deliver_virtual(v);
		vmx_run(v);
	}
	switch_out(v);
	sched_loop(c);
}

/* ---- the root-mode loop ---- */

/*
 * A core with nothing to run sleeps instead of spinning: on a real machine
 * that saves power, in an emulator it lets the other CPUs run (Bochs skips a
 * halted CPU). One whose LAPIC is clean (no guest ever ran there) wakes on
 * its own TSC deadline every IDLE_POLL_US to poll SIPIs, the consoles and
 * the run's end; an NMI (a kick) wakes it sooner. One whose guest has left
 * may still hold that guest's vectors in its IRR, which would reach the
 * root-mode IDT as strays if interrupts were on: it sleeps with IF=0, woken
 * by NMIs only, when it has no console duty; otherwise it spins.
 */
#define IDLE_POLL_US	100

static void idle_wait(struct pcpu *c)
{
	if (!c->ran_guest) {
		wrmsr(X2APIC_LVT_TIMER, APIC_LVT_TIMER_TSC_DEADLINE | TRAP_IDLE_WAKE_VECTOR);
		wrmsr(MSR_IA32_TSC_DEADLINE, rdtsc() + platform.tsc_hz / (1000000 / IDLE_POLL_US));
		asm volatile("sti; hlt; cli" ::: "memory");
		/* disarmed, and a wake-up that raced the NMI taken now, not by a guest */
		wrmsr(MSR_IA32_TSC_DEADLINE, 0);
		asm volatile("sti; nop; cli" ::: "memory");
	} else if (!c->console && !c->vcpu && !c->shared) {
		asm volatile("hlt" ::: "memory");	/* IF=0: an NMI wakes it */
	} else {
		cpu_relax();
	}
}

void hv_pcpu_loop(void)
{
	struct pcpu *c = this_pcpu();

	for (;;) {
		struct vcpu *v = c->vcpu;

		/* cores wait here from boot; a shared one learns it only at go */
		if (partitions_go && c->shared)
			sched_loop(c);

		if (partitions_go && v) {
			if (v->part->state != PART_RUNNING) {
				/* its partition ended before this vCPU ever ran */
				v->state = VCPU_STOPPED;
				c->vcpu = NULL;
				__atomic_fetch_add(&v->part->vcpus_done, 1, __ATOMIC_ACQ_REL);
			} else if (v->state == VCPU_RUNNING) {
				start_vcpu(c, v);
			} else if (v->state == VCPU_WAIT_SIPI &&
				   __atomic_load_n(&v->sipi_pending, __ATOMIC_ACQUIRE)) {
				v->state = VCPU_RUNNING;
				start_vcpu(c, v);
			}
		}
		if (c->console)
			console_drain_all(false);
		if (partitions_go && (c->console || !c->vcpu))
			end_run_if_done();
		idle_wait(c);
	}
}
