// SPDX-License-Identifier: MIT
/*
 * tempo-config: check a partition config with the hypervisor's own parser
 * and checks (hv/core/config.c, hv/core/memplan.c, drivers/acpi.c, compiled for the
 * host as the unit tests compile them), optionally against the machine it
 * runs on, and propose a config for that machine.
 *
 *   tempo-config check [--machine] [--sysroot DIR] [--images DIR | --no-images]
 *                      [--hpet-free] FILE
 *   tempo-config create [--sysroot DIR] [--memory SIZE] [--image NAME] [--device BDF]...
 *                       [--linux [--linux-memory SIZE]]
 *   tempo-config --help | --version
 *
 * The machine is read from Linux: the ACPI MADT (/sys/firmware/acpi/tables/
 * APIC, through drivers/acpi.c), the firmware memory map (/sys/firmware/
 * memmap, else /proc/iomem), the SMT siblings (/sys/devices/system/cpu/cpu*
 * /topology/thread_siblings_list) and the APIC id of each Linux CPU
 * (/proc/cpuinfo). --sysroot DIR reads DIR/sys/... and DIR/proc/... instead,
 * so saved samples of other machines can be checked.
 *
 * The device keys (pci, ports, mmio, irqs) are checked as the boot checks
 * them: without --machine against each other and the ports Tempo keeps on
 * every PC; with it against this machine's PCI functions, IOAPIC inputs
 * and ranges (tools/devmachine.c). --hpet-free: Tempo will boot with
 * tsc_calibrate=pit, so the HPET may be given. create --device BDF (one or
 * more) gives those functions, and the GSI Linux routes each one's INTx
 * to, to the first partition it proposes.
 *
 * The images are looked for beside FILE (where 20_tempo takes them from),
 * or in --images DIR, and checked as partitions_build loads them
 * (hv/core/elf.c, hv/core/bzimage.c); --no-images checks the config alone.
 * --machine also refuses a CPU that lacks what Tempo needs (Intel VT-x with
 * the VMX-preemption timer, x2APIC, the TSC-deadline timer, an invariant
 * TSC), from /proc/cpuinfo and, where readable, the VMX capability MSRs
 * through /dev/cpu/0/msr.
 * Every error of a run is printed, each as FILE:LINE: message (what the boot
 * prints as "ERROR: config: partitions:LINE: message"), on stderr.
 * Exit status: 0 accepted, 1 refused, 2 usage or the machine unreadable.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "drivers/acpi.h"
#include "hv/core/bzimage.h"
#include "hv/core/config.h"
#include "hv/core/elf.h"
#include "hv/core/mb_header.h"
#include "hv/lib/fmt.h"
#include "hv/core/guest_boot.h"
#include "hv/core/guest_ram.h"
#include "hv/lib/lib.h"
#include "hv/core/memplan.h"
#include "tools/devmachine.h"
#include "hv/core/version.h"
#include <fcntl.h>
#include <unistd.h>

#define MIB			(1ull << 20)
#define GIB			(1ull << 30)
/* The boot's figures (hv/start/main.c, arch/x86/boot_layout.h, hv/state/partition.h). */
#define IDENTITY_MAP_LIMIT	(4 * GIB)
/* arch/x86/highmap.h's, which tools may not include (docs/architecture.md) */
#define HIGHMAP_LIMIT		(1ull << 47)
#define HIGHMAP_GRAIN		(2 * MIB)
#define HV_LOAD_BASE		MIB
#define HV_IMAGE_GUESS		(2 * MIB)	/* when no tempo.elf is at hand */
#define MAX_LINUX_CPUS		8192
#define PAGE			4096ull

/* The fake physical memory the MADT is served from: RSDP -> XSDT -> MADT. */
#define FAKE_XSDT		0x1000ull
#define FAKE_MADT		0x2000ull
#define MADT_MAX		(1u << 20)	/* the boot's limit on a table (drivers/acpi.c SDT_MAX_LEN) */

struct machine {
	struct acpi_info acpi;
	uint32_t madt_enabled;			/* enabled CPUs in the MADT */
	uint32_t cpu_count;			/* Tempo's CPUs: at most TEMPO_MAX_CPUS */
	uint32_t apic_id[TEMPO_MAX_CPUS];	/* Tempo CPU index -> x2APIC id */
	struct cpuset siblings[TEMPO_MAX_CPUS];	/* SMT siblings, Tempo indexes, self included */
	bool have_siblings;
	bool have_cpuinfo;			/* Linux CPU -> APIC id known */
	const char *mem_source;
	uint64_t ram_low, ram_high;		/* usable RAM below / above 4 GiB */
	struct memplan plan;			/* free RAM the boot would leave partitions */
	uint64_t high_base[MEMPLAN_MAX_RANGES], high_end[MEMPLAN_MAX_RANGES];
	uint32_t high_count;			/* usable ranges (parts) above 4 GiB */
	uint64_t image_bytes, module_bytes;
	bool image_guessed;
	struct dev_machine dev;			/* for the device keys */
};

struct options {
	const char *sysroot;
	const char *images;
	const char *file;
	bool machine;
	bool hpet_free;				/* Tempo boots with tsc_calibrate=pit */
	uint64_t memory;
	const char *image;
	uint32_t device_count;			/* create --device */
	uint16_t devices[DEV_MAX_PCI];
	bool no_images;
	bool linux_part;		/* create: a Linux partition beside the real-time ones */
	uint64_t linux_memory;
};

/* The config being checked, for FILE:LINE: messages. */
static const char *config_file = "partitions";

/* One error, as a compiler prints it; stdout first, so the two stay in order. */
static void report(uint32_t line, const char *msg)
{
	fflush(stdout);
	if (line)
		fprintf(stderr, "%s:%u: %s\n", config_file, line, msg);
	else
		fprintf(stderr, "%s: %s\n", config_file, msg);
}

static void report_all(const struct config_errors *e)
{
	for (uint32_t i = 0; i < e->count && i < CONFIG_MAX_ERRORS; i++)
		report(e->list[i].line, e->list[i].msg);
	if (e->count > CONFIG_MAX_ERRORS) {
		char more[64];

		snprintf(more, sizeof(more), "%u more errors not shown",
			 e->count - CONFIG_MAX_ERRORS);
		report(0, more);
	}
}

static const char usage_text[] =
	"usage: tempo-config check [--machine] [--sysroot DIR] [--images DIR | --no-images]\n"
	"                          [--hpet-free] FILE\n"
	"       tempo-config create [--sysroot DIR] [--memory SIZE] [--image NAME] [--device BDF]...\n"
	"                           [--linux [--linux-memory SIZE]]\n"
	"       tempo-config --help | --version\n";

static const char help_text[] =
	"\n"
	"check FILE     parse FILE with the hypervisor's own parser and checks; print every\n"
	"               error as FILE:LINE: message; exit 0 if the boot would accept it\n"
	"  --machine    also against this machine: its CPU (Intel VT-x, the VMX-preemption\n"
	"               timer, x2APIC, TSC deadline, invariant TSC), its CPUs and RAM; print\n"
	"               where each partition's RAM will be\n"
	"  --images DIR the images are in DIR (default: beside FILE, as 20_tempo takes them)\n"
	"  --no-images  do not look for the images\n"
	"  --sysroot DIR  read DIR/proc and DIR/sys instead of this machine's\n"
	"  --hpet-free  Tempo boots with tsc_calibrate=pit: the HPET may be given\n"
	"create         print a config for this machine: one real-time partition per core\n"
	"               but CPU 0's, which drains the consoles\n"
	"  --memory SIZE  RAM of each real-time partition (default 64M)\n"
	"  --image NAME   their image (default rtbench-mb2, the latency guest); a Linux\n"
	"               kernel (linux) gets an initrd and a Linux command line\n"
	"  --linux      give the last core to a Linux partition (image linux, initrd,\n"
	"               command line) beside the real-time ones\n"
	"  --linux-memory SIZE  its RAM (default 512M)\n"
	"  --device BDF   give that PCI function (repeatable) and its INTx's GSI to the\n"
	"               first partition\n"
	"\n"
	"Exit status: 0 accepted, 1 refused, 2 usage or the machine unreadable.\n"
	"Documentation: /usr/share/doc/tempo/config.md.gz, tempo-config(8).\n";

