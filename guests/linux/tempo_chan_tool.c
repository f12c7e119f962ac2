// SPDX-License-Identifier: MIT
/*
 * tempo-chan: Tempo's channels from Linux user space (docs/channels.md).
 *
 *   tempo-chan info TARGET
 *   tempo-chan echo [--peer K] [--timeout-ms T] TARGET [COUNT]
 *   tempo-chan echo-sysfs [--peer K] [--timeout-ms T] PCI_DEV_DIR [COUNT]
 *   tempo-chan echo-client [--peer K] [--timeout-ms T] TARGET COUNT
 *   tempo-chan fill TARGET PATTERN
 *   tempo-chan check TARGET PATTERN
 *   tempo-chan ring TARGET PEER|all
 *   tempo-chan wait [--timeout-ms T] NAME
 *   tempo-chan hold [--timeout-ms T] NAME
 *
 * TARGET is a channel NAME (/dev/tempo/NAME, the tempo_chan module), a
 * device node, a PCI function's sysfs directory (its resource0 and
 * resource2, no module), or a regular file (e.g. the file behind QEMU's
 * ivshmem on the host, which is how the tests look at the other side).
 *
 * echo serves the echo protocol of guests/common/chan_echo.h: through the
 * module it sleeps in read() until a doorbell comes; echo-sysfs polls the
 * memory, pausing between looks. Both ring the client after each answer:
 * the one other peer of a two-peer channel, or --peer K. Without doorbells
 * (QEMU's ivshmem, a file) both poll and ring nobody. echo-client is the
 * other side, for tests: COUNT requests, then stop.
 *
 * fill writes PATTERN's words over the whole channel, check compares them:
 * word i (8 bytes, little-endian) is splitmix64(fnv1a64(PATTERN) + i), so a
 * page mapped at the wrong offset shows. On a ro channel check also tries to
 * make its mapping writable, which must fail (ro_mprotect=refused).
 *
 * ring rings a peer once (all: every other peer). wait waits for one
 * doorbell through the module (T = 0: one O_NONBLOCK read, which says
 * EAGAIN). hold is for the module's remove path: it maps the channel and
 * waits until the function goes away (unbind), then checks that read()
 * says ENODEV and the mapping is gone (SIGBUS).
 *
 * Each command prints one line starting CHAN_INFO, CHAN_ECHO,
 * CHAN_ECHO_CLIENT, CHAN_FILL, CHAN_CHECK, CHAN_RING, CHAN_WAIT or CHAN_HOLD
 * with key=value fields, and exits 0 on success, 1 on failure (a timeout
 * too), 2 on a usage error. Built static:
 *   gcc -static -O2 -I. -o tempo-chan guests/linux/tempo_chan_tool.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guests/common/chan_echo.h"
#include "guests/linux/tempo_chan_uapi.h"
#include "hv/core/chan_pci_abi.h"

enum chan_mode { MODE_MODULE, MODE_SYSFS, MODE_FILE };

static const char *const mode_names[] = {
	[MODE_MODULE] = "module",
	[MODE_SYSFS] = "sysfs",
	[MODE_FILE] = "file",
};

struct chan {
	enum chan_mode mode;
	char path[PATH_MAX];		/* the device, the sysfs directory or the file */
	int fd;				/* the device, resource2 or the file */
	struct tempo_chan_info info;
	volatile unsigned char *mem;	/* info.size bytes */
	volatile uint32_t *regs;	/* sysfs: BAR0 */
	void *regs_map;
	size_t regs_map_len;
};

static const char *prog = "tempo-chan";

static void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void cpu_relax(void)
{
	__builtin_ia32_pause();
}

/* ---- finding and mapping a channel ---- */

/* DIR/FILE into a PATH_MAX buffer; -1 if it does not fit. */
static int sysfs_path(char *path, const char *dir, const char *file)
{
	int n = snprintf(path, PATH_MAX, "%s/%s", dir, file);

	if (n < 0 || n >= PATH_MAX) {
		fail("%s/%s: path too long", dir, file);
		return -1;
	}
	return 0;
}

