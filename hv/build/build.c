// SPDX-License-Identifier: MIT
/*
 * Building partitions: carving their RAM, their EPT, loading their image the
 * way GRUB would (or a Linux bzImage), their boot information, their vCPUs,
 * and the shared cores' schedules; then handing vCPUs to their cores.
 */
#include "hv/build/build.h"

#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/smp.h"
#include "arch/x86/trap.h"
#include "drivers/pci_cfg.h"
#include "hv/apic/apic.h"
#include "hv/core/bzimage.h"
#include "hv/core/devassign.h"
#include "hv/core/elf.h"
#include "hv/core/guest_boot.h"
#include "hv/core/mb_header.h"
#include "hv/core/version.h"
#include "hv/dev/pcifn.h"
#include "hv/guest/fpu.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"
#include "hv/lib/log.h"
#include "hv/state/ept.h"
#include "hv/state/hooks.h"
#include "hv/state/pages.h"
#include "hv/state/partition.h"
#include "hv/state/platform.h"

#define MB1_BOOT_MAGIC	0x2badb002u
#define MB2_BOOT_MAGIC	0x36d76289u
#define GIB		(1ull << 30)
#define MIB2		(2ull << 20)


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

/*
 * An EPT with the partition's RAM where its guest sees it (hv/core/guest_ram.h):
 * below the MMIO window from 0, the rest from 4 GiB, one host range behind both.
 */
static void build_ept(struct partition *p)
{
	uint64_t low = guest_ram_low(p->mem_size), high = guest_ram_high(p->mem_size);

	ept_create(p);
	/* an empty EPT and disjoint 2 MiB-aligned ranges: cannot fail */
	ept_map(p, 0, p->mem_hpa, low, EPT_RWX);
	if (high)
		ept_map(p, GUEST_RAM_HIGH_BASE, p->mem_hpa + low, high, EPT_RWX);
}

/* An ELF's planned segments into the partition's RAM, each one's tail past its file bytes zeroed. */
static void copy_segments(struct partition *p, const uint8_t *img, const struct elf_plan *plan)
{
	for (uint32_t i = 0; i < plan->segment_count; i++) {
		const struct elf_segment *s = &plan->segments[i];
		uint8_t *dst = gpa_to_hva(p, s->paddr, s->mem_size);

		copy_ram(dst, img + s->file_offset, s->file_size);
		zero_ram(dst + s->file_size, s->mem_size - s->file_size);
	}
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
		fmt_snprintf(err, errlen, "image '%s': %s; " NOT_LINUX, p->cfg->image, why);
		return -1;
	}
	if (mb.has_entry_override) {
		fmt_snprintf(err, errlen, "image '%s': multiboot address/entry tags are not "
			     "supported; link it as a plain ELF", p->cfg->image);
		return -1;
	}
	if (elf_plan_load(img, len, GUEST_HIGH_START, guest_ram_low(p->mem_size), &plan, why,
			  sizeof(why))) {
		fmt_snprintf(err, errlen, "image '%s': %s", p->cfg->image, why);
		return -1;
	}
	copy_segments(p, img, &plan);
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

/*
 * A Linux kernel where its plan puts it (hv/core/bzimage.h): a bzImage's
 * protected-mode part (it decompresses itself), or a vmlinux's segments
 * where it is linked (the decompressor's work done, linux_plan_vmlinux).
 */
static int place_linux(struct partition *p, const uint8_t *img, size_t len,
		       uint64_t initrd_size, struct linux_plan *plan, char *why, size_t whylen)
{
	struct elf_plan e;

	if (linux_plan_image(img, len, p->mem_size, initrd_size, plan, &e, why, whylen))
		return -1;
	if (!plan->vmlinux)
		copy_ram(gpa_to_hva(p, plan->kernel_gpa, plan->kernel_size),
			 img + plan->kernel_offset, plan->kernel_size);
	copy_segments(p, img, &e);
	return 0;
}

