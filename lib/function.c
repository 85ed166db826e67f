// SPDX-License-Identifier: MIT
/*
 * Kernel functions of loaded binaries (binary.c): finding them
 * (aclrtBinaryGetFunction by name, aclrtBinaryGetFunctionByEntry by
 * tiling key, aclrtGetFuncBySymbol) and what they are (name, device
 * address and size of the entry, attributes, binary, parameters).
 *
 * A function handle is the struct acl_kfunc of its kernel inside the
 * binary: the same handle for every lookup, live until the binary is
 * unloaded (107017 then). The checks and codes are the vendor's (acl
 * layer: kernel.cpp; runtime: api_c_kernel.cc, api_c_standard_soc.cc,
 * api_error.cc, api_impl.cc): NULL where the acl layer checks is
 * ACL_ERROR_INVALID_PARAM, else the runtime's 107000; a handle that is
 * no live function 107017, checked before the runtime's NULL checks.
 */
#include <errno.h>
#include <string.h>

#include <acl/acl.h>

#include "binary.h"
#include "context.h"
#include "device.h"
#include "error.h"

struct acl_kfunc *acl_binary_kernel(struct acl_binary *b, const char *name, uint64_t key)
{
	uint32_t i;

	for (i = 0; i < b->nfuncs; i++)
		if (name ? !strcmp(b->funcs[i].name, name) : b->funcs[i].tiling_key == key)
			return &b->funcs[i];
	return NULL;
}

/* The function of the binary named @name, or (@name NULL) the first with tiling key @key. */
static int acl_kfunc_find(aclrtBinHandle binHandle, const char *name, uint64_t key, aclrtFuncHandle *funcHandle)
{
	struct acl_binary *b;
	struct acl_kfunc *f;
	int ret;

	ret = acl_binary_get(binHandle, &b);
	if (ret)
		return ret;
	f = acl_binary_kernel(b, name, key);
	if (f)
		*funcHandle = f;
	else if (name)
		ret = acl_errf(ACLI_ERTPARAM, "binary %p has no kernel named %s", binHandle, name);
	else
		ret = acl_errf(ACLI_ERTPARAM, "binary %p has no kernel with tiling key (funcEntry) %llu", binHandle,
			       (unsigned long long)key);
	acl_obj_put(&b->obj);
	return ret;
}

