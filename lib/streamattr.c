// SPDX-License-Identifier: MIT
/*
 * Stream configuration: config handles and aclrtCreateStreamV2 (CANN's
 * compact C library, src/acl/aclrt_c/runtime/stream.c), the stream
 * attributes (aclrtSetStreamAttribute, aclrtGetStreamAttribute) and how
 * many more streams the current device takes (aclrtGetStreamAvailableNum).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>

#include "context.h"
#include "device.h"
#include "error.h"
#include "stream.h"

/* The driver's streams per context (npu.ko's max_streams) and this file's count of them. */
#define ACL_NPU_MAX_STREAMS	"/sys/module/npu/parameters/max_streams"
#define ACL_NPU_FDINFO_STREAMS	"npu-streams:"

ACL_EXPORT aclrtStreamConfigHandle *aclrtCreateStreamConfigHandle(void)
{
	/* zeroed: priority 0, no flags, no work area */
	return calloc(1, sizeof(aclrtStreamConfigHandle));
}

ACL_EXPORT aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle *handle)
{
	if (!handle)
		return acl_ret(__func__, acl_errf(-EINVAL, "handle must not be NULL"));
	free(handle);
	return ACL_SUCCESS;
}

/* Is @size one of the sizes @attr's value may have? */
static bool acl_stream_opt_size(aclrtStreamConfigAttr attr, size_t size)
{
	switch (attr) {
	case ACL_RT_STREAM_WORK_ADDR_PTR:
		return size == sizeof(void *);
	case ACL_RT_STREAM_WORK_SIZE:
		return size == sizeof(size_t);
	case ACL_RT_STREAM_FLAG:
		/* CANN wants a size_t; its own example passes a uint32_t */
		return size == sizeof(size_t) || size == sizeof(uint32_t);
	default:
		return size == sizeof(uint32_t);
	}
}

ACL_EXPORT aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle *handle, aclrtStreamConfigAttr attr,
					    const void *attrValue, size_t valueSize)
{
	uint32_t u32;
	int ret = 0;

	if (!handle || !attrValue)
		ret = acl_errf(-EINVAL, "%s must not be NULL", handle ? "attrValue" : "handle");
	else if ((unsigned int)attr > ACL_RT_STREAM_PRIORITY)
		ret = acl_errf(-EINVAL, "attr %d must be ACL_RT_STREAM_WORK_ADDR_PTR .. ACL_RT_STREAM_PRIORITY (0..3)",
			       (int)attr);
	else if (!acl_stream_opt_size(attr, valueSize))
		ret = acl_errf(-EINVAL, "valueSize %zu is not the size of attr %d's value", valueSize, (int)attr);
	if (ret)
		return acl_ret(__func__, ret);
	switch (attr) {
	case ACL_RT_STREAM_WORK_ADDR_PTR:
		memcpy(&handle->workptr, attrValue, sizeof(handle->workptr));
		break;
	case ACL_RT_STREAM_WORK_SIZE:
		memcpy(&handle->workSize, attrValue, sizeof(handle->workSize));
		break;
	case ACL_RT_STREAM_FLAG:
		if (valueSize == sizeof(u32)) {
			memcpy(&u32, attrValue, sizeof(u32));
			handle->flag = u32;
		} else {
			memcpy(&handle->flag, attrValue, sizeof(handle->flag));
		}
		break;
	default:
		memcpy(&u32, attrValue, sizeof(u32));
		if (u32 > ACL_STREAM_PRIO_LEAST)
			return acl_ret(__func__, acl_errf(-EINVAL, "priority %u must be 0 .. %d", u32,
							  ACL_STREAM_PRIO_LEAST));
		handle->priority = u32;
		break;
	}
	return ACL_SUCCESS;
}

/*
 * aclrtCreateStreamWithConfig(handle->priority, handle->flag); the work
 * area is a model's (CANN's compact runtime hands it to the models bound
 * to the stream): libacl runs no models and does not use it.
 */
ACL_EXPORT aclError aclrtCreateStreamV2(aclrtStream *stream, const aclrtStreamConfigHandle *handle)
{
	uint32_t flag = handle ? (uint32_t)handle->flag : 0;
	int ret;

	ret = acl_enter(NULL, stream);
	if (!ret)
		ret = acl_stream_make(stream, handle ? handle->priority : 0, flag);
	return acl_ret(__func__, ret);
}

