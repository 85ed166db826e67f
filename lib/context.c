// SPDX-License-Identifier: MIT
/*
 * Contexts and the calling thread's current one (CANN's model):
 * aclrtSetDevice/ResetDevice reference the device's primary context and
 * select it for the calling thread; aclrtCreateContext makes an explicit
 * one and aclrtSetCurrentContext selects any. The selection is per
 * thread: a new thread has none (107002) until it sets one, or aclInit's
 * configuration names a default device. The calls that open or close a
 * device with a context (aclrtSetDevice, aclrtResetDevice*,
 * aclrtCreateContext, aclrtDestroyContext) are lifecycle.c's; this file
 * makes and destroys the contexts themselves, answers which one is
 * current, and starts API calls (acl_enter()).
 *
 * A thread refers to its context by address and serial number, so that a
 * context destroyed by another thread (even one whose memory now holds a
 * new context) is noticed at the thread's next call.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>

#include "callback.h"
#include "context.h"
#include "device.h"
#include "error.h"
#include "event.h"
#include "slots.h"
#include "stream.h"
#include "streamstate.h"

static __thread struct acl_context *acl_tls_ctx;
static __thread uint64_t acl_tls_serial;
/* its device, known good while no context started dying since (acl_cur_dev()) */
static __thread struct acl_device *acl_tls_dev;
static __thread unsigned int acl_tls_epoch;
static unsigned int acl_ctx_epoch;	/* atomic: bumped as a context starts dying */

static uint64_t acl_ctx_serial;		/* atomic */
/* aclInit's defaultDevice and how to set it (lifecycle.c); under acl_global_lock */
static int acl_default_device = -1;
static int (*acl_default_set)(int id);

static void acl_ctx_select(struct acl_context *ctx)
{
	acl_tls_ctx = ctx;
	acl_tls_serial = ctx ? ctx->serial : 0;
	acl_tls_dev = NULL;
}

void acl_ctx_make_current(struct acl_context *ctx)
{
	acl_ctx_select(ctx);
}

void acl_ctx_drop_current(const struct acl_context *ctx)
{
	if (acl_tls_ctx == ctx)
		acl_ctx_select(NULL);
}

void acl_ctx_sel_save(struct acl_ctx_sel *sel)
{
	sel->ctx = acl_tls_ctx;
	sel->serial = acl_tls_serial;
}

void acl_ctx_sel_restore(const struct acl_ctx_sel *sel)
{
	acl_tls_ctx = sel->ctx;
	acl_tls_serial = sel->serial;
	acl_tls_dev = NULL;
}

void acl_ctx_set_default_device(int id, int (*set)(int id))
{
	acl_default_device = id;
	acl_default_set = set;
}

void acl_ctx_put(struct acl_context *ctx)
{
	acl_obj_put(&ctx->obj);
}

static struct acl_context *acl_ctx_get(const void *p)
{
	return (struct acl_context *)acl_obj_get(p, ACL_OBJ_CONTEXT);
}

int acl_ctx_get_explicit(const void *context, struct acl_context **out)
{
	struct acl_context *ctx = acl_ctx_get(context);
	int ret;

	if (ctx && !ctx->primary) {
		*out = ctx;
		return 0;
	}
	ret = acl_errf(ACLI_ENOCTX, "context %p is %s", context,
		       ctx ? "a primary context (aclrtResetDevice releases it)" :
			     "not a live context (destroyed already?)");
	if (ctx)
		acl_ctx_put(ctx);
	return ret;
}

int acl_cur_ctx(struct acl_context **ctxp)
{
	int (*set)(int id);
	struct acl_context *ctx;
	int def;

	if (!acl_tls_ctx) {
		pthread_mutex_lock(&acl_global_lock);
		def = acl_default_device;
		set = acl_default_set;
		pthread_mutex_unlock(&acl_global_lock);
		if (def < 0)
			return acl_errf(ACLI_ENOCTX, "no current context: call aclrtSetDevice or aclrtSetCurrentContext first");
		/* CANN: the configured default device is selected implicitly */
		if (set(def))
			return acl_errf(ACLI_ENOCTX, "no current context, and aclInit's default device %d cannot be set",
					def);
	}
	ctx = acl_ctx_get(acl_tls_ctx);
	if (ctx && (ctx->serial != acl_tls_serial || __atomic_load_n(&ctx->dying, __ATOMIC_ACQUIRE))) {
		acl_ctx_put(ctx);
		ctx = NULL;
	}
	if (!ctx) {
		acl_ctx_select(NULL);
		return acl_errf(ACLI_ENOCTX, "the current context was destroyed (or its device reset): set one again");
	}
	*ctxp = ctx;
	return 0;
}

int acl_enter_dev(struct acl_device **devp)
{
	return acl_enter_args(devp, "", 0, NULL);
}