/*
 * A Linux partition: the kernel where the plan puts it (place_linux), the
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
	if (place_linux(p, img, len, initrd->end - initrd->start, &plan, why, sizeof(why))) {
		fmt_snprintf(err, errlen, "image '%s': not a bootable Linux kernel: %s",
			     p->cfg->image, why);
		return -1;
	}
	copy_ram(gpa_to_hva(p, plan.initrd_gpa, plan.initrd_size),
		 (const void *)(uintptr_t)initrd->start, plan.initrd_size);

	guest_platform_of(p, &gp);
	gp.acpi_pm_port = GUEST_ACPI_PM_PORT;
	/*
	 * its channels and assigned functions as PCI functions: a host bridge
	 * whose windows hold their BARs (the assigned ones where firmware put
	 * them, which the guest then keeps)
	 */
	gp.pci_bus = p->channel_count > 0 || p->cfg->dev.pci_count > 0;
	for (uint32_t i = 0; i < p->channel_count; i++) {
		struct vpci_window w = vpci_bar2(&p->pci.fn[i]);

		gp.pci_mem64[gp.pci_mem64_count++] = (struct guest_range){ w.gpa, w.gpa + w.size };
	}
	for (uint32_t k = 0; k < p->cfg->dev.pci_count && k < DEV_MAX_PCI; k++) {
		const struct pci_function *f = pci_find(pci_boot_functions(), p->cfg->dev.pci[k]);
		struct dev_fn_info info = { 0 };
		int32_t gsi;

		if (!f)
			continue;
		/* its INTx in _PRT, at its device on the guest's bus */
		info.interrupt_pin = f->interrupt_pin;
		info.interrupt_line = f->interrupt_line;
		gsi = devassign_intx_gsi(&info);
		if (gsi >= 0 && gp.pci_intx_count < GUEST_PCI_INTX_MAX)
			gp.pci_intx[gp.pci_intx_count++] = (struct guest_pci_intx){
				(uint8_t)pcifn_device(p, k), (uint8_t)(f->interrupt_pin - 1),
				(uint32_t)gsi };
		for (uint32_t b = 0; f && b < f->bar_count && b < PCI_TYPE0_BARS; b++) {
			struct guest_range r = { f->bar[b].addr, f->bar[b].addr + f->bar[b].size };

			if (f->bar[b].kind == PCI_BAR_NONE || !f->bar[b].size)
				continue;
			if (f->bar[b].kind == PCI_BAR_IO && gp.pci_io_count < GUEST_PCI_IO_MAX)
				gp.pci_io[gp.pci_io_count++] = r;
			else if (f->bar[b].kind != PCI_BAR_IO && gp.pci_mem_count < GUEST_PCI_MEM_MAX)
				gp.pci_mem[gp.pci_mem_count++] = r;
		}
	}
	/* its virtual IOAPIC, whose pin n is GSI n: the machine's ISA overrides hold as they are */
	gp.ioapic = p->cfg->dev.irq_count > 0;
	gp.irq_override_count = gp.ioapic ? platform.isa_override_count : 0;
	memcpy(gp.irq_overrides, platform.isa_overrides, sizeof(gp.irq_overrides));
	/* its functions' INTx below GSI 16: level and active low, as firmware says for PCI */
	for (uint32_t i = 0; gp.ioapic && i < gp.pci_intx_count; i++) {
		uint32_t gsi = gp.pci_intx[i].gsi;

		if (gsi < 16 && !guest_irq_override_pci(&gp, gsi))
			log_warn("partition '%s': no room in its MADT for GSI %u's override: "
				 "its guest finds that PCI INTx edge-triggered\n", p->cfg->name, gsi);
	}
	rsdp = guest_build_acpi(mem, p->mem_size, &gp);
	if (!rsdp) {
		fmt_snprintf(err, errlen, "no room for the guest ACPI tables");
		return -1;
	}
	/*
	 * the buffer holds any config line plus the word: never NULL here.
	 * With IOAPIC inputs the line is the config's: "noapic" would make
	 * Linux ignore the virtual IOAPIC, and without it Linux leaves x2APIC
	 * for xAPIC mode, whose register page Tempo emulates (docs/linux.md).
	 */
	if (linux_build_boot(mem, p->mem_size, img, len, &plan,
			     gp.ioapic ? p->cfg->cmdline :
			     linux_partition_cmdline(p->cfg->cmdline, cmdline, sizeof(cmdline)),
			     rsdp, why, sizeof(why))) {
		fmt_snprintf(err, errlen, "image '%s': %s", p->cfg->image, why);
		return -1;
	}
	p->linux_boot = true;
	p->entry = plan.entry64;
	p->vcpus[0]->arch.regs.rsi = LINUX_ZERO_PAGE_GPA;
	if (plan.vmlinux)
		log_info("Partition '%s': Linux vmlinux (ELF, uncompressed), %lu KiB at 0x%lx, "
			 "entry 0x%lx, initrd '%s' %lu KiB at 0x%lx\n", p->cfg->name,
			 plan.init_size >> 10, plan.kernel_gpa, plan.entry64, p->cfg->modules[0],
			 plan.initrd_size >> 10, plan.initrd_gpa);
	else
		log_info("Partition '%s': Linux boot protocol %u.%02u, kernel %lu KiB at 0x%lx "
			 "(needs %lu MiB), initrd '%s' %lu KiB at 0x%lx\n", p->cfg->name,
			 plan.version >> 8, plan.version & 0xff, plan.kernel_size >> 10,
			 plan.kernel_gpa, plan.init_size >> 20, p->cfg->modules[0],
			 plan.initrd_size >> 10, plan.initrd_gpa);
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
		copy_ram(gpa_to_hva(p, next, len), (const void *)(uintptr_t)m->start, len);
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

