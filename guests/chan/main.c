// SPDX-License-Identifier: MIT
/*
 * chan: two partitions that talk through a Tempo channel (docs/channels.md).
 * role=send writes numbered messages into the channel and rings its peer;
 * role=recv takes each doorbell, checks the number and sums the data; then
 * the two play ping-pong for the round trip. Both print a CHANTEST line
 * (../shared/LINES.md) and VCPU_STATS around the one-way phase, so a script
 * can count each side's exits per doorbell. Other roles test the edges:
 * flood (rings as fast as it can: the doorbell_limit must hold it back;
 * sink counts what reaches it),
 * write (a write to the channel, which stops a ro peer), nonpeer (every
 * channel call refused, then a read where a channel would be), restart
 * and ringer (a peer's restart keeps the channel and forgets its doorbell),
 * client (the echo protocol of guests/common/chan_echo.h against a server:
 * Linux's tempo-chan, through its module or sysfs, in sessions=N rounds).
 * via=pci uses the channel's PCI function instead of the hypercalls: the
 * config space through 0xCF8/0xCFC, the doorbell's vector through its MSI
 * capability, and each ring a MOV to BAR0's DOORBELL register (trapped MMIO).
 *
 *   role=send|recv|flood|sink|write|nonpeer|restart|ringer|client  count=N (one-way
 *   messages; client: requests a session)  sessions=N  wait_s=N (client: for the server)
 *   period_us=N (client: one request per period, a control loop's pace; 0: back to back)
 *   rtt=N (round trips)  vector=0x40  wait=hlt|busy  ms=N (flood)
 *   addr=0x... (nonpeer: the address to read)  exec=1 (flood: then call into
 *   the channel, which is never executable)  mode_probe=1 (first ask for
 *   direct mode and print the answer and the mode it then has)
 */
#include "guests/common/bootinfo.h"
#include "guests/common/console.h"
#include "guests/common/exc.h"
#include "guests/common/guest.h"
#include "guests/common/chan_echo.h"
#include "guests/common/tempo.h"
#include "guests/common/x86.h"
#include "guests/rtbench/latstat.h"
#include "hv/lib/div64.h"
#include "hv/lib/fmt.h"
#include "hv/core/chan_pci_abi.h"
#include "hv/lib/lib.h"
#include "hv/lib/x86.h"

#define MSR_IA32_TSC_DEADLINE	0x6e0
#define MSR_X2APIC_EOI		0x80b
#define MSR_X2APIC_LVT_TIMER	0x832
#define APIC_LVT_TSC_DEADLINE	(2u << 17)
#define BACKSTOP_VECTOR		0xe0	/* the wait's own deadline: wakes a HLT that nothing else would */
#define MSR_X2APIC_SVR		0x80f
#define APIC_SVR_ENABLE		(1u << 8)
#define APIC_SPURIOUS_VECTOR	0xff
#define STRAY_STUB_SIZE		16	/* guests/rtbench/irq.S */
#define READY_MAGIC		0x52454459u	/* "REDY" */
#define RING_SLOTS		64
#define OUTLIERS		256
#define WAIT_MS			2000	/* for the peer, for one message */

const char guest_name[] = "chan";

/* What the two peers share: the start of the channel. */
struct chan_shm {
	volatile uint32_t ready[TEMPO_CHANNEL_MAX_PEERS];	/* each peer, once bound */
	volatile uint32_t phase2[TEMPO_CHANNEL_MAX_PEERS];	/* the one-way phase done */
	volatile uint32_t seq;		/* the sender's latest message */
	volatile uint32_t ack;		/* the receiver's latest taken */
	volatile uint64_t send_tsc;	/* TSC just before the ring */
	volatile uint64_t data[RING_SLOTS];
	volatile uint32_t generation;	/* role=restart: its instances so far */
};

enum role {
	ROLE_SEND, ROLE_RECV, ROLE_FLOOD, ROLE_SINK, ROLE_WRITE, ROLE_NONPEER, ROLE_RESTART,
	ROLE_RINGER, ROLE_CLIENT, ROLE_COUNT
};
static const char *const role_names[ROLE_COUNT] = {
	"send", "recv", "flood", "sink", "write", "nonpeer", "restart", "ringer", "client",
};

