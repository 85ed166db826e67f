// SPDX-License-Identifier: MIT
/*
 * Kernel argument handles: aclrtKernelArgsInit/InitByUserMem, Append,
 * AppendPlaceHolder, GetPlaceHolderBuffer, ParaUpdate, Finalize and the
 * size queries, with CANN's layout and codes (api_impl.cc KernelArgs*,
 * api_c_kernel.cc rtsKernelArgs*, api_error.cc):
 *
 * - the block starts with the kernel's system parameters (npu-cc's
 *   kernels have none: the overflow address goes with the launch), each
 *   parameter at the next 8-byte boundary;
 * - a placeholder is an 8-byte pointer slot; GetPlaceHolderBuffer puts
 *   its data after everything so far, and the launch writes the data's
 *   device address into the slot; no Append (of either kind) after it;
 * - nothing is appended or got after Finalize (ACL_ERROR_RT_FEATURE_NOT_
 *   SUPPORT); ParaUpdate only of a plain parameter of the same size, and a
 *   handle updated since its Finalize launches only after Finalize again.
 *
 * aclrtKernelArgsInit answers the calling thread's one handle, as CANN's
 * (a thread_local there): a second Init on the thread starts it again and
 * answers the same handle; its buffer holds 64 KiB and 128 parameters.
 * It is freed when the thread exits. aclrtKernelArgsInitByUserMem builds
 * the block in the caller's userHostMem; its argsHandle (memory of
 * aclrtKernelArgsGetHandleMemSize bytes the caller owns) is only the
 * name: libacl keeps the handle's state in a record of its own listed
 * under that address (CANN builds it in that memory), never reads or
 * writes the caller's handle memory, and takes the record again at the
 * next InitByUserMem at that address; a record lives until the process
 * ends.
 *
 * Handles are looked up in libacl's table (handle.h), never read at the
 * caller's address; a parameter handle is an address inside its argument
 * handle's record, checked against it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>

#include "binary.h"
#include "error.h"
#include "handle.h"
#include "kargs.h"

#define ACL_KARGS_PARAMS	128		/* CANN's MAX_PARAM_CNT */
#define ACL_KARGS_BUF		(64 * 1024)	/* CANN's MAX_ARGS_BUFF_SIZE */
#define ACL_KARGS_SYSPARAMS	8		/* CANN's MAX_SYSTEM_PARAM_CNT */
#define ACL_KARGS_ALIGN		8		/* NON_CPU_KERNEL_ARGS_ALIGN_SIZE */

struct acl_kparam {
	uint32_t placeholder;	/* 0: a plain parameter, 1: a placeholder (CANN's type) */
	uint32_t size;		/* its bytes in the block (8 for a placeholder) */
	size_t off;		/* its offset in the block */
	size_t data_off;	/* a placeholder's data (0 until GetPlaceHolderBuffer) */
};

struct acl_argsh {
	struct acl_obj obj;		/* first */
	pthread_mutex_t lock;		/* protects everything below */
	uint8_t *buf;			/* the block: own_buf or the caller's userHostMem */
	uint8_t *own_buf;		/* aclrtKernelArgsInit's, or NULL */
	size_t buf_size;
	size_t size;			/* bytes of the block so far */
	uint32_t nparams, max_params;
	bool got_ph, finalized, updating;
	struct acl_kparam params[];	/* max_params of them */
};

static pthread_key_t acl_kargs_key;
static pthread_once_t acl_kargs_once = PTHREAD_ONCE_INIT;
static __thread struct acl_argsh *acl_kargs_mine;	/* aclrtKernelArgsInit's of this thread */

static void acl_argsh_release(struct acl_obj *obj)
{
	struct acl_argsh *h = (struct acl_argsh *)obj;

	pthread_mutex_destroy(&h->lock);
	free(h->own_buf);
	free(h);
}

/* A thread's Init handle goes with the thread. */
static void acl_kargs_thread_exit(void *p)
{
	struct acl_argsh *h = p;

	if (acl_obj_del(&h->obj))
		acl_obj_put(&h->obj);
}