/* The unsigned number after @key in the file @path (@key NULL: its first word). */
static int acl_read_count(const char *path, const char *key, unsigned long *out)
{
	char line[256];
	bool found = false;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return acl_errf(ACLI_EINTERNAL, "cannot read %s", path);
	while (!found && fgets(line, sizeof(line), f)) {
		if (key && strncmp(line, key, strlen(key)))
			continue;
		found = sscanf(line + (key ? strlen(key) : 0), "%lu", out) == 1;
		if (!key)
			break;
	}
	fclose(f);
	return found ? 0 : acl_errf(ACLI_EINTERNAL, "%s has no %s", path, key ? key : "number");
}

/*
 * The streams the current device's driver context can still create: the
 * driver's max_streams less the streams the context holds, those being
 * destroyed included (its fdinfo's count, what the driver compares).
 */
ACL_EXPORT aclError aclrtGetStreamAvailableNum(uint32_t *streamCount)
{
	unsigned long max, used;
	struct acl_device *dev;
	char path[64];
	int ret;

	ret = acl_enter(&dev, streamCount);
	if (!ret)
		ret = acl_read_count(ACL_NPU_MAX_STREAMS, NULL, &max);
	if (!ret) {
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", dev->fd);
		ret = acl_read_count(path, ACL_NPU_FDINFO_STREAMS, &used);
	}
	if (!ret)
		*streamCount = used < max ? (uint32_t)(max - used) : 0;
	return acl_ret(__func__, ret);
}

/*
 * The stream an attribute names: NULL the current context's default one,
 * unless @need (CANN's attributes that take no NULL stream on a chip
 * without a device control queue: 107000); with @own of the current
 * context only (107003).
 */
static int acl_attr_stream(aclrtStream stream, bool need, bool own, struct acl_stream **out)
{
	if (need && !stream)
		return acl_errf(ACLI_ERTPARAM, "stream must not be NULL for this attribute");
	return acl_stream_resolve(stream, own ? ACL_STREAM_OWN : ACL_STREAM_USE, out);
}

static int acl_attr_unknown(aclrtStreamAttr attr)
{
	return acl_errf(ACLI_ERTPARAM, "stmAttrType %d must be ACL_STREAM_ATTR_FAILURE_MODE .. ACL_STREAM_ATTR_PRIORITY (1..5)",
			(int)attr);
}

/* The stream attribute @attr of @stream set to @v (validated: not NULL). */
static int acl_stream_attr_set(aclrtStream stream, aclrtStreamAttr attr, const aclrtStreamAttrValue *v)
{
	struct acl_context *ctx;
	struct acl_stream *s;
	uint32_t prio;
	int ret;

	switch (attr) {
	case ACL_STREAM_ATTR_FAILURE_MODE:
		ret = acl_stream_set_failure_mode(stream, v->failureMode);
		/* through this call CANN records its 207000 as the last error */
		return ret == ACLI_ERTNOTSUPP ? acl_setlast(ret) : ret;
	case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK:
		if (v->overflowSwitch > 1)
			return acl_errf(ACLI_ERTPARAM, "overflowSwitch %u must be 0 or 1", v->overflowSwitch);
		ret = acl_attr_stream(stream, false, true, &s);
		if (ret)
			return ret;
		/* CANN's SetStreamOverflowSwitch: not in a capture */
		ret = acl_stream_not_capturing(s, "setting the overflow switch of");
		if (!ret)
			__atomic_store_n(&s->overflow_switch, v->overflowSwitch, __ATOMIC_RELAXED);
		acl_stream_put(s);
		return ret;
	case ACL_STREAM_ATTR_USER_CUSTOM_TAG:
		ret = acl_attr_stream(stream, false, true, &s);
		if (ret)
			return ret;
		/* CANN's SetStreamTag: not in a capture */
		ret = acl_stream_not_capturing(s, "setting the tag of");
		if (!ret)
			__atomic_store_n(&s->user_tag, v->userCustomTag, __ATOMIC_RELAXED);
		acl_stream_put(s);
		return ret;
	case ACL_STREAM_ATTR_CACHE_OP_INFO:
		ret = acl_attr_stream(stream, true, false, &s);
		if (!ret && v->cacheOpInfoSwitch > 1) {
			acl_stream_put(s);
			ret = acl_errf(ACLI_ERTPARAM, "cacheOpInfoSwitch %u must be 0 or 1", v->cacheOpInfoSwitch);
		} else if (!ret) {
			__atomic_store_n(&s->cache_op_info, v->cacheOpInfoSwitch, __ATOMIC_RELAXED);
		}
		break;
	case ACL_STREAM_ATTR_PRIORITY:
		ret = acl_attr_stream(stream, true, false, &s);
		if (ret)
			return ret;
		/* clamped, read as a signed int, as aclrtCreateStreamWithConfig's */
		prio = (int32_t)v->streamPriority < 0 ? 0 :
		       v->streamPriority > ACL_STREAM_PRIO_LEAST ? ACL_STREAM_PRIO_LEAST : v->streamPriority;
		ret = acl_cur_ctx(&ctx);
		if (!ret) {
			acl_ctx_put(ctx);
			__atomic_store_n(&s->priority, prio, __ATOMIC_RELAXED);
		}
		/* without a context too: the stream's reference */
		acl_stream_put(s);
		return ret;
	default:
		return acl_attr_unknown(attr);
	}
	if (!ret)
		acl_stream_put(s);
	return ret;
}