static void die_usage(void)
{
	fputs(usage_text, stderr);
	fputs("(tempo-config --help says more)\n", stderr);
	exit(2);
}

static void help(void)
{
	fputs(usage_text, stdout);
	fputs(help_text, stdout);
	exit(0);
}

static void __attribute__((format(printf, 1, 2), noreturn)) fatal(const char *fmt, ...)
{
	va_list ap;

	fputs("tempo-config: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static char *path_in(const char *sysroot, const char *path)
{
	static char buf[4][4096];
	static int next;
	char *p = buf[next++ % 4];

	snprintf(p, sizeof(buf[0]), "%s%s", sysroot ? sysroot : "", path);
	return p;
}

/* The whole file, NUL-terminated; NULL with errno set when it cannot be read. */
static char *read_all(const char *path, size_t max, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;

	if (!f)
		return NULL;
	buf = malloc(max + 1);
	if (!buf) {
		fclose(f);
		return NULL;
	}
	n = fread(buf, 1, max + 1, f);
	fclose(f);
	if (n > max) {
		free(buf);
		errno = EFBIG;
		return NULL;
	}
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

/* ---- the MADT, through the hypervisor's ACPI parser ---- */

struct fake_mem {
	uint8_t xsdt[44];
	const uint8_t *madt;
	size_t madt_len;
};

static const void *fake_map(void *ctx, uint64_t phys, size_t len)
{
	struct fake_mem *m = ctx;

	if (phys >= FAKE_XSDT && phys - FAKE_XSDT <= sizeof(m->xsdt) &&
	    len <= sizeof(m->xsdt) - (phys - FAKE_XSDT))
		return m->xsdt + (phys - FAKE_XSDT);
	if (phys >= FAKE_MADT && phys - FAKE_MADT <= m->madt_len &&
	    len <= m->madt_len - (phys - FAKE_MADT))
		return m->madt + (phys - FAKE_MADT);
	return NULL;
}

static void sdt_header(uint8_t *t, const char *sig, uint32_t len)
{
	memset(t, 0, 36);
	memcpy(t, sig, 4);
	memcpy(t + 4, &len, 4);
	t[8] = 1;
	memcpy(t + 10, "TEMPO ", 6);
}

/*
 * Linux exports the MADT alone; the parser starts from an RSDP. Wrap the
 * table in an RSDP and an XSDT of our own, so that every byte of the real
 * table goes through drivers/acpi.c's checks.
 */
static void read_madt(const struct options *o, struct machine *m)
{
	const char *path = path_in(o->sysroot, "/sys/firmware/acpi/tables/APIC");
	static struct fake_mem mem;
	struct acpi_mem am = { .map = fake_map, .ctx = &mem };
	uint8_t rsdp[36];
	uint64_t madt_phys = FAKE_MADT;
	uint32_t rsdp_len = sizeof(rsdp);
	char err[160], warn[512];

	mem.madt = (const uint8_t *)read_all(path, MADT_MAX, &mem.madt_len);
	if (!mem.madt)
		fatal("cannot read the MADT %s: %s%s", path, strerror(errno),
		      errno == EACCES ? " (it is readable by root only)" : "");
	sdt_header(mem.xsdt, "XSDT", sizeof(mem.xsdt));
	memcpy(mem.xsdt + 36, &madt_phys, 8);
	mem.xsdt[9] = (uint8_t)-acpi_checksum(mem.xsdt, sizeof(mem.xsdt));

	memset(rsdp, 0, sizeof(rsdp));
	memcpy(rsdp, "RSD PTR ", 8);
	memcpy(rsdp + 9, "TEMPO ", 6);
	rsdp[15] = 2;
	memcpy(rsdp + 20, &rsdp_len, 4);
	rsdp[24] = (uint8_t)FAKE_XSDT;
	rsdp[25] = (uint8_t)(FAKE_XSDT >> 8);
	rsdp[8] = (uint8_t)-acpi_checksum(rsdp, 20);
	rsdp[32] = (uint8_t)-acpi_checksum(rsdp, sizeof(rsdp));

	if (acpi_parse(rsdp, sizeof(rsdp), &am, &m->acpi, err, sizeof(err), warn, sizeof(warn)))
		fatal("%s: %s", path, err);
	/*
	 * The parser's warnings, "; "-separated. The MADT is all we serve, so
	 * "no HPET listed" is ours; the addresses are of our wrapper.
	 */
	for (char *w = strtok(warn, ";"); w; w = strtok(NULL, ";")) {
		w += strspn(w, " ");
		if (*w && !strstr(w, "no HPET listed"))
			printf("warning: %s: %s\n", path, w);
	}
	if (!m->acpi.has_madt)
		fatal("%s: not a usable MADT", path);
}

/* ---- which Linux CPU has which APIC id, and which are SMT siblings ---- */

/* Linux CPU number -> APIC id from /proc/cpuinfo; -1 where unknown. */
static void read_cpuinfo(const struct options *o, int64_t *linux_apic)
{
	char *text = read_all(path_in(o->sysroot, "/proc/cpuinfo"), 16 << 20, NULL);
	long cpu = -1;

	for (int i = 0; i < MAX_LINUX_CPUS; i++)
		linux_apic[i] = -1;
	if (!text)
		return;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		if (!strncmp(line, "processor", 9))
			cpu = strtol(colon + 1, NULL, 10);
		else if (!strncmp(line, "apicid", 6) && cpu >= 0 && cpu < MAX_LINUX_CPUS)
			linux_apic[cpu] = strtoll(colon + 1, NULL, 10);
	}
	free(text);
}

/* Tempo's index of the CPU with @apic, or -1. */
static int tempo_index(const struct machine *m, int64_t apic)
{
	for (uint32_t i = 0; i < m->cpu_count; i++)
		if (m->apic_id[i] == apic)
			return (int)i;
	return -1;
}

/* Linux CPU @lc as a Tempo index: by APIC id if cpuinfo says, else by number. */
static int linux_to_tempo(const struct machine *m, const int64_t *linux_apic, long lc)
{
	if (lc < 0 || lc >= MAX_LINUX_CPUS)
		return -1;
	if (m->have_cpuinfo)
		return linux_apic[lc] < 0 ? -1 : tempo_index(m, linux_apic[lc]);
	return lc < (long)m->cpu_count ? (int)lc : -1;
}

/* One decimal CPU number of a cpulist at *@s, or -1; *@s moves past it. */
static long cpulist_number(const char **s)
{
	long v = 0;

	if (**s < '0' || **s > '9')
		return -1;
	while (**s >= '0' && **s <= '9' && v < MAX_LINUX_CPUS)
		v = v * 10 + (*(*s)++ - '0');
	return v < MAX_LINUX_CPUS ? v : -1;
}

/*
 * A cpulist ("0-1,4") of Linux CPUs as a mask of Tempo indexes; false if
 * it is not one (then *@mask is left alone).
 */
static bool parse_cpulist(const struct machine *m, const int64_t *linux_apic, const char *s,
			  struct cpuset *mask)
{
	static struct cpuset got;

	memset(&got, 0, sizeof(got));
	do {
		long a = cpulist_number(&s), b = a;

		if (*s == '-') {
			s++;
			b = cpulist_number(&s);
		}
		if (a < 0 || b < a)
			return false;
		for (long c = a; c <= b; c++) {
			int t = linux_to_tempo(m, linux_apic, c);

			if (t >= 0)
				cpuset_add(&got, (uint32_t)t);
		}
	} while (*s == ',' && *++s);
	if (*s && *s != '\n')
		return false;
	cpuset_or(mask, &got);
	return true;
}

static void read_siblings(const struct options *o, struct machine *m, const int64_t *linux_apic)
{
	const char *dir = path_in(o->sysroot, "/sys/devices/system/cpu");
	DIR *d = opendir(dir);
	struct dirent *e;

	for (uint32_t i = 0; i < m->cpu_count; i++)
		cpuset_add(&m->siblings[i], i);
	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[4096], *text;
		long lc;
		int t;

		if (strncmp(e->d_name, "cpu", 3) || e->d_name[3] < '0' || e->d_name[3] > '9')
			continue;
		lc = strtol(e->d_name + 3, NULL, 10);
		t = linux_to_tempo(m, linux_apic, lc);
		snprintf(path, sizeof(path), "%s/%s/topology/thread_siblings_list", dir,
			 e->d_name);
		text = read_all(path, 4096, NULL);
		if (!text || t < 0) {
			free(text);
			continue;
		}
		if (parse_cpulist(m, linux_apic, text, &m->siblings[t]))
			m->have_siblings = true;
		else
			printf("warning: %s: not a CPU list, ignored\n", path);
		free(text);
	}
	closedir(d);
}

/*
 * Tempo's numbering (arch/x86/smp.c): 0 is the boot CPU, then the MADT's
 * enabled CPUs in table order. The boot CPU is Linux's CPU 0 (its APIC id
 * from /proc/cpuinfo), else the MADT's first enabled entry, which ACPI asks
 * firmware to make the boot processor.
 */
static void number_cpus(const struct options *o, struct machine *m)
{
	static int64_t linux_apic[MAX_LINUX_CPUS];
	int64_t bsp = -1;

	read_cpuinfo(o, linux_apic);
	m->have_cpuinfo = linux_apic[0] >= 0;
	for (uint32_t i = 0; i < m->acpi.cpu_count; i++) {
		if (!m->acpi.cpus[i].enabled)
			continue;
		m->madt_enabled++;
		if (bsp < 0)
			bsp = m->acpi.cpus[i].apic_id;
	}
	if (m->have_cpuinfo && tempo_index(m, 0) < 0)
		bsp = linux_apic[0];
	if (bsp < 0)
		fatal("the MADT lists no enabled CPU");
	m->apic_id[0] = (uint32_t)bsp;
	m->cpu_count = 1;
	for (uint32_t i = 0; i < m->acpi.cpu_count && m->cpu_count < TEMPO_MAX_CPUS; i++)
		if (m->acpi.cpus[i].enabled && m->acpi.cpus[i].apic_id != bsp)
			m->apic_id[m->cpu_count++] = m->acpi.cpus[i].apic_id;
	read_siblings(o, m, linux_apic);
}

/* ---- RAM, and the free memory the boot would leave the partitions ---- */

struct ram_range {
	uint64_t base, end;	/* end exclusive */
};

static void add_ram(struct machine *m, uint64_t base, uint64_t end)
{
	if (end <= base)
		return;
	if (base < IDENTITY_MAP_LIMIT)
		m->ram_low += MIN(end, IDENTITY_MAP_LIMIT) - base;
	if (end > IDENTITY_MAP_LIMIT) {
		m->ram_high += end - MAX(base, IDENTITY_MAP_LIMIT);
		/* kept for plan_memory: the boot adds them once its pool is carved */
		if (m->high_count < MEMPLAN_MAX_RANGES) {
			m->high_base[m->high_count] = MAX(base, IDENTITY_MAP_LIMIT);
			m->high_end[m->high_count++] = end;
		}
	}
	if (!memplan_add(&m->plan, base, end - base))
		printf("warning: more than %d usable RAM ranges; the rest is left out\n",
		       MEMPLAN_MAX_RANGES);
}

static uint64_t read_hex_file(const char *path, bool *ok)
{
	char *text = read_all(path, 64, NULL), *end = NULL;
	uint64_t v = 0;

	if (text) {
		errno = 0;
		v = strtoull(text, &end, 16);
	}
	*ok = text && end != text && !errno && (*end == '\n' || !*end);
	if (text && !*ok)
		printf("warning: %s: not a hexadecimal address, entry ignored\n", path);
	free(text);
	return v;
}

/* /sys/firmware/memmap/N/{start,end,type}: the map the firmware gave Linux. */
static bool read_memmap(const struct options *o, struct machine *m)
{
	const char *dir = path_in(o->sysroot, "/sys/firmware/memmap");
	DIR *d = opendir(dir);
	struct dirent *e;
	bool any = false;

	if (!d)
		return false;
	while ((e = readdir(d))) {
		char path[4096], *type;
		uint64_t base, last;
		bool ok1, ok2;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/type", dir, e->d_name);
		type = read_all(path, 64, NULL);
		snprintf(path, sizeof(path), "%s/%s/start", dir, e->d_name);
		base = read_hex_file(path, &ok1);
		snprintf(path, sizeof(path), "%s/%s/end", dir, e->d_name);
		last = read_hex_file(path, &ok2);
		if (type && ok1 && ok2 && !strncmp(type, "System RAM", 10) && last >= base) {
			add_ram(m, base, last == UINT64_MAX ? last : last + 1);
			any = true;
		}
		free(type);
	}
	closedir(d);
	return any;
}

/* /proc/iomem's top-level "System RAM" lines (all zeros unless read as root). */
static bool read_iomem(const struct options *o, struct machine *m)
{
	char *text = read_all(path_in(o->sysroot, "/proc/iomem"), 4 << 20, NULL);
	bool any = false;

	if (!text)
		return false;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long a, b;
		char name[64];

		if (line[0] == ' ' || sscanf(line, "%llx-%llx : %63[^\n]", &a, &b, name) != 3)
			continue;
		if (!strcmp(name, "System RAM") && b > a) {
			add_ram(m, a, b == UINT64_MAX ? b : b + 1);
			any = true;
		}
	}
	free(text);
	return any;
}