/* irq.S (shared with rtbench) calls these */
void rt_timer_stub(void);
void rt_spurious_stub(void);
extern const uint8_t rt_stray_stubs[];
void rt_timer_irq(uint64_t tsc);
void rt_stray_irq(uint32_t vector);
volatile uint32_t rt_spurious_count;

static struct tempo_cpuid tempo;
static struct boot_params boot;
static struct tempo_partition_info pinfo __attribute__((aligned(64)));
static struct tempo_channel_info cinfo __attribute__((aligned(64)));
static struct chan_shm *shm;
static enum role role;
static uint32_t count = 100000, rtt = 1000, vector = 0x40, flood_ms = 20, peer;
static uint32_t sessions = 1, wait_s = 300, period_us;
static bool wait_hlt = true, exec_test, via_pci, mode_probe;
static volatile uint32_t *bar0;		/* via=pci: the function's registers */
static uint64_t addr, tsc_per_ms;

static struct lat_stats lat;
static uint32_t lat_exact[LAT_EXACT_TICKS];
static int64_t lat_outliers[OUTLIERS];

/* the handler's view: written with IF = 0, read by the main loop */
static volatile uint32_t got, doubled, skipped, strays, last_seq, rtt_answered, backstops;
static volatile uint64_t sum, irq_tsc;
static volatile bool rtt_phase;

void guest_panic(const char *why)
{
	asm volatile("cli");
	con_printf("chan: FAILED: %s\n", why);
	if (tempo.present)
		tempo_hypercall(TEMPO_HC_SHUTDOWN, 1, 0, 0);
	halt_forever();
}

/* The data of message @i: any mix the receiver can check. */
static uint64_t message(uint32_t i)
{
	uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15ull;

	return x ^ (x >> 29);
}

static int32_t ring(uint32_t to)
{
	if (via_pci) {
		/*
		 * A MOV to BAR0: one EPT-violation exit, the same checks as the
		 * hypercall. Its result is RING_RESULT, a second exit: read only
		 * where a ring may be refused (the flood).
		 */
		bar0[TEMPO_CHAN_DOORBELL / 4] = TEMPO_CHAN_DOORBELL_PEER(to);
		return role == ROLE_FLOOD ? (int32_t)bar0[TEMPO_CHAN_RING_RESULT / 4] : 1;
	}
	return tempo_hypercall(TEMPO_HC_CHANNEL_RING, 0, to, 0);
}

void rt_timer_irq(uint64_t tsc)
{
	uint32_t s = shm->seq;

	irq_tsc = tsc;
	got++;
	if (role == ROLE_RECV && !rtt_phase) {
		if (s == last_seq) {
			doubled++;	/* a doorbell with no new message */
		} else {
			skipped += s - last_seq - 1;
			last_seq = s;
			sum += shm->data[s % RING_SLOTS];
			lat_add(&lat, (int64_t)(tsc - shm->send_tsc));
			shm->ack = s;
		}
	} else if (role == ROLE_RECV) {
		shm->ack = s;	/* ping-pong: answer at once */
		ring(peer);
		rtt_answered++;
	}
	wrmsr(MSR_X2APIC_EOI, 0);
}

void rt_stray_irq(uint32_t v)
{
	if (v == BACKSTOP_VECTOR)
		backstops++;
	else
		strays++;
	wrmsr(MSR_X2APIC_EOI, 0);
}

static void idt_init(void)
{
	for (uint32_t v = 32; v < APIC_SPURIOUS_VECTOR; v++)
		exc_set_gate(v, (uint32_t)rt_stray_stubs + STRAY_STUB_SIZE * (v - 32));
	exc_set_gate(vector, (uint32_t)rt_timer_stub);
	exc_set_gate(APIC_SPURIOUS_VECTOR, (uint32_t)rt_spurious_stub);
}

static uint32_t opt_u32(const char *key, uint32_t lo, uint32_t hi, uint32_t def)
{
	char value[24];
	uint64_t v;

	if (!cmdline_value(boot.cmdline, key, value, sizeof(value)))
		return def;
	if (!parse_number(value, &v) || v < lo || v > hi) {
		con_printf("chan: bad option %s=%s (%u-%u)\n", key, value, lo, hi);
		guest_panic("bad command line");
	}
	return (uint32_t)v;
}

