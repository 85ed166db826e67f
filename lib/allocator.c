// SPDX-License-Identifier: MIT
/*
 * Custom allocators (acl_rt_allocator.h), as CANN's acl layer keeps them
 * (src/acl/aclrt_impl/allocator.cpp): descriptions the application fills
 * in, and per stream a copy of the description it registered, with the
 * description's pointer, for aclrtAllocatorGetByStream to answer. CANN's
 * operator and model layer asks it before it allocates workspace on a
 * stream; libacl has no such layer, so the registration is only answered.
 *
 * Where libacl differs from CANN's table keyed by the stream pointer:
 * descriptions are live handles (a destroyed or foreign pointer is
 * ACL_ERROR_INVALID_PARAM, never read), and the registration lives in the
 * stream (struct acl_stream.allocator, under its lock), so registering
 * needs a live stream and the registration goes with the stream.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include <acl/acl.h>

#include "device.h"
#include "error.h"
#include "handle.h"
#include "stream.h"

/* What a description holds, and what a registration keeps of it. */
struct acl_alloc_fns {
	aclrtAllocatorDesc desc;	/* a registration: the description registered */
	aclrtAllocator obj;
	aclrtAllocatorAllocFunc alloc;
	aclrtAllocatorFreeFunc free;
	aclrtAllocatorAllocAdviseFunc advise;
	aclrtAllocatorGetAddrFromBlockFunc addr;
};

struct acl_alloc_desc {
	struct acl_obj obj;		/* first: the aclrtAllocatorDesc is the object */
	pthread_mutex_t lock;		/* protects fns */
	struct acl_alloc_fns fns;
};

static void acl_alloc_desc_release(struct acl_obj *obj)
{
	struct acl_alloc_desc *d = (struct acl_alloc_desc *)obj;

	pthread_mutex_destroy(&d->lock);
	free(d);
}

/* @desc as a live description, with a reference; else INVALID_PARAM. */
static int acl_alloc_desc_get(aclrtAllocatorDesc desc, struct acl_alloc_desc **out)
{
	if (!desc)
		return acl_errf(-EINVAL, "allocatorDesc must not be NULL");
	*out = (struct acl_alloc_desc *)acl_obj_get(desc, ACL_OBJ_ALLOCATOR_DESC);
	if (!*out)
		return acl_errf(-EINVAL, "allocatorDesc %p is not a live description (aclrtAllocatorCreateDesc)",
				desc);
	return 0;
}

ACL_EXPORT aclrtAllocatorDesc aclrtAllocatorCreateDesc(void)
{
	struct acl_alloc_desc *d = calloc(1, sizeof(*d));

	if (!d) {
		/* CANN's acl layer: NULL, no last error */
		acl_ret(__func__, acl_nolast(acl_errf(-ENOMEM, "out of host memory")));
		return NULL;
	}
	pthread_mutex_init(&d->lock, NULL);
	acl_obj_add(&d->obj, ACL_OBJ_ALLOCATOR_DESC, acl_alloc_desc_release);
	return d;
}

ACL_EXPORT aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc)
{
	struct acl_alloc_desc *d;
	int ret;

	ret = acl_alloc_desc_get(allocatorDesc, &d);
	if (ret)
		goto out;
	if (acl_obj_del(&d->obj))
		acl_obj_put(&d->obj);	/* the table's reference */
	else
		ret = acl_errf(-EINVAL, "allocatorDesc %p is being destroyed by another thread",
			       allocatorDesc);
	acl_obj_put(&d->obj);
out:
	return acl_ret(__func__, ret);
}

/* Which part of a description a setter sets. */
enum acl_alloc_part { ACL_PART_OBJ, ACL_PART_ALLOC, ACL_PART_FREE, ACL_PART_ADVISE, ACL_PART_ADDR };

/* Set one part: @p, non-NULL, named @name (CANN's checks: the description, then the value). */
static int acl_alloc_desc_set(aclrtAllocatorDesc desc, enum acl_alloc_part part, const void *p,
			      void (*fn)(void), const char *name)
{
	struct acl_alloc_desc *d;
	int ret;

	ret = acl_alloc_desc_get(desc, &d);
	if (ret)
		return ret;
	if (!p && !fn) {
		acl_obj_put(&d->obj);
		return acl_errf(-EINVAL, "%s must not be NULL", name);
	}
	pthread_mutex_lock(&d->lock);
	switch (part) {
	case ACL_PART_OBJ:
		d->fns.obj = (aclrtAllocator)p;
		break;
	case ACL_PART_ALLOC:
		d->fns.alloc = (aclrtAllocatorAllocFunc)fn;
		break;
	case ACL_PART_FREE:
		d->fns.free = (aclrtAllocatorFreeFunc)fn;
		break;
	case ACL_PART_ADVISE:
		d->fns.advise = (aclrtAllocatorAllocAdviseFunc)fn;
		break;
	case ACL_PART_ADDR:
		d->fns.addr = (aclrtAllocatorGetAddrFromBlockFunc)fn;
		break;
	}
	pthread_mutex_unlock(&d->lock);
	acl_obj_put(&d->obj);
	return 0;
}

ACL_EXPORT aclError aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocator allocator)
{
	return acl_ret(__func__, acl_alloc_desc_set(allocatorDesc, ACL_PART_OBJ, allocator, NULL,
						    "allocator"));
}

ACL_EXPORT aclError aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc,
						     aclrtAllocatorAllocFunc func)
{
	return acl_ret(__func__, acl_alloc_desc_set(allocatorDesc, ACL_PART_ALLOC, NULL,
						    (void (*)(void))func, "func"));
}

