// SPDX-License-Identifier: MIT
/*
 * Guarded accesses to device VAs: a fault through the aperture (SIGBUS:
 * the device cannot reach the address; SIGSEGV: no mapping at all) is
 * caught and reported, and the executor goes on, as a device reports a
 * task's fault and keeps running.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

#include "aicore.h"

static __thread sigjmp_buf *aicore_guard_env;
static __thread volatile int32_t aicore_guard_signo, aicore_guard_code;
static __thread volatile uint64_t aicore_guard_addr;

static void aicore_guard_handler(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (!aicore_guard_env) {
		/* not in a guarded access: a bug of the executor itself */
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	aicore_guard_signo = sig;
	aicore_guard_code = si->si_code;
	aicore_guard_addr = (uint64_t)(uintptr_t)si->si_addr;
	siglongjmp(*aicore_guard_env, 1);
}

int aicore_guard_init(void)
{
	struct sigaction sa = { .sa_sigaction = aicore_guard_handler, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, NULL) || sigaction(SIGSEGV, &sa, NULL))
		return -errno;
	return 0;
}

int aicore_access(uint64_t addr, uint8_t *buf, uint32_t len, bool write,
		  int32_t *signo, int32_t *code, uint64_t *fault_addr)
{
	volatile uint8_t *p = (volatile uint8_t *)(uintptr_t)addr;
	sigjmp_buf env;
	uint32_t i;

	if (sigsetjmp(env, 1)) {
		aicore_guard_env = NULL;
		*signo = aicore_guard_signo;
		*code = aicore_guard_code;
		*fault_addr = aicore_guard_addr;
		return -EFAULT;
	}
	aicore_guard_env = &env;
	for (i = 0; i < len; i++) {
		if (write)
			p[i] = buf[i];
		else
			buf[i] = p[i];
	}
	aicore_guard_env = NULL;
	return 0;
}