static int read_sysfs_u64(const char *dir, const char *file, unsigned long long *val)
{
	char path[PATH_MAX];
	FILE *f;
	int ok;

	if (sysfs_path(path, dir, file))
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fscanf(f, "%llx", val) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

static uint32_t reg(const struct chan *c, unsigned int off)
{
	return c->regs[off / 4];
}

/* A 32-byte NUL-padded name from BAR0, read as 32-bit registers. */
static void reg_name(const struct chan *c, unsigned int off, char *name)
{
	for (unsigned int i = 0; i < TEMPO_CHAN_NAME_LEN; i += 4) {
		uint32_t w = reg(c, off + i);

		memcpy(name + i, &w, 4);	/* x86: little-endian, like the register */
	}
	name[TEMPO_CHAN_NAME_LEN - 1] = '\0';
}

/*
 * The registers through PCI_DEV_DIR/resource0, where the BAR may start
 * mid-page; writable to @ring (DOORBELL).
 */
static int map_sysfs_regs(struct chan *c, int ring)
{
	char path[PATH_MAX];
	unsigned long long start = 0, vendor = 0, device = 0;
	long page = sysconf(_SC_PAGESIZE);
	size_t in_page;
	int fd;

	if (read_sysfs_u64(c->path, "vendor", &vendor) ||
	    read_sysfs_u64(c->path, "device", &device) ||
	    vendor != TEMPO_PCI_CHAN_VENDOR || device != TEMPO_PCI_CHAN_DEVICE) {
		fail("%s: not a %04x:%04x PCI function", c->path, TEMPO_PCI_CHAN_VENDOR,
		     TEMPO_PCI_CHAN_DEVICE);
		return -1;
	}
	/* The first line of "resource" is BAR0: start end flags. */
	if (read_sysfs_u64(c->path, "resource", &start)) {
		fail("%s/resource: unreadable", c->path);
		return -1;
	}
	in_page = (size_t)(start & (unsigned long long)(page - 1));
	if (sysfs_path(path, c->path, "resource0"))
		return -1;
	fd = open(path, ring ? O_RDWR : O_RDONLY);
	if (fd < 0) {
		fail("%s: %s", path, strerror(errno));
		return -1;
	}
	c->regs_map_len = (size_t)page;
	c->regs_map = mmap(NULL, c->regs_map_len, PROT_READ | (ring ? PROT_WRITE : 0),
			   MAP_SHARED, fd, 0);
	close(fd);
	if (c->regs_map == MAP_FAILED) {
		fail("mmap %s: %s (a driver bound to it claims the BARs)", path, strerror(errno));
		c->regs_map = NULL;
		return -1;
	}
	c->regs = (volatile uint32_t *)((char *)c->regs_map + in_page);
	return 0;
}

/* What the module's probe reads, read here from the registers (sysfs). */
static int sysfs_info(struct chan *c, off_t bar2_len)
{
	struct tempo_chan_info *info = &c->info;
	const char *slot = strrchr(c->path, '/');

	if (reg(c, TEMPO_CHAN_MAGIC) != TEMPO_CHAN_MAGIC_VALUE) {
		/* QEMU's ivshmem: the module's name for it, all of BAR2 */
		snprintf(info->name, sizeof(info->name), "ivshmem-%.23s",
			 slot ? slot + 1 : c->path);
		info->size = (uint64_t)bar2_len;
		info->self = reg(c, TEMPO_CHAN_IV_POSITION);
		info->access = TEMPO_CHAN_ACCESS_RW;
		return 0;
	}
	if (reg(c, TEMPO_CHAN_VERSION) != TEMPO_CHAN_VERSION_VALUE) {
		fail("%s: register version %u, this program knows %u", c->path,
		     reg(c, TEMPO_CHAN_VERSION), TEMPO_CHAN_VERSION_VALUE);
		return -1;
	}
	info->flags = TEMPO_CHAN_F_TEMPO;
	reg_name(c, TEMPO_CHAN_NAME, info->name);
	info->size = reg(c, TEMPO_CHAN_SIZE_LO) | (uint64_t)reg(c, TEMPO_CHAN_SIZE_HI) << 32;
	info->self = reg(c, TEMPO_CHAN_IV_POSITION);
	info->peer_count = reg(c, TEMPO_CHAN_PEER_COUNT);
	info->access = reg(c, TEMPO_CHAN_ACCESS);
	info->doorbell_limit = reg(c, TEMPO_CHAN_DOORBELL_LIMIT);
	if (info->peer_count > TEMPO_CHAN_INFO_MAX_PEERS || info->self >= info->peer_count ||
	    info->size == 0 || info->size > (uint64_t)bar2_len) {
		fail("%s: peer %u of %u, size %llu (BAR2 %lld bytes): not a channel", c->path,
		     info->self, info->peer_count, (unsigned long long)info->size,
		     (long long)bar2_len);
		return -1;
	}
	for (unsigned int k = 0; k < info->peer_count; k++)
		reg_name(c, TEMPO_CHAN_PEER_NAMES + TEMPO_CHAN_NAME_LEN * k, info->peers[k]);
	return 0;
}

/*
 * chan_open()'s how: map the memory writable; ring (write the device or
 * DOORBELL); open the device read-write even to map it read-only.
 */
#define CHAN_MAP_WRITE	1
#define CHAN_RING	2
#define CHAN_DEV_RW	4

static int chan_open(struct chan *c, const char *target, int how)
{
	struct stat st;
	const char *base;
	int writable = how & CHAN_MAP_WRITE, ring = how & CHAN_RING;
	int prot = PROT_READ | (writable ? PROT_WRITE : 0);

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	if (!strchr(target, '/'))
		snprintf(c->path, sizeof(c->path), TEMPO_CHAN_DEV_DIR "/%s", target);
	else
		snprintf(c->path, sizeof(c->path), "%s", target);
	if (stat(c->path, &st)) {
		fail("%s: %s", c->path, strerror(errno));
		return -1;
	}

	if (S_ISCHR(st.st_mode)) {
		c->mode = MODE_MODULE;
		/* A ro channel's device opens O_RDWR to ring; its mmap stays read-only. */
		c->fd = open(c->path,
			     writable || (how & (CHAN_RING | CHAN_DEV_RW)) ? O_RDWR : O_RDONLY);
		if (c->fd < 0 || ioctl(c->fd, TEMPO_CHAN_IOC_INFO, &c->info)) {
			fail("%s: %s", c->path, strerror(errno));
			return -1;
		}
		c->info.name[sizeof(c->info.name) - 1] = '\0';
	} else if (S_ISDIR(st.st_mode)) {
		char path[PATH_MAX];

		c->mode = MODE_SYSFS;
		if (map_sysfs_regs(c, ring))
			return -1;
		if (sysfs_path(path, c->path, "resource2"))
			return -1;
		c->fd = open(path, writable ? O_RDWR : O_RDONLY);
		if (c->fd < 0 || fstat(c->fd, &st)) {
			fail("%s: %s", path, strerror(errno));
			return -1;
		}
		if (sysfs_info(c, st.st_size))
			return -1;
	} else if (S_ISREG(st.st_mode)) {
		c->mode = MODE_FILE;
		c->fd = open(c->path, writable ? O_RDWR : O_RDONLY);
		if (c->fd < 0) {
			fail("%s: %s", c->path, strerror(errno));
			return -1;
		}
		base = strrchr(c->path, '/');
		snprintf(c->info.name, sizeof(c->info.name), "%.31s", base ? base + 1 : c->path);
		c->info.size = (uint64_t)st.st_size;
		c->info.access = TEMPO_CHAN_ACCESS_RW;
	} else {
		fail("%s: neither a device, a PCI function directory nor a file", c->path);
		return -1;
	}

	/* The module refuses a writable mapping itself; sysfs would let the write stop us. */
	if (writable && c->mode == MODE_SYSFS && c->info.access != TEMPO_CHAN_ACCESS_RW) {
		fail("%s: the channel is read-only here", c->path);
		return -1;
	}
	if (c->info.size == 0 || c->info.size > SIZE_MAX) {
		fail("%s: size %llu", c->path, (unsigned long long)c->info.size);
		return -1;
	}
	c->mem = mmap(NULL, (size_t)c->info.size, prot, MAP_SHARED, c->fd, 0);
	if (c->mem == MAP_FAILED) {
		fail("mmap %s (%llu bytes): %s", c->path, (unsigned long long)c->info.size,
		     strerror(errno));
		c->mem = NULL;
		return -1;
	}
	return 0;
}

static void chan_close(struct chan *c)
{
	if (c->mem)
		munmap((void *)c->mem, (size_t)c->info.size);
	if (c->regs_map)
		munmap(c->regs_map, c->regs_map_len);
	if (c->fd >= 0)
		close(c->fd);
}

static int chan_can_ring(const struct chan *c)
{
	return (c->info.flags & TEMPO_CHAN_F_TEMPO) && c->mode != MODE_FILE;
}

/*
 * Ring @peer: one DOORBELL write, one exit (the module's write() is the
 * same). Its result is RING_RESULT, which would cost a second exit and is
 * not read: the peer is checked here, a throttled ring Tempo counts. 0, or
 * -EINVAL for no such peer.
 */
static int chan_ring(struct chan *c, uint32_t peer)
{
	if (c->mode == MODE_MODULE)
		return write(c->fd, &peer, sizeof(peer)) == sizeof(peer) ? 0 : -errno;
	if (c->mode != MODE_SYSFS || !(c->info.flags & TEMPO_CHAN_F_TEMPO))
		return -EOPNOTSUPP;
	if (peer != TEMPO_CHAN_RING_ALL && (peer >= c->info.peer_count || peer == c->info.self))
		return -EINVAL;
	c->regs[TEMPO_CHAN_DOORBELL / 4] = TEMPO_CHAN_DOORBELL_PEER(
		peer == TEMPO_CHAN_RING_ALL ? TEMPO_CHAN_DOORBELL_ALL : peer);
	return 0;
}

/* Ring, and try again a few times while over the doorbell limit. */
static int chan_ring_retry(struct chan *c, uint32_t peer)
{
	int ret = -EAGAIN;

	for (int tries = 0; tries < 100 && ret == -EAGAIN; tries++) {
		ret = chan_ring(c, peer);
		if (ret == -EAGAIN)
			usleep(100);	/* the limit counts per millisecond */
	}
	return ret;
}

/* The other peer of a two-peer channel, or --peer. */
static int pick_peer(const struct chan *c, long peer_opt, uint32_t *peer)
{
	if (peer_opt >= 0) {
		*peer = (uint32_t)peer_opt;
		return 0;
	}
	if (c->info.peer_count == 2) {
		*peer = 1 - c->info.self;
		return 0;
	}
	fail("%s: %u peers: say which to ring with --peer K", c->path, c->info.peer_count);
	return -1;
}

/*
 * Wait for something to look at: a doorbell through the module, else a
 * short pause. Returns 1 on a doorbell, 0 to look again, -1 on error.
 */
static int chan_wait(struct chan *c, int use_doorbell, int timeout_ms)
{
	if (use_doorbell) {
		struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
		uint64_t count;
		int n = poll(&pfd, 1, timeout_ms);

		if (n < 0 && errno != EINTR)
			return -1;
		if (n <= 0)
			return 0;
		if (read(c->fd, &count, sizeof(count)) == sizeof(count))
			return 1;
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	}
	for (int i = 0; i < 64; i++)
		cpu_relax();
	return 0;
}

/* ---- commands ---- */

static void print_info(const struct chan *c)
{
	const struct tempo_chan_info *info = &c->info;
	char peers[TEMPO_CHAN_INFO_MAX_PEERS * (TEMPO_CHAN_INFO_NAME_LEN + 1) + 1] = "";

	for (unsigned int k = 0; k < info->peer_count && k < TEMPO_CHAN_INFO_MAX_PEERS; k++) {
		if (k)
			strcat(peers, ",");
		strncat(peers, info->peers[k], TEMPO_CHAN_INFO_NAME_LEN - 1);
	}
	printf("CHAN_INFO name=%s size=%llu self=%u peers=%u access=%s doorbell_limit=%u "
	       "mode=%s tempo=%d doorbell=%d doorbells=%llu peer_names=%s\n",
	       info->name, (unsigned long long)info->size, info->self, info->peer_count,
	       info->access == TEMPO_CHAN_ACCESS_RW ? "rw" : "ro", info->doorbell_limit,
	       mode_names[c->mode], !!(info->flags & TEMPO_CHAN_F_TEMPO),
	       !!(info->flags & TEMPO_CHAN_F_DOORBELL), (unsigned long long)info->doorbells,
	       peers[0] ? peers : "-");
}

static int cmd_echo(struct chan *c, long count, long peer_opt, int timeout_ms)
{
	struct tempo_echo *e = (struct tempo_echo *)c->mem;
	int can_ring = chan_can_ring(c);
	int use_doorbell = c->mode == MODE_MODULE && (c->info.flags & TEMPO_CHAN_F_DOORBELL);
	unsigned long answers = 0, bad = 0, rings = 0, ring_errors = 0, doorbells = 0;
	int stopped = 0, timed_out = 0, err = 0;
	uint32_t peer = 0, last;
	uint64_t t0 = now_ns(), deadline = t0 + (uint64_t)timeout_ms * 1000000u;

	if (c->info.size < sizeof(*e)) {
		fail("%s: %llu bytes, too small for the echo protocol", c->path,
		     (unsigned long long)c->info.size);
		return 1;
	}
	if (can_ring && pick_peer(c, peer_opt, &peer))
		return 2;

	/* A restarted server goes on from the last answer in the memory. */
	last = e->resp_seq;
	e->server_answers = 0;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	e->server_magic = TEMPO_ECHO_MAGIC;

	for (;;) {
		uint32_t seq = e->req_seq;

		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (seq > last) {
			unsigned long long payload[TEMPO_ECHO_WORDS];
			int ret;

			/* Copy first: the client may write while we compute. */
			for (int i = 0; i < TEMPO_ECHO_WORDS; i++)
				payload[i] = e->req_payload[i];
			if (seq != last + 1)
				bad++;	/* a skipped request: the client did not wait */
			e->resp_sum = tempo_echo_sum(seq, payload);
			__atomic_thread_fence(__ATOMIC_RELEASE);
			e->resp_seq = seq;
			e->server_answers = (unsigned int)++answers;
			last = seq;
			if (can_ring) {
				ret = chan_ring_retry(c, peer);
				rings++;
				if (ret) {
					ring_errors++;
					if (ring_errors == 1)
						fail("ring peer %u: %s", peer, strerror(-ret));
				}
			}
			if (count > 0 && answers >= (unsigned long)count)
				break;
			continue;
		}
		if (e->stop) {
			stopped = 1;
			break;
		}
		if (timeout_ms > 0 && now_ns() >= deadline) {
			timed_out = 1;
			break;
		}
		switch (chan_wait(c, use_doorbell, timeout_ms > 0 ? 10 : 1000)) {
		case 1:
			doorbells++;
			break;
		case -1:
			fail("wait on %s: %s", c->path, strerror(errno));
			err = 1;
			goto out;
		}
	}
out:
	printf("CHAN_ECHO mode=%s name=%s answers=%lu bad=%lu last_seq=%u stop=%d timeout=%d "
	       "wait=%s doorbells=%lu rings=%lu ring_errors=%lu peer=%d elapsed_ms=%llu\n",
	       mode_names[c->mode], c->info.name, answers, bad, last, stopped, timed_out,
	       use_doorbell ? "doorbell" : "poll", doorbells, rings, ring_errors,
	       can_ring ? (int)peer : -1, (unsigned long long)((now_ns() - t0) / 1000000u));
	return err || bad || ring_errors || timed_out ? 1 : 0;
}

static int cmd_echo_client(struct chan *c, long count, long peer_opt, int timeout_ms)
{
	struct tempo_echo *e = (struct tempo_echo *)c->mem;
	int can_ring = chan_can_ring(c);
	unsigned long done = 0, bad = 0;
	int timed_out = 0;
	uint32_t peer = 0, n;
	uint64_t t0 = now_ns(), deadline = t0 + (uint64_t)timeout_ms * 1000000u;

	if (c->info.size < sizeof(*e)) {
		fail("%s: too small for the echo protocol", c->path);
		return 1;
	}
	if (can_ring && pick_peer(c, peer_opt, &peer))
		return 2;
	e->stop = 0;
	while (e->server_magic != TEMPO_ECHO_MAGIC) {
		if (timeout_ms > 0 && now_ns() >= deadline) {
			timed_out = 1;
			goto out;
		}
		usleep(1000);
	}
	n = e->req_seq;
	for (long k = 0; k < count; k++) {
		unsigned long long payload[TEMPO_ECHO_WORDS];

		n++;
		for (int i = 0; i < TEMPO_ECHO_WORDS; i++) {
			payload[i] = n * 0x9e3779b97f4a7c15ull + (unsigned int)i;
			e->req_payload[i] = payload[i];
		}
		__atomic_thread_fence(__ATOMIC_RELEASE);
		e->req_seq = n;
		if (can_ring)
			chan_ring_retry(c, peer);
		for (unsigned long spins = 0; e->resp_seq != n; spins++) {
			if (timeout_ms > 0 && now_ns() >= deadline) {
				timed_out = 1;
				goto out;
			}
			/* spin for a fast server, then let the CPU go to a slow one */
			if (spins < 100000)
				cpu_relax();
			else
				usleep(20);
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (e->resp_sum != tempo_echo_sum(n, payload))
			bad++;
		done++;
	}
out:
	e->stop = 1;
	if (can_ring)
		chan_ring_retry(c, peer);
	printf("CHAN_ECHO_CLIENT mode=%s name=%s requests=%lu bad=%lu server_answers=%u "
	       "timeout=%d elapsed_ms=%llu\n",
	       mode_names[c->mode], c->info.name, done, bad, e->server_answers, timed_out,
	       (unsigned long long)((now_ns() - t0) / 1000000u));
	return bad || timed_out || done != (unsigned long)count ? 1 : 0;
}

static uint64_t pattern_seed(const char *pattern)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	for (const unsigned char *p = (const unsigned char *)pattern; *p; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	return h;
}

static uint64_t pattern_word(uint64_t seed, uint64_t i)
{
	uint64_t z = seed + i * 0x9e3779b97f4a7c15ull;	/* splitmix64 */

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int cmd_fill(struct chan *c, const char *pattern)
{
	volatile uint64_t *w = (volatile uint64_t *)c->mem;
	uint64_t seed = pattern_seed(pattern), words = c->info.size / 8;

	for (uint64_t i = 0; i < words; i++)
		w[i] = pattern_word(seed, i);
	if (c->mode == MODE_FILE)
		msync((void *)c->mem, (size_t)c->info.size, MS_SYNC);
	printf("CHAN_FILL mode=%s name=%s size=%llu pattern=%s\n", mode_names[c->mode],
	       c->info.name, (unsigned long long)c->info.size, pattern);
	return 0;
}

/*
 * A ro channel's read-only mapping must not become writable: "refused" when
 * mprotect fails (the module clears VM_MAYWRITE even on an O_RDWR open).
 */
static const char *ro_mprotect(const struct chan *c)
{
	if (c->info.access == TEMPO_CHAN_ACCESS_RW)
		return "-";
	if (mprotect((void *)c->mem, (size_t)c->info.size, PROT_READ | PROT_WRITE))
		return "refused";
	mprotect((void *)c->mem, (size_t)c->info.size, PROT_READ);
	return "allowed";
}

static int cmd_check(struct chan *c, const char *pattern)
{
	volatile uint64_t *w = (volatile uint64_t *)c->mem;
	uint64_t seed = pattern_seed(pattern), words = c->info.size / 8, bad = 0;
	long long first_bad = -1;
	const char *ro = ro_mprotect(c);
	int ok;

	for (uint64_t i = 0; i < words; i++) {
		if (w[i] != pattern_word(seed, i)) {
			if (!bad)
				first_bad = (long long)(i * 8);
			bad++;
		}
	}
	ok = !bad && strcmp(ro, "allowed");

	printf("CHAN_CHECK mode=%s name=%s size=%llu pattern=%s bad_words=%llu first_bad=%lld "
	       "ro_mprotect=%s result=%s\n",
	       mode_names[c->mode], c->info.name, (unsigned long long)c->info.size, pattern,
	       (unsigned long long)bad, first_bad, ro, ok ? "ok" : "bad");
	return ok ? 0 : 1;
}

static int usage(void);
static int parse_long(const char *s, long *val);

static const char *errno_name(int err)
{
	const char *name = err ? strerrorname_np(err) : "0";

	return name ? name : "unknown";
}

static int cmd_ring(struct chan *c, const char *peer_arg)
{
	long peer;
	int ret;

	if (!strcmp(peer_arg, "all"))
		peer = TEMPO_CHAN_RING_ALL;
	else if (parse_long(peer_arg, &peer) || peer > (long)UINT32_MAX)
		return usage();
	ret = chan_ring(c, (uint32_t)peer);
	printf("CHAN_RING mode=%s name=%s peer=%s result=%s\n", mode_names[c->mode],
	       c->info.name, peer_arg, ret ? errno_name(-ret) : "ok");
	return ret ? 1 : 0;
}

static int cmd_wait(struct chan *c, int timeout_ms)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	const char *result = "doorbell";
	uint64_t count = 0;
	int n = 1;

	if (!timeout_ms) {
		if (fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK))
			return 1;
	} else {
		n = poll(&pfd, 1, timeout_ms);
	}
	if (n == 0)
		result = "timeout";
	else if (n < 0 || read(c->fd, &count, sizeof(count)) != sizeof(count))
		result = errno_name(errno);
	printf("CHAN_WAIT mode=%s name=%s result=%s doorbells=%llu\n", mode_names[c->mode],
	       c->info.name, result, (unsigned long long)count);
	return strcmp(result, "doorbell") ? 1 : 0;
}

/* Read the first byte of the mapping in a child: "ok", or the signal that stopped it. */
static const char *touch_in_child(const struct chan *c)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		volatile unsigned char x = c->mem[0];

		(void)x;
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return "error";
	if (WIFSIGNALED(status))
		return WTERMSIG(status) == SIGBUS ? "sigbus" : "signal";
	return WEXITSTATUS(status) ? "error" : "ok";
}

