// SPDX-License-Identifier: MIT
/*
 * Resource limits of streams and of the calling thread (CANN section
 * "device resource limits"): a stream may carry its own cube and vector
 * core limits; a thread may bind a stream, whose limits
 * aclrtGetResInCurrentThread then answers, else the device limit of the
 * thread's current context (query.c). Limits are recorded and reported:
 * the simulated chip runs no kernels that could be held to them.
 */
#include <acl/acl.h>

#include "context.h"
#include "device.h"
#include "error.h"
#include "query.h"
#include "stream.h"

/* The stream the calling thread bound, or NULL (a handle, looked up at use). */
static __thread aclrtStream acl_tls_res_stream;

static int acl_res_type(aclrtDevResLimitType type)
{
	if ((unsigned int)type > ACL_RT_DEV_RES_VECTOR_CORE)
		return acl_errf(ACLI_ERTPARAM, "type %d must be ACL_RT_DEV_RES_CUBE_CORE or _VECTOR_CORE",
				(int)type);
	return 0;
}

/* A stream's limit of @type: its own if set, else its device's. */
static int acl_stream_res(struct acl_stream *s, aclrtDevResLimitType type, uint32_t *value)
{
	int64_t v = __atomic_load_n(&s->res_limit[type], __ATOMIC_RELAXED);

	if (v >= 0) {
		*value = (uint32_t)v;
		return 0;
	}
	return acl_dev_res_limit(s->dev, type, value);
}

ACL_EXPORT aclError aclrtSetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t value)
{
	struct acl_stream *s;
	uint32_t total;
	int ret;

	ret = acl_stream_enter(stream, ACL_STREAM_USE, &s);
	if (ret)
		goto out;
	ret = acl_res_type(type);
	if (!ret)
		ret = acl_dev_res_total(s->dev, type, &total);
	/* CANN compares with the hardware count only, not the device limit */
	if (!ret && value > total)
		ret = acl_errf(ACLI_ERTPARAM, "value %u exceeds the %u cores of that type on device %d",
			       value, total, s->dev->id);
	if (!ret)
		__atomic_store_n(&s->res_limit[type], (int64_t)value, __ATOMIC_RELAXED);
	acl_stream_put(s);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtGetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t *value)
{
	struct acl_stream *s;
	int ret;

	ret = acl_enter(NULL, value);
	if (!ret)
		ret = acl_stream_resolve(stream, ACL_STREAM_USE, &s);
	if (ret)
		goto out;
	ret = acl_res_type(type);
	if (!ret)
		ret = acl_stream_res(s, type, value);
	acl_stream_put(s);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtResetStreamResLimit(aclrtStream stream)
{
	struct acl_stream *s;
	int ret;

	ret = acl_stream_enter(stream, ACL_STREAM_USE, &s);
	if (!ret) {
		__atomic_store_n(&s->res_limit[0], -1, __ATOMIC_RELAXED);
		__atomic_store_n(&s->res_limit[1], -1, __ATOMIC_RELAXED);
		acl_stream_put(s);
	}
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtUseStreamResInCurrentThread(aclrtStream stream)
{
	struct acl_stream *s;
	int ret;

	ret = acl_stream_enter(stream, ACL_STREAM_USE, &s);
	if (!ret) {
		acl_tls_res_stream = s;
		acl_stream_put(s);
	}
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtUnuseStreamResInCurrentThread(aclrtStream stream)
{
	struct acl_stream *s;
	int ret;

	ret = acl_stream_enter(stream, ACL_STREAM_USE, &s);
	if (!ret) {
		/* another stream than the bound one: nothing changes */
		if (acl_tls_res_stream == (aclrtStream)s)
			acl_tls_res_stream = NULL;
		acl_stream_put(s);
	}
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t *value)
{
	struct acl_context *ctx;
	struct acl_stream *s;
	int ret;

	ret = acl_enter(NULL, value);
	if (!ret)
		ret = acl_res_type(type);
	if (ret)
		goto out;
	/* a bound stream destroyed since is dropped (the vendor keeps a dangling pointer) */
	s = acl_tls_res_stream ? (struct acl_stream *)acl_obj_get(acl_tls_res_stream, ACL_OBJ_STREAM) : NULL;
	if (acl_tls_res_stream && !s)
		acl_tls_res_stream = NULL;
	if (s) {
		int64_t v = __atomic_load_n(&s->res_limit[type], __ATOMIC_RELAXED);

		acl_stream_put(s);
		if (v >= 0) {
			*value = (uint32_t)v;
			goto out;
		}
	}
	/* else the current context's device, even if the stream is on another */
	ret = acl_cur_ctx(&ctx);
	if (ret)
		goto out;
	ret = acl_dev_res_limit(ctx->dev, type, value);
	acl_ctx_put(ctx);
out:
	return acl_ret(__func__, ret);
}