static void parse_options(void)
{
	char value[24];

	role = ROLE_COUNT;
	if (cmdline_value(boot.cmdline, "role", value, sizeof(value)))
		for (uint32_t i = 0; i < ROLE_COUNT; i++)
			if (!strcmp(value, role_names[i]))
				role = i;
	if (role == ROLE_COUNT)
		guest_panic("role=send|recv|flood|sink|write|nonpeer|restart|ringer|client is required");
	count = opt_u32("count", 1, 10000000, count);
	rtt = opt_u32("rtt", 0, 10000000, rtt);
	vector = opt_u32("vector", TEMPO_CHANNEL_VECTOR_MIN, TEMPO_CHANNEL_VECTOR_MAX, vector);
	flood_ms = opt_u32("ms", 1, 100000, flood_ms);
	if (cmdline_value(boot.cmdline, "wait", value, sizeof(value)))
		wait_hlt = strcmp(value, "busy") != 0;
	exec_test = opt_u32("exec", 0, 1, 0);
	mode_probe = opt_u32("mode_probe", 0, 1, 0);
	sessions = opt_u32("sessions", 1, 100, sessions);
	wait_s = opt_u32("wait_s", 1, 100000, wait_s);
	period_us = opt_u32("period_us", 0, 1000000, period_us);
	if (cmdline_value(boot.cmdline, "via", value, sizeof(value)))
		via_pci = !strcmp(value, "pci");
	if (cmdline_value(boot.cmdline, "addr", value, sizeof(value)) &&
	    !parse_number(value, &addr))
		guest_panic("addr= is not a number");
}

/*
 * Wait until *@p == @want (or, with @at_least, >= it); false after @ms. HLT
 * (wait=hlt) only where a doorbell will come: in direct mode it halts the
 * core in the guest, and the doorbell's IPI wakes it with no exit.
 */
static bool wait_for(volatile uint32_t *p, uint32_t want, bool at_least, uint32_t ms, bool hlt)
{
	uint64_t end = rdtsc() + ms * tsc_per_ms;

	if (hlt && wait_hlt)
		wrmsr(MSR_IA32_TSC_DEADLINE, end);	/* direct mode: no exit */
	while (at_least ? *p < want : *p != want) {
		if (rdtsc() > end)
			return false;
		/* interrupts on only here: the handlers change what the loop tests */
		if (hlt && wait_hlt)
			asm volatile("sti; hlt; cli");	/* a doorbell wakes it */
		else
			asm volatile("sti; pause; cli");
	}
	return true;
}

static void stats_mark(void)
{
	uint32_t a, b, c, d;

	cpuid(TEMPO_CPUID_STATS, 0, &a, &b, &c, &d);
}

static void print_lat(const char *what, const char *key)
{
	int64_t p99 = 0;

	lat_finish(&lat);
	if (!lat_percentile(&lat, 99, &p99))
		p99 = lat.max;
	con_printf("chan: %s: %llu samples, min %lld avg %lld p99 %lld max %lld ticks\n", what,
		   lat.n, lat.n ? lat.min : 0, lat.n ? lat_avg(&lat) : 0, p99, lat.n ? lat.max : 0);
	con_printf("CHANTEST_LAT role=%s kind=%s samples=%llu %s_min_ticks=%lld %s_avg_ticks=%lld "
		   "%s_p99_ticks=%lld %s_max_ticks=%lld\n", role_names[role], key, lat.n, key,
		   lat.n ? lat.min : 0, key, lat.n ? lat_avg(&lat) : 0, key, p99, key,
		   lat.n ? lat.max : 0);
}