static void acl_kargs_key_make(void)
{
	pthread_key_create(&acl_kargs_key, acl_kargs_thread_exit);
}

/* Start @h (h->lock held) again for @f: empty, with @buf of @size bytes. */
static void acl_argsh_reset(struct acl_argsh *h, uint8_t *buf, size_t size)
{
	memset(h->params, 0, h->max_params * sizeof(h->params[0]));
	h->buf = buf;
	h->buf_size = size;
	h->size = 0;	/* no system parameters */
	h->nparams = 0;
	h->got_ph = false;
	h->finalized = false;
	h->updating = false;
}

static struct acl_argsh *acl_argsh_new(uint32_t max_params)
{
	struct acl_argsh *h = calloc(1, sizeof(*h) + max_params * sizeof(h->params[0]));

	if (!h)
		return NULL;
	pthread_mutex_init(&h->lock, NULL);
	h->max_params = max_params;
	return h;
}

static int acl_argsh_get(const void *p, struct acl_argsh **out)
{
	*out = (struct acl_argsh *)acl_obj_get(p, ACL_OBJ_KARGS);
	if (!*out)
		return acl_errf(ACLI_EHANDLE, "argsHandle %p is not a kernel argument handle of libacl", p);
	return 0;
}

/* @p as an argument handle, locked (acl_argsh_unlock()), or ACLI_EHANDLE recorded */
static int acl_argsh_lock(const void *p, struct acl_argsh **out)
{
	int ret = acl_argsh_get(p, out);

	if (!ret)
		pthread_mutex_lock(&(*out)->lock);
	return ret;
}

static void acl_argsh_unlock(struct acl_argsh *h)
{
	pthread_mutex_unlock(&h->lock);
	acl_obj_put(&h->obj);
}

/* @p as a parameter of @h (h->lock held), compared against its record only. */
static int acl_kparam_of(struct acl_argsh *h, const void *p, struct acl_kparam **out)
{
	uintptr_t a = (uintptr_t)p, base = (uintptr_t)h->params;

	if (a < base || a >= base + h->nparams * sizeof(h->params[0]) || (a - base) % sizeof(h->params[0]))
		return acl_errf(ACLI_EHANDLE, "paramHandle %p is no parameter of argsHandle %p", p, h->obj.key);
	*out = &h->params[(a - base) / sizeof(h->params[0])];
	return 0;
}

static size_t acl_kargs_aligned(size_t n)
{
	return (n + ACL_KARGS_ALIGN - 1) & ~(size_t)(ACL_KARGS_ALIGN - 1);
}