int acl_enter_args(struct acl_device **devp, const char *names, size_t n,
		   const void *const *ptrs)
{
	int ret = acl_check_init();
	size_t i, len;

	for (i = 0; !ret && i < n; i++, names += len, names += strspn(names, ", ")) {
		len = strcspn(names, ",");
		if (!ptrs[i])
			return acl_errf(-EINVAL, "%.*s must not be NULL", (int)len, names);
	}
	return ret || !devp ? ret : acl_cur_dev(devp);
}

int acl_cur_dev(struct acl_device **devp)
{
	/* read before the context is found live: a destroy after it bumps it */
	unsigned int epoch = __atomic_load_n(&acl_ctx_epoch, __ATOMIC_ACQUIRE);
	struct acl_context *ctx;
	int ret;

	/*
	 * No context started dying since this thread's was found live: it
	 * still is, and its device open. Every API call starts here: this
	 * spares it the handle table.
	 */
	if (acl_tls_dev && acl_tls_epoch == epoch) {
		*devp = acl_tls_dev;
		return 0;
	}
	ret = acl_cur_ctx(&ctx);
	if (ret)
		return ret;
	/* devices are static: no reference needed once the context was live */
	*devp = ctx->dev;
	acl_tls_dev = ctx->dev;
	acl_tls_epoch = epoch;
	acl_ctx_put(ctx);
	return 0;
}

bool acl_ctx_is_current(const struct acl_context *ctx)
{
	return acl_tls_ctx == ctx && acl_tls_serial == ctx->serial;
}

static void acl_ctx_release(struct acl_obj *obj)
{
	struct acl_context *ctx = (struct acl_context *)obj;

	pthread_mutex_destroy(&ctx->lock);
	free(ctx->barriers);
	free(ctx);
}

int acl_ctx_new(struct acl_device *dev, bool primary, struct acl_context **out)
{
	struct acl_context *ctx;
	int ret;

	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return acl_errf(-ENOMEM, "out of host memory");
	ctx->dev = dev;
	ctx->primary = primary;
	ctx->serial = __atomic_add_fetch(&acl_ctx_serial, 1, __ATOMIC_RELAXED);
	pthread_mutex_init(&ctx->lock, NULL);
	list_init(&ctx->streams);
	list_init(&ctx->events);
	list_init(&ctx->models);
	list_init(&ctx->captures);
	list_init(&ctx->binaries);
	ret = acl_stream_create(ctx, 0, 0, true, &ctx->default_stream);
	if (ret) {
		pthread_mutex_destroy(&ctx->lock);
		free(ctx);
		return ret;
	}
	pthread_mutex_lock(&dev->lock);
	list_add_tail(&ctx->node, &dev->contexts);
	pthread_mutex_unlock(&dev->lock);
	acl_obj_add(&ctx->obj, ACL_OBJ_CONTEXT, acl_ctx_release);
	*out = ctx;
	return 0;
}

static void (*acl_ctx_hooks[ACL_CTX_HOOKS])(struct acl_context *ctx, bool forget);

void acl_ctx_set_hook(enum acl_ctx_hook which, void (*fn)(struct acl_context *ctx, bool forget))
{
	__atomic_store_n(&acl_ctx_hooks[which], fn, __ATOMIC_RELEASE);
}

/* The context's objects of a file above go (its hook, set with its first object). */
static void acl_ctx_hook_run(enum acl_ctx_hook which, struct acl_context *ctx, bool forget)
{
	void (*fn)(struct acl_context *ctx, bool forget) =
		__atomic_load_n(&acl_ctx_hooks[which], __ATOMIC_ACQUIRE);

	if (fn)
		fn(ctx, forget);
}

