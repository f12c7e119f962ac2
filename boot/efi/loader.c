// SPDX-License-Identifier: MIT
/*
 * BOOTX64.EFI: the Tempo EFI loader. Boots the hypervisor straight from the
 * EFI system partition, without GRUB:
 *   1. reads \EFI\tempo\tempo.conf from the volume it was loaded from
 *      (boot/efi/efiboot.h has the format),
 *   2. loads the hypervisor ELF at its physical addresses (it is linked at
 *      1 MiB) and the modules below 4 GiB,
 *   3. fills the hypervisor's struct boot_info (hv/core/boot_info.h): command
 *      line, memory map, modules, a copy of the ACPI RSDP, the EFI system
 *      table,
 *   4. exits boot services and calls the hypervisor's 64-bit entry, found
 *      through the EFI entry header (arch/x86/boot_layout.h).
 * Any error before step 4 is printed on ConOut and COM1 and the loader
 * returns an error status to the firmware, which goes on to its next boot
 * option.
 *
 * Built with GNU-EFI; Debian's crt0 calls efi_main with the SysV
 * convention, and with GNU_EFI_USE_MS_ABI every firmware call is a plain
 * call through an ms_abi function pointer.
 */
#include <efi.h>

#include "arch/x86/boot_layout.h"
#include "boot/efi/efiboot.h"
#include "hv/lib/uart16550.h"
#include "hv/core/elf.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"

#define CONF_PATH		"\\EFI\\tempo\\tempo.conf"
#define LOADER_NAME		"Tempo EFI loader"
#define PAGE_BYTES		4096ull
#define HV_MIN_ADDR		0x100000ull	/* the hypervisor never loads below 1 MiB */
#define BELOW_4G		0xffffffffull
#define AP_PAGE_LO		0x1000ull	/* where the hypervisor looks for its AP */
#define AP_PAGE_HI		0x9f000ull	/* trampoline page (arch/x86/smp.c) */
#define READ_CHUNK		(1ull << 20)
#define CR4_LA57		(1ull << 12)
#define RSDP_V1_LEN		20
#define RSDP_V2_LEN		36
#define MMAP_SLACK		16	/* descriptors the map may grow by meanwhile */

typedef void (*hv_entry_fn)(uint64_t magic, uint64_t info, uint64_t size)
	__attribute__((noreturn));

static EFI_SYSTEM_TABLE *sys;
static EFI_BOOT_SERVICES *bs;
static EFI_FILE_HANDLE root;
static bool boot_services_gone;
static bool serial_direct;	/* COM1 gets our lines unless ConOut reaches it */

/* What this loader holds, given back when it returns to the firmware. */
static struct {
	EFI_PHYSICAL_ADDRESS addr;
	UINTN pages;
} held[BOOT_INFO_MAX_MODULES + 2];
static unsigned int held_count;

static EFI_GUID loaded_image_guid = EFI_LOADED_IMAGE_PROTOCOL_GUID;
static EFI_GUID fs_guid = EFI_SIMPLE_FILE_SYSTEM_PROTOCOL_GUID;
static EFI_GUID file_info_guid = EFI_FILE_INFO_ID;
static EFI_GUID acpi20_guid = ACPI_20_TABLE_GUID;
static EFI_GUID acpi10_guid = ACPI_TABLE_GUID;

/* ---- console: ConOut while boot services last, and COM1 directly ---- */

static void con_write(const char *s)
{
	CHAR16 buf[128];
	size_t n = 0;

	if (serial_direct || boot_services_gone) {
		for (const char *p = s; *p; p++) {
			if (*p == '\n')
				uart_putc('\r');
			uart_putc(*p);
		}
	}
	if (boot_services_gone || !sys->ConOut)
		return;
	for (const char *p = s;; p++) {
		if (!*p || n + 3 >= ARRAY_SIZE(buf)) {
			buf[n] = 0;
			sys->ConOut->OutputString(sys->ConOut, buf);
			n = 0;
			if (!*p)
				break;
		}
		if (*p == '\n')
			buf[n++] = L'\r';
		buf[n++] = (CHAR16)(unsigned char)*p;
	}
}