/*
 * A [schedule N] makes CPU N shared: its vCPUs become slots, each window
 * names one (or none), lengths go to TSC ticks. Each slot gets an XSAVE
 * area as large as every component a guest may enable (xsave_plan).
 */
static int build_schedules(const struct hv_config *cfg, char *err, size_t errlen)
{
	/* hv_pages_alloc rounds up to whole pages; FXSAVE's 512 bytes fit one */
	uint64_t fpu_bytes = xsave_plan.area_bytes ? xsave_plan.area_bytes : PAGE_SIZE;

	for (uint32_t i = 0; i < cfg->schedule_count; i++) {
		const struct schedule_config *sc = &cfg->schedules[i];
		struct pcpu *c = &pcpus[sc->cpu];

		c->shared = true;
		/* its vCPUs in the order they were built: partition, then CPU */
		for (uint32_t p = 0; p < partition_count; p++)
			for (uint32_t k = 0; k < partitions[p].vcpu_count; k++) {
				struct vcpu *v = partitions[p].vcpus[k];

				if (v->pcpu != c || c->slot_count >= SCHED_MAX_WINDOWS)
					continue;
				v->saved.fpu = hv_pages_alloc(fpu_bytes, "FPU state");
				v->saved.fpu_bytes = fpu_bytes;
				fpu_area_reset(v->saved.fpu, fpu_bytes);
				c->slots[c->slot_count++] = v;
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

/* Its image, modules and boot information into @p's (zeroed) RAM; the boot vCPU's registers. */
static int load_partition(struct partition *p, const struct boot_info *bi, char *err,
			  size_t errlen)
{
	const struct boot_module *image = find_module(bi, p->cfg->image);

	if (linux_image((const uint8_t *)(uintptr_t)image->start, image->end - image->start))
		return load_linux(p, bi, image, err, errlen);
	if (load_image(p, image, err, errlen) || load_modules_and_info(p, bi, err, errlen))
		return -1;
	p->vcpus[0]->arch.regs.rax = p->boot_magic;
	p->vcpus[0]->arch.regs.rbx = p->info_gpa;
	return 0;
}

/*
 * The modules GRUB loaded stay where it put them, reserved in the memory
 * plan and mapped into no partition: they are the pristine copies a
 * restart loads from.
 */
static const struct boot_info *boot_modules;

/*
 * How a vCPU comes out of reset: at boot, at each restart of its partition,
 * at an INIT. Its registers and the state every room keeps for it: the
 * timer's and the saved CPU state here, the rest by the rooms' hooks
 * (hv/state/hooks.h: the APIC, the count-down timer, the xAPIC page).
 */
void vcpu_reset(struct vcpu *v)
{
	const struct partition_config *pc = v->part->cfg;

	memset(&v->arch.regs, 0, sizeof(v->arch.regs));
	v->arch.launched = false;
	v->arch.vmcs_ready = false;
	v->sipi_vector = 0;
	v->sipi_pending = false;
	vtimer_init(&v->vt, pc->timer);
	v->vt.lvt = APIC_LVT_MASKED;	/* the LVT's reset value */
	memset(v->saved.msrs, 0, sizeof(v->saved.msrs));
	v->saved.cr2 = 0;
	memset(v->saved.dr, 0, sizeof(v->saved.dr));
	v->saved.dr6 = 0xffff0ff0;	/* the reset value (SDM 18.2.3) */
	v->saved.xcr0 = 1;
	v->saved.spec_ctrl = 0;
	if (v->saved.fpu)
		fpu_area_reset(v->saved.fpu, v->saved.fpu_bytes);
	part_hooks_vcpu_reset(v);
	v->state = v->index == 0 ? VCPU_RUNNING : VCPU_WAIT_SIPI;
}

/*
 * A restart, once every vCPU has left and its RAM is zeroed (hv/run/life.c):
 * the image and boot information loaded again from the pristine modules,
 * the vCPUs out of reset, every room's partition state as at build
 * (part_hooks_reset). Their cores do the rest at their next start
 * (vcpu_restart_cpu, vcpu_vmcs_setup).
 */
int partition_rebuild(struct partition *p, char *err, size_t errlen)
{
	for (uint32_t i = 0; i < p->vcpu_count; i++) {
		struct vcpu *v = p->vcpus[i];

		vcpu_reset(v);
		v->restarted = true;
		/* the old instance's INIT, NMI and SIPI in flight go with it */
		v->apic.init_pending = v->apic.nmi_pending = v->apic.sipi_after_init = 0;
		v->apic.kicked = 0;
	}
	p->linux_boot = false;
	p->exit_code = 0;
	part_hooks_reset(p);
	return load_partition(p, boot_modules, err, errlen);
}

int partitions_build(const struct hv_config *cfg, const struct boot_info *bi,
		     struct memplan *mp, char *err, size_t errlen)
{
	static uint16_t next_vpid = 1;

	boot_modules = bi;
	xsave_plan_boot();
	apic_model_boot();
	for (uint32_t i = 0; i < cfg->partition_count; i++) {
		const struct partition_config *pc = &cfg->partitions[i];
		struct partition *p = &partitions[i];
		char kind[16];

		/*
		 * RAM past the MMIO window continues at 4 GiB in the guest
		 * (hv/core/guest_ram.h), which the CPU must be able to address:
		 * the guest has the host's physical address width.
		 */
		if (platform.maxphyaddr < 64 &&
		    guest_ram_end(pc->memory_bytes) > 1ull << platform.maxphyaddr) {
			fmt_snprintf(err, errlen, "partition '%s' (line %u): %lu MiB of RAM end at "
				     "guest-physical 0x%lx (past the MMIO window it continues at "
				     "4 GiB), beyond this CPU's %u physical address bits",
				     pc->name, pc->line, pc->memory_bytes >> 20,
				     guest_ram_end(pc->memory_bytes), platform.maxphyaddr);
			return -1;
		}
		memset(p, 0, sizeof(*p));
		p->cfg = pc;
		p->id = i;
		p->mem_size = pc->memory_bytes;
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
					     "free RAM in one range (%lu MiB left, at most %lu MiB "
					     "in one range)", pc->name, pc->line,
					     pc->memory_bytes >> 20, memplan_free_bytes(mp) >> 20,
					     memplan_largest(mp, MIB2) >> 20);
				return -1;
			}
		}
		zero_ram((void *)(uintptr_t)p->mem_hpa, p->mem_size);
		build_ept(p);

		for (int c = cpuset_first(&pc->cpus); c >= 0; c = cpuset_next(&pc->cpus, (uint32_t)c + 1)) {
			uint32_t cpu = (uint32_t)c;
			struct vcpu *v;

			if (cpu >= pcpu_count || smp_cpus[cpu].state != CPU_ONLINE) {
				fmt_snprintf(err, errlen, "partition '%s' (line %u): CPU %u is not "
					     "online", pc->name, pc->line, cpu);
				return -1;
			}
			/*
			 * From the pool, not a static array: shared cores give a
			 * machine more vCPUs than CPUs (up to 8 on each of 8 shared
			 * ones), and the array's 64 were overrun on 9 CPUs.
			 */
			v = hv_pages_alloc(sizeof(*v), "vCPU");
			v->part = p;
			v->pcpu = &pcpus[cpu];
			v->index = p->vcpu_count;
			v->apic_id = pcpus[cpu].apic_id;
			v->arch.owner = v;
			v->arch.vpid = next_vpid++;
			v->arch.vmcs_pa = (uint64_t)hv_pages_alloc(PAGE_SIZE, "VMCS");
			if (vmx_ctl.has_apicv)
				v->apic.page = hv_pages_alloc(PAGE_SIZE, "virtual-APIC page");
			vcpu_reset(v);
			p->vcpus[p->vcpu_count++] = v;
		}
		if (part_hooks_init(p, cfg, err, errlen) || load_partition(p, bi, err, errlen))
			return -1;
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
	for (uint32_t i = 0; i < partition_count; i++)
		for (uint32_t k = 0; k < partitions[i].vcpu_count; k++)
			if (!partitions[i].vcpus[k]->pcpu->shared) {
				struct vcpu *v = partitions[i].vcpus[k];

				v->pcpu->vcpu = v->pcpu->home = v;
			}
	for (uint32_t c = 0; c < pcpu_count; c++) {
		/* a shared core runs guests in its windows: it is no console core */
		if (smp_cpus[c].state == CPU_ONLINE && !pcpus[c].vcpu && !pcpus[c].shared) {
			pcpus[c].console = true;
			return 0;
		}
	}
	/*
	 * Every core runs a guest: each drains the rings on its own exits when
	 * no other core is at it. That puts console work on guest cores.
	 */
	log_warn("every CPU runs a partition: consoles are drained, and console input and the "
		 "monitor served, on guest exits, which adds to their latency; leave one CPU "
		 "free for real-time use\n");
	for (uint32_t c = 0; c < pcpu_count; c++)
		pcpus[c].console = true;
	return 0;
}
