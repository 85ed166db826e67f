// SPDX-License-Identifier: MIT
/*
 * Device binaries: aclrtCreateBinary / aclrtDestroyBinary (a description
 * of the caller's bytes), the loads (aclrtBinaryLoad, LoadFromFile,
 * LoadFromData), aclrtBinaryUnLoad, aclrtBinaryGetDevAddress,
 * aclrtBinaryGetGlobal and aclrtBinarySetExceptionCallback. The functions
 * of a binary are function.c's; the format binelf.c's.
 *
 * A load checks the image (binelf.c), keeps a host copy of it, copies it
 * into device memory of the current context's device (4 KiB pages, what
 * aclrtBinaryGetDevAddress answers) and lists the binary and each of its
 * kernels in the handle table. The binary belongs to that context: its
 * destroy (binary.c's hook, after the context's streams) ends the
 * binaries still loaded in it as aclrtBinaryUnLoad does. Ending one, by
 * either, happens under the context's lock, so that its device image is
 * freed while the device is still open.
 *
 * The checks and codes are the vendor's (acl layer: kernel.cpp,
 * callback.cpp; runtime: api_c_kernel.cc, api_error.cc, api_impl.cc,
 * binary_loader.cc): NULL where the acl layer checks is
 * ACL_ERROR_INVALID_PARAM, else the runtime's 107000; a handle that is no
 * loaded binary is 107017; a bad image, a bad option or an unreadable
 * file 107000 (the vendor's RT_ERROR_INVALID_VALUE). The vendor reads an
 * aclrtBinary it never checks; libacl keeps those in its table too, and
 * answers one it does not know ACL_ERROR_INVALID_PARAM.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <acl/acl.h>

#include "aicore.h"
#include "binary.h"
#include "context.h"
#include "copy.h"
#include "device.h"
#include "error.h"
#include "handle.h"
#include "mm.h"

/* The largest image a load reads (a sanity limit of libacl's) */
#define ACL_BINARY_MAX		(1ULL << 30)

/* CANN's RT_DEV_BINARY_MAGIC_ELF, _AIVEC (ACL_RT_BINARY_MAGIC_ELF_CUBE_CORE is the third) */
#define ACL_BIN_MAGIC_ELF	0x43554245U
#define ACL_BIN_MAGIC_AIVEC	0x41415246U

/* aclrtCreateBinary's description: the caller's bytes, read at load */
struct acl_bin_desc {
	struct acl_obj obj;		/* first: the aclrtBinary is the object */
	const void *data;
	size_t len;
};

static void acl_bin_desc_release(struct acl_obj *obj)
{
	free(obj);
}

static void acl_binary_release(struct acl_obj *obj)
{
	struct acl_binary *b = (struct acl_binary *)obj;

	pthread_mutex_destroy(&b->lock);
	acl_ctx_put(b->ctx);
	free(b->image);
	free(b);
}

/* A function's last reference: it lives in its binary, which it held */
static void acl_kfunc_release(struct acl_obj *obj)
{
	acl_obj_put(&((struct acl_kfunc *)obj)->bin->obj);
}

int acl_binary_get(const void *p, struct acl_binary **out)
{
	*out = (struct acl_binary *)acl_obj_get(p, ACL_OBJ_BINARY);
	if (!*out)
		return acl_errf(ACLI_EHANDLE, "binHandle %p is not a loaded binary (never loaded, or unloaded)", p);
	return 0;
}

int acl_kfunc_get(const void *p, struct acl_kfunc **out)
{
	*out = (struct acl_kfunc *)acl_obj_get(p, ACL_OBJ_FUNCTION);
	if (!*out)
		return acl_errf(ACLI_EHANDLE, "funcHandle %p is not a function handle of libacl (of no loaded binary)", p);
	return 0;
}

void acl_kfunc_put(struct acl_kfunc *f)
{
	acl_obj_put(&f->obj);
}