/* One-way: count messages, each rung once; the receiver acks through memory. */
static void run_send(void)
{
	uint32_t lost = 0, throttled = 0, dropped = 0;
	uint64_t expect = 0;

	if (!wait_for(&shm->ready[peer], READY_MAGIC, false, 10 * WAIT_MS, false))
		guest_panic("the peer never bound its doorbell");
	stats_mark();
	for (uint32_t i = 1; i <= count; i++) {
		int32_t r;

		shm->data[i % RING_SLOTS] = message(i);
		expect += message(i);
		shm->send_tsc = rdtsc();
		shm->seq = i;
		while ((r = ring(peer)) == TEMPO_HC_EAGAIN)
			throttled++;
		if (r != 1)
			dropped++;
		if (!wait_for(&shm->ack, i, false, WAIT_MS, false))
			lost++;
	}
	stats_mark();
	con_printf("CHANTEST role=send channel=%s messages=%u lost=%u throttled=%u dropped=%u "
		   "sum=0x%llx\n", cinfo.name, count, lost, throttled, dropped, expect);
	if (!wait_for(&shm->phase2[peer], READY_MAGIC, false, 10 * WAIT_MS, false))
		guest_panic("the peer never finished the one-way phase");
	/* round trips: the receiver rings back from its handler */
	lat_init(&lat, lat_exact, lat_outliers, OUTLIERS);
	for (uint32_t i = 1; i <= rtt; i++) {
		uint32_t before = got;
		uint64_t t0 = rdtsc();
		int32_t r;

		shm->seq = count + i;
		r = ring(peer);
		if (r != 1 || !wait_for(&got, before + 1, true, WAIT_MS, true)) {
			if (!lost++)
				con_printf("chan: round trip %u lost (ring %d, %u doorbells here)\n", i,
					   (int)r, got);
			continue;
		}
		lat_add(&lat, (int64_t)(irq_tsc - t0));
	}
	print_lat("round trip (send's TSC before the ring to its own handler)", "rtt");
	con_printf("CHANTEST role=send phase=rtt rounds=%u lost=%u strays=%u backstops=%u\n", rtt,
		   lost, strays, backstops);
}

static void run_recv(void)
{
	uint64_t expect = 0;
	bool all;

	shm->ready[cinfo.self] = READY_MAGIC;
	stats_mark();
	all = wait_for(&last_seq, count, false, (count / 100 + 10) * WAIT_MS, true);
	stats_mark();
	for (uint32_t i = 1; i <= count; i++)
		expect += message(i);
	print_lat("one-way (send's TSC before the ring to this handler)", "lat");
	con_printf("CHANTEST role=recv channel=%s messages=%u received=%u doorbells=%u lost=%u "
		   "doubled=%u checksum_ok=%u strays=%u\n", cinfo.name, count, last_seq, got,
		   count - last_seq + skipped, doubled, sum == expect && all, strays);
	rtt_phase = true;
	shm->phase2[cinfo.self] = READY_MAGIC;
	wait_for(&rtt_answered, rtt, false, (rtt / 100 + 10) * WAIT_MS, true);
	con_printf("CHANTEST role=recv phase=rtt answered=%u backstops=%u\n", rtt_answered,
		   backstops);
}

/* As many rings as it can for flood_ms: how many the limit let through. */
static void run_flood(void)
{
	uint32_t sent = 0, refused = 0, other = 0;
	uint64_t end;

	if (!wait_for(&shm->ready[peer], READY_MAGIC, false, 10 * WAIT_MS, false))
		guest_panic("the peer never bound its doorbell");
	end = rdtsc() + flood_ms * tsc_per_ms;
	while (rdtsc() < end) {
		int32_t r = ring(peer);

		if (r == TEMPO_HC_EAGAIN)
			refused++;
		else if (r >= 0)
			sent++;
		else
			other++;
	}
	con_printf("CHANTEST role=flood channel=%s ms=%u limit_per_ms=%u rings=%u throttled=%u "
		   "errors=%u\n", cinfo.name, flood_ms, cinfo.doorbell_limit, sent, refused, other);
	shm->phase2[cinfo.self] = READY_MAGIC;
	if (exec_test) {
		volatile uint8_t *code = (volatile uint8_t *)shm + 0x800;

		*code = 0xc3;	/* ret: a channel is never executable, so this stops us */
		con_printf("chan: calling into the channel at 0x%llx\n", cinfo.gpa + 0x800);
		((void (*)(void))(uintptr_t)code)();
		con_printf("chan: returned from the channel: not stopped\n");
	}
}

/* The flood's target: counts what reaches it until the flood is over. */
static void run_sink(void)
{
	shm->ready[cinfo.self] = READY_MAGIC;
	wait_for(&shm->phase2[peer], READY_MAGIC, false, (flood_ms + 100) * 10, true);
	con_printf("CHANTEST role=sink channel=%s doorbells=%u strays=%u\n", cinfo.name, got,
		   strays);
}

/*
 * A peer that restarts: its first instance binds, takes a doorbell, counts
 * itself in the channel and triple-faults; the next finds the count there
 * (a restart keeps the channel) and binds nothing, so the ringer's doorbells
 * are dropped: none may reach it (they would be strays here).
 */
