// SPDX-License-Identifier: MIT
/*
 * Shared buffers (aclrtMbuf): the acl layer's checks of CANN's
 * src/acl/aclrt_impl/memory.cpp over the semantics of its driver's buffer
 * manager (hicann/driver src/ascend_hal/buff/dc/comm/drv_buff_mbuf.c,
 * halMbuf*): a header per buffer - data length, chain links, a private
 * area of USER_DATA_LEN bytes - over a data block that reference copies
 * share and the last of them frees; chains of at most MBUF_CHAIN_MAX_LEN.
 *
 * The driver's answers, through the runtime's table
 * (errcode_manage.cc): DRV_ERROR_INVALID_VALUE 107000,
 * DRV_ERROR_OVER_LIMIT 207012, the codes it does not list
 * (DRV_ERROR_PARA_ERROR) 507899.
 *
 * Headers are live handles (handle.c): any other pointer is 107000, as
 * the driver's check of its buffer heads answers, and is never read.
 * acl_mbuf_lock orders every change of the chains.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>

#include "device.h"
#include "error.h"
#include "handle.h"
#include "mbuf.h"

#define ACL_MBUF_PRIV		256		/* the driver's USER_DATA_LEN */
#define ACL_MBUF_USER_MAX	96		/* what the acl layer lets through (MEM_SIZE_MAX) */
#define ACL_MBUF_CHAIN_MAX	128		/* MBUF_CHAIN_MAX_LEN */
#define ACL_MBUF_SIZE_MAX	(4ULL << 30)	/* "not above 4G" (CANN's API reference) */
#define ACL_MBUF_ALIGN		64

/* A data block, shared by reference copies. */
struct acl_mbuf_data {
	unsigned int refs;		/* headers over it; under acl_mbuf_lock */
	size_t size;
	void *mem;
};

struct acl_mbuf {
	struct acl_obj obj;		/* first: the aclrtMbuf is the object */
	struct acl_mbuf_data *data;	/* constant */
	/* under acl_mbuf_lock: */
	uint64_t data_len;
	struct acl_mbuf *prev, *next;	/* the chain; a head has no prev */
	bool freed;			/* unlisted by aclrtFreeBuf: a call holding it answers 107000 */
	struct acl_mbuf *drop;		/* freed: the next header whose table reference goes */
	unsigned char priv[ACL_MBUF_PRIV];
};

static pthread_mutex_t acl_mbuf_lock = PTHREAD_MUTEX_INITIALIZER;

void acl_mbuf_forget(void)
{
	pthread_mutex_init(&acl_mbuf_lock, NULL);
}

static void acl_mbuf_release(struct acl_obj *obj)
{
	struct acl_mbuf *b = (struct acl_mbuf *)obj;
	struct acl_mbuf_data *d = b->data;
	bool last;

	pthread_mutex_lock(&acl_mbuf_lock);
	last = !--d->refs;
	pthread_mutex_unlock(&acl_mbuf_lock);
	if (last) {
		free(d->mem);
		free(d);
	}
	free(b);
}

/* @p as a live buffer, with a reference; else 107000 naming it @name. */
static int acl_mbuf_get(const void *p, const char *name, struct acl_mbuf **out)
{
	*out = (struct acl_mbuf *)acl_obj_get(p, ACL_OBJ_MBUF);
	if (!*out)
		return acl_errf(ACLI_ERTPARAM, "%s %p is not a live buffer (aclrtAllocBuf, aclrtCopyBufRef)",
				name, p);
	return 0;
}

static void acl_mbuf_put(struct acl_mbuf *b)
{
	acl_obj_put(&b->obj);
}

/* A new header over @d (which it references), listed. */
static struct acl_mbuf *acl_mbuf_new(struct acl_mbuf_data *d)
{
	struct acl_mbuf *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->data = d;
	d->refs++;
	acl_obj_add(&b->obj, ACL_OBJ_MBUF, acl_mbuf_release);
	return b;
}

/*
 * Unlist every header of the chain @b heads (lock held); *@drop collects
 * them, for acl_mbuf_drop() to let the table's references go unlocked.
 */
static void acl_mbuf_chain_free_locked(struct acl_mbuf *b, struct acl_mbuf **drop)
{
	for (; b; b = b->next) {
		b->freed = true;
		acl_obj_del(&b->obj);
		b->drop = *drop;
		*drop = b;
	}
}