ACL_EXPORT aclError aclrtBinaryGetFunction(const aclrtBinHandle binHandle, const char *kernelName,
					   aclrtFuncHandle *funcHandle)
{
	int ret;

	ret = acl_enter(NULL, binHandle, kernelName, funcHandle);
	if (!ret)
		ret = acl_kfunc_find(binHandle, kernelName, 0, funcHandle);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtBinaryGetFunctionByEntry(aclrtBinHandle binHandle, uint64_t funcEntry,
						  aclrtFuncHandle *funcHandle)
{
	int ret;

	ret = acl_enter(NULL, binHandle, funcHandle);
	if (!ret)
		ret = acl_kfunc_find(binHandle, NULL, funcEntry, funcHandle);
	return acl_ret(__func__, ret);
}

/*
 * CANN finds the kernel a host symbol was registered for (the compiler's
 * host stubs call rtRegisterFuncSymbol); nothing registers symbols here
 * yet, so every symbol is unknown.
 */
ACL_EXPORT aclError aclrtGetFuncBySymbol(const void *symbol, aclrtFuncHandle *funcHandle)
{
	struct acl_context *ctx;
	int ret;

	ret = acl_enter(NULL, symbol, funcHandle);
	if (!ret)
		ret = acl_cur_ctx(&ctx);
	if (!ret) {
		acl_ctx_put(ctx);
		ret = acl_errf(ACLI_EDEVFUNC, "no kernel function is registered for symbol %p", symbol);
	}
	return acl_ret(__func__, ret);
}

/*
 * The start of the calls on a function: @acl_checks, the result of the
 * acl layer's checks (acl_enter()), then @func live (a reference in *@fp),
 * then the runtime's NULL checks of the pointers after it (107000).
 */
#define acl_kfunc_enter(fp, func, acl_checks, ...)					\
	acl_kfunc_enter_args((fp), (func), acl_checks, #__VA_ARGS__,			\
			     sizeof((const void *[]){ __VA_ARGS__ }) / sizeof(void *),	\
			     (const void *[]){ __VA_ARGS__ })

static int acl_kfunc_enter_args(struct acl_kfunc **fp, const void *func, int acl_checks, const char *rt_names,
				size_t n, const void *const *rt_ptrs)
{
	size_t i, len;
	int ret;

	if (acl_checks)
		return acl_checks;
	/* NULL is no handle: the runtime's own check of it comes below */
	ret = func ? acl_kfunc_get(func, fp) : acl_errf(ACLI_ERTPARAM, "funcHandle must not be NULL");
	for (i = 0; !ret && i < n; i++, rt_names += len, rt_names += strspn(rt_names, ", ")) {
		len = strcspn(rt_names, ",");
		if (!rt_ptrs[i]) {
			acl_kfunc_put(*fp);
			ret = acl_errf(ACLI_ERTPARAM, "%.*s must not be NULL", (int)len, rt_names);
		}
	}
	return ret;
}

ACL_EXPORT aclError aclrtGetFunctionName(aclrtFuncHandle funcHandle, uint32_t maxLen, char *name)
{
	struct acl_kfunc *f;
	size_t len;
	int ret;

	ret = acl_kfunc_enter(&f, funcHandle, acl_enter(NULL, name), name);
	if (ret)
		return acl_ret(__func__, ret);
	len = strlen(f->name) + 1;
	if (maxLen < len)
		ret = acl_errf(ACLI_ERTPARAM, "maxLen %u must be at least %zu (the name and its NUL)", maxLen, len);
	else
		memcpy(name, f->name, len);
	acl_kfunc_put(f);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtGetFunctionAddr(aclrtFuncHandle funcHandle, void **aicAddr, void **aivAddr)
{
	struct acl_kfunc *f;
	int ret;

	ret = acl_kfunc_enter(&f, funcHandle, acl_enter(NULL, funcHandle, aicAddr, aivAddr), aicAddr);
	if (ret)
		return acl_ret(__func__, ret);
	/* a vector kernel: its only address is the vector cores' (ApiImpl::FuncGetAddr) */
	*aicAddr = NULL;
	*aivAddr = (void *)(uintptr_t)(f->bin->dev_addr + f->entry_value);
	acl_kfunc_put(f);
	return acl_ret(__func__, 0);
}

ACL_EXPORT aclError aclrtGetFunctionSize(aclrtFuncHandle funcHandle, size_t *aicSize, size_t *aivSize)
{
	struct acl_kfunc *f;
	int ret;

	/* no acl-layer checks: the runtime's */
	ret = acl_kfunc_enter(&f, funcHandle, acl_check_init(), aicSize, aivSize);
	if (ret)
		return acl_ret(__func__, ret);
	*aicSize = 0;
	*aivSize = f->entry_size;
	acl_kfunc_put(f);
	return acl_ret(__func__, 0);
}

ACL_EXPORT aclError aclrtGetFunctionAttribute(aclrtFuncHandle funcHandle, aclrtFuncAttribute attrType,
					      int64_t *attrValue)
{
	struct acl_kfunc *f;
	int ret;

	ret = acl_kfunc_enter(&f, funcHandle, acl_enter(NULL, funcHandle, attrValue), attrValue);
	if (ret)
		return acl_ret(__func__, ret);
	switch ((int)attrType) {
	case ACL_FUNC_ATTR_KERNEL_TYPE:
		*attrValue = ACL_KERNEL_TYPE_VECTOR;
		break;
	case ACL_FUNC_ATTR_KERNEL_RATIO:	/* no mix kernel: both ratios 0 */
	case ACL_FUNC_ATTR_KERNEL_SCHED_MODE:	/* the normal mode */
		*attrValue = 0;
		break;
	default:
		ret = acl_errf(ACLI_ERTPARAM, "attrType %d is not in [%d, %d]", (int)attrType,
			       ACL_FUNC_ATTR_KERNEL_TYPE, ACL_FUNC_ATTR_KERNEL_SCHED_MODE);
	}
	acl_kfunc_put(f);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtFunctionGetBinary(const aclrtFuncHandle funcHandle, aclrtBinHandle *binHandle)
{
	struct acl_kfunc *f;
	int ret;

	ret = acl_kfunc_enter(&f, funcHandle, acl_check_init(), binHandle);
	if (ret)
		return acl_ret(__func__, ret);
	*binHandle = f->bin;
	acl_kfunc_put(f);
	return acl_ret(__func__, 0);
}

ACL_EXPORT aclError aclrtFunctionGetParamCount(const void *func, size_t *paramCount)
{
	struct acl_kfunc *f;
	int ret;

	ret = acl_kfunc_enter(&f, func, acl_enter(NULL, func, paramCount), paramCount);
	if (ret)
		return acl_ret(__func__, ret);
	*paramCount = f->param_count;
	acl_kfunc_put(f);
	return acl_ret(__func__, 0);
}

ACL_EXPORT aclError aclrtFunctionGetParamInfo(const void *func, size_t paramIndex, size_t *paramOffset,
					      size_t *paramSize)
{
	struct acl_kfunc *f;
	int ret;

	ret = acl_enter(NULL, func);
	if (!ret && !paramOffset && !paramSize)
		ret = acl_errf(-EINVAL, "paramOffset and paramSize must not both be NULL");
	ret = acl_kfunc_enter(&f, func, ret, func);
	if (ret)
		return acl_ret(__func__, ret);
	if (paramIndex >= f->param_count) {
		ret = acl_errf(ACLI_ERTPARAM, "paramIndex %zu is not in [0, %u)", paramIndex, f->param_count);
	} else {
		if (paramOffset)
			*paramOffset = f->params[paramIndex].offset;
		if (paramSize)
			*paramSize = f->params[paramIndex].size;
	}
	acl_kfunc_put(f);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtFunctionGetAvailDynUbufPerBlock(void *func, uint32_t flags, size_t *dynamicUbufSize)
{
	struct acl_kfunc *f;
	int ret;

	ret = acl_enter(NULL, func, dynamicUbufSize);
	if (!ret && flags)
		ret = acl_errf(-EINVAL, "flags %u must be 0", flags);
	ret = acl_kfunc_enter(&f, func, ret, dynamicUbufSize);
	if (ret)
		return acl_ret(__func__, ret);
	/* only a SIMT kernel has a dynamic unified buffer (ApiImpl::FunctionGetAvailDynUbufPerBlock) */
	*dynamicUbufSize = 0;
	acl_kfunc_put(f);
	return acl_ret(__func__, 0);
}