ACL_EXPORT aclError aclrtKernelArgsGetHandleMemSize(aclrtFuncHandle funcHandle, size_t *memSize)
{
	struct acl_kfunc *f = NULL;
	int ret;

	if (!funcHandle)
		ret = acl_errf(-EINVAL, "funcHandle must not be NULL");
	else if (!memSize)
		ret = acl_errf(-EINVAL, "memSize must not be NULL");
	else
		ret = acl_kfunc_get(funcHandle, &f);
	if (!ret) {
		*memSize = sizeof(struct acl_argsh) + f->param_count * sizeof(struct acl_kparam);
		acl_kfunc_put(f);
	}
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtKernelArgsGetMemSize(aclrtFuncHandle funcHandle, size_t userArgsSize, size_t *actualArgsSize)
{
	struct acl_kfunc *f = NULL;
	int ret;

	if (!funcHandle)
		ret = acl_errf(-EINVAL, "funcHandle must not be NULL");
	else if (!actualArgsSize)
		ret = acl_errf(-EINVAL, "actualArgsSize must not be NULL");
	else
		ret = acl_kfunc_get(funcHandle, &f);
	if (!ret) {
		/* CANN's: room for the most system parameters and each parameter's padding */
		*actualArgsSize = userArgsSize + ACL_KARGS_SYSPARAMS * sizeof(uint64_t) +
				  (size_t)f->param_count * ACL_KARGS_ALIGN;
		acl_kfunc_put(f);
	}
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtKernelArgsInit(aclrtFuncHandle funcHandle, aclrtArgsHandle *argsHandle)
{
	struct acl_argsh *h;
	struct acl_kfunc *f = NULL;
	int ret;

	if (!funcHandle)
		ret = acl_errf(-EINVAL, "funcHandle must not be NULL");
	else if (!argsHandle)
		ret = acl_errf(-EINVAL, "argsHandle must not be NULL");
	else
		ret = acl_kfunc_get(funcHandle, &f);
	if (ret)
		return acl_ret(__func__, ret);
	acl_kfunc_put(f);
	h = acl_kargs_mine;
	/* after fork the table forgot the parent's handles: the child's thread makes its own */
	if (h && !acl_obj_get(h, ACL_OBJ_KARGS))
		h = NULL;
	else if (h)
		acl_obj_put(&h->obj);
	if (!h) {
		pthread_once(&acl_kargs_once, acl_kargs_key_make);
		h = acl_argsh_new(ACL_KARGS_PARAMS);
		if (h)
			h->own_buf = calloc(1, ACL_KARGS_BUF);
		if (!h || !h->own_buf || pthread_setspecific(acl_kargs_key, h)) {
			if (h)
				acl_argsh_release(&h->obj);
			return acl_ret(__func__, acl_errf(-ENOMEM, "no memory for the thread's kernel argument handle"));
		}
		acl_obj_add(&h->obj, ACL_OBJ_KARGS, acl_argsh_release);
		acl_kargs_mine = h;
	}
	pthread_mutex_lock(&h->lock);
	acl_argsh_reset(h, h->own_buf, ACL_KARGS_BUF);
	pthread_mutex_unlock(&h->lock);
	*argsHandle = h;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtKernelArgsInitByUserMem(aclrtFuncHandle funcHandle, aclrtArgsHandle argsHandle,
						 void *userHostMem, size_t actualArgsSize)
{
	struct acl_argsh *h = NULL;
	struct acl_kfunc *f = NULL;
	int ret;

	if (!funcHandle)
		ret = acl_errf(-EINVAL, "funcHandle must not be NULL");
	else if (!argsHandle)
		ret = acl_errf(-EINVAL, "argsHandle must not be NULL");
	else if (!userHostMem)
		ret = acl_errf(-EINVAL, "userHostMem must not be NULL");
	else if (!actualArgsSize)
		ret = acl_errf(-EINVAL, "actualArgsSize must be positive");
	else
		ret = acl_kfunc_get(funcHandle, &f);
	if (ret)
		return acl_ret(__func__, ret);
	h = (struct acl_argsh *)acl_obj_get(argsHandle, ACL_OBJ_KARGS);
	if (h && (h->own_buf || h->max_params < f->param_count)) {
		/* a thread's Init handle is none of the caller's memory; a record too small goes */
		if (h->own_buf) {
			acl_obj_put(&h->obj);
			acl_kfunc_put(f);
			return acl_ret(__func__, acl_errf(ACLI_ERTPARAM,
				"argsHandle %p is aclrtKernelArgsInit's handle, not memory of the caller", argsHandle));
		}
		if (acl_obj_del(&h->obj))
			acl_obj_put(&h->obj);
		acl_obj_put(&h->obj);
		h = NULL;
	}
	if (!h) {
		h = acl_argsh_new(f->param_count);
		if (!h) {
			acl_kfunc_put(f);
			return acl_ret(__func__, acl_errf(-ENOMEM, "no memory for a kernel argument handle"));
		}
		acl_obj_add_key(&h->obj, argsHandle, ACL_OBJ_KARGS, acl_argsh_release);
		acl_obj_hold(&h->obj);
	}
	pthread_mutex_lock(&h->lock);
	h->max_params = f->param_count;
	acl_argsh_reset(h, userHostMem, actualArgsSize);
	acl_argsh_unlock(h);
	acl_kfunc_put(f);
	return ACL_SUCCESS;
}

/*
 * The next free offset of @h (h->lock held) for @size bytes: the checks
 * common to Append and AppendPlaceHolder, in CANN's order (@ph_first: the
 * placeholder buffer's before the finalize's).
 */
static int acl_kargs_slot(struct acl_argsh *h, size_t size, bool ph_first, size_t *off)
{
	const char *got = "appending after aclrtKernelArgsGetPlaceHolderBuffer is not supported";
	const char *fin = "appending to a finalized argument handle is not supported";

	if (ph_first && h->got_ph)
		return acl_errf(ACLI_ERTNOTSUPP, "%s", got);
	if (h->finalized)
		return acl_errf(ACLI_ERTNOTSUPP, "%s", fin);
	if (h->got_ph)
		return acl_errf(ACLI_ERTNOTSUPP, "%s", got);
	if (h->nparams + 1 > h->max_params)
		return acl_errf(ACLI_ERTPARAM, "the handle holds at most %u parameters", h->max_params);
	*off = acl_kargs_aligned(h->size);
	if (size > h->buf_size || *off > h->buf_size - size)
		return acl_errf(ACLI_ERTPARAM, "%zu bytes at offset %zu are over the %zu bytes of the buffer",
				size, *off, h->buf_size);
	return 0;
}

ACL_EXPORT aclError aclrtKernelArgsAppend(aclrtArgsHandle argsHandle, void *param, size_t paramSize,
					  aclrtParamHandle *paramHandle)
{
	struct acl_argsh *h = NULL;
	size_t off;
	int ret;

	if (!argsHandle)
		ret = acl_errf(-EINVAL, "argsHandle must not be NULL");
	else if (!param)
		ret = acl_errf(-EINVAL, "param must not be NULL");
	else if (!paramSize)
		ret = acl_errf(-EINVAL, "paramSize must be positive");
	else if (!paramHandle)
		ret = acl_errf(-EINVAL, "paramHandle must not be NULL");
	else
		ret = acl_argsh_lock(argsHandle, &h);
	if (ret)
		return acl_ret(__func__, ret);
	ret = acl_kargs_slot(h, paramSize, false, &off);
	if (!ret) {
		struct acl_kparam *p = &h->params[h->nparams++];

		p->placeholder = 0;
		p->off = off;
		p->size = (uint32_t)paramSize;
		memcpy(h->buf + off, param, paramSize);
		h->size = off + paramSize;
		*paramHandle = p;
	}
	acl_argsh_unlock(h);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtKernelArgsAppendPlaceHolder(aclrtArgsHandle argsHandle, aclrtParamHandle *paramHandle)
{
	struct acl_argsh *h = NULL;
	size_t off;
	int ret;

	if (!argsHandle)
		ret = acl_errf(-EINVAL, "argsHandle must not be NULL");
	else if (!paramHandle)
		ret = acl_errf(-EINVAL, "paramHandle must not be NULL");
	else
		ret = acl_argsh_lock(argsHandle, &h);
	if (ret)
		return acl_ret(__func__, ret);
	ret = acl_kargs_slot(h, sizeof(uint64_t), true, &off);
	if (!ret) {
		struct acl_kparam *p = &h->params[h->nparams++];

		p->placeholder = 1;
		p->off = off;
		p->size = sizeof(uint64_t);
		p->data_off = 0;
		h->size = off + sizeof(uint64_t);
		*paramHandle = p;
	}
	acl_argsh_unlock(h);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtKernelArgsGetPlaceHolderBuffer(aclrtArgsHandle argsHandle, aclrtParamHandle paramHandle,
							size_t dataSize, void **bufferAddr)
{
	struct acl_argsh *h = NULL;
	struct acl_kparam *p = NULL;
	size_t off;
	int ret;

	if (!argsHandle)
		ret = acl_errf(-EINVAL, "argsHandle must not be NULL");
	else if (!paramHandle)
		ret = acl_errf(-EINVAL, "paramHandle must not be NULL");
	else if (!dataSize)
		ret = acl_errf(-EINVAL, "dataSize must be positive");
	else if (!bufferAddr)
		ret = acl_errf(-EINVAL, "bufferAddr must not be NULL");
	else
		ret = acl_argsh_lock(argsHandle, &h);
	if (ret)
		return acl_ret(__func__, ret);
	ret = acl_kparam_of(h, paramHandle, &p);
	if (!ret && !p->placeholder)
		ret = acl_errf(ACLI_ERTPARAM, "paramHandle is a plain parameter, not a placeholder");
	if (!ret && h->finalized)
		ret = acl_errf(ACLI_ERTNOTSUPP, "getting a placeholder buffer of a finalized argument handle is not supported");
	if (!ret) {
		off = acl_kargs_aligned(h->size);
		if (dataSize > h->buf_size || off > h->buf_size - dataSize)
			ret = acl_errf(ACLI_ERTPARAM, "%zu bytes of placeholder data at offset %zu are over the %zu bytes of the buffer",
				       dataSize, off, h->buf_size);
	}
	if (!ret) {
		h->got_ph = true;
		p->data_off = off;
		h->size = off + dataSize;
		*bufferAddr = h->buf + off;
	}
	acl_argsh_unlock(h);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtKernelArgsParaUpdate(aclrtArgsHandle argsHandle, aclrtParamHandle paramHandle,
					      void *param, size_t paramSize)
{
	struct acl_argsh *h = NULL;
	struct acl_kparam *p = NULL;
	int ret;

	if (!argsHandle)
		ret = acl_errf(-EINVAL, "argsHandle must not be NULL");
	else if (!paramHandle)
		ret = acl_errf(-EINVAL, "paramHandle must not be NULL");
	else if (!param)
		ret = acl_errf(-EINVAL, "param must not be NULL");
	else if (!paramSize)
		ret = acl_errf(-EINVAL, "paramSize must be positive");
	else
		ret = acl_argsh_lock(argsHandle, &h);
	if (ret)
		return acl_ret(__func__, ret);
	ret = acl_kparam_of(h, paramHandle, &p);
	if (!ret && p->placeholder)
		ret = acl_errf(ACLI_ERTPARAM, "paramHandle is a placeholder: only plain parameters are updated");
	if (!ret && p->size != paramSize)
		ret = acl_errf(ACLI_ERTPARAM, "paramSize %zu is not the parameter's %u bytes", paramSize, p->size);
	if (!ret) {
		memcpy(h->buf + p->off, param, paramSize);
		h->updating = true;
	}
	acl_argsh_unlock(h);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtKernelArgsFinalize(aclrtArgsHandle argsHandle)
{
	struct acl_argsh *h = NULL;
	int ret;

	if (!argsHandle)
		ret = acl_errf(-EINVAL, "argsHandle must not be NULL");
	else
		ret = acl_argsh_lock(argsHandle, &h);
	if (ret)
		return acl_ret(__func__, ret);
	h->finalized = true;
	h->updating = false;
	acl_argsh_unlock(h);
	return ACL_SUCCESS;
}

int acl_kargs_block(const void *handle, void **blob, size_t *len, aclrtPlaceHolderInfo **ph, size_t *nph)
{
	struct acl_argsh *h;
	uint32_t i, n = 0;
	int ret;

	*blob = NULL;
	*ph = NULL;
	ret = acl_argsh_lock(handle, &h);
	if (ret)
		return ret;
	if (!h->finalized || h->updating)
		ret = acl_errf(ACLI_ERTPARAM, "the argument handle is not finalized or was updated since");
	else if (!h->size)
		ret = acl_errf(ACLI_ERTPARAM, "the argument handle holds no arguments");
	if (!ret) {
		*blob = malloc(h->size);
		*ph = calloc(h->nparams ? h->nparams : 1, sizeof(**ph));
		if (!*blob || !*ph)
			ret = -ENOMEM;
	}
	if (!ret) {
		memcpy(*blob, h->buf, h->size);
		*len = h->size;
		for (i = 0; i < h->nparams; i++) {
			if (!h->params[i].placeholder)
				continue;
			(*ph)[n].addrOffset = (uint32_t)h->params[i].off;
			(*ph)[n].dataOffset = (uint32_t)h->params[i].data_off;
			n++;
		}
		*nph = n;
	}
	acl_argsh_unlock(h);
	if (ret) {
		free(*blob);
		free(*ph);
		*blob = NULL;
		*ph = NULL;
	}
	return ret;
}