static void acl_mbuf_drop(struct acl_mbuf *drop)
{
	struct acl_mbuf *n;

	for (; drop; drop = n) {
		n = drop->drop;
		acl_mbuf_put(drop);
	}
}

/* A call's buffer was freed by another thread since it looked it up (lock held). */
static int acl_mbuf_gone(const struct acl_mbuf *b, const char *name)
{
	return acl_errf(ACLI_ERTPARAM, "%s %p was freed", name, (const void *)b);
}

ACL_EXPORT aclError aclrtAllocBuf(aclrtMbuf *buf, size_t size)
{
	struct acl_mbuf_data *d = NULL;
	struct acl_mbuf *b = NULL;
	int ret;

	ret = acl_check_init();
	if (ret)
		goto out;
	if (!buf || !size) {
		ret = acl_errf(-EINVAL, !buf ? "buf must not be NULL" : "size must be positive");
		goto out;
	}
	if (size > ACL_MBUF_SIZE_MAX) {
		ret = acl_errf(ACLI_ERTPARAM, "size %zu exceeds the 4 GiB a shared buffer may hold", size);
		goto out;
	}
	d = calloc(1, sizeof(*d));
	if (!d || posix_memalign(&d->mem, ACL_MBUF_ALIGN, size)) {
		free(d);
		ret = acl_errf(-ENOMEM, "cannot allocate %zu bytes for a shared buffer", size);
		goto out;
	}
	d->size = size;
	pthread_mutex_lock(&acl_mbuf_lock);
	b = acl_mbuf_new(d);
	pthread_mutex_unlock(&acl_mbuf_lock);
	if (!b) {
		free(d->mem);
		free(d);
		ret = acl_errf(-ENOMEM, "out of host memory");
		goto out;
	}
	*buf = b;
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtFreeBuf(aclrtMbuf buf)
{
	struct acl_mbuf *b, *drop = NULL;
	int ret;

	if (!buf) {
		ret = acl_errf(-EINVAL, "buf must not be NULL");
		goto out;
	}
	ret = acl_mbuf_get(buf, "buf", &b);
	if (ret)
		goto out;
	pthread_mutex_lock(&acl_mbuf_lock);
	/* the driver frees whole chains, from their head */
	if (b->freed)
		ret = acl_mbuf_gone(b, "buf");
	else if (b->prev)
		ret = acl_errf(ACLI_ERTPARAM, "buf %p is chained after another buffer: free the chain's head", buf);
	else
		acl_mbuf_chain_free_locked(b, &drop);
	pthread_mutex_unlock(&acl_mbuf_lock);
	acl_mbuf_drop(drop);
	acl_mbuf_put(b);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtGetBufData(const aclrtMbuf buf, void **dataPtr, size_t *size)
{
	struct acl_mbuf *b;
	int ret;

	if (!buf || !dataPtr || !size) {
		ret = acl_errf(-EINVAL, "%s must not be NULL", !buf ? "buf" : !dataPtr ? "dataPtr" : "size");
		goto out;
	}
	ret = acl_mbuf_get(buf, "buf", &b);
	if (ret)
		goto out;
	*dataPtr = b->data->mem;
	*size = b->data->size;
	acl_mbuf_put(b);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtGetBufDataLen(aclrtMbuf buf, size_t *len)
{
	struct acl_mbuf *b;
	int ret;

	if (!buf || !len) {
		ret = acl_errf(-EINVAL, "%s must not be NULL", !buf ? "buf" : "len");
		goto out;
	}
	ret = acl_mbuf_get(buf, "buf", &b);
	if (ret)
		goto out;
	pthread_mutex_lock(&acl_mbuf_lock);
	*len = b->data_len;
	pthread_mutex_unlock(&acl_mbuf_lock);
	acl_mbuf_put(b);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtSetBufDataLen(aclrtMbuf buf, size_t len)
{
	struct acl_mbuf *b;
	int ret;

	if (!buf) {
		ret = acl_errf(-EINVAL, "buf must not be NULL");
		goto out;
	}
	ret = acl_mbuf_get(buf, "buf", &b);
	if (ret)
		goto out;
	/* halMbufSetDataLen: 1 up to the block's size */
	if (!len || len > b->data->size) {
		ret = acl_errf(ACLI_ERTPARAM, "len %zu must be 1 to the buffer's size %zu", len, b->data->size);
	} else {
		pthread_mutex_lock(&acl_mbuf_lock);
		b->data_len = len;
		pthread_mutex_unlock(&acl_mbuf_lock);
	}
	acl_mbuf_put(b);
out:
	return acl_ret(__func__, ret);
}

/*
 * The acl layer's checks of a private-area copy: @size + @offset within
 * the 96 bytes it lets through (first, before the NULL checks), then the
 * buffer; a reference to it in *@out.
 */
static int acl_mbuf_user_args(const void *buf, const void *dataPtr, size_t size, size_t offset,
			      struct acl_mbuf **out)
{
	if (size > ACL_MBUF_USER_MAX || offset > ACL_MBUF_USER_MAX - size)
		return acl_errf(-EINVAL, "size %zu + offset %zu exceed the %d bytes of the private area",
				size, offset, ACL_MBUF_USER_MAX);
	if (!buf || !dataPtr)
		return acl_errf(-EINVAL, "%s must not be NULL", !buf ? "buf" : "dataPtr");
	return acl_mbuf_get(buf, "buf", out);
}

ACL_EXPORT aclError aclrtSetBufUserData(aclrtMbuf buf, const void *dataPtr, size_t size, size_t offset)
{
	struct acl_mbuf *b;
	int ret;

	ret = acl_mbuf_user_args(buf, dataPtr, size, offset, &b);
	if (ret)
		goto out;
	pthread_mutex_lock(&acl_mbuf_lock);
	memcpy(b->priv + offset, dataPtr, size);
	pthread_mutex_unlock(&acl_mbuf_lock);
	acl_mbuf_put(b);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtGetBufUserData(const aclrtMbuf buf, void *dataPtr, size_t size, size_t offset)
{
	struct acl_mbuf *b;
	int ret;

	ret = acl_mbuf_user_args(buf, dataPtr, size, offset, &b);
	if (ret)
		goto out;
	/* CANN copies with memcpy_s(dataPtr, size, ...), which refuses a 0-byte destination */
	if (!size) {
		ret = acl_errf(ACLI_EFAILURE, "size 0: nothing to copy into");
	} else {
		pthread_mutex_lock(&acl_mbuf_lock);
		memcpy(dataPtr, b->priv + offset, size);
		pthread_mutex_unlock(&acl_mbuf_lock);
	}
	acl_mbuf_put(b);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtCopyBufRef(const aclrtMbuf buf, aclrtMbuf *newBuf)
{
	struct acl_mbuf *b, *c, *head = NULL, *tail = NULL, *drop = NULL;
	int ret;

	if (!buf || !newBuf) {
		ret = acl_errf(-EINVAL, "%s must not be NULL", !buf ? "buf" : "newBuf");
		goto out;
	}
	ret = acl_mbuf_get(buf, "buf", &b);
	if (ret)
		goto out;
	/* halMbufCopyRef: @buf and what is chained after it, each a new header */
	pthread_mutex_lock(&acl_mbuf_lock);
	if (b->freed)
		ret = acl_mbuf_gone(b, "buf");
	for (c = b; c && !ret; c = c->next) {
		struct acl_mbuf *n = acl_mbuf_new(c->data);

		if (!n) {
			ret = acl_errf(-ENOMEM, "out of host memory");
			break;
		}
		n->data_len = c->data_len;
		memcpy(n->priv, c->priv, sizeof(n->priv));
		n->prev = tail;
		if (tail)
			tail->next = n;
		else
			head = n;
		tail = n;
	}
	if (ret && head)
		acl_mbuf_chain_free_locked(head, &drop);
	pthread_mutex_unlock(&acl_mbuf_lock);
	acl_mbuf_drop(drop);
	if (!ret)
		*newBuf = head;
	acl_mbuf_put(b);
out:
	return acl_ret(__func__, ret);
}

/* The number of buffers in the chain @b heads; lock held. */
static unsigned int acl_mbuf_chain_len_locked(const struct acl_mbuf *b)
{
	unsigned int n = 0;

	for (; b; b = b->next)
		n++;
	return n;
}

ACL_EXPORT aclError aclrtAppendBufChain(aclrtMbuf headBuf, aclrtMbuf buf)
{
	struct acl_mbuf *h = NULL, *b = NULL, *tail;
	int ret;

	if (!headBuf || !buf) {
		ret = acl_errf(-EINVAL, "%s must not be NULL", !headBuf ? "headBuf" : "buf");
		goto out;
	}
	/* the driver compares first: DRV_ERROR_PARA_ERROR */
	if (headBuf == buf) {
		ret = acl_errf(ACLI_EDRVERR, "headBuf and buf are the same buffer");
		goto out;
	}
	ret = acl_mbuf_get(headBuf, "headBuf", &h);
	if (!ret)
		ret = acl_mbuf_get(buf, "buf", &b);
	if (ret)
		goto put;
	pthread_mutex_lock(&acl_mbuf_lock);
	if (h->freed || b->freed) {
		ret = acl_mbuf_gone(h->freed ? h : b, h->freed ? "headBuf" : "buf");
	} else if (h->prev || b->prev) {
		ret = acl_errf(ACLI_ERTPARAM, "%s %p is chained after another buffer, not a chain's head",
			       h->prev ? "headBuf" : "buf", h->prev ? headBuf : buf);
	} else if (acl_mbuf_chain_len_locked(h) + acl_mbuf_chain_len_locked(b) > ACL_MBUF_CHAIN_MAX) {
		ret = acl_errf(ACLI_EOVERLIMIT, "the chains together hold %u buffers, more than %d",
			       acl_mbuf_chain_len_locked(h) + acl_mbuf_chain_len_locked(b),
			       ACL_MBUF_CHAIN_MAX);
	} else {
		for (tail = h; tail->next; tail = tail->next)
			;
		tail->next = b;
		b->prev = tail;
	}
	pthread_mutex_unlock(&acl_mbuf_lock);
put:
	if (h)
		acl_mbuf_put(h);
	if (b)
		acl_mbuf_put(b);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtGetBufChainNum(aclrtMbuf headBuf, uint32_t *num)
{
	struct acl_mbuf *h;
	int ret;

	if (!headBuf || !num) {
		ret = acl_errf(-EINVAL, "%s must not be NULL", !headBuf ? "headBuf" : "num");
		goto out;
	}
	ret = acl_mbuf_get(headBuf, "headBuf", &h);
	if (ret)
		goto out;
	pthread_mutex_lock(&acl_mbuf_lock);
	if (h->freed)
		ret = acl_mbuf_gone(h, "headBuf");
	else if (h->prev)
		ret = acl_errf(ACLI_ERTPARAM, "headBuf %p is chained after another buffer, not a chain's head",
			       headBuf);
	else
		*num = acl_mbuf_chain_len_locked(h);
	pthread_mutex_unlock(&acl_mbuf_lock);
	acl_mbuf_put(h);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtGetBufFromChain(aclrtMbuf headBuf, uint32_t index, aclrtMbuf *buf)
{
	struct acl_mbuf *h, *c;
	uint32_t i = 0;
	int ret;

	if (!headBuf || !buf) {
		ret = acl_errf(-EINVAL, "%s must not be NULL", !headBuf ? "headBuf" : "buf");
		goto out;
	}
	ret = acl_mbuf_get(headBuf, "headBuf", &h);
	if (ret)
		goto out;
	pthread_mutex_lock(&acl_mbuf_lock);
	if (h->freed) {
		ret = acl_mbuf_gone(h, "headBuf");
	} else if (index >= ACL_MBUF_CHAIN_MAX) {
		ret = acl_errf(ACLI_ERTPARAM, "index %u must be below %d", index, ACL_MBUF_CHAIN_MAX);
	} else if (h->prev) {
		ret = acl_errf(ACLI_ERTPARAM, "headBuf %p is chained after another buffer, not a chain's head",
			       headBuf);
	} else {
		for (c = h; c && i < index; c = c->next)
			i++;
		if (c)
			*buf = c;
		else	/* the driver's DRV_ERROR_PARA_ERROR */
			ret = acl_errf(ACLI_EDRVERR, "index %u is past the chain's %u buffers", index, i);
	}
	pthread_mutex_unlock(&acl_mbuf_lock);
	acl_mbuf_put(h);
out:
	return acl_ret(__func__, ret);
}