/*
 * The bytes tempo.elf's PT_LOAD segments span, through the loader's own ELF
 * checks (hv/core/elf.c); 0 if it is not a loadable ELF.
 */
static uint64_t elf_span(const char *path)
{
	size_t len;
	char *buf = read_all(path, 64 << 20, &len), why[120];
	static struct elf_plan plan;
	uint64_t span = 0;

	if (!buf)
		return 0;
	if (!elf_plan_load(buf, len, 0, IDENTITY_MAP_LIMIT, &plan, why, sizeof(why)))
		span = plan.highest - plan.lowest;
	free(buf);
	return span;
}

static uint64_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (uint64_t)st.st_size;
}

/*
 * What hv/start/main.c's plan_memory, map_high_ram and smp_boot leave the
 * partitions: usable RAM below 4 GiB less page 0, the image at 1 MiB, the
 * modules (GRUB loads them just above the image; their real place is in the
 * boot log), Tempo's pool (hv_pool_bytes: 8 MiB and a share for each CPU,
 * each of the config's @vcpus and each GiB of its partitions' @ram) and
 * the low 1 MiB; then every usable range
 * above 4 GiB trimmed to whole 2 MiB. (The boot also stops at the CPU's
 * physical address width and at 512 GiB of 2 MiB-page tables on a CPU
 * without 1 GiB pages; neither is known from here, and no real machine
 * reaches them.)
 */