static __attribute__((format(printf, 1, 2))) void msg(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	con_write(LOADER_NAME ": ");
	con_write(line);
	con_write("\n");
}

/*
 * Firmware with a serial console (OVMF, servers with console redirection)
 * already copies ConOut to the UART; writing there too would print every
 * line twice. Its ConOut variable names the UART then.
 */
static void pick_serial(void)
{
	static EFI_GUID global = EFI_GLOBAL_VARIABLE;
	static uint8_t dp[2048];
	UINTN n = sizeof(dp);

	serial_direct = true;
	if (!EFI_ERROR(sys->RuntimeServices->GetVariable(L"ConOut", &global, NULL, &n, dp)) &&
	    efi_devpath_has_uart(dp, n))
		serial_direct = false;
	if (serial_direct)
		uart_init(UART_COM1_PORT);
}

static const char *status_name(EFI_STATUS s)
{
	switch (s) {
	case EFI_SUCCESS:
		return "success";
	case EFI_LOAD_ERROR:
		return "load error";
	case EFI_INVALID_PARAMETER:
		return "invalid parameter";
	case EFI_UNSUPPORTED:
		return "unsupported";
	case EFI_BUFFER_TOO_SMALL:
		return "buffer too small";
	case EFI_DEVICE_ERROR:
		return "device error";
	case EFI_OUT_OF_RESOURCES:
		return "out of resources";
	case EFI_VOLUME_CORRUPTED:
		return "volume corrupted";
	case EFI_NOT_FOUND:
		return "not found";
	case EFI_ACCESS_DENIED:
		return "access denied";
	}
	return "error";
}

/* Print "ERROR: ..." and return @s, which efi_main hands to the firmware. */
static __attribute__((format(printf, 2, 3))) EFI_STATUS fail(EFI_STATUS s, const char *fmt,
							    ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	msg("ERROR: %s", line);
	msg("returning to the firmware (status 0x%lx, %s)", (uint64_t)s, status_name(s));
	return s;
}

/* ---- files on the boot volume ---- */

static EFI_STATUS open_root(EFI_HANDLE image)
{
	EFI_LOADED_IMAGE *li;
	EFI_SIMPLE_FILE_SYSTEM_PROTOCOL *fs;
	EFI_STATUS s;

	s = bs->HandleProtocol(image, &loaded_image_guid, (void **)&li);
	if (EFI_ERROR(s))
		return fail(s, "no loaded-image protocol on our own image: %s", status_name(s));
	s = bs->HandleProtocol(li->DeviceHandle, &fs_guid, (void **)&fs);
	if (EFI_ERROR(s))
		return fail(s, "the volume this loader came from has no file system: %s",
			    status_name(s));
	s = fs->OpenVolume(fs, &root);
	if (EFI_ERROR(s))
		return fail(s, "cannot open the boot volume: %s", status_name(s));
	return EFI_SUCCESS;
}

/* Open @path (ASCII, backslashes) on the boot volume and get its size. */
static EFI_STATUS open_file(const char *path, EFI_FILE_HANDLE *fh, uint64_t *size)
{
	CHAR16 wpath[EFI_CONF_PATH_LEN];
	static uint64_t info_buf[(sizeof(EFI_FILE_INFO) + 512 * sizeof(CHAR16)) / 8 + 1];
	EFI_FILE_INFO *info = (EFI_FILE_INFO *)info_buf;
	UINTN n = sizeof(info_buf);
	size_t i;
	EFI_STATUS s;

	for (i = 0; path[i] && i + 1 < ARRAY_SIZE(wpath); i++)
		wpath[i] = (CHAR16)(unsigned char)path[i];
	wpath[i] = 0;
	s = root->Open(root, fh, wpath, EFI_FILE_MODE_READ, 0);
	if (EFI_ERROR(s))
		return fail(s, "cannot open %s: %s", path, status_name(s));
	s = (*fh)->GetInfo(*fh, &file_info_guid, &n, info);
	if (EFI_ERROR(s)) {
		(*fh)->Close(*fh);
		return fail(s, "cannot get the size of %s: %s", path, status_name(s));
	}
	if (info->Attribute & EFI_FILE_DIRECTORY) {
		(*fh)->Close(*fh);
		return fail(EFI_NOT_FOUND, "%s is a directory, not a file", path);
	}
	*size = info->FileSize;
	return EFI_SUCCESS;
}

