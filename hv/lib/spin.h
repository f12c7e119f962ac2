/* SPDX-License-Identifier: MIT */
/*
 * The one lock of the hypervisor: a test-and-set word for sections of a
 * few register accesses or one small copy, taken by any core in root mode
 * (never from an NMI handler, which could meet its own core's holder).
 * The waiter reads before it retries, so its spinning stays in its own
 * cache (the exchange is what moves the line), and pauses (SDM Vol. 2B
 * PAUSE: a spin-wait loop's hint, which also spares a sibling thread).
 */
#ifndef TEMPO_HV_LIB_SPIN_H
#define TEMPO_HV_LIB_SPIN_H

#include <stdint.h>

static inline void spin_lock(volatile uint32_t *lock)
{
	while (__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(lock, __ATOMIC_RELAXED))
			__builtin_ia32_pause();
}

static inline void spin_unlock(volatile uint32_t *lock)
{
	__atomic_store_n(lock, 0, __ATOMIC_RELEASE);
}

#endif