static void plan_memory(const struct options *o, struct machine *m, uint64_t modules,
			uint64_t vcpus, uint64_t ram)
{
	uint64_t pool = hv_pool_bytes(MIN(m->madt_enabled, (uint32_t)TEMPO_MAX_CPUS), vcpus, ram);
	char hv[4096];

	snprintf(hv, sizeof(hv), "%s/tempo.elf", o->images ? o->images : "");
	m->image_bytes = o->images ? elf_span(hv) : 0;
	m->image_guessed = !m->image_bytes;
	if (m->image_guessed)
		m->image_bytes = HV_IMAGE_GUESS;
	m->module_bytes = modules;
	memplan_reserve(&m->plan, 0, PAGE);
	memplan_reserve(&m->plan, HV_LOAD_BASE, ALIGN_UP(m->image_bytes, PAGE));
	memplan_reserve(&m->plan, HV_LOAD_BASE + ALIGN_UP(m->image_bytes, PAGE), modules);
	if (!memplan_alloc(&m->plan, pool, PAGE))
		printf("ERROR: memory: no %llu KiB of free RAM below 4 GiB for the hypervisor\n",
		       (unsigned long long)(pool >> 10));
	memplan_raise_limit(&m->plan, HIGHMAP_LIMIT);
	for (uint32_t i = 0; i < m->high_count; i++) {
		uint64_t base = ALIGN_UP(m->high_base[i], HIGHMAP_GRAIN);
		uint64_t end = MIN(m->high_end[i], HIGHMAP_LIMIT) & ~(HIGHMAP_GRAIN - 1);

		if (base < end)
			memplan_add(&m->plan, base, end - base);
	}
	memplan_reserve(&m->plan, 0, MIB);
}

static void read_machine(const struct options *o, struct machine *m)
{
	memset(m, 0, sizeof(*m));
	read_madt(o, m);
	number_cpus(o, m);
	memplan_init(&m->plan, IDENTITY_MAP_LIMIT);
	if (read_memmap(o, m))
		m->mem_source = "/sys/firmware/memmap";
	else if (read_iomem(o, m))
		m->mem_source = "/proc/iomem";
	else
		fatal("no usable RAM found in %s or %s",
		      path_in(o->sysroot, "/sys/firmware/memmap"), path_in(o->sysroot, "/proc/iomem"));
	devmachine_read(o->sysroot, &m->acpi, o->hpet_free, &m->dev);
}

static void print_machine(const struct machine *m)
{
	printf("machine: %u CPUs enabled in the MADT", m->madt_enabled);
	if (m->madt_enabled > m->cpu_count)
		printf(" (Tempo uses the first %u)", m->cpu_count);
	printf("; RAM %llu MiB below 4 GiB, %llu MiB above, from %s\n",
	       (unsigned long long)(m->ram_low >> 20), (unsigned long long)(m->ram_high >> 20),
	       m->mem_source);
	for (uint32_t i = 0; i < m->cpu_count; i++) {
		printf("machine: CPU %u: APIC id %u", i, m->apic_id[i]);
		if (cpuset_count(&m->siblings[i]) > 1) {
			printf(", SMT siblings:");
			for (uint32_t j = 0; j < m->cpu_count; j++)
				if (j != i && cpuset_has(&m->siblings[i], j))
					printf(" %u", j);
		}
		printf("\n");
	}
	if (!m->have_siblings)
		printf("note: no thread_siblings_list found: SMT siblings unknown\n");
	if (!m->have_cpuinfo)
		printf("note: no APIC ids in /proc/cpuinfo: Linux CPU N taken as Tempo CPU N\n");
}

/* ---- check ---- */

/* "partitions" plus the module names the boot would have. */
struct module_set {
	uint32_t count;
	char names[16][CONFIG_NAME_LEN];
	char paths[16][4096];		/* empty: not read from a file */
	uint64_t sizes[16];
	uint64_t bytes;
};

static void add_module(struct module_set *s, const char *name, const char *path, uint64_t bytes)
{
	for (uint32_t i = 0; i < s->count; i++)
		if (!strcmp(s->names[i], name))
			return;
	if (s->count < ARRAY_SIZE(s->names)) {
		snprintf(s->paths[s->count], sizeof(s->paths[0]), "%s", path);
		s->sizes[s->count] = bytes;
		snprintf(s->names[s->count++], CONFIG_NAME_LEN, "%s", name);
		s->bytes += ALIGN_UP(bytes, PAGE);
	}
}

static const char *module_path(const struct module_set *s, const char *name, uint64_t *size)
{
	for (uint32_t i = 0; i < s->count; i++)
		if (!strcmp(s->names[i], name)) {
			*size = s->sizes[i];
			return s->paths[i];
		}
	return "";
}

/*
 * With --images DIR, the modules are the files 20_tempo would pass: NAME.elf
 * or NAME in DIR, for each name the config uses. Without it, every name the
 * config uses counts as present.
 */
static void collect_modules(const struct options *o, const struct hv_config *cfg,
			    struct module_set *s)
{
	memset(s, 0, sizeof(*s));
	add_module(s, "partitions", "", o->file ? file_size(o->file) : 0);
	for (uint32_t i = 0; i < cfg->partition_count; i++) {
		const struct partition_config *p = &cfg->partitions[i];

		for (uint32_t k = 0; k <= p->module_count && k <= CONFIG_MAX_MODULES; k++) {
			const char *name = k ? p->modules[k - 1] : p->image;
			char path[4096];
			uint64_t size;

			if (!o->images) {
				add_module(s, name, "", 0);
				continue;
			}
			snprintf(path, sizeof(path), "%s/%s.elf", o->images, name);
			size = file_size(path);
			if (!size) {
				snprintf(path, sizeof(path), "%s/%s", o->images, name);
				size = file_size(path);
			}
			if (size)
				add_module(s, name, path, size);
		}
	}
}

static int owner_of(const struct hv_config *cfg, uint32_t cpu)
{
	for (uint32_t i = 0; i < cfg->partition_count; i++)
		if (cpuset_has(&cfg->partitions[i].cpus, cpu))
			return (int)i;
	return -1;
}

static bool shared_cpu(const struct hv_config *cfg, uint32_t cpu)
{
	for (uint32_t i = 0; i < cfg->schedule_count; i++)
		if (cfg->schedules[i].cpu == cpu)
			return true;
	return false;
}

/* Siblings in different partitions slow each other down; the boot cannot see it. */
static int warn_siblings(const struct machine *m, const struct hv_config *cfg)
{
	int n = 0;

	for (uint32_t i = 0; i < m->cpu_count; i++) {
		int a = owner_of(cfg, i);

		for (uint32_t j = i + 1; j < m->cpu_count; j++) {
			int b = owner_of(cfg, j);

			if (!cpuset_has(&m->siblings[i], j) || a < 0 || b < 0 || a == b)
				continue;
			printf("warning: CPUs %u and %u are SMT siblings (one core) but CPU %u is "
			       "in '%s' and CPU %u in '%s': each slows the other down; put them "
			       "in one partition or leave one out\n", i, j, i,
			       cfg->partitions[a].name, j, cfg->partitions[b].name);
			n++;
		}
	}
	return n;
}