static void run_restart(void)
{
	uint32_t gen = shm->generation;
	uint64_t end;

	con_printf("chan: the channel holds generation %u\n", gen);
	shm->generation = gen + 1;
	if (gen == 0) {
		static const struct { uint16_t limit; uint32_t base; } __attribute__((packed)) none;

		if (tempo_hypercall(TEMPO_HC_CHANNEL_BIND, 0, vector, 0))
			guest_panic("bind");
		shm->ready[cinfo.self] = READY_MAGIC;
		if (!wait_for(&got, 1, true, 10 * WAIT_MS, true))
			guest_panic("no doorbell came");
		con_printf("chan: generation 0 took %u doorbells; triple-faulting\n", got);
		asm volatile("lidt %0; int3" : : "m"(none));
	}
	end = rdtsc() + 30 * tsc_per_ms;
	while (rdtsc() < end)
		asm volatile("sti; pause; cli");
	shm->phase2[cinfo.self] = READY_MAGIC;
	con_printf("CHANTEST role=restart generation=%u doorbells=%u strays=%u\n", gen, got, strays);
}

/* Rings its peer every millisecond until the peer's last instance is done. */
static void run_ringer(void)
{
	uint32_t sent = 0, dropped = 0, other = 0;

	if (!wait_for(&shm->ready[peer], READY_MAGIC, false, 10 * WAIT_MS, false))
		guest_panic("the peer never bound its doorbell");
	for (uint32_t i = 0; i < 10000 && shm->phase2[peer] != READY_MAGIC; i++) {
		int32_t r = ring(peer);

		if (r == 1)
			sent++;
		else if (r == 0)
			dropped++;
		else
			other++;
		tsc_delay(tsc_per_ms);
	}
	con_printf("CHANTEST role=ringer delivered=%u dropped=%u errors=%u\n", sent, dropped, other);
}

/* No channel at all: every call is refused; then a read of @addr (an EPT violation). */
static void run_nonpeer(void)
{
	static struct tempo_channel_info none __attribute__((aligned(64)));
	int32_t info = tempo_hypercall(TEMPO_HC_CHANNEL_INFO, 0, (uint32_t)&none, 0);
	int32_t bind = tempo_hypercall(TEMPO_HC_CHANNEL_BIND, 0, vector, 0);
	int32_t r = ring(0), all = ring(TEMPO_CHANNEL_ALL_PEERS);

	con_printf("CHANTEST role=nonpeer channels=%u info=%d bind=%d ring=%d ring_all=%d\n",
		   pinfo.channel_count, (int)info, (int)bind, (int)r, (int)all);
	if (addr) {
		con_printf("chan: reading 0x%llx, where a channel is mapped for its peers\n", addr);
		con_printf("chan: read 0x%x: not stopped\n", *(volatile uint32_t *)phys_ptr((uint32_t)addr));
	}
}

/* ---- via=pci: the channel's PCI function (hv/core/chan_pci_abi.h) ---- */

#define PCI_CHAN_DEV	1	/* local index 0 */
#define MSI_ADDR	(TEMPO_PCI_CHAN_MSI_CAP + 4)
#define MSI_ADDR_HI	(TEMPO_PCI_CHAN_MSI_CAP + 8)
#define MSI_DATA	(TEMPO_PCI_CHAN_MSI_CAP + 12)
#define MSR_X2APIC_ID	0x802

static uint32_t pci_cfg(uint32_t dev, uint32_t off)
{
	outl(TEMPO_PCI_CF8, 0x80000000u | dev << 11 | off);
	return inl(TEMPO_PCI_CFC);
}

static void pci_cfg_write(uint32_t dev, uint32_t off, uint32_t v)
{
	outl(TEMPO_PCI_CF8, 0x80000000u | dev << 11 | off);
	outl(TEMPO_PCI_CFC, v);
}

/*
 * Find the channel's function as a driver would, check it against what the
 * hypercall says, and take its doorbells on @vector through its MSI (the
 * bind of the PCI way).
 */
