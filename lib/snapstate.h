/* SPDX-License-Identifier: MIT */
/*
 * The process's snapshot state (snapshot.c: aclrtSnapShotProcessLock,
 * Backup, Restore, Unlock) and the gate of the API calls that change what
 * the devices hold: while the process is locked such a call waits at the
 * gate until it is unlocked, unless its thread locked the process or runs
 * a snapshot operation. A bottom layer: it calls no other file of the
 * library, so that any may call the gate.
 */
#ifndef LIBACL_SNAPSTATE_H
#define LIBACL_SNAPSTATE_H

#include <stdbool.h>

/* CANN's rtProcessState */
enum acl_snap_state {
	ACL_SNAP_RUNNING,
	ACL_SNAP_LOCKED,
	ACL_SNAP_BACKED_UP,
};

/*
 * Wait while the process is locked, unless the calling thread is exempt.
 * Called at the start of an API call, before it takes any lock of the
 * library: queueing work on a stream, a synchronous copy or memset, the
 * memory layer's device memory requests, opening and closing devices.
 */
void acl_snap_gate(void);

enum acl_snap_state acl_snap_state(void);

/* RUNNING -> LOCKED, the calling thread the locker (exempt); false if it was not RUNNING. */
bool acl_snap_lock(void);
/* LOCKED <-> BACKED_UP (snapshot.c's transitions; the locker stays). */
void acl_snap_set(enum acl_snap_state state);
/* LOCKED or BACKED_UP -> RUNNING, the waiters woken; false if it was RUNNING. */
bool acl_snap_unlock(void);

/* The calling thread passes the gate while @on (it runs a snapshot operation); nests. */
void acl_snap_exempt(bool on);

#endif /* LIBACL_SNAPSTATE_H */