static int cmd_hold(struct chan *c, int timeout_ms)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	const char *before = touch_in_child(c), *after = "-", *result = "timeout";
	const char *read_err = "-";
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000u, count;

	/* Doorbells are not what it waits for: only POLLERR/POLLHUP end it. */
	while (timeout_ms <= 0 || now_ns() < deadline) {
		if (poll(&pfd, 1, 10) < 0 && errno != EINTR)
			break;
		if (pfd.revents & (POLLERR | POLLHUP)) {
			result = "gone";
			break;
		}
		if (pfd.revents & POLLIN)
			(void)!read(c->fd, &count, sizeof(count));
	}
	if (!strcmp(result, "gone")) {
		read_err = read(c->fd, &count, sizeof(count)) < 0 ? errno_name(errno) : "none";
		after = touch_in_child(c);
	}
	printf("CHAN_HOLD mode=%s name=%s result=%s touch_before=%s read=%s touch_after=%s\n",
	       mode_names[c->mode], c->info.name, result, before, read_err, after);
	return !strcmp(result, "gone") && !strcmp(before, "ok") && !strcmp(read_err, "ENODEV") &&
	       !strcmp(after, "sigbus") ? 0 : 1;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: %s info TARGET\n"
		"       %s echo [--peer K] [--timeout-ms T] TARGET [COUNT]\n"
		"       %s echo-sysfs [--peer K] [--timeout-ms T] PCI_DEV_DIR [COUNT]\n"
		"       %s echo-client [--peer K] [--timeout-ms T] TARGET COUNT\n"
		"       %s fill TARGET PATTERN\n"
		"       %s check TARGET PATTERN\n"
		"       %s ring TARGET PEER|all\n"
		"       %s wait [--timeout-ms T] NAME\n"
		"       %s hold [--timeout-ms T] NAME\n"
		"TARGET: a channel NAME (/dev/tempo/NAME), a device node, a PCI function's\n"
		"sysfs directory, or a regular file\n",
		prog, prog, prog, prog, prog, prog, prog, prog, prog);
	return 2;
}