int acl_ctx_destroy(struct acl_context *ctx, bool force)
{
	struct acl_device *dev = ctx->dev;
	struct acl_reporter *r;
	struct acl_stream *s;
	struct acl_event *e;
	uint64_t *ovf;
	int ret = 0, err;

	pthread_mutex_lock(&ctx->lock);
	if (ctx->dying) {
		pthread_mutex_unlock(&ctx->lock);
		return acl_errf(ACLI_ECTXRELEASE, "context %p is being destroyed by another thread", ctx);
	}
	__atomic_store_n(&ctx->dying_force, force, __ATOMIC_RELAXED);
	__atomic_store_n(&ctx->dying, true, __ATOMIC_RELEASE);
	/* after dying is set: a thread that sees the new epoch sees it dying */
	__atomic_add_fetch(&acl_ctx_epoch, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ctx->lock);

	/* first: a capture ends with them, and their queued runs finish with the streams */
	acl_ctx_hook_run(ACL_CTX_HOOK_MODELS, ctx, false);
	for (;;) {
		pthread_mutex_lock(&ctx->lock);
		s = list_empty(&ctx->streams) ? NULL :
		    list_entry(ctx->streams.next, struct acl_stream, node);
		if (s)
			list_del(&s->node);
		pthread_mutex_unlock(&ctx->lock);
		if (!s)
			break;
		acl_stream_state_notify(s, ACL_RT_STREAM_STATE_DESTROY_PRE);
		err = acl_stream_teardown(s, force);
		if (err && !ret)
			ret = err;
	}
	for (;;) {
		pthread_mutex_lock(&ctx->lock);
		e = list_empty(&ctx->events) ? NULL :
		    list_entry(ctx->events.next, struct acl_event, node);
		if (e)
			list_del(&e->node);
		pthread_mutex_unlock(&ctx->lock);
		if (!e)
			break;
		acl_event_teardown(e);
	}
	/* after the streams: no queued work of theirs uses an image any more */
	acl_ctx_hook_run(ACL_CTX_HOOK_BINARIES, ctx, false);
	pthread_mutex_lock(&ctx->lock);
	r = ctx->hostfunc;
	ctx->hostfunc = NULL;
	ovf = ctx->ovf;
	ctx->ovf = NULL;
	pthread_mutex_unlock(&ctx->lock);
	acl_reporter_stop(r);
	/* no stream is left to use it */
	if (ovf)
		acl_slots_free(dev, &dev->overflow, ctx->ovf_gen, ctx->ovf_slot, ACL_CTX_OVF_WORDS);

	pthread_mutex_lock(&dev->lock);
	list_del(&ctx->node);
	pthread_mutex_unlock(&dev->lock);
	/* listed until now, so that a second destroy learns it is going (507007) */
	acl_obj_del(&ctx->obj);
	acl_ctx_put(ctx);
	return ret;
}

void acl_ctxs_forget(struct acl_device *dev)
{
	struct acl_context *ctx, *cn;
	struct acl_stream *s, *sn;
	struct acl_event *e, *en;

	acl_ctx_select(NULL);
	list_for_each_entry_safe(ctx, cn, &dev->contexts, node) {
		acl_ctx_hook_run(ACL_CTX_HOOK_MODELS, ctx, true);
		acl_ctx_hook_run(ACL_CTX_HOOK_BINARIES, ctx, true);
		list_for_each_entry_safe(s, sn, &ctx->streams, node)
			acl_stream_forget(s);
		list_for_each_entry_safe(e, en, &ctx->events, node)
			acl_event_forget(e);
		acl_reporter_forget(ctx->hostfunc);
		list_del(&ctx->node);
		pthread_mutex_destroy(&ctx->lock);
		free(ctx->barriers);
		free(ctx);
	}
}

ACL_EXPORT aclError aclrtGetDevice(int32_t *deviceId)
{
	struct acl_device *dev;
	int ret;

	ret = acl_enter(&dev, deviceId);
	if (!ret)
		*deviceId = dev->id;
	/* CANN's rtGetDevice says so without recording it (COND_RETURN_WITH_NOLOG) */
	else if (ret == ACLI_ENOCTX)
		acl_nolast(ret);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtSetCurrentContext(aclrtContext context)
{
	struct acl_context *ctx;
	int ret;

	ret = acl_enter(NULL, context);
	if (ret)
		goto out;
	ctx = acl_ctx_get(context);
	if (!ctx || __atomic_load_n(&ctx->dying, __ATOMIC_ACQUIRE)) {
		ret = acl_errf(ACLI_ERTPARAM, "context %p is not a live context", context);
		if (ctx)
			acl_ctx_put(ctx);
		goto out;
	}
	acl_ctx_select(ctx);
	acl_ctx_put(ctx);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtGetCurrentContext(aclrtContext *context)
{
	struct acl_context *ctx;
	int ret;

	ret = acl_enter(NULL, context);
	if (ret)
		return acl_ret(__func__, ret);
	ret = acl_cur_ctx(&ctx);
	if (ret)
		return acl_ret_quiet(__func__, ret);	/* CANN: no log, no last error */
	*context = ctx;
	acl_ctx_put(ctx);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream)
{
	struct acl_context *ctx;
	int ret;

	ret = acl_enter(NULL, stream);
	if (!ret)
		ret = acl_cur_ctx(&ctx);
	if (!ret) {
		*stream = ctx->default_stream;
		acl_ctx_put(ctx);
	}
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtGetPrimaryCtxState(int32_t deviceId, uint32_t *flags, int32_t *active)
{
	int ret;

	ret = acl_enter(NULL, active);
	if (!ret && flags)
		ret = acl_errf(-EINVAL, "flags is reserved and must be NULL");
	if (!ret)
		ret = acl_dev_check_id(deviceId, "deviceId");
	if (!ret) {
		pthread_mutex_lock(&acl_global_lock);
		*active = acl_dev_slot(deviceId)->primary != NULL;
		pthread_mutex_unlock(&acl_global_lock);
	}
	return acl_ret(__func__, ret);
}