bool acl_kfunc_exc_callback(struct acl_kfunc *f, aclrtOpExceptionCallback *cb, void **data)
{
	struct acl_binary *b = f->bin;

	pthread_mutex_lock(&b->lock);
	*cb = b->exc_cb;
	*data = b->exc_data;
	pthread_mutex_unlock(&b->lock);
	return *cb;
}

/*
 * End @b, unlisted by the caller (acl_obj_del() true) under its context's
 * lock: its functions unlisted, its device image freed, the table's
 * reference dropped.
 */
static void acl_binary_end(struct acl_binary *b)
{
	uint32_t i, epoch;
	int32_t id;

	list_del(&b->node);
	for (i = 0; i < b->nfuncs; i++)
		if (acl_obj_del(&b->funcs[i].obj))
			acl_obj_put(&b->funcs[i].obj);
	__atomic_store_n(&b->loaded, false, __ATOMIC_RELEASE);
	/* the executor waits for its kernels that run; launches not yet taken then fail */
	pthread_mutex_lock(&b->lock);
	id = b->aicore_id;
	epoch = b->aicore_epoch;
	b->aicore_id = -1;
	pthread_mutex_unlock(&b->lock);
	if (id >= 0 && acl_aicore_unload(b->dev, (uint32_t)id, epoch))
		acl_err_clear();
	/* the application may have freed it with aclrtFree: nothing to say then */
	if (acl_mm_free(b->dev, b->dev_addr, ACL_REGION_MALLOC))
		acl_err_clear();
	acl_obj_put(&b->obj);
}

/* The context's hook: its binaries end with it; after fork, only the library's memory goes. */
static void acl_binaries_gone(struct acl_context *ctx, bool forget)
{
	struct acl_binary *b, *n;

	pthread_mutex_lock(&ctx->lock);
	list_for_each_entry_safe(b, n, &ctx->binaries, node) {
		if (forget) {
			list_del(&b->node);
			free(b->image);
			free(b);
		} else if (acl_obj_del(&b->obj)) {
			acl_binary_end(b);
		}
	}
	pthread_mutex_unlock(&ctx->lock);
}

/* Copy @len bytes of @img to new device memory of @dev at *@va. */
static int acl_binary_upload(struct acl_device *dev, const void *img, size_t len, uint64_t *va)
{
	struct acl_shape sh = { .dpitch = len, .spitch = len, .width = len, .height = 1 };
	int ret;

	ret = acl_mm_alloc(dev, acl_round_up(len, NPU_PAGE_4K), NPU_PAGE_4K, va);
	if (ret)
		return ret;
	ret = acl_copy_shape(dev, NULL, (void *)(uintptr_t)*va, img, &sh, ACL_MEMCPY_HOST_TO_DEVICE, ACL_DIR_H2D);
	if (ret)
		acl_mm_free(dev, *va, ACL_REGION_MALLOC);
	return ret;
}