static int parse_long(const char *s, long *val)
{
	char *end;

	errno = 0;
	*val = strtol(s, &end, 0);
	return errno || end == s || *end || *val < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct chan c;
	const char *cmd;
	long peer_opt = -1, timeout_ms = 0, count = 0;
	int argi = 2, ret, writable;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 3)
		return usage();
	cmd = argv[1];
	while (argi < argc && argv[argi][0] == '-' && argv[argi][1] == '-') {
		if (argi + 1 >= argc)
			return usage();
		if (!strcmp(argv[argi], "--peer")) {
			if (parse_long(argv[argi + 1], &peer_opt))
				return usage();
		} else if (!strcmp(argv[argi], "--timeout-ms")) {
			if (parse_long(argv[argi + 1], &timeout_ms) || timeout_ms > INT_MAX)
				return usage();
		} else {
			return usage();
		}
		argi += 2;
	}
	if (argi >= argc)
		return usage();

	if (!strcmp(cmd, "info")) {
		if (argc - argi != 1 || chan_open(&c, argv[argi], 0))
			return argc - argi != 1 ? usage() : 1;
		print_info(&c);
		ret = 0;
	} else if (!strcmp(cmd, "echo") || !strcmp(cmd, "echo-sysfs") ||
		   !strcmp(cmd, "echo-client")) {
		int client = !strcmp(cmd, "echo-client");

		if (argc - argi > 2 || (argc - argi == 2 && parse_long(argv[argi + 1], &count)) ||
		    (client && argc - argi != 2))
			return usage();
		if (chan_open(&c, argv[argi], CHAN_MAP_WRITE | CHAN_RING))
			return 1;
		if (!strcmp(cmd, "echo-sysfs") && c.mode != MODE_SYSFS) {
			fail("%s: echo-sysfs wants a PCI function's sysfs directory", argv[argi]);
			chan_close(&c);
			return 2;
		}
		if (client)
			ret = cmd_echo_client(&c, count, peer_opt, (int)timeout_ms);
		else
			ret = cmd_echo(&c, count, peer_opt, (int)timeout_ms);
	} else if (!strcmp(cmd, "fill") || !strcmp(cmd, "check")) {
		writable = !strcmp(cmd, "fill");
		if (argc - argi != 2)
			return usage();
		if (chan_open(&c, argv[argi], writable ? CHAN_MAP_WRITE : CHAN_DEV_RW))
			return 1;
		ret = writable ? cmd_fill(&c, argv[argi + 1]) : cmd_check(&c, argv[argi + 1]);
	} else if (!strcmp(cmd, "ring")) {
		if (argc - argi != 2)
			return usage();
		if (chan_open(&c, argv[argi], CHAN_RING))
			return 1;
		ret = cmd_ring(&c, argv[argi + 1]);
	} else if (!strcmp(cmd, "wait") || !strcmp(cmd, "hold")) {
		if (argc - argi != 1)
			return usage();
		if (chan_open(&c, argv[argi], 0))
			return 1;
		if (c.mode != MODE_MODULE) {
			fail("%s: %s works through the module only", argv[argi], cmd);
			chan_close(&c);
			return 2;
		}
		ret = !strcmp(cmd, "wait") ? cmd_wait(&c, (int)timeout_ms)
					   : cmd_hold(&c, (int)timeout_ms);
	} else {
		return usage();
	}
	chan_close(&c);
	return ret;
}
