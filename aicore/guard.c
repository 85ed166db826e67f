// SPDX-License-Identifier: MIT
/*
 * Guarded execution: a fault in device code or in an access to device VAs
 * (SIGBUS: the aperture refused the address, the device cannot reach it;
 * SIGSEGV: nothing mapped there, or a stack overflow; SIGILL: a trap,
 * asm("trap") or a check of kernel_operator.h) is caught on the thread
 * that made it and reported, and the executor goes on, as a device
 * reports a task's fault and keeps running. The handlers run on an
 * alternate stack, so a kernel that overflows its stack is caught too.
 * A cancelled kernel's blocks are stopped the same way, by a signal of
 * their own (AICORE_STOP_SIGNAL), as a device stops a task it aborts.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "aicore.h"

#define AICORE_TRAP_PAGE_FAULT	14	/* x86 #PF: the error code's bit 1 is a write */

#define AICORE_ALTSTACK	(64 << 10)

static __thread sigjmp_buf *aicore_guard_env;
static __thread struct aicore_fault aicore_guard_fault;
__thread volatile sig_atomic_t *aicore_guard_stop;

static void aicore_guard_handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	/* a stop that comes late (the block is over) or early stops nothing */
	if (sig == AICORE_STOP_SIGNAL &&
	    (!aicore_guard_env || !aicore_guard_stop || !*aicore_guard_stop))
		return;
	if (!aicore_guard_env) {
		/* not in guarded code: a bug of the executor itself */
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	aicore_guard_fault.signo = sig;
	aicore_guard_fault.code = si->si_code;
	aicore_guard_fault.addr = (uint64_t)(uintptr_t)si->si_addr;
	aicore_guard_fault.write = false;
#if defined(__x86_64__)
	if (sig != SIGILL && uc->uc_mcontext.gregs[REG_TRAPNO] == AICORE_TRAP_PAGE_FAULT)
		aicore_guard_fault.write = uc->uc_mcontext.gregs[REG_ERR] & 2;
#else
	(void)uc;
#endif
	siglongjmp(*aicore_guard_env, 1);
}

int aicore_guard_init(void)
{
	struct sigaction sa = { .sa_sigaction = aicore_guard_handler, .sa_flags = SA_SIGINFO | SA_ONSTACK };
	struct sigaction stop = { .sa_sigaction = aicore_guard_handler,
				  .sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART };

	sigemptyset(&sa.sa_mask);
	sigemptyset(&stop.sa_mask);
	if (sigaction(SIGBUS, &sa, NULL) || sigaction(SIGSEGV, &sa, NULL) || sigaction(SIGILL, &sa, NULL) ||
	    sigaction(AICORE_STOP_SIGNAL, &stop, NULL))
		return -errno;
	return aicore_guard_thread();
}

int aicore_guard_thread(void)
{
	stack_t ss = { .ss_size = AICORE_ALTSTACK };

	ss.ss_sp = malloc(AICORE_ALTSTACK);
	if (!ss.ss_sp)
		return -ENOMEM;
	if (sigaltstack(&ss, NULL)) {
		free(ss.ss_sp);
		return -errno;
	}
	return 0;
}

int aicore_guarded(void (*fn)(void *arg), void *arg, struct aicore_fault *fault)
{
	sigjmp_buf env;

	if (sigsetjmp(env, 1)) {
		aicore_guard_env = NULL;
		*fault = aicore_guard_fault;
		return -EFAULT;
	}
	aicore_guard_env = &env;
	/* a stop sent before the line above found nothing to end: it ends it here */
	if (aicore_guard_stop && *aicore_guard_stop) {
		aicore_guard_env = NULL;
		*fault = (struct aicore_fault){ .signo = AICORE_STOP_SIGNAL };
		return -EFAULT;
	}
	fn(arg);
	aicore_guard_env = NULL;
	return 0;
}

struct aicore_copy {
	volatile uint8_t *dev;
	uint8_t *buf;
	uint32_t len;
	bool write;
};

static void aicore_copy_bytes(void *arg)
{
	struct aicore_copy *c = arg;
	uint32_t i;

	for (i = 0; i < c->len; i++) {
		if (c->write)
			c->dev[i] = c->buf[i];
		else
			c->buf[i] = c->dev[i];
	}
}

int aicore_access(uint64_t addr, uint8_t *buf, uint32_t len, bool write, struct aicore_fault *fault)
{
	struct aicore_copy c = {
		.dev = (volatile uint8_t *)(uintptr_t)addr, .buf = buf, .len = len, .write = write,
	};

	return aicore_guarded(aicore_copy_bytes, &c, fault);
}
