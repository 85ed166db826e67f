// SPDX-License-Identifier: MIT
/*
 * The process's snapshot state and the gate (snapstate.h), as CANN's
 * GlobalStateManager (src/runtime/core/src/common/global_state_manager.cc):
 * RUNNING until aclrtSnapShotProcessLock, LOCKED, BACKED_UP after a
 * backup, RUNNING again at the unlock. CANN's calls that change device
 * resources wait while the process is not RUNNING
 * (GLOBAL_STATE_WAIT_IF_LOCKED), the locking thread's own included, which
 * then deadlocks; here the thread that locked the process, and a thread
 * running a snapshot operation (its callbacks may call the API), pass.
 *
 * The state is read without the lock on the gate's fast path; it changes
 * under acl_snap_mutex, which the waiters sleep on.
 */
#include <pthread.h>

#include "snapstate.h"

static pthread_mutex_t acl_snap_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t acl_snap_cond = PTHREAD_COND_INITIALIZER;	/* back to RUNNING */
static enum acl_snap_state acl_snap;	/* written under acl_snap_mutex, read atomically */
static pthread_t acl_snap_locker;	/* valid while not RUNNING; under acl_snap_mutex */
static __thread unsigned int acl_snap_exempt_depth;
static pthread_once_t acl_snap_once = PTHREAD_ONCE_INIT;

/*
 * A child forked while the process was locked has only the forking
 * thread, and none of the parent's devices: it starts RUNNING (the mutex
 * may have been held by another thread at fork time).
 */
static void acl_snap_atfork_child(void)
{
	pthread_mutex_init(&acl_snap_mutex, NULL);
	pthread_cond_init(&acl_snap_cond, NULL);
	acl_snap = ACL_SNAP_RUNNING;
	acl_snap_exempt_depth = 0;
}

static void acl_snap_once_init(void)
{
	pthread_atfork(NULL, NULL, acl_snap_atfork_child);
}

enum acl_snap_state acl_snap_state(void)
{
	return __atomic_load_n(&acl_snap, __ATOMIC_ACQUIRE);
}

/* Lock held. */
static bool acl_snap_passes_locked(void)
{
	return acl_snap == ACL_SNAP_RUNNING || acl_snap_exempt_depth ||
	       pthread_equal(acl_snap_locker, pthread_self());
}

void acl_snap_gate(void)
{
	if (__builtin_expect(acl_snap_state() == ACL_SNAP_RUNNING, 1) || acl_snap_exempt_depth)
		return;
	pthread_mutex_lock(&acl_snap_mutex);
	while (!acl_snap_passes_locked())
		pthread_cond_wait(&acl_snap_cond, &acl_snap_mutex);
	pthread_mutex_unlock(&acl_snap_mutex);
}

bool acl_snap_lock(void)
{
	bool ok;

	pthread_once(&acl_snap_once, acl_snap_once_init);
	pthread_mutex_lock(&acl_snap_mutex);
	ok = acl_snap == ACL_SNAP_RUNNING;
	if (ok) {
		acl_snap_locker = pthread_self();
		__atomic_store_n(&acl_snap, ACL_SNAP_LOCKED, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&acl_snap_mutex);
	return ok;
}

void acl_snap_set(enum acl_snap_state state)
{
	pthread_mutex_lock(&acl_snap_mutex);
	__atomic_store_n(&acl_snap, state, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&acl_snap_mutex);
}

bool acl_snap_unlock(void)
{
	bool ok;

	pthread_mutex_lock(&acl_snap_mutex);
	ok = acl_snap != ACL_SNAP_RUNNING;
	if (ok) {
		__atomic_store_n(&acl_snap, ACL_SNAP_RUNNING, __ATOMIC_RELEASE);
		pthread_cond_broadcast(&acl_snap_cond);
	}
	pthread_mutex_unlock(&acl_snap_mutex);
	return ok;
}

void acl_snap_exempt(bool on)
{
	if (on)
		acl_snap_exempt_depth++;
	else
		acl_snap_exempt_depth--;
}