/* Load the image @img (@len bytes, copied) in the current context. */
static int acl_binary_load(const void *img, size_t len, aclrtBinHandle *out)
{
	struct acl_elf_info info = { 0 };
	struct acl_context *ctx;
	struct acl_binary *b;
	uint32_t i;
	bool dying;
	int ret;

	if (len > ACL_BINARY_MAX)
		return acl_errf(ACLI_ERTPARAM, "a device binary of %zu bytes is larger than libacl reads (%llu)", len,
				ACL_BINARY_MAX);
	ret = acl_elf_read(img, len, &info);
	if (ret)
		return ret;
	ret = acl_cur_ctx(&ctx);
	if (ret)
		goto out_info;
	b = calloc(1, sizeof(*b) + (size_t)info.nfuncs * sizeof(b->funcs[0]));
	if (b)
		b->image = malloc(len);
	if (!b || !b->image) {
		ret = acl_errf(-ENOMEM, "out of host memory for a binary of %zu bytes", len);
		goto out_free;
	}
	memcpy(b->image, img, len);
	ret = acl_binary_upload(ctx->dev, b->image, len, &b->dev_addr);
	if (ret)
		goto out_free;
	b->dev = ctx->dev;
	b->ctx = ctx;			/* the reference acl_cur_ctx() took */
	b->size = len;
	memcpy(b->soc, info.soc, sizeof(b->soc));
	pthread_mutex_init(&b->lock, NULL);
	b->aicore_id = -1;
	list_init(&b->node);
	b->nfuncs = info.nfuncs;
	memcpy(b->funcs, info.funcs, (size_t)info.nfuncs * sizeof(b->funcs[0]));
	free(info.funcs);
	b->loaded = true;
	acl_obj_add(&b->obj, ACL_OBJ_BINARY, acl_binary_release);
	for (i = 0; i < b->nfuncs; i++) {
		b->funcs[i].bin = b;
		acl_obj_hold(&b->obj);
		acl_obj_add(&b->funcs[i].obj, ACL_OBJ_FUNCTION, acl_kfunc_release);
	}
	acl_ctx_set_hook(ACL_CTX_HOOK_BINARIES, acl_binaries_gone);
	pthread_mutex_lock(&ctx->lock);
	dying = ctx->dying;
	if (!dying)
		list_add_tail(&b->node, &ctx->binaries);
	else if (acl_obj_del(&b->obj))
		acl_binary_end(b);
	pthread_mutex_unlock(&ctx->lock);
	if (dying)
		return acl_errf(ACLI_ECTXRELEASE, "the current context is being destroyed");
	*out = b;
	return 0;

out_free:
	if (b)
		free(b->image);
	free(b);
	acl_ctx_put(ctx);
out_info:
	free(info.funcs);
	return ret;
}

/*
 * aclrtBinaryLoadOptions as CANN's BinaryLoader::ParseLoadOptions takes
 * them (@file: a load from a file). Lazy loading and the magic change
 * nothing here: the image is copied at load, and it is always a vector
 * binary.
 */
static int acl_binary_options(const aclrtBinaryLoadOptions *o, bool file)
{
	bool cpu = false;
	size_t i;

	if (!o)
		return 0;
	if (!o->options)
		return acl_errf(ACLI_ERTPARAM, "options->options must not be NULL when options is given");
	for (i = 0; i < o->numOpt; i++) {
		const aclrtBinaryLoadOption *op = &o->options[i];

		switch ((int)op->type) {
		case ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD:
			if (op->value.isLazyLoad > 1)
				return acl_errf(ACLI_ERTPARAM, "options[%zu]: isLazyLoad %u is not 0 or 1", i,
						op->value.isLazyLoad);
			break;
		case ACL_RT_BINARY_LOAD_OPT_MAGIC:
			if (file)
				return acl_errf(ACLI_ERTPARAM, "options[%zu]: the magic is for loads from data, not from a file", i);
			if (op->value.magic != ACL_BIN_MAGIC_ELF && op->value.magic != ACL_BIN_MAGIC_AIVEC &&
			    op->value.magic != ACL_RT_BINARY_MAGIC_ELF_CUBE_CORE)
				return acl_errf(ACLI_ERTPARAM, "options[%zu]: magic %#x is not one of {%#x, %#x, %#x}", i,
						op->value.magic, ACL_BIN_MAGIC_ELF, ACL_RT_BINARY_MAGIC_ELF_CUBE_CORE,
						ACL_BIN_MAGIC_AIVEC);
			break;
		case ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE:
			if (file ? op->value.cpuKernelMode != 0 && op->value.cpuKernelMode != 1 :
				   op->value.cpuKernelMode != 2)
				return acl_errf(ACLI_ERTPARAM, "options[%zu]: cpuKernelMode %d is not %s", i,
						op->value.cpuKernelMode, file ? "0 or 1 (a load from a file)" :
						"2 (a load from data)");
			cpu = true;
			break;
		default:
			return acl_errf(ACLI_ERTPARAM, "options[%zu]: type %d is not in [%d, %d)", i, (int)op->type,
					ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD, ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE + 1);
		}
	}
	if (cpu)
		return acl_setlast(acl_errf(ACLI_ERTNOTSUPP,
					    "AI CPU binaries (CPU_KERNEL_MODE) cannot be loaded: the simulated chip has no AI CPU"));
	return 0;
}