static EFI_STATUS read_file(const char *path, EFI_FILE_HANDLE fh, void *buf, uint64_t size)
{
	uint64_t done = 0;

	while (done < size) {
		UINTN n = MIN(size - done, READ_CHUNK);
		EFI_STATUS s = fh->Read(fh, &n, (uint8_t *)buf + done);

		if (EFI_ERROR(s))
			return fail(s, "reading %s at offset %lu: %s", path, done, status_name(s));
		if (!n)
			return fail(EFI_LOAD_ERROR, "%s: the file ended at %lu of %lu bytes", path,
				    done, size);
		done += n;
	}
	return EFI_SUCCESS;
}

/* A whole file in boot-services pool memory (freed by ExitBootServices). */
static EFI_STATUS load_pool(const char *path, void **buf, uint64_t *size)
{
	EFI_FILE_HANDLE fh;
	EFI_STATUS s;

	s = open_file(path, &fh, size);
	if (EFI_ERROR(s))
		return s;
	s = bs->AllocatePool(EfiBootServicesData, *size ? *size : 1, buf);
	if (EFI_ERROR(s)) {
		fh->Close(fh);
		return fail(s, "no memory for %s (%lu bytes): %s", path, *size, status_name(s));
	}
	s = read_file(path, fh, *buf, *size);
	fh->Close(fh);
	if (EFI_ERROR(s))
		bs->FreePool(*buf);
	return s;
}

/*
 * Loader code or data pages (boot_info reports both reserved), remembered
 * so that an error gives them back. @how is AllocateAddress or
 * AllocateMaxAddress.
 */
static EFI_STATUS alloc_pages(EFI_ALLOCATE_TYPE how, EFI_MEMORY_TYPE type, uint64_t pages,
			      uint64_t *addr)
{
	EFI_PHYSICAL_ADDRESS a = *addr;
	EFI_STATUS s;

	if (held_count >= ARRAY_SIZE(held))
		return EFI_OUT_OF_RESOURCES;
	s = bs->AllocatePages(how, type, pages, &a);
	if (EFI_ERROR(s))
		return s;
	held[held_count].addr = a;
	held[held_count++].pages = pages;
	*addr = a;
	return EFI_SUCCESS;
}

static void free_held(void)
{
	while (held_count) {
		held_count--;
		bs->FreePages(held[held_count].addr, held[held_count].pages);
	}
}

/* Pages anywhere below 4 GiB. */
static EFI_STATUS alloc_low(uint64_t bytes, uint64_t *addr, const char *what)
{
	uint64_t pages = bytes ? (bytes + PAGE_BYTES - 1) / PAGE_BYTES : 1;
	EFI_STATUS s;

	*addr = BELOW_4G;
	s = alloc_pages(AllocateMaxAddress, EfiLoaderData, pages, addr);
	if (EFI_ERROR(s))
		return fail(s, "no %lu KiB below 4 GiB for %s: %s", pages * 4, what,
			    status_name(s));
	return EFI_SUCCESS;
}

/* ---- the hypervisor image ---- */