/*
 * hv/build/build.c's load_linux checks, before it copies anything. This and
 * check_multiboot return 0, or the length of the message put in @err.
 */
static int check_linux(const struct partition_config *pc, const struct module_set *mods,
		       const uint8_t *img, size_t len, char *err, size_t errlen)
{
	struct linux_plan plan;
	struct elf_plan segs;
	uint64_t initrd_size = 0;
	char why[160];

	if (pc->module_count == 0)
		return fmt_snprintf(err, errlen, "partition '%s' (line %u): image '%s' is a Linux "
				    "kernel and needs an initrd (modules = NAME): Tempo gives "
				    "guests no disk", pc->name, pc->line, pc->image);
	if (pc->module_count > 1)
		return fmt_snprintf(err, errlen, "partition '%s' (line %u): a Linux partition "
				    "takes one module (its initrd), not %u", pc->name, pc->line,
				    pc->module_count);
	module_path(mods, pc->modules[0], &initrd_size);
	if (linux_plan_image(img, len, pc->memory_bytes, initrd_size, &plan, &segs, why,
			     sizeof(why)))
		return fmt_snprintf(err, errlen, "image '%s': not a bootable Linux kernel: %s",
				    pc->image, why);
	return 0;
}

/* hv/build/build.c's load_image and the module placement after it. */
static int check_multiboot(const struct partition_config *pc, const struct module_set *mods,
			   const uint8_t *img, size_t len, char *err, size_t errlen)
{
	struct mb_header_info mb;
	struct elf_plan plan;
	uint64_t next;
	char why[120];

	if (mb_find_header(img, len, &mb, why, sizeof(why)))
		return fmt_snprintf(err, errlen, "image '%s': %s; " NOT_LINUX, pc->image, why);
	if (mb.has_entry_override)
		return fmt_snprintf(err, errlen, "image '%s': multiboot address/entry tags are not "
				    "supported; link it as a plain ELF", pc->image);
	if (elf_plan_load(img, len, GUEST_HIGH_START, guest_ram_low(pc->memory_bytes), &plan, why,
			  sizeof(why)))
		return fmt_snprintf(err, errlen, "image '%s': %s", pc->image, why);
	next = ALIGN_UP(plan.highest, PAGE);
	for (uint32_t i = 0; i < pc->module_count; i++) {
		uint64_t size = 0;

		module_path(mods, pc->modules[i], &size);
		if (!guest_ram_offset(pc->memory_bytes, next, size, NULL))
			return fmt_snprintf(err, errlen, "module '%s' (%lu bytes) does not fit in "
					    "the partition's memory after the image",
					    pc->modules[i], size);
		next = ALIGN_UP(next + size, PAGE);
	}
	return 0;
}

/*
 * With --images: partition @pc's image as the boot would load it. Returns 0,
 * or -1 having printed the boot's line.
 */
static int check_image(const struct partition_config *pc, const struct module_set *mods)
{
	uint64_t size = 0;
	const char *path = module_path(mods, pc->image, &size);
	char err[256];
	size_t len;
	uint8_t *img;
	int bad;

	if (!path[0])
		return 0;
	img = (uint8_t *)read_all(path, 256 << 20, &len);
	if (!img)
		fatal("cannot read %s: %s", path, strerror(errno));
	bad = linux_image(img, len) ? check_linux(pc, mods, img, len, err, sizeof(err))
				   : check_multiboot(pc, mods, img, len, err, sizeof(err));
	free(img);
	if (bad)
		report(pc->line, err);
	return bad ? -1 : 0;
}

/*
 * hv/build/build.c's partitions_build, partition by partition: the RAM, then
 * the image; its messages.
 */
static int place_partitions(struct machine *m, const struct hv_config *cfg,
			    const struct module_set *mods, uint64_t *hpa)
{
	char err[192];
	int rc = 0;

	for (uint32_t i = 0; i < cfg->partition_count; i++) {
		const struct partition_config *pc = &cfg->partitions[i];

		if (pc->base) {
			hpa[i] = pc->base;
			if (memplan_take(&m->plan, pc->base, pc->memory_bytes)) {
				rc |= check_image(pc, mods);
				continue;
			}
			fmt_snprintf(err, sizeof(err), "partition '%s' (line %u): base 0x%lx + "
				     "%lu MiB is not free usable RAM", pc->name, pc->line,
				     pc->base, pc->memory_bytes >> 20);
		} else {
			hpa[i] = memplan_alloc(&m->plan, pc->memory_bytes, 2 * MIB);
			if (hpa[i]) {
				rc |= check_image(pc, mods);
				continue;
			}
			fmt_snprintf(err, sizeof(err), "partition '%s' (line %u): no %lu MiB of "
				     "free RAM in one range (%lu MiB left, at most %lu MiB in one "
				     "range)", pc->name, pc->line, pc->memory_bytes >> 20,
				     memplan_free_bytes(&m->plan) >> 20,
				     memplan_largest(&m->plan, 2 * MIB) >> 20);
		}
		report(pc->line, err);
		rc = -1;
	}
	return rc;
}

static void print_plan(const struct machine *m, const struct hv_config *cfg, const uint64_t *hpa)
{
	bool console = false;

	for (uint32_t c = 0; c < m->cpu_count; c++) {
		int owner = owner_of(cfg, c);
		uint32_t last = c;

		if (shared_cpu(cfg, c)) {
			printf("plan: CPU %u (APIC id %u): shared by a [schedule %u]:", c,
			       m->apic_id[c], c);
			for (uint32_t i = 0; i < cfg->partition_count; i++)
				if (cpuset_has(&cfg->partitions[i].cpus, c))
					printf(" %s", cfg->partitions[i].name);
			printf("\n");
		} else if (owner >= 0) {
			const struct partition_config *p = &cfg->partitions[owner];

			printf("plan: CPU %u (APIC id %u): partition %s vCPU %u, timer %s\n", c,
			       m->apic_id[c], p->name,
			       cpuset_rank(&p->cpus, c),
			       timer_mode_name(p->timer));
		} else if (!console) {
			printf("plan: CPU %u (APIC id %u): hypervisor, drains the consoles\n", c,
			       m->apic_id[c]);
			console = true;
		} else {
			/* A run of free CPUs on one line: big machines have many. */
			while (last + 1 < m->cpu_count && owner_of(cfg, last + 1) < 0 &&
			       !shared_cpu(cfg, last + 1))
				last++;
			if (last > c)
				printf("plan: CPUs %u-%u: hypervisor (no guest)\n", c, last);
			else
				printf("plan: CPU %u (APIC id %u): hypervisor (no guest)\n", c,
				       m->apic_id[c]);
			c = last;
		}
	}
	if (!console)
		printf("warning: every CPU runs a partition: consoles are drained on guest exits, "
		       "which adds to their latency; leave one CPU free for real-time use\n");
	for (uint32_t i = 0; i < cfg->partition_count; i++) {
		const struct partition_config *p = &cfg->partitions[i];

		printf("plan: partition %s: RAM 0x%llx-0x%llx (%llu MiB, %s)\n", p->name,
		       (unsigned long long)hpa[i],
		       (unsigned long long)(hpa[i] + p->memory_bytes - 1),
		       (unsigned long long)(p->memory_bytes >> 20),
		       p->base ? "fixed base" : "carved from the top of free RAM");
		if (guest_ram_high(p->memory_bytes))
			printf("plan: partition %s: its guest sees RAM at 0x0-0x%llx and "
			       "0x%llx-0x%llx (past its MMIO window, from 4 GiB)\n", p->name,
			       (unsigned long long)(guest_ram_low(p->memory_bytes) - 1),
			       (unsigned long long)GUEST_RAM_HIGH_BASE,
			       (unsigned long long)(guest_ram_end(p->memory_bytes) - 1));
	}
	printf("plan: %llu MiB of free RAM left over\n",
	       (unsigned long long)(memplan_free_bytes(&m->plan) >> 20));
	if (m->image_guessed)
		printf("note: no tempo.elf in --images: its size taken as %llu MiB\n",
		       HV_IMAGE_GUESS >> 20);
}

