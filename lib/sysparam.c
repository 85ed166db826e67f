// SPDX-License-Identifier: MIT
/*
 * Process and context settings that change how operators would run: the
 * float saturation mode, the system parameter options, the operator
 * execution timeout. The simulated chip runs no operators yet, so they
 * are recorded and reported (lib/README.md, "Settings"). As in CANN,
 * none needs aclInit; only the context options and the V2 timeout need a
 * current context.
 */
#include <errno.h>
#include <stdint.h>

#include <acl/acl.h>

#include "context.h"
#include "error.h"

/* CANN: rtSysParamOpt has four options; DETERMINISTIC takes 0..3, the rest 0..1 */
#define ACL_SYSPARAMS		4
#define ACL_DETERMINISTIC_MAX	4
#define ACL_SYSPARAM_MAX	2

/* The simulated device counts operator timeouts in whole milliseconds. */
#define ACL_OP_TIMEOUT_TICK_US	1000ULL

/* The 910B-class chip has both modes and starts in INF/NaN mode. */
static int acl_sat_mode = ACL_RT_OVERFLOW_MODE_INFNAN;	/* atomic */
static int64_t acl_sysparam[ACL_SYSPARAMS];		/* atomic; 0 until set */
static uint64_t acl_op_timeout_us;			/* atomic; 0: none set */

ACL_EXPORT aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode)
{
	int ret = 0;

	if ((unsigned int)mode > ACL_RT_OVERFLOW_MODE_INFNAN)
		ret = acl_errf(ACLI_ERTPARAM, "mode %d must be ACL_RT_OVERFLOW_MODE_SATURATION (0) or _INFNAN (1)",
			       (int)mode);
	else
		__atomic_store_n(&acl_sat_mode, (int)mode, __ATOMIC_RELAXED);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode)
{
	int ret = 0;

	if (!mode)
		ret = acl_errf(-EINVAL, "mode must not be NULL");
	else
		*mode = (aclrtFloatOverflowMode)__atomic_load_n(&acl_sat_mode, __ATOMIC_RELAXED);
	return acl_ret(__func__, ret);
}

/* The acl layer's check of an option: 0..3 process-wide, 0..2 per context. */
static int acl_sysparam_opt(aclSysParamOpt opt, bool ctx)
{
	unsigned int n = ctx ? ACL_CTX_SYSPARAMS : ACL_SYSPARAMS;

	if ((unsigned int)opt >= n)
		return acl_errf(-EINVAL, "opt %d is not an aclSysParamOpt%s (0..%u)", (int)opt,
				ctx ? " a context keeps" : "", n - 1);
	return 0;
}

/* The runtime's check of a value. */
static int acl_sysparam_value(aclSysParamOpt opt, int64_t value)
{
	int64_t max = opt == ACL_OPT_DETERMINISTIC ? ACL_DETERMINISTIC_MAX : ACL_SYSPARAM_MAX;

	if (value < 0 || value >= max)
		return acl_errf(ACLI_ERTPARAM, "value %lld of opt %d must be in [0, %lld)", (long long)value,
				(int)opt, (long long)max);
	return 0;
}

ACL_EXPORT aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value)
{
	int ret = 0;

	if (!value)
		ret = acl_errf(-EINVAL, "value must not be NULL");
	if (!ret)
		ret = acl_sysparam_opt(opt, false);
	if (!ret)
		*value = __atomic_load_n(&acl_sysparam[opt], __ATOMIC_RELAXED);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
	int ret = acl_sysparam_opt(opt, false);

	if (!ret)
		ret = acl_sysparam_value(opt, value);
	if (!ret)
		__atomic_store_n(&acl_sysparam[opt], value, __ATOMIC_RELAXED);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value)
{
	struct acl_context *ctx;
	int ret = 0;

	if (!value)
		ret = acl_errf(-EINVAL, "value must not be NULL");
	if (!ret)
		ret = acl_sysparam_opt(opt, true);
	if (!ret)
		ret = acl_cur_ctx(&ctx);
	if (ret)
		goto out;
	if (__atomic_load_n(&ctx->sysparam_set, __ATOMIC_ACQUIRE) & (1U << opt))
		*value = __atomic_load_n(&ctx->sysparam[opt], __ATOMIC_RELAXED);
	else
		ret = acl_errf(ACLI_ENOTSET, "opt %d was never set on the current context", (int)opt);
	acl_ctx_put(ctx);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
	struct acl_context *ctx;
	int ret = acl_sysparam_opt(opt, true);

	if (!ret)
		ret = acl_sysparam_value(opt, value);
	if (!ret)
		ret = acl_cur_ctx(&ctx);
	if (ret)
		goto out;
	__atomic_store_n(&ctx->sysparam[opt], value, __ATOMIC_RELAXED);
	__atomic_or_fetch(&ctx->sysparam_set, 1U << opt, __ATOMIC_RELEASE);
	acl_ctx_put(ctx);
	/* CANN's rtCtxSetSysParamOpt sets the process-wide value too */
	__atomic_store_n(&acl_sysparam[opt], value, __ATOMIC_RELAXED);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtSetOpExecuteTimeOut(uint32_t timeout)
{
	__atomic_store_n(&acl_op_timeout_us, (uint64_t)timeout * 1000000ULL, __ATOMIC_RELAXED);
	return acl_ret(__func__, 0);
}

/* What the device applies for @us: whole ticks, rounded up; 0 (none) is UINT64_MAX. */
static uint64_t acl_op_timeout_applied(uint64_t us)
{
	uint64_t ticks = us / ACL_OP_TIMEOUT_TICK_US + (us % ACL_OP_TIMEOUT_TICK_US != 0);

	if (!us || ticks > UINT64_MAX / ACL_OP_TIMEOUT_TICK_US)
		return UINT64_MAX;
	return ticks * ACL_OP_TIMEOUT_TICK_US;
}

ACL_EXPORT aclError aclrtSetOpExecuteTimeOutV2(uint64_t timeout, uint64_t *actualTimeout)
{
	struct acl_context *ctx;
	int ret = 0;

	if (!actualTimeout)
		ret = acl_errf(-EINVAL, "actualTimeout must not be NULL");
	/* CANN: the device's timeout configuration exists only with a context */
	if (!ret)
		ret = acl_cur_ctx(&ctx);
	if (ret)
		goto out;
	acl_ctx_put(ctx);
	__atomic_store_n(&acl_op_timeout_us, timeout, __ATOMIC_RELAXED);
	*actualTimeout = acl_op_timeout_applied(timeout);
out:
	return acl_ret(__func__, ret);
}