/* The EFI entry header's entry point, which must lie in executable code. */
static EFI_STATUS find_entry(const char *path, const uint8_t *img, uint64_t len,
			     const struct elf_plan *plan, uint64_t *entry)
{
	uint64_t limit = MIN(len, (uint64_t)EFI_ENTRY_HDR_SEARCH);

	for (uint64_t off = 0; off + 16 <= limit; off += 8) {
		if (rd64(img + off) != EFI_ENTRY_HDR_MAGIC)
			continue;
		*entry = rd64(img + off + 8);
		for (uint32_t i = 0; i < plan->segment_count; i++) {
			const struct elf_segment *g = &plan->segments[i];

			if (g->exec && *entry >= g->paddr && *entry - g->paddr < g->mem_size)
				return EFI_SUCCESS;
		}
		return fail(EFI_LOAD_ERROR, "%s: the EFI entry point 0x%lx is not in an "
			    "executable segment", path, *entry);
	}
	return fail(EFI_LOAD_ERROR, "%s has no EFI entry header (magic \"TempoEFI\" in its first "
		    "%u bytes): not a Tempo hypervisor with the 64-bit entry", path,
		    EFI_ENTRY_HDR_SEARCH);
}

static EFI_STATUS load_hypervisor(const char *path, uint64_t *entry)
{
	struct elf_plan plan;
	char err[160];
	void *img;
	uint64_t len, lo, hi;
	uint64_t at;
	EFI_STATUS s;

	s = load_pool(path, &img, &len);
	if (EFI_ERROR(s))
		return s;
	if (elf_plan_load(img, len, HV_MIN_ADDR, IDENTITY_MAP_LIMIT, &plan, err, sizeof(err))) {
		s = fail(EFI_LOAD_ERROR, "%s: %s", path, err);
		goto out;
	}
	if (!plan.is64) {
		s = fail(EFI_LOAD_ERROR, "%s is a 32-bit ELF; the hypervisor is ELF64 x86-64",
			 path);
		goto out;
	}
	s = find_entry(path, img, len, &plan, entry);
	if (EFI_ERROR(s))
		goto out;

	/*
	 * One allocation for the whole span: segments may share a page. Loader
	 * code, not data: _start_efi64 runs on the firmware's page tables, and
	 * firmware with memory protection maps data types no-execute.
	 */
	lo = plan.lowest & ~(PAGE_BYTES - 1);
	hi = ALIGN_UP(plan.highest, PAGE_BYTES);
	at = lo;
	s = alloc_pages(AllocateAddress, EfiLoaderCode, (hi - lo) / PAGE_BYTES, &at);
	if (EFI_ERROR(s)) {
		s = fail(s, "cannot claim [0x%lx-0x%lx) for %s, which is linked there: %s; the "
			 "firmware uses part of that memory", lo, hi, path, status_name(s));
		goto out;
	}
	memset((void *)(uintptr_t)lo, 0, hi - lo);
	for (uint32_t i = 0; i < plan.segment_count; i++) {
		const struct elf_segment *g = &plan.segments[i];

		memcpy((void *)(uintptr_t)g->paddr, (const uint8_t *)img + g->file_offset,
		       g->file_size);
	}
	msg("%s: %lu bytes, loaded at [0x%lx-0x%lx), entry 0x%lx", path, len, lo, hi, *entry);
out:
	bs->FreePool(img);
	return s;
}

static EFI_STATUS load_module(const struct efi_conf_module *cm, struct boot_module *m)
{
	EFI_FILE_HANDLE fh;
	uint64_t size, at;
	EFI_STATUS s;

	s = open_file(cm->path, &fh, &size);
	if (EFI_ERROR(s))
		return s;
	s = alloc_low(size, &at, cm->path);
	if (!EFI_ERROR(s))
		s = read_file(cm->path, fh, (void *)(uintptr_t)at, size);
	fh->Close(fh);
	if (EFI_ERROR(s))
		return s;
	m->start = at;
	m->end = at + size;
	memcpy(m->cmdline, cm->string, sizeof(m->cmdline));
	msg("module %s \"%s\": %lu bytes at 0x%lx", cm->path, cm->string, size, at);
	return EFI_SUCCESS;
}

/* ---- platform ---- */

