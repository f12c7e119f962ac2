/* SPDX-License-Identifier: MIT */
/*
 * The echo protocol over a channel (docs/channels.md), between a client (a
 * bare guest, guests/chan role=client) and a server (Linux user space,
 * guests/linux/tempo_chan_tool.c, or another bare guest). It lives at the
 * start of the channel. Each side writes only its own fields; every index
 * and number read from the other side is checked before it is used.
 *
 *   server: writes server_magic = TEMPO_ECHO_MAGIC once it listens
 *   client: fills req_payload, then writes req_seq = n (n = 1, 2, ...), rings
 *   server: sees req_seq > resp_seq, computes resp_sum over req_payload and
 *           req_seq (tempo_echo_sum), writes resp_sum, then resp_seq = n, rings
 *   client: waits for resp_seq == n and checks resp_sum
 *   client: writes stop = 1 and rings at the end; the server then returns
 *
 * The doorbell only says "look": a server that polls (no interrupt) sees
 * the same sequence numbers.
 */
#ifndef TEMPO_GUESTS_COMMON_CHAN_ECHO_H
#define TEMPO_GUESTS_COMMON_CHAN_ECHO_H

#define TEMPO_ECHO_MAGIC	0x4f484345u	/* "ECHO" */
#define TEMPO_ECHO_WORDS	8

struct tempo_echo {
	volatile unsigned int server_magic;	/* server-owned */
	volatile unsigned int server_answers;	/* server-owned: requests answered */
	volatile unsigned int req_seq;		/* client-owned */
	volatile unsigned int stop;		/* client-owned */
	volatile unsigned long long req_payload[TEMPO_ECHO_WORDS];	/* client-owned */
	volatile unsigned long long resp_sum;	/* server-owned */
	volatile unsigned int resp_seq;		/* server-owned, written after resp_sum */
	volatile unsigned int reserved;
};

/* The answer to request @seq with @payload: a sum both sides can check. */
static inline unsigned long long tempo_echo_sum(unsigned int seq,
						const volatile unsigned long long *payload)
{
	unsigned long long s = seq;

	for (int i = 0; i < TEMPO_ECHO_WORDS; i++)
		s = s * 31 + payload[i];
	return s;
}

#endif