/* config_validate, then the boot's placement, against @m (NULL: any machine). */
static int check_config(const struct options *o, const char *text, size_t len,
			struct machine *m)
{
	static struct hv_config cfg;
	static struct config_errors errs;
	struct config_platform plat;
	struct module_set mods;
	uint64_t hpa[CONFIG_MAX_PARTITIONS];
	int rc = 0;

	if (config_parse_all(text, len, &cfg, &errs)) {
		report_all(&errs);
		return 1;
	}
	collect_modules(o, &cfg, &mods);
	memset(&plat, 0, sizeof(plat));
	for (uint32_t i = 0; i < mods.count; i++)
		plat.module_names[plat.module_count++] = mods.names[i];
	plat.cpu_count = CONFIG_MAX_CPUS;
	plat.usable_bytes = UINT64_MAX;
	if (m) {
		uint64_t vcpus = 0, ram = 0;

		for (uint32_t i = 0; i < cfg.partition_count; i++) {
			vcpus += cpuset_count(&cfg.partitions[i].cpus);
			ram += cfg.partitions[i].memory_bytes;
		}
		/* as the boot: a config asking for more RAM than there is fails its check */
		plan_memory(o, m, mods.bytes, vcpus, MIN(ram, m->ram_low + m->ram_high));
		plat.cpu_count = m->cpu_count;
		plat.usable_bytes = memplan_free_bytes(&m->plan);
		plat.machine = &m->dev;
	}
	if (config_validate_all(&cfg, &plat, &errs)) {
		report_all(&errs);
		rc = 1;
	}
	if (!m) {
		for (uint32_t i = 0; i < cfg.partition_count; i++)
			if (check_image(&cfg.partitions[i], &mods))
				rc = 1;
		return rc;
	}
	if (rc)
		return rc;
	if (place_partitions(m, &cfg, &mods, hpa))
		return 1;
	warn_siblings(m, &cfg);
	print_plan(m, &cfg, hpa);
	return 0;
}

/*
 * Where the images are: --images DIR, else beside the config, where
 * 20_tempo takes them from; --no-images: nowhere (every name counts as there).
 */
static void default_images(struct options *o)
{
	static char dir[4096];
	char *slash;

	if (o->images || o->no_images)
		return;
	snprintf(dir, sizeof(dir), "%s", o->file);
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = 0;
	else if (slash)
		*slash = 0;
	else
		snprintf(dir, sizeof(dir), ".");
	o->images = dir;
}

/* ---- what the CPU offers: /proc/cpuinfo, and the VMX MSRs where readable ---- */

#define MSR_IA32_VMX_BASIC		0x480
#define MSR_IA32_VMX_PINBASED_CTLS	0x481
#define MSR_IA32_VMX_TRUE_PINBASED_CTLS	0x48d
#define VMX_BASIC_TRUE_CTLS		(1ull << 55)
#define PIN_PREEMPTION_TIMER		(1ull << (32 + 6))	/* allowed-1, SDM Vol. 3D A.3.1 */

/* @word is one of the blank-separated words of @list. */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p && *p;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!strncmp(p, word, n) && (p[n] == 0 || p[n] == ' ' || p[n] == '\t' ||
					     p[n] == '\n'))
			return true;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	return false;
}

/* The value of the first "@key : value" line of /proc/cpuinfo's text, or NULL. */
static char *cpuinfo_field(char *text, const char *key, char *buf, size_t size)
{
	size_t n = strlen(key);

	for (char *line = text; line && *line;) {
		char *end = strchr(line, '\n'), *colon;

		if (!strncmp(line, key, n) && (line[n] == ' ' || line[n] == '\t' || line[n] == ':')) {
			colon = strchr(line, ':');
			if (colon && (!end || colon < end)) {
				size_t len = end ? (size_t)(end - colon - 1) : strlen(colon + 1);

				snprintf(buf, size, "%.*s", (int)len, colon + 1);
				return buf;
			}
		}
		line = end ? end + 1 : NULL;
	}
	return NULL;
}

static bool read_msr(const struct options *o, uint32_t msr, uint64_t *v)
{
	int fd = open(path_in(o->sysroot, "/dev/cpu/0/msr"), O_RDONLY);
	bool ok;

	if (fd < 0)
		return false;
	ok = pread(fd, v, sizeof(*v), msr) == (ssize_t)sizeof(*v);
	close(fd);
	return ok;
}

/*
 * Refuse a CPU that lacks what the boot requires (hv/main.c stops with
 * status no-vmx there), each missing feature with its reason. Returns the
 * number of refusals; what cannot be told is a note.
 */
static int check_cpu(const struct options *o)
{
	static char flags[16384], vmx_flags[4096];
	char vendor[64] = "", *text = read_all(path_in(o->sysroot, "/proc/cpuinfo"), 16 << 20, NULL);
	const char *src = "/proc/cpuinfo";
	bool have_flags, have_vmx_flags, vmx;
	uint64_t basic, pin;
	int refused = 0;

	if (!text) {
		printf("note: %s unreadable: the CPU is not checked\n", src);
		return 0;
	}
	have_flags = cpuinfo_field(text, "flags", flags, sizeof(flags)) != NULL;
	have_vmx_flags = cpuinfo_field(text, "vmx flags", vmx_flags, sizeof(vmx_flags)) != NULL;
	cpuinfo_field(text, "vendor_id", vendor, sizeof(vendor));
	free(text);
	if (!have_flags) {
		printf("note: no flags line in %s: the CPU is not checked\n", src);
		return 0;
	}
	vmx = has_word(flags, "vmx");
	if (vendor[0] && !has_word(vendor, "GenuineIntel")) {
		printf("machine: refused: the CPU is%s, not Intel: Tempo needs Intel VT-x "
		       "(VMX)\n", vendor);
		refused++;
	} else if (!vmx) {
		printf("machine: refused: no VMX: 'vmx' is not among %s's flags (VT-x missing, "
		       "off in the firmware setup, or hidden by the hypervisor this runs in)\n",
		       src);
		refused++;
	}
	if (!has_word(flags, "x2apic")) {
		printf("machine: refused: no x2APIC: 'x2apic' is not among %s's flags\n", src);
		refused++;
	}
	if (!has_word(flags, "tsc_deadline_timer")) {
		printf("machine: refused: no TSC-deadline LAPIC timer: 'tsc_deadline_timer' is not "
		       "among %s's flags (the guests' timer and Tempo's own rest on it)\n", src);
		refused++;
	}
	if (!has_word(flags, "constant_tsc") || !has_word(flags, "nonstop_tsc")) {
		printf("machine: refused: no invariant TSC: 'constant_tsc' and 'nonstop_tsc' are "
		       "not both among %s's flags (the TSC must tick at one rate in every "
		       "C- and P-state for deadlines to mean time)\n", src);
		refused++;
	}
	if (!vmx)
		return refused;
	if (read_msr(o, MSR_IA32_VMX_BASIC, &basic) &&
	    read_msr(o, basic & VMX_BASIC_TRUE_CTLS ? MSR_IA32_VMX_TRUE_PINBASED_CTLS :
				MSR_IA32_VMX_PINBASED_CTLS, &pin)) {
		if (!(pin & PIN_PREEMPTION_TIMER)) {
			printf("machine: refused: no VMX-preemption timer: the pin-based VM-execution "
			       "controls (MSR 0x%x, /dev/cpu/0/msr) do not allow bit 6 (Tempo's "
			       "host ticks ride on it)\n", basic & VMX_BASIC_TRUE_CTLS ?
			       MSR_IA32_VMX_TRUE_PINBASED_CTLS : MSR_IA32_VMX_PINBASED_CTLS);
			refused++;
		}
	} else if (have_vmx_flags) {
		if (!has_word(vmx_flags, "preemption_timer")) {
			printf("machine: refused: no VMX-preemption timer: 'preemption_timer' is not "
			       "among %s's vmx flags (Tempo's host ticks ride on it)\n", src);
			refused++;
		}
	} else {
		printf("note: the VMX-preemption timer is not checked: /dev/cpu/0/msr is not "
		       "readable (modprobe msr; run as root) and %s has no 'vmx flags' line\n",
		       src);
	}
	return refused;
}

