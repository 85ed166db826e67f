/* SPDX-License-Identifier: MIT */
/*
 * Contexts: the unit that owns streams and events, and the calling
 * thread's current one.
 *
 * Each device has one primary context, made by the first aclrtSetDevice
 * and reference-counted by aclrtSetDevice/aclrtResetDevice; any number of
 * explicit contexts come from aclrtCreateContext. All contexts of a
 * device share the device's one driver context (its open file): memory
 * belongs to the device and is usable from every context on it, while
 * streams and events belong to the context that was current when they
 * were made (107003 when another one manages them).
 */
#ifndef LIBACL_CONTEXT_H
#define LIBACL_CONTEXT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "handle.h"
#include "list.h"

struct acl_device;
struct acl_stream;
struct acl_reporter;

struct acl_context {
	struct acl_obj obj;		/* first: the aclrtContext is the object */
	struct acl_device *dev;		/* constant */
	bool primary;			/* constant */
	uint64_t serial;		/* constant, unique: thread-local references check it */
	struct list_head node;		/* in dev->contexts; under dev->lock */
	pthread_mutex_t lock;		/* protects streams, events, dying, hostfunc */
	struct list_head streams;	/* acl_stream.node, the default stream first */
	struct list_head events;	/* acl_event.node */
	struct acl_stream *default_stream;	/* constant while the context lives */
	bool dying;			/* being destroyed */
	int sticky;			/* atomic: task error latched by a STOP-mode stream */
	struct acl_reporter *hostfunc;	/* aclrtLaunchHostFunc's thread, made on first use */
};

/*
 * The calling thread's current context, with a reference (acl_ctx_put):
 * the one it set, else the primary context of the device it selected,
 * else aclInit's default device (selected implicitly), else ACLI_ENOCTX.
 */
int acl_cur_ctx(struct acl_context **ctxp);
void acl_ctx_put(struct acl_context *ctx);

/* Does the calling thread's current context equal @ctx? */
bool acl_ctx_is_current(const struct acl_context *ctx);

/* aclrtSetDevice: one primary reference, made current (dev->lock held). */
int acl_ctx_primary_get_locked(struct acl_device *dev);

/*
 * aclrtResetDevice: drop one primary reference (all with @force) and the
 * calling thread's selection; at the last one the primary context is
 * destroyed. 1 when the device lost its last user (the caller closes it).
 */
int acl_ctx_primary_put(struct acl_device *dev, bool force);

/* Forget every context of @dev without touching the driver (after fork). */
void acl_ctxs_forget(struct acl_device *dev);

/* aclFinalize: destroy every context of @dev, dropping queued work. */
void acl_ctxs_destroy(struct acl_device *dev);

/* Wait for every stream of @ctx (stream.c). */
int acl_ctx_sync_streams(struct acl_context *ctx);

/* The aclInit configuration's default device, or -1 (device.c). */
void acl_ctx_set_default_device(int id);

#endif /* LIBACL_CONTEXT_H */