ACL_EXPORT aclrtBinary aclrtCreateBinary(const void *data, size_t dataLen)
{
	struct acl_bin_desc *d = NULL;
	int ret = 0;

	if (!data)
		ret = acl_errf(-EINVAL, "data must not be NULL");
	else if (!(d = calloc(1, sizeof(*d))))
		ret = acl_errf(-ENOMEM, "out of host memory");
	if (ret) {
		acl_ret(__func__, ret);
		return NULL;
	}
	d->data = data;
	d->len = dataLen;
	acl_obj_add(&d->obj, ACL_OBJ_BINARY_DESC, acl_bin_desc_release);
	return d;
}

ACL_EXPORT aclError aclrtDestroyBinary(aclrtBinary binary)
{
	struct acl_obj *d = NULL;
	int ret = 0;

	if (!binary)
		ret = acl_errf(-EINVAL, "binary must not be NULL");
	else if (!(d = acl_obj_get(binary, ACL_OBJ_BINARY_DESC)) || !acl_obj_del(d))
		ret = acl_errf(-EINVAL, "binary %p is not a description of aclrtCreateBinary (or destroyed)", binary);
	if (!ret)
		acl_obj_put(d);		/* the table's */
	acl_obj_put(d);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtBinaryLoad(const aclrtBinary binary, aclrtBinHandle *binHandle)
{
	struct acl_bin_desc *d = NULL;
	int ret;

	ret = acl_enter(NULL, binary, binHandle);
	if (!ret) {
		d = (struct acl_bin_desc *)acl_obj_get(binary, ACL_OBJ_BINARY_DESC);
		if (!d)
			ret = acl_errf(-EINVAL, "binary %p is not a description of aclrtCreateBinary (or destroyed)",
				       binary);
	}
	/* the runtime's rtBinaryLoadWithoutTilingKey */
	if (!ret && !d->len)
		ret = acl_errf(ACLI_ERTPARAM, "the binary's dataLen must not be 0");
	if (!ret)
		ret = acl_binary_load(d->data, d->len, binHandle);
	if (d)
		acl_obj_put(&d->obj);
	return acl_ret(__func__, ret);
}

/* The whole regular file @path, malloc'ed, in *@buf (*@len bytes). */
static int acl_binary_read_file(const char *path, void **buf, size_t *len)
{
	struct stat st;
	size_t done = 0;
	char *p = NULL;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return acl_errf(ACLI_ERTPARAM, "binPath %s cannot be opened: %s", path, strerror(errno));
	if (fstat(fd, &st))
		ret = acl_errf(ACLI_ERTPARAM, "binPath %s: %s", path, strerror(errno));
	else if (!S_ISREG(st.st_mode) || !st.st_size || (unsigned long long)st.st_size > ACL_BINARY_MAX)
		ret = acl_errf(ACLI_ERTPARAM, "binPath %s is no regular file of 1 to %llu bytes", path, ACL_BINARY_MAX);
	else if (!(p = malloc((size_t)st.st_size)))
		ret = acl_errf(-ENOMEM, "out of host memory for %s", path);
	while (!ret && done < (size_t)st.st_size) {
		ssize_t n = read(fd, p + done, (size_t)st.st_size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			ret = acl_errf(ACLI_ERTPARAM, "binPath %s: read failed: %s", path,
				       n ? strerror(errno) : "the file shrank");
		else
			done += (size_t)n;
	}
	close(fd);
	if (ret) {
		free(p);
		return ret;
	}
	*buf = p;
	*len = done;
	return 0;
}

ACL_EXPORT aclError aclrtBinaryLoadFromFile(const char *binPath, aclrtBinaryLoadOptions *options,
					    aclrtBinHandle *binHandle)
{
	void *buf = NULL;
	size_t len = 0;
	int ret;

	ret = acl_enter(NULL, binPath, binHandle);
	if (!ret)
		ret = acl_binary_options(options, true);
	if (!ret)
		ret = acl_binary_read_file(binPath, &buf, &len);
	if (!ret)
		ret = acl_binary_load(buf, len, binHandle);
	free(buf);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtBinaryLoadFromData(const void *data, size_t length, const aclrtBinaryLoadOptions *options,
					    aclrtBinHandle *binHandle)
{
	int ret;

	ret = acl_enter(NULL, data, binHandle);
	if (!ret && !length)
		ret = acl_errf(ACLI_ERTPARAM, "length must not be 0");
	if (!ret)
		ret = acl_binary_options(options, false);
	if (!ret)
		ret = acl_binary_load(data, length, binHandle);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtBinaryUnLoad(aclrtBinHandle binHandle)
{
	struct acl_context *ctx;
	struct acl_binary *b;
	int ret;

	ret = acl_enter(NULL, binHandle);
	if (!ret)
		ret = acl_binary_get(binHandle, &b);
	if (ret)
		return acl_ret(__func__, ret);
	ctx = b->ctx;
	pthread_mutex_lock(&ctx->lock);
	if (acl_obj_del(&b->obj))
		acl_binary_end(b);
	else
		ret = acl_errf(ACLI_EHANDLE, "binHandle %p is being unloaded by another thread", binHandle);
	pthread_mutex_unlock(&ctx->lock);
	acl_obj_put(&b->obj);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtBinaryGetDevAddress(const aclrtBinHandle binHandle, void **binAddr, size_t *binSize)
{
	struct acl_binary *b;
	int ret;

	/* binSize: CANN's acl layer writes it unchecked; here it is checked as binHandle is */
	ret = acl_enter(NULL, binHandle, binSize);
	if (!ret)
		ret = acl_binary_get(binHandle, &b);
	if (ret)
		return acl_ret(__func__, ret);
	if (!binAddr) {
		ret = acl_errf(ACLI_ERTPARAM, "binAddr must not be NULL");
	} else {
		*binAddr = (void *)(uintptr_t)b->dev_addr;
		*binSize = b->size;
	}
	acl_obj_put(&b->obj);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtBinaryGetGlobal(aclrtBinHandle binHandle, const char *name, void **dptr, size_t *size)
{
	struct acl_context *ctx;
	struct acl_binary *b;
	int ret;

	ret = acl_enter(NULL, binHandle, name);
	if (!ret && !dptr && !size)
		ret = acl_errf(-EINVAL, "dptr and size must not both be NULL");
	if (!ret)
		ret = acl_binary_get(binHandle, &b);
	if (ret)
		return acl_ret(__func__, ret);
	ret = acl_cur_ctx(&ctx);
	if (!ret) {
		acl_ctx_put(ctx);
		ret = acl_errf(ACLI_ESYMBOL, "global symbol %s not found: device binaries have no globals the runtime knows yet",
			       name);
	}
	acl_obj_put(&b->obj);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtBinarySetExceptionCallback(aclrtBinHandle binHandle, aclrtOpExceptionCallback callback,
						    void *userData)
{
	struct acl_binary *b;
	int ret;

	ret = acl_enter(NULL, binHandle, callback);
	if (!ret)
		ret = acl_binary_get(binHandle, &b);
	if (ret)
		return acl_ret(__func__, ret);
	pthread_mutex_lock(&b->lock);
	b->exc_cb = callback;
	b->exc_data = userData;
	pthread_mutex_unlock(&b->lock);
	acl_obj_put(&b->obj);
	return acl_ret(__func__, 0);
}