ACL_EXPORT aclError aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc,
						    aclrtAllocatorFreeFunc func)
{
	return acl_ret(__func__, acl_alloc_desc_set(allocatorDesc, ACL_PART_FREE, NULL,
						    (void (*)(void))func, "func"));
}

ACL_EXPORT aclError aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc allocatorDesc,
							   aclrtAllocatorAllocAdviseFunc func)
{
	return acl_ret(__func__, acl_alloc_desc_set(allocatorDesc, ACL_PART_ADVISE, NULL,
						    (void (*)(void))func, "func"));
}

ACL_EXPORT aclError aclrtAllocatorSetGetAddrFromBlockFuncToDesc(aclrtAllocatorDesc allocatorDesc,
								aclrtAllocatorGetAddrFromBlockFunc func)
{
	return acl_ret(__func__, acl_alloc_desc_set(allocatorDesc, ACL_PART_ADDR, NULL,
						    (void (*)(void))func, "func"));
}

/* A copy of @desc's parts for a registration, checked as CANN's Register checks them. */
static int acl_alloc_desc_copy(aclrtAllocatorDesc desc, struct acl_alloc_fns *out)
{
	struct acl_alloc_desc *d;
	const char *unset = NULL;
	int ret;

	ret = acl_alloc_desc_get(desc, &d);
	if (ret)
		return ret;
	pthread_mutex_lock(&d->lock);
	*out = d->fns;
	pthread_mutex_unlock(&d->lock);
	acl_obj_put(&d->obj);
	out->desc = desc;
	/* the advise function is optional */
	if (!out->obj)
		unset = "obj";
	else if (!out->alloc)
		unset = "allocFunc";
	else if (!out->free)
		unset = "freeFunc";
	else if (!out->addr)
		unset = "getAddrFromBlockFunc";
	if (unset)
		return acl_errf(-EINVAL, "allocatorDesc->%s must not be NULL (set it with aclrtAllocatorSet*ToDesc)",
				unset);
	return 0;
}

ACL_EXPORT aclError aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc)
{
	struct acl_alloc_fns fns, *reg = NULL, *old;
	struct acl_stream *s;
	int ret;

	ret = acl_check_init();
	if (ret)
		goto out;
	/* CANN's acl layer: NULL stream too (the default stream takes no allocator) */
	if (!stream) {
		ret = acl_errf(-EINVAL, "stream must not be NULL");
		goto out;
	}
	ret = acl_alloc_desc_copy(allocatorDesc, &fns);
	if (ret)
		goto out;
	ret = acl_stream_resolve(stream, ACL_STREAM_USE, &s);
	if (ret)
		goto out;
	reg = malloc(sizeof(*reg));
	if (!reg) {
		ret = acl_errf(-ENOMEM, "out of host memory");
	} else {
		*reg = fns;
		pthread_mutex_lock(&s->lock);
		old = s->allocator;
		s->allocator = reg;
		pthread_mutex_unlock(&s->lock);
		free(old);
	}
	acl_stream_put(s);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtAllocatorGetByStream(aclrtStream stream, aclrtAllocatorDesc *allocatorDesc,
					      aclrtAllocator *allocator, aclrtAllocatorAllocFunc *allocFunc,
					      aclrtAllocatorFreeFunc *freeFunc,
					      aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
					      aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc)
{
	struct acl_alloc_fns fns;
	struct acl_stream *s;
	bool found = false;
	int ret;

	ret = acl_check_init();
	if (ret)
		goto out;
	/* CANN checks the output first, then the stream */
	if (!allocatorDesc || !stream) {
		ret = acl_errf(-EINVAL, "%s must not be NULL", !allocatorDesc ? "allocatorDesc" : "stream");
		goto out;
	}
	/* a stream that is not live has no registration: CANN's answer for that */
	if (!acl_stream_resolve(stream, ACL_STREAM_USE, &s)) {
		pthread_mutex_lock(&s->lock);
		if (s->allocator) {
			fns = *(struct acl_alloc_fns *)s->allocator;
			found = true;
		}
		pthread_mutex_unlock(&s->lock);
		acl_stream_put(s);
	}
	if (!found) {
		ret = acl_errf(-EINVAL, "stream %p is not registered with any allocator", stream);
		goto out;
	}
	*allocatorDesc = fns.desc;
	if (allocator)
		*allocator = fns.obj;
	if (allocFunc)
		*allocFunc = fns.alloc;
	if (freeFunc)
		*freeFunc = fns.free;
	if (allocAdviseFunc)
		*allocAdviseFunc = fns.advise;
	if (getAddrFromBlockFunc)
		*getAddrFromBlockFunc = fns.addr;
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtAllocatorUnregister(aclrtStream stream)
{
	struct acl_stream *s;
	void *old = NULL;
	int ret;

	ret = acl_check_init();
	if (ret)
		goto out;
	if (!stream) {
		ret = acl_errf(-EINVAL, "stream must not be NULL");
		goto out;
	}
	/* CANN: a stream without a registration, or none at all, is success */
	if (!acl_stream_resolve(stream, ACL_STREAM_USE, &s)) {
		pthread_mutex_lock(&s->lock);
		old = s->allocator;
		s->allocator = NULL;
		pthread_mutex_unlock(&s->lock);
		acl_stream_put(s);
		free(old);
	}
	acl_err_clear();
out:
	return acl_ret(__func__, ret);
}