static bool guid_eq(const EFI_GUID *a, const EFI_GUID *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* A copy of the RSDP from the configuration table, ACPI 2.0+ preferred. */
static EFI_STATUS find_rsdp(struct boot_info *bi)
{
	const uint8_t *v1 = NULL, *v2 = NULL, *p;

	for (UINTN i = 0; i < sys->NumberOfTableEntries; i++) {
		EFI_CONFIGURATION_TABLE *t = &sys->ConfigurationTable[i];

		if (guid_eq(&t->VendorGuid, &acpi20_guid))
			v2 = t->VendorTable;
		else if (guid_eq(&t->VendorGuid, &acpi10_guid))
			v1 = t->VendorTable;
	}
	p = v2 ? v2 : v1;
	if (!p)
		return fail(EFI_NOT_FOUND, "no ACPI RSDP in the EFI configuration table; Tempo "
			    "needs ACPI (the MADT) to find the CPUs");
	if (memcmp(p, "RSD PTR ", 8))
		return fail(EFI_NOT_FOUND, "the ACPI %s table at 0x%lx has no \"RSD PTR \" "
			    "signature", v2 ? "2.0" : "1.0", (uint64_t)(uintptr_t)p);
	bi->rsdp_revision = p[15];
	bi->rsdp_len = bi->rsdp_revision >= 2 ? RSDP_V2_LEN : RSDP_V1_LEN;
	memcpy(bi->rsdp, p, bi->rsdp_len);
	bi->rsdp_phys = (uint64_t)(uintptr_t)p;
	bi->has_rsdp = true;
	return EFI_SUCCESS;
}

static EFI_STATUS check_paging(void)
{
	uint64_t cr4;

	asm volatile("mov %%cr4, %0" : "=r"(cr4));
	if (cr4 & CR4_LA57)
		return fail(EFI_UNSUPPORTED, "the firmware runs with 5-level paging (CR4.LA57), "
			    "which cannot be turned off in long mode; Tempo's entry needs 4-level "
			    "paging");
	return EFI_SUCCESS;
}

/* ---- the memory map and ExitBootServices ---- */

struct map_buf {
	void *map;
	UINTN cap;		/* bytes */
	UINTN size, key, desc_size;
	UINT32 desc_version;
};

/* The buffer comes first: allocating later would change the map. */
static EFI_STATUS map_alloc(struct map_buf *m)
{
	EFI_STATUS s;

	m->size = 0;
	s = bs->GetMemoryMap(&m->size, NULL, &m->key, &m->desc_size, &m->desc_version);
	if (s != EFI_BUFFER_TOO_SMALL || m->desc_size < sizeof(struct efi_mem_desc))
		return fail(EFI_ERROR(s) ? s : EFI_DEVICE_ERROR, "GetMemoryMap: %s, descriptor "
			    "size %lu", status_name(s), (uint64_t)m->desc_size);
	/* This allocation may add descriptors of its own. */
	m->cap = m->size + MMAP_SLACK * m->desc_size;
	s = bs->AllocatePool(EfiBootServicesData, m->cap, &m->map);
	if (EFI_ERROR(s))
		return fail(s, "no memory for the memory map: %s", status_name(s));
	return EFI_SUCCESS;
}

/* Only GetMemoryMap, no printing: ConOut may allocate and change the map. */
static EFI_STATUS map_get(struct map_buf *m, struct boot_info *bi)
{
	EFI_STATUS s;

	m->size = m->cap;
	s = bs->GetMemoryMap(&m->size, m->map, &m->key, &m->desc_size, &m->desc_version);
	if (EFI_ERROR(s))
		return s;
	if (efi_mmap_convert(m->map, m->size, m->desc_size, bi))
		return EFI_INCOMPATIBLE_VERSION;	/* descriptors shorter than v1's */
	return EFI_SUCCESS;
}

static EFI_STATUS exit_boot_services(EFI_HANDLE image, struct boot_info *bi)
{
	struct map_buf m;
	EFI_STATUS s;

	s = map_alloc(&m);
	if (EFI_ERROR(s))
		return s;
	s = map_get(&m, bi);
	if (EFI_ERROR(s))
		return fail(s, "GetMemoryMap: %s", status_name(s));
	if (!boot_mmap_usable_page(bi, AP_PAGE_LO, AP_PAGE_HI))
		return fail(EFI_OUT_OF_RESOURCES, "no usable page in [0x%llx-0x%llx) for the AP "
			    "trampoline", AP_PAGE_LO, AP_PAGE_HI);
	s = bs->ExitBootServices(image, m.key);
	if (s == EFI_INVALID_PARAMETER) {
		/* The map changed since we read it (an event ran): read it again, once. */
		boot_services_gone = true;
		s = map_get(&m, bi);
		if (!EFI_ERROR(s))
			s = bs->ExitBootServices(image, m.key);
	}
	if (EFI_ERROR(s)) {
		/* No firmware console any more: COM1 is all that is left. */
		boot_services_gone = true;
		if (!serial_direct)
			uart_init(UART_COM1_PORT);
		return fail(s, "ExitBootServices: %s", status_name(s));
	}
	boot_services_gone = true;
	bi->has_efi_mmap = true;
	return EFI_SUCCESS;
}

/* ---- putting it together ---- */

static EFI_STATUS read_conf(struct efi_conf *conf)
{
	char err[160];
	void *text;
	uint64_t len;
	EFI_STATUS s;

	s = load_pool(CONF_PATH, &text, &len);
	if (EFI_ERROR(s))
		return s;
	if (efi_conf_parse(text, len, conf, err, sizeof(err)))
		s = fail(EFI_LOAD_ERROR, "%s: %s", CONF_PATH, err);
	bs->FreePool(text);
	return s;
}

static EFI_STATUS boot(EFI_HANDLE image)
{
	static struct efi_conf conf;
	struct boot_info *bi;
	uint64_t bi_addr, entry;
	EFI_STATUS s;

	s = check_paging();
	if (EFI_ERROR(s))
		return s;
	s = open_root(image);
	if (EFI_ERROR(s))
		return s;
	s = read_conf(&conf);
	if (EFI_ERROR(s))
		return s;

	s = alloc_low(sizeof(*bi), &bi_addr, "the boot information");
	if (EFI_ERROR(s))
		return s;
	bi = (struct boot_info *)(uintptr_t)bi_addr;
	memset(bi, 0, sizeof(*bi));
	memcpy(bi->cmdline, conf.cmdline, sizeof(bi->cmdline));
	str_copy(bi->loader_name, sizeof(bi->loader_name), LOADER_NAME, sizeof(LOADER_NAME));
	bi->info_phys = bi_addr;
	bi->info_size = sizeof(*bi);
	bi->efi64_system_table = (uint64_t)(uintptr_t)sys;
	bi->has_efi64_system_table = true;

	s = load_hypervisor(conf.hypervisor, &entry);
	if (EFI_ERROR(s))
		return s;
	for (uint32_t i = 0; i < conf.module_count; i++) {
		s = load_module(&conf.modules[i], &bi->modules[i]);
		if (EFI_ERROR(s))
			return s;
		bi->module_count++;
	}
	s = find_rsdp(bi);
	if (EFI_ERROR(s))
		return s;
	msg("ACPI RSDP revision %u at 0x%lx; command line \"%s\"", bi->rsdp_revision,
	    bi->rsdp_phys, bi->cmdline);
	msg("exiting boot services, entering the hypervisor at 0x%lx", entry);

	s = exit_boot_services(image, bi);
	if (EFI_ERROR(s))
		return s;
	((hv_entry_fn)(uintptr_t)entry)(EFI_BOOT_MAGIC, bi_addr, sizeof(*bi));
	__builtin_unreachable();
}

/* Not EFIAPI: Debian's crt0 calls efi_main with the SysV convention. */
EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab);
EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	EFI_STATUS s;

	sys = systab;
	bs = systab->BootServices;
	pick_serial();
	msg("version %s, reading %s", TEMPO_VERSION, CONF_PATH);
	s = boot(image);
	/* Only errors come back; once boot services are gone nothing is freed. */
	if (!boot_services_gone) {
		free_held();
		if (root)
			root->Close(root);
	}
	return s;
}