static int cmd_check(struct options *o)
{
	static struct machine m;
	size_t len;
	char *text;
	int rc, cpu_refused = 0;

	if (!o->file)
		die_usage();
	config_file = o->file;
	/* More than the boot takes, so that config_parse gives its own message. */
	text = read_all(o->file, 64 << 20, &len);
	if (!text && errno == EFBIG)
		fatal("%s: more than 64 MiB", o->file);
	if (!text)
		fatal("cannot read %s: %s", o->file, strerror(errno));
	default_images(o);
	if (o->machine) {
		read_machine(o, &m);
		print_machine(&m);
		cpu_refused = check_cpu(o);
	}
	rc = check_config(o, text, len, o->machine ? &m : NULL);
	if (cpu_refused && !rc)
		rc = 1;
	fflush(stderr);
	printf("%s: %s\n", o->file, rc ? (cpu_refused ? "refused (this CPU cannot run Tempo)" :
					  "refused") :
		o->machine ? "fits this machine" : "valid");
	free(text);
	return rc;
}

/* ---- create ---- */

/*
 * One partition per core the console leaves: CPU 0 and its siblings stay
 * with the hypervisor; each other core's threads go into one partition
 * (siblings together, never split), as many as the config allows and the
 * memory fits.
 */
/*
 * The core of CPU @c that create proposes as a partition: its SMT siblings
 * not yet @taken, if @c is one of them (then they are taken). False when
 * @c belongs to a core already handed out.
 */
static bool take_core(const struct machine *m, uint32_t c, struct cpuset *taken,
		      struct cpuset *core)
{
	*core = m->siblings[c];
	for (uint32_t w = 0; w < CPUSET_WORDS; w++)
		core->w[w] &= ~taken->w[w];
	if (!cpuset_has(core, c))
		return false;
	cpuset_or(taken, core);
	return true;
}

/* How many vCPUs create will propose (if the memory fits them all): for the pool. */
static uint64_t create_vcpus(const struct machine *m)
{
	static struct cpuset taken, core;
	uint64_t n = 0;
	uint32_t parts = 0;

	taken = m->siblings[0];
	for (uint32_t c = 1; c < m->cpu_count && parts < CONFIG_MAX_PARTITIONS; c++)
		if (take_core(m, c, &taken, &core)) {
			n += cpuset_count(&core);
			parts++;
		}
	return n;
}

/* create --device: the functions, and the GSIs of their INTx, for the first partition. */
static void print_devices(const struct options *o)
{
	char pci[DEV_MAX_PCI * 9 + 1] = "", irqs[DEV_MAX_PCI * 6 + 1] = "";
	int32_t listed[DEV_MAX_PCI];
	size_t np = 0, ni = 0;
	uint32_t nl = 0;

	for (uint32_t i = 0; i < o->device_count; i++) {
		uint16_t bdf = o->devices[i];
		const struct tool_pci_fn *f = devmachine_fn(bdf);
		bool seen = false;

		np += snprintf(pci + np, sizeof(pci) - np, "%s%02x:%02x.%x", np ? ", " : "",
			       bdf >> 8, (bdf >> 3) & 0x1f, bdf & 7);
		if (!f || !f->interrupt_pin || f->irq < 0)
			continue;
		for (uint32_t k = 0; k < nl; k++)
			seen |= listed[k] == f->irq;	/* two functions on one line: once */
		if (seen)
			continue;
		listed[nl++] = f->irq;
		ni += snprintf(irqs + ni, sizeof(irqs) - ni, "%s%d", ni ? ", " : "", f->irq);
	}
	if (!np)
		return;
	printf("# the devices asked for: their BARs pass through (ports by the I/O bitmap,\n"
	       "# memory by the EPT, uncached) and their IOAPIC inputs reach this partition\n"
	       "pci = %s\n", pci);
	if (ni)
		printf("irqs = %s\t\t\t# the GSIs Linux routes their INTx to here\n", irqs);
}

/* An image name create takes for a Linux kernel: it then gets an initrd. */
static bool is_linux_name(const char *image)
{
	return !strncmp(image, "linux", 5) || !strncmp(image, "vmlinuz", 7) ||
	       !strncmp(image, "bzImage", 7);
}

/* A Linux partition's initrd and command line (docs/linux.md). */
static void print_linux_keys(void)
{
	printf("modules = initrd\t\t# the initramfs beside it in /boot/tempo: Tempo gives "
	       "guests no disk\n"
	       "cmdline = \"console=ttyS0 8250.nr_uarts=1\"\t# its console is the partition's "
	       "virtual 16550\n");
}

/* The last core that is still free, for the Linux partition: taken out of @taken's complement. */
static bool take_linux_core(const struct machine *m, struct cpuset *taken, struct cpuset *core,
			    uint32_t *first)
{
	for (uint32_t c = m->cpu_count; c-- > 1;) {
		struct cpuset t = *taken;

		if (take_core(m, c, &t, core)) {
			*taken = t;
			*first = c;
			return true;
		}
	}
	return false;
}