static int acl_stream_attr_get(aclrtStream stream, aclrtStreamAttr attr, aclrtStreamAttrValue *v)
{
	struct acl_context *ctx;
	struct acl_stream *s;
	int ret;

	switch (attr) {
	case ACL_STREAM_ATTR_FAILURE_MODE:
		ret = acl_attr_stream(stream, true, false, &s);
		if (!ret) {
			pthread_mutex_lock(&s->lock);
			v->failureMode = s->stop_on_failure ? ACL_STOP_ON_FAILURE : ACL_CONTINUE_ON_FAILURE;
			pthread_mutex_unlock(&s->lock);
		}
		break;
	case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK:
		ret = acl_attr_stream(stream, false, true, &s);
		if (!ret)
			v->overflowSwitch = __atomic_load_n(&s->overflow_switch, __ATOMIC_RELAXED);
		break;
	case ACL_STREAM_ATTR_USER_CUSTOM_TAG:
		ret = acl_attr_stream(stream, false, true, &s);
		if (!ret)
			v->userCustomTag = __atomic_load_n(&s->user_tag, __ATOMIC_RELAXED);
		break;
	case ACL_STREAM_ATTR_CACHE_OP_INFO:
		ret = acl_attr_stream(stream, true, false, &s);
		if (!ret)
			v->cacheOpInfoSwitch = __atomic_load_n(&s->cache_op_info, __ATOMIC_RELAXED);
		break;
	case ACL_STREAM_ATTR_PRIORITY:
		ret = acl_attr_stream(stream, true, false, &s);
		if (ret)
			return ret;
		ret = acl_cur_ctx(&ctx);
		if (!ret) {
			acl_ctx_put(ctx);
			v->streamPriority = __atomic_load_n(&s->priority, __ATOMIC_RELAXED);
		}
		break;
	default:
		return acl_attr_unknown(attr);
	}
	if (!ret)
		acl_stream_put(s);
	return ret;
}

/* CANN's runtime validates a named stream before it looks at the attribute. */
static int acl_attr_enter(aclrtStream stream, const aclrtStreamAttrValue *value)
{
	struct acl_stream *s;
	int ret = acl_enter(NULL, value);

	if (!ret && stream) {
		ret = acl_stream_resolve(stream, ACL_STREAM_USE, &s);
		if (!ret)
			acl_stream_put(s);
	}
	return ret;
}

ACL_EXPORT aclError aclrtSetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
					    aclrtStreamAttrValue *value)
{
	int ret = acl_attr_enter(stream, value);

	if (!ret)
		ret = acl_stream_attr_set(stream, stmAttrType, value);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtGetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
					    aclrtStreamAttrValue *value)
{
	int ret = acl_attr_enter(stream, value);

	if (!ret)
		ret = acl_stream_attr_get(stream, stmAttrType, value);
	return acl_ret(__func__, ret);
}
