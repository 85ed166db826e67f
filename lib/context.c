// SPDX-License-Identifier: MIT
/*
 * Contexts and the calling thread's current one (CANN's model):
 * aclrtSetDevice/ResetDevice reference the device's primary context and
 * select it for the calling thread; aclrtCreateContext makes an explicit
 * one and aclrtSetCurrentContext selects any. The selection is per
 * thread: a new thread has none (107002) until it sets one, or aclInit's
 * configuration names a default device.
 *
 * A thread refers to its context by address and serial number, so that a
 * context destroyed by another thread (even one whose memory now holds a
 * new context) is noticed at the thread's next call.
 */
#include <errno.h>
#include <stdlib.h>

#include <acl/acl.h>

#include "callback.h"
#include "context.h"
#include "device.h"
#include "error.h"
#include "event.h"
#include "stream.h"

static __thread struct acl_context *acl_tls_ctx;
static __thread uint64_t acl_tls_serial;

static uint64_t acl_ctx_serial;		/* atomic */
static int acl_default_device = -1;	/* aclInit's defaultDevice; under acl_global_lock */

static void acl_ctx_select(struct acl_context *ctx)
{
	acl_tls_ctx = ctx;
	acl_tls_serial = ctx ? ctx->serial : 0;
}

void acl_ctx_set_default_device(int id)
{
	acl_default_device = id;
}

void acl_ctx_put(struct acl_context *ctx)
{
	acl_obj_put(&ctx->obj);
}

static struct acl_context *acl_ctx_get(const void *p)
{
	return (struct acl_context *)acl_obj_get(p, ACL_OBJ_CONTEXT);
}

static int acl_set_device(int32_t id);