static int cmd_create(const struct options *o)
{
	static struct machine m;
	static struct cpuset taken;
	uint64_t free_bytes;
	uint32_t parts = 0, left_out = 0;
	char size[32];

	struct cpuset linux_core;
	uint32_t linux_cpu = 0;
	uint64_t linux_hpa = 0;

	read_machine(o, &m);
	for (uint32_t i = 0; i < o->device_count; i++) {
		const struct tool_pci_fn *f = devmachine_fn(o->devices[i]);

		if (!f)
			fatal("--device %02x:%02x.%x: no such PCI function on this machine",
			      o->devices[i] >> 8, (o->devices[i] >> 3) & 0x1f, o->devices[i] & 7);
		if (f->info.header_type || (f->info.class_code >> 16) == 0x06)
			fatal("--device %02x:%02x.%x is a bridge (class 0x%06x): Tempo gives no "
			      "bridge to a partition", o->devices[i] >> 8,
			      (o->devices[i] >> 3) & 0x1f, o->devices[i] & 7, f->info.class_code);
	}
	/* the EPT share for all of the RAM: at most 4 KiB a GiB more than the boot's */
	plan_memory(o, &m, 0, create_vcpus(&m), m.ram_low + m.ram_high);
	taken = m.siblings[0];
	/* Linux first, so the real-time partitions get what is left */
	if (o->linux_part) {
		if (!take_linux_core(&m, &taken, &linux_core, &linux_cpu)) {
			fprintf(stderr, "tempo-config: no core is left for a Linux partition once CPU 0 "
				"and its siblings are kept for the console\n");
			return 1;
		}
		linux_hpa = memplan_alloc(&m.plan, o->linux_memory, 2 * MIB);
		if (!linux_hpa) {
			fprintf(stderr, "tempo-config: no %llu MiB of free RAM in one range for the "
				"Linux partition (--linux-memory)\n",
				(unsigned long long)(o->linux_memory >> 20));
			return 1;
		}
	}
	free_bytes = memplan_free_bytes(&m.plan);
	if (o->memory % MIB)
		snprintf(size, sizeof(size), "0x%llx", (unsigned long long)o->memory);
	else
		snprintf(size, sizeof(size), "%lluM", (unsigned long long)(o->memory >> 20));

	printf("# Tempo partition config proposed by `tempo-config create` for a machine with\n"
	       "# %u CPUs (MADT) and %llu MiB of RAM.\n"
	       "# Check it with: tempo-config check --machine FILE\n#\n"
	       "# CPU 0 (APIC id %u) and its SMT siblings run no guest: the first of them\n"
	       "# drains the partitions' consoles to COM1, which costs ~87 us a character.\n"
	       "# Each other core is one partition; SMT siblings stay in one partition, so\n"
	       "# no real-time vCPU shares a core with another partition's.\n\n"
	       "[hypervisor]\ntick_us = 1000\t\t\t# host tick; 0 = tickless\n",
	       m.madt_enabled, (unsigned long long)((m.ram_low + m.ram_high) >> 20), m.apic_id[0]);
	for (uint32_t c = 1; c < m.cpu_count; c++) {
		struct cpuset core;
		uint64_t hpa = 0;
		char list[256] = "";
		size_t n = 0;

		if (!take_core(&m, c, &taken, &core))
			continue;
		/* Where the boot will carve it: the plan check --machine prints. */
		if (parts < CONFIG_MAX_PARTITIONS - (o->linux_part ? 1 : 0))
			hpa = memplan_alloc(&m.plan, o->memory, 2 * MIB);
		if (!hpa) {
			left_out += cpuset_count(&core);
			continue;
		}
		for (uint32_t j = c; j < m.cpu_count; j++)
			if (cpuset_has(&core, j))
				n += snprintf(list + n, sizeof(list) - n, "%s%u", n ? "," : "", j);
		printf("\n[partition rt%u]\t\t\t# the core of CPU %u (APIC id %u)\n"
		       "cpus = %s\nmemory = %s\t\t\t# Tempo carves it from free RAM: "
		       "0x%llx here\nimage = %s\n", parts, c, m.apic_id[c], list, size,
		       (unsigned long long)hpa, o->image);
		if (is_linux_name(o->image))
			print_linux_keys();
		else if (!strcmp(o->image, "rtbench-mb2"))
			printf("# the latency guest: 100,000 timer events (about 10 s), its figures, "
			       "then it ends\ncmdline = \"workload=random count=100000 "
			       "interval_us=100 label=rt%u\"\n", parts);
		printf("timer = direct\t\t\t# a dedicated core: the guest owns its TSC deadline\n");
		if (!parts)
			print_devices(o);
		parts++;
	}
	if (o->linux_part) {
		char list[256] = "";
		size_t n = 0;

		for (uint32_t j = 1; j < m.cpu_count; j++)
			if (cpuset_has(&linux_core, j))
				n += snprintf(list + n, sizeof(list) - n, "%s%u", n ? "," : "", j);
		printf("\n[partition linux]\t\t# Linux on the core of CPU %u (APIC id %u): "
		       "docs/linux.md\ncpus = %s\nmemory = %lluM\t\t# Tempo carves it from free "
		       "RAM: 0x%llx here\nimage = linux\t\t\t# a bzImage (PREEMPT_RT for "
		       "real time)\n", linux_cpu, m.apic_id[linux_cpu], list,
		       (unsigned long long)(o->linux_memory >> 20), (unsigned long long)linux_hpa);
		print_linux_keys();
		printf("timer = direct\t\t\t# its lapic-deadline clockevent needs no exit\n");
	}
	if (left_out && parts + (o->linux_part ? 1 : 0) >= CONFIG_MAX_PARTITIONS)
		printf("\n# %u more CPU(s) stay with the hypervisor: a config has at most %d "
		       "partitions.\n", left_out, CONFIG_MAX_PARTITIONS);
	else if (left_out)
		printf("\n# %u more CPU(s) stay with the hypervisor: %u partitions of %s are what "
		       "fits in the\n# %llu MiB free (less --memory gives more).\n",
		       left_out, parts, size, (unsigned long long)(free_bytes >> 20));
	if (!parts && !o->linux_part) {
		fprintf(stderr, "tempo-config: no core is left for a partition once CPU 0 and its "
			"siblings are kept for the console\n");
		return 1;
	}
	return 0;
}

static uint64_t parse_size(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	switch (*end) {
	case 'G': case 'g':
		v <<= 30;
		end++;
		break;
	case 'M': case 'm':
		v <<= 20;
		end++;
		break;
	case 'K': case 'k':
		v <<= 10;
		end++;
		break;
	}
	if (*end || !v || v % (2 * MIB))
		fatal("--memory %s: expected a multiple of 2 MiB such as 64M", s);
	return v;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "machine", no_argument, NULL, 'm' },
		{ "sysroot", required_argument, NULL, 's' },
		{ "images", required_argument, NULL, 'i' },
		{ "memory", required_argument, NULL, 'M' },
		{ "image", required_argument, NULL, 'I' },
		{ "hpet-free", no_argument, NULL, 'H' },
		{ "device", required_argument, NULL, 'D' },
		{ "no-images", no_argument, NULL, 'n' },
		{ "linux", no_argument, NULL, 'L' },
		{ "linux-memory", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct options o = { .memory = 64 * MIB, .image = "rtbench-mb2", .linux_memory = 512 * MIB };
	const char *cmd;
	int c;

	if (argc < 2)
		die_usage();
	cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help"))
		help();
	if (!strcmp(cmd, "--version")) {
		printf("tempo-config (Tempo) %s\n", TEMPO_VERSION);
		return 0;
	}
	optind = 2;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			o.machine = true;
			break;
		case 's':
			o.sysroot = optarg;
			break;
		case 'i':
			o.images = optarg;
			break;
		case 'M':
			o.memory = parse_size(optarg);
			break;
		case 'I':
			o.image = optarg;
			break;
		case 'H':
			o.hpet_free = true;
			break;
		case 'D':
			if (o.device_count >= DEV_MAX_PCI || !devmachine_parse_bdf(optarg,
							&o.devices[o.device_count]))
				fatal("--device %s: expected BB:DD.F in hex, at most %d", optarg,
				      DEV_MAX_PCI);
			o.device_count++;
			break;
		case 'n':
			o.no_images = true;
			break;
		case 'L':
			o.linux_part = true;
			break;
		case 'l':
			o.linux_memory = parse_size(optarg);
			break;
		case 'h':
			help();
			break;
		case 'V':
			printf("tempo-config (Tempo) %s\n", TEMPO_VERSION);
			return 0;
		default:
			die_usage();
		}
	}
	if (o.images && o.no_images)
		fatal("--images and --no-images: give one");
	if (!strcmp(cmd, "check")) {
		if (optind != argc - 1)
			die_usage();
		o.file = argv[optind];
		return cmd_check(&o);
	}
	if (!strcmp(cmd, "create") && optind == argc)
		return cmd_create(&o);
	die_usage();
}