static void pci_setup(void)
{
	uint32_t host = pci_cfg(0, 0), id = pci_cfg(PCI_CHAN_DEV, 0), b0, magic;
	uint64_t b2;
	uint32_t apic = (uint32_t)rdmsr(MSR_X2APIC_ID);
	char name[TEMPO_CHAN_NAME_LEN];

	if (id != ((uint32_t)TEMPO_PCI_CHAN_DEVICE << 16 | TEMPO_PCI_CHAN_VENDOR))
		guest_panic("no channel function at 00:01.0");
	b0 = pci_cfg(PCI_CHAN_DEV, 0x10) & ~0xfu;
	b2 = (pci_cfg(PCI_CHAN_DEV, 0x18) & ~0xfull) | (uint64_t)pci_cfg(PCI_CHAN_DEV, 0x1c) << 32;
	bar0 = phys_ptr(b0);
	magic = bar0[TEMPO_CHAN_MAGIC / 4];
	for (uint32_t i = 0; i < TEMPO_CHAN_NAME_LEN / 4; i++)
		((uint32_t *)name)[i] = bar0[TEMPO_CHAN_NAME / 4 + i];
	name[TEMPO_CHAN_NAME_LEN - 1] = 0;
	pci_cfg_write(PCI_CHAN_DEV, MSI_ADDR, 0xfee00000u | apic << 12);
	pci_cfg_write(PCI_CHAN_DEV, MSI_ADDR_HI, 0);
	pci_cfg_write(PCI_CHAN_DEV, MSI_DATA, vector);
	pci_cfg_write(PCI_CHAN_DEV, TEMPO_PCI_CHAN_MSI_CAP,
		      pci_cfg(PCI_CHAN_DEV, TEMPO_PCI_CHAN_MSI_CAP) | 1u << 16);	/* MSI on */
	pci_cfg_write(PCI_CHAN_DEV, 4, (pci_cfg(PCI_CHAN_DEV, 4) & 0xffff) | 6);	/* mem, master */
	con_printf("CHANTEST_PCI host=%04x:%04x fn=%04x:%04x bar0=0x%x bar2=0x%llx magic=0x%x "
		   "version=%u name=%s self=%u peers=%u size=%u msi_vector=0x%x\n", host & 0xffff,
		   host >> 16, id & 0xffff, id >> 16, b0, b2, magic, bar0[TEMPO_CHAN_VERSION / 4],
		   name, bar0[TEMPO_CHAN_IV_POSITION / 4], bar0[TEMPO_CHAN_PEER_COUNT / 4],
		   bar0[TEMPO_CHAN_SIZE_LO / 4], vector);
	if (magic != TEMPO_CHAN_MAGIC_VALUE || b2 != cinfo.gpa || strcmp(name, cinfo.name) ||
	    bar0[TEMPO_CHAN_IV_POSITION / 4] != cinfo.self)
		guest_panic("the PCI function disagrees with the channel-info hypercall");
}

/*
 * The echo client (guests/common/chan_echo.h): @sessions servers in turn,
 * each a new one (server_answers back at 0), @count requests each.
 */
static void run_client(void)
{
	struct tempo_echo *e = (struct tempo_echo *)shm;
	uint32_t seq = 0, answered = 0, lost = 0, bad = 0, dropped = 0;
	uint64_t period = div_u64((uint64_t)period_us * tsc_per_ms, 1000), next = 0;

	stats_mark();	/* the exits of the whole exchange, between two VCPU_STATS */
	for (uint32_t n = 0; n < sessions; n++) {
		uint64_t end = rdtsc() + (uint64_t)wait_s * 1000 * tsc_per_ms;

		while (e->server_magic != TEMPO_ECHO_MAGIC || e->server_answers != 0) {
			if (rdtsc() > end)
				guest_panic("no echo server came");
			asm volatile("sti; pause; cli");
		}
		con_printf("chan: echo server %u listening\n", n);
		for (uint32_t i = 0; i < count; i++) {
			uint64_t t0;
			uint32_t before = got;
			int32_t r;

			seq++;
			if (period) {
				/* a control loop: this period's sample, on the deadline timer */
				next = next ? next + period : rdtsc() + period;
				while (rdtsc() < next) {
					wrmsr(MSR_IA32_TSC_DEADLINE, next);
					asm volatile("sti; hlt; cli");
				}
			}
			for (uint32_t w = 0; w < TEMPO_ECHO_WORDS; w++)
				e->req_payload[w] = message(seq * TEMPO_ECHO_WORDS + w);
			t0 = rdtsc();
			e->req_seq = seq;
			while ((r = ring(peer)) == TEMPO_HC_EAGAIN)
				;
			if (r != 1)
				dropped++;
			if (!wait_for(&e->resp_seq, seq, false, WAIT_MS, true)) {
				if (!lost++)
					con_printf("chan: request %u lost (ring %d)\n", seq, (int)r);
				continue;
			}
			answered++;
			/* the answer's doorbell, else the moment the loop saw it */
			lat_add(&lat, (int64_t)((got != before ? irq_tsc : rdtsc()) - t0));
			if (e->resp_sum != tempo_echo_sum(seq, e->req_payload))
				bad++;
		}
	}
	stats_mark();
	e->stop = 1;
	ring(peer);
	print_lat("round trip (client's TSC before the ring to the answer)", "rtt");
	con_printf("CHANTEST role=client channel=%s via=%s sessions=%u requests=%u answered=%u "
		   "lost=%u bad=%u dropped=%u doorbells=%u strays=%u period_us=%u\n", cinfo.name,
		   via_pci ? "pci" : "hypercall", sessions, seq, answered, lost, bad, dropped, got,
		   strays, period_us);
}