int acl_cur_ctx(struct acl_context **ctxp)
{
	struct acl_context *ctx;
	int def;

	if (!acl_tls_ctx) {
		pthread_mutex_lock(&acl_global_lock);
		def = acl_default_device;
		pthread_mutex_unlock(&acl_global_lock);
		if (def < 0)
			return acl_errf(ACLI_ENOCTX, "no current context: call aclrtSetDevice or aclrtSetCurrentContext first");
		/* CANN: the configured default device is selected implicitly */
		if (acl_set_device(def))
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

int acl_cur_dev(struct acl_device **devp)
{
	struct acl_context *ctx;
	int ret = acl_cur_ctx(&ctx);

	if (ret)
		return ret;
	/* devices are static: no reference needed once the context was live */
	*devp = ctx->dev;
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
	free(ctx);
}

/* A new context on @dev (which the caller acquired for it), listed. */
static int acl_ctx_new(struct acl_device *dev, bool primary, struct acl_context **out)
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

/*
 * Destroy @ctx: its streams after their queued work (all of it dropped
 * with @force), its events, its host-function thread; then its device
 * reference. ACLI_ECTXRELEASE if another thread is destroying it.
 */
static int acl_ctx_destroy(struct acl_context *ctx, bool force)
{
	struct acl_device *dev = ctx->dev;
	struct acl_reporter *r;
	struct acl_stream *s;
	struct acl_event *e;
	int ret = 0, err;

	pthread_mutex_lock(&ctx->lock);
	if (ctx->dying) {
		pthread_mutex_unlock(&ctx->lock);
		return acl_errf(ACLI_ECTXRELEASE, "context %p is being destroyed by another thread", ctx);
	}
	__atomic_store_n(&ctx->dying, true, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ctx->lock);

	for (;;) {
		pthread_mutex_lock(&ctx->lock);
		s = list_empty(&ctx->streams) ? NULL :
		    list_entry(ctx->streams.next, struct acl_stream, node);
		if (s)
			list_del(&s->node);
		pthread_mutex_unlock(&ctx->lock);
		if (!s)
			break;
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
	pthread_mutex_lock(&ctx->lock);
	r = ctx->hostfunc;
	ctx->hostfunc = NULL;
	pthread_mutex_unlock(&ctx->lock);
	acl_reporter_stop(r);

	pthread_mutex_lock(&dev->lock);
	list_del(&ctx->node);
	pthread_mutex_unlock(&dev->lock);
	/* listed until now, so that a second destroy learns it is going (507007) */
	acl_obj_del(&ctx->obj);
	acl_ctx_put(ctx);
	acl_dev_release(dev);
	return ret;
}

void acl_ctxs_destroy(struct acl_device *dev)
{
	struct acl_context *ctx;

	for (;;) {
		pthread_mutex_lock(&acl_global_lock);
		if (dev->primary) {
			ctx = dev->primary;
			acl_obj_hold(&ctx->obj);
			dev->primary = NULL;
			dev->refs = 0;
			pthread_mutex_unlock(&acl_global_lock);
		} else {
			pthread_mutex_unlock(&acl_global_lock);
			pthread_mutex_lock(&dev->lock);
			ctx = NULL;
			list_for_each_entry(ctx, &dev->contexts, node) {
				if (!__atomic_load_n(&ctx->dying, __ATOMIC_ACQUIRE))
					break;
			}
			if (&ctx->node == &dev->contexts)
				ctx = NULL;
			else
				acl_obj_hold(&ctx->obj);
			pthread_mutex_unlock(&dev->lock);
		}
		if (!ctx)
			break;
		acl_ctx_destroy(ctx, true);
		acl_ctx_put(ctx);
	}
	acl_err_clear();
}

void acl_ctxs_forget(struct acl_device *dev)
{
	struct acl_context *ctx, *cn;
	struct acl_stream *s, *sn;
	struct acl_event *e, *en;

	acl_ctx_select(NULL);
	list_for_each_entry_safe(ctx, cn, &dev->contexts, node) {
		list_for_each_entry_safe(s, sn, &ctx->streams, node)
			acl_stream_forget(s);
		list_for_each_entry_safe(e, en, &ctx->events, node)
			acl_event_forget(e);
		acl_reporter_forget(ctx->hostfunc);
		list_del(&ctx->node);
		pthread_mutex_destroy(&ctx->lock);
		free(ctx);
	}
}

/* aclrtSetDevice: the primary context, referenced and made current. */
static int acl_set_device(int32_t id)
{
	struct acl_device *dev;
	int ret;

	pthread_mutex_lock(&acl_global_lock);
	ret = acl_dev_acquire_locked(id, &dev);
	if (ret)
		goto unlock;
	if (dev->primary) {
		/* the primary context holds one use for all its references */
		acl_dev_release_locked(dev);
	} else {
		ret = acl_ctx_new(dev, true, &dev->primary);
		if (ret) {
			acl_dev_release_locked(dev);
			goto unlock;
		}
	}
	dev->refs++;
	acl_ctx_select(dev->primary);
unlock:
	pthread_mutex_unlock(&acl_global_lock);
	return ret;
}

/* aclrtResetDevice(Force): drop references; the last destroys the primary. */
static int acl_reset_device(int32_t id, bool force)
{
	struct acl_device *dev;
	struct acl_context *victim = NULL;
	int ret;

	ret = acl_dev_check_range(id, "deviceId");
	if (ret)
		return ret;
	dev = acl_dev_slot(id);
	pthread_mutex_lock(&acl_global_lock);
	if (!dev->primary) {
		pthread_mutex_unlock(&acl_global_lock);
		/* a device held is reset even if its node went away since */
		ret = acl_dev_check_id(id, "deviceId");
		return ret ? ret : acl_errf(ACLI_ECTXRELEASE, "device %d is not set by this process: nothing to reset", id);
	}
	/* the calling thread's selection goes, whatever others hold */
	if (acl_tls_ctx == dev->primary)
		acl_ctx_select(NULL);
	if (force || !--dev->refs) {
		victim = dev->primary;
		dev->primary = NULL;
		dev->refs = 0;
	}
	pthread_mutex_unlock(&acl_global_lock);
	/* its streams drain outside the global lock */
	return victim ? acl_ctx_destroy(victim, false) : 0;
}

ACL_EXPORT aclError aclrtSetDevice(int32_t deviceId)
{
	int ret = acl_check_init();

	if (!ret)
		ret = acl_set_device(deviceId);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtResetDevice(int32_t deviceId)
{
	int ret = acl_check_init();

	if (!ret)
		ret = acl_reset_device(deviceId, false);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtResetDeviceForce(int32_t deviceId)
{
	int ret = acl_check_init();

	if (!ret)
		ret = acl_reset_device(deviceId, true);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtGetDevice(int32_t *deviceId)
{
	struct acl_device *dev;
	int ret;

	ret = acl_enter(&dev, deviceId);
	if (!ret)
		*deviceId = dev->id;
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
	struct acl_context *ctx;
	struct acl_device *dev;
	int ret;

	ret = acl_enter(NULL, context);
	if (!ret)
		ret = acl_dev_check_id(deviceId, "deviceId");
	if (ret)
		goto out;
	pthread_mutex_lock(&acl_global_lock);
	ret = acl_dev_acquire_locked(deviceId, &dev);
	if (!ret) {
		ret = acl_ctx_new(dev, false, &ctx);
		if (ret)
			acl_dev_release_locked(dev);
	}
	pthread_mutex_unlock(&acl_global_lock);
	if (ret)
		goto out;
	acl_ctx_select(ctx);
	*context = ctx;
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtDestroyContext(aclrtContext context)
{
	struct acl_context *ctx;
	int ret;

	ret = acl_enter(NULL, context);
	if (ret)
		goto out;
	ctx = acl_ctx_get(context);
	if (!ctx || ctx->primary) {
		ret = acl_errf(ACLI_ENOCTX, "context %p is %s", context,
			       ctx ? "a primary context (aclrtResetDevice releases it)" :
				     "not a live context (destroyed already?)");
		if (ctx)
			acl_ctx_put(ctx);
		goto out;
	}
	if (acl_ctx_is_current(ctx))
		acl_ctx_select(NULL);
	ret = acl_ctx_destroy(ctx, false);
	acl_ctx_put(ctx);
out:
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
