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
#include <stddef.h>
#include <stdint.h>

#include "handle.h"
#include "list.h"

struct acl_device;
struct acl_stream;
struct acl_reporter;
struct acl_cmo_barrier;

/* The options a context keeps: ACL_OPT_DETERMINISTIC .. ACL_OPT_STRONG_CONSISTENCY */
#define ACL_CTX_SYSPARAMS	3
/* CANN's overflow status: 64 bytes */
#define ACL_CTX_OVF_WORDS	8

struct acl_context {
	struct acl_obj obj;		/* first: the aclrtContext is the object */
	struct acl_device *dev;		/* constant */
	bool primary;			/* constant */
	uint64_t serial;		/* constant, unique: thread-local references check it */
	struct list_head node;		/* in dev->contexts; under dev->lock */
	pthread_mutex_t lock;		/* protects streams, events, models, captures, binaries, dying, hostfunc */
	struct list_head streams;	/* acl_stream.node, the default stream first */
	struct list_head events;	/* acl_event.node */
	struct list_head models;	/* acl_model.node (model.c) */
	struct list_head captures;	/* acl_model.cap_node: the models being captured */
	struct list_head binaries;	/* acl_binary.node (binary.c): the device binaries loaded in it */
	struct acl_stream *default_stream;	/* constant while the context lives */
	bool dying;			/* being destroyed */
	bool dying_force;		/* ... with force: its streams are killed (set before @dying) */
	int sticky;			/* atomic: task error latched by a STOP-mode stream */
	struct acl_reporter *hostfunc;	/* aclrtLaunchHostFunc's thread, made on first use */
	/* aclrtCtxSetSysParamOpt (sysparam.c): values, then bit N of the mask (atomic) */
	int64_t sysparam[ACL_CTX_SYSPARAMS];
	unsigned int sysparam_set;
	/*
	 * The overflow status (overflow.c): ACL_CTX_OVF_WORDS device-visible
	 * words of dev->overflow, made on first use; under lock. The device
	 * writes and clears them in stream order.
	 */
	uint64_t *ovf;
	uint32_t ovf_slot;
	unsigned int ovf_gen;
	/*
	 * aclrtCmoAsyncWithBarrier's barrier ids (cmo.c): each with the last
	 * CMO task that carried it; under lock, freed with the context.
	 */
	struct acl_cmo_barrier *barriers;
	unsigned int nbarriers, barriers_cap;
};

/*
 * The calling thread's current context, with a reference (acl_ctx_put):
 * the one it set, else the primary context of the device it selected,
 * else aclInit's default device (selected implicitly), else ACLI_ENOCTX.
 */
int acl_cur_ctx(struct acl_context **ctxp);
void acl_ctx_put(struct acl_context *ctx);

/* The device of the calling thread's current context, or ACLI_ENOCTX. */
int acl_cur_dev(struct acl_device **devp);

/*
 * The start of most API calls: acl_check_init(), then each pointer
 * argument must not be NULL ("<name> must not be NULL", -EINVAL), then, if
 * @devp is not NULL, acl_cur_dev(@devp). The arguments are plain names:
 * acl_enter(&dev, virPtr, handle).
 */
#define acl_enter(devp, ...)						\
	acl_enter_args((devp), #__VA_ARGS__,				\
		       sizeof((const void *[]){ __VA_ARGS__ }) / sizeof(void *), \
		       (const void *[]){ __VA_ARGS__ })
int acl_enter_args(struct acl_device **devp, const char *names, size_t n,
		   const void *const *ptrs);

/* acl_check_init() then acl_cur_dev(). */
int acl_enter_dev(struct acl_device **devp);

/* Does the calling thread's current context equal @ctx? */
bool acl_ctx_is_current(const struct acl_context *ctx);

/* @ctx's overflow status words (overflow.c), made on first use: where kernels set their bits. */
int acl_ovf_words(struct acl_context *ctx, uint64_t **out);

/* Make @ctx the calling thread's current context. */
void acl_ctx_make_current(struct acl_context *ctx);
/* The calling thread has no current context any more if it was @ctx. */
void acl_ctx_drop_current(const struct acl_context *ctx);

/*
 * The calling thread's selection, put back after a callback ran with
 * another context current (a context destroyed meanwhile is noticed at the
 * next call, as always).
 */
struct acl_ctx_sel {
	struct acl_context *ctx;
	uint64_t serial;
};
void acl_ctx_sel_save(struct acl_ctx_sel *sel);
void acl_ctx_sel_restore(const struct acl_ctx_sel *sel);

/* The explicit (aclrtCreateContext) context @context, with a reference, or ACLI_ENOCTX. */
int acl_ctx_get_explicit(const void *context, struct acl_context **out);

/* A new context on @dev, which the caller opened for it (lifecycle.c), listed. */
int acl_ctx_new(struct acl_device *dev, bool primary, struct acl_context **out);

/*
 * Destroy @ctx: its models, its streams after their queued work (all of
 * it dropped with @force), its events, its host-function thread. The
 * caller then releases its device, unless this returns ACLI_ECTXRELEASE:
 * another thread is destroying it, and nothing was done.
 */
int acl_ctx_destroy(struct acl_context *ctx, bool force);

/*
 * How a context's objects of the files above go (each file hands its hook
 * down with its first object, so that this file does not call up): at
 * the context's destroy, the models before its streams, the binaries
 * after them; after fork (@forget), the library objects only.
 */
enum acl_ctx_hook {
	ACL_CTX_HOOK_MODELS,		/* model.c */
	ACL_CTX_HOOK_BINARIES,		/* binary.c */
	ACL_CTX_HOOKS,
};
void acl_ctx_set_hook(enum acl_ctx_hook which, void (*fn)(struct acl_context *ctx, bool forget));

/* Forget every context of @dev without touching the driver (after fork). */
void acl_ctxs_forget(struct acl_device *dev);

/* Wait for every stream of @ctx (stream.c). */
int acl_ctx_sync_streams(struct acl_context *ctx);

/*
 * aclInit's default device (-1: none) and how to set it: lifecycle.c
 * hands its aclrtSetDevice down, so that the implicit selection in
 * acl_cur_ctx() does not call up into it.
 */
void acl_ctx_set_default_device(int id, int (*set)(int id));

#endif /* LIBACL_CONTEXT_H */