void guest_main(uint32_t magic, uint32_t info)
{
	tempo_detect(&tempo);
	con_init(!tempo.present);
	exc_init();
	bootinfo_parse(magic, info, &boot);
	con_printf("chan: start cmdline=\"%s\"\n", boot.cmdline);
	if (!tempo.present)
		guest_panic("needs Tempo (channels are Tempo's)");
	parse_options();
	tsc_per_ms = tempo.tsc_khz ? tempo.tsc_khz : 1000000;
	if (tempo_hypercall(TEMPO_HC_PARTITION_INFO, (uint32_t)&pinfo, 0, 0))
		guest_panic("partition info");
	if (mode_probe) {
		int32_t r = tempo_hypercall(TEMPO_HC_TIMER_MODE_SET, 0 /* direct */, 0, 0);

		con_printf("CHANTEST_MODE role=%s asked=direct ret=%d mode=%d\n", role_names[role], r,
			   tempo_hypercall(TEMPO_HC_TIMER_MODE_GET, 0, 0, 0));
	}
	if (role == ROLE_NONPEER) {
		run_nonpeer();
		goto done;
	}
	if (pinfo.channel_count < 1 || tempo_hypercall(TEMPO_HC_CHANNEL_INFO, 0, (uint32_t)&cinfo, 0))
		guest_panic("no channel");
	cinfo.name[sizeof(cinfo.name) - 1] = 0;
	if (cinfo.gpa + cinfo.size > 0x100000000ull || cinfo.size < sizeof(struct chan_shm))
		guest_panic("the channel is out of this 32-bit guest's reach, or too small");
	shm = phys_ptr((uint32_t)cinfo.gpa);
	peer = cinfo.self == 0 ? 1 : 0;
	con_printf("chan: channel %s: %llu KiB at 0x%llx, %s, %u peers, self %u, ringing peer %u "
		   "(%s), doorbell_limit %u/ms\n", cinfo.name, cinfo.size >> 10, cinfo.gpa,
		   cinfo.access == TEMPO_CHANNEL_RW ? "rw" : "ro", cinfo.peer_count, cinfo.self, peer,
		   cinfo.peers[peer], cinfo.doorbell_limit);
	if (role == ROLE_WRITE) {
		con_printf("chan: read 0x%x from the channel; writing it (%s)\n", shm->ready[0],
			   cinfo.access == TEMPO_CHANNEL_RW ? "rw" : "ro");
		shm->ready[cinfo.self] = READY_MAGIC;
		con_printf("chan: write done: not stopped\n");
		goto done;
	}
	idt_init();
	wrmsr(MSR_X2APIC_SVR, APIC_SVR_ENABLE | APIC_SPURIOUS_VECTOR);
	wrmsr(MSR_X2APIC_LVT_TIMER, BACKSTOP_VECTOR | APIC_LVT_TSC_DEADLINE);
	lat_init(&lat, lat_exact, lat_outliers, OUTLIERS);
	if (role == ROLE_RESTART) {
		run_restart();
		goto done;
	}
	if (via_pci)
		pci_setup();
	else if (tempo_hypercall(TEMPO_HC_CHANNEL_BIND, 0, vector, 0))
		guest_panic("bind");
	if (role == ROLE_SEND)
		run_send();
	else if (role == ROLE_RECV)
		run_recv();
	else if (role == ROLE_SINK)
		run_sink();
	else if (role == ROLE_RINGER)
		run_ringer();
	else if (role == ROLE_CLIENT)
		run_client();
	else
		run_flood();
done:
	con_printf("chan: done\n");
	tempo_hypercall(TEMPO_HC_SHUTDOWN, 0, 0, 0);
	halt_forever();
}
