// SPDX-License-Identifier: MIT
/*
 * Process and context settings that change how operators would run: the
 * float saturation mode, the system parameter options, the operator
 * execution timeout, the device limits (stack and printf sizes) and the
 * task scheduler. The simulated chip runs no operators yet, so they are
 * recorded and reported (lib/README.md, "Settings"). As in CANN, none
 * needs aclInit; only the context options, the V2 timeout and the timeout
 * interval need a current context. A stack size beyond the chip's is
 * refused when a device opens (sysparam.h), as CANN's device start does.
 */
#include <errno.h>
#include <stdint.h>

#include <acl/acl.h>

#include "context.h"
#include "error.h"
#include "query.h"
#include "sysparam.h"

/* CANN: rtSysParamOpt has four options; DETERMINISTIC takes 0..3, the rest 0..1 */
#define ACL_SYSPARAMS		4
#define ACL_DETERMINISTIC_MAX	4
#define ACL_SYSPARAM_MAX	2

/* The simulated device counts operator timeouts in whole milliseconds. */
#define ACL_OP_TIMEOUT_TICK_US	1000ULL
/* No timeout set (CANN stores UINT64_MAX - 1 for "never", not this). */
#define ACL_OP_TIMEOUT_UNSET	UINT64_MAX
/* CANN's 910B without one set: 254 credits of 2^32 ns, in ms rounded up. */
#define ACL_OP_TIMEOUT_DEFAULT_MS	1090922U
/* aclrtSetOpExecuteTimeOutWithMs takes at most 1000 s (RT_MAX_OP_TIMEOUT_FOR_MS). */
#define ACL_OP_TIMEOUT_MAX_MS	1000000U

/*
 * Device limits (CANN's runtime.hpp, elf.hpp; 910B_93 dev_info_reg.cc):
 * the AI core stack, 32 KiB unless set, kept in 16 KiB steps, at most
 * 192 KiB on the chip; the SIMD printf FIFO per core, 32 KiB unless set,
 * 1 KiB .. 64 MiB in steps of 8 bytes.
 */
#define ACL_STACK_DEFAULT	32768U
#define ACL_STACK_STEP		16384U
#define ACL_STACK_MAX		196608U
#define ACL_FIFO_DEFAULT	32768U
#define ACL_FIFO_MIN		1024U
#define ACL_FIFO_MAX		(64U << 20)
#define ACL_FIFO_STEP		8U

/*
 * Until set: CANN's runtime starts in INF/NaN mode on a chip that has it
 * (RT_FEATURE_OVERFLOW_MODE: the 910B class, the simulated chip), else in
 * saturation mode (runtime.cc Runtime::Init).
 */
#define ACL_SAT_MODE_UNSET	(-1)
static int acl_sat_mode_set = ACL_SAT_MODE_UNSET;		/* atomic */
static int64_t acl_sysparam[ACL_SYSPARAMS];		/* atomic; 0 until set */
/* the one store of every operator execution timeout call, in us (atomic) */
static uint64_t acl_op_timeout_us = ACL_OP_TIMEOUT_UNSET;
static uint32_t acl_stack_size = ACL_STACK_DEFAULT;	/* atomic */
static uint32_t acl_fifo_size = ACL_FIFO_DEFAULT;	/* atomic */

ACL_EXPORT aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode)
{
	int ret = 0;

	if ((unsigned int)mode > ACL_RT_OVERFLOW_MODE_INFNAN)
		ret = acl_errf(ACLI_ERTPARAM, "mode %d must be ACL_RT_OVERFLOW_MODE_SATURATION (0) or _INFNAN (1)",
			       (int)mode);
	else
		__atomic_store_n(&acl_sat_mode_set, (int)mode, __ATOMIC_RELAXED);
	return acl_ret(__func__, ret);
}

int acl_sat_mode(void)
{
	int m = __atomic_load_n(&acl_sat_mode_set, __ATOMIC_RELAXED);

	if (m == ACL_SAT_MODE_UNSET)
		m = (acl_chip_features() & ACL_SOC_INFNAN) ? ACL_RT_OVERFLOW_MODE_INFNAN :
		    ACL_RT_OVERFLOW_MODE_SATURATION;
	return m;
}

ACL_EXPORT aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode)
{
	int ret = 0;

	if (!mode)
		ret = acl_errf(-EINVAL, "mode must not be NULL");
	else
		*mode = (aclrtFloatOverflowMode)acl_sat_mode();
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

/* Keep an operator timeout of @us; "never" is stored as 0 (CANN: UINT64_MAX is not a timeout). */
static void acl_op_timeout_set(uint64_t us)
{
	if (us == ACL_OP_TIMEOUT_UNSET)
		us--;
	__atomic_store_n(&acl_op_timeout_us, us, __ATOMIC_RELAXED);
}

ACL_EXPORT aclError aclrtSetOpExecuteTimeOut(uint32_t timeout)
{
	acl_op_timeout_set((uint64_t)timeout * 1000000ULL);
	return acl_ret(__func__, 0);
}

ACL_EXPORT aclError aclrtSetOpExecuteTimeOutWithMs(uint32_t timeout)
{
	/* CANN caps it at 1000 s (ApiImpl::SetOpExecuteTimeOut) */
	if (timeout > ACL_OP_TIMEOUT_MAX_MS)
		timeout = ACL_OP_TIMEOUT_MAX_MS;
	acl_op_timeout_set((uint64_t)timeout * 1000ULL);
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
	acl_op_timeout_set(timeout);
	*actualTimeout = acl_op_timeout_applied(timeout);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtGetOpExecuteTimeout(uint32_t *const timeoutMs)
{
	uint64_t us = __atomic_load_n(&acl_op_timeout_us, __ATOMIC_RELAXED);
	uint64_t applied;

	if (!timeoutMs)
		return acl_ret(__func__, acl_errf(-EINVAL, "timeoutMs must not be NULL"));
	if (us == ACL_OP_TIMEOUT_UNSET) {
		*timeoutMs = ACL_OP_TIMEOUT_DEFAULT_MS;
	} else {
		/* none (0), or more milliseconds than 32 bits hold: UINT32_MAX, CANN's "never" */
		applied = acl_op_timeout_applied(us) / ACL_OP_TIMEOUT_TICK_US;
		*timeoutMs = applied >= UINT32_MAX ? UINT32_MAX : (uint32_t)applied;
	}
	return acl_ret(__func__, 0);
}

ACL_EXPORT aclError aclrtGetOpTimeOutInterval(uint64_t *interval)
{
	struct acl_context *ctx;
	int ret = 0;

	if (!interval)
		ret = acl_errf(-EINVAL, "interval must not be NULL");
	/* CANN asks the current context's device for its interval */
	if (!ret)
		ret = acl_cur_ctx(&ctx);
	if (!ret) {
		acl_ctx_put(ctx);
		*interval = ACL_OP_TIMEOUT_TICK_US;
	}
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtSetTsDevice(aclrtTsId tsId)
{
	int ret = 0;

	/* CANN's acl layer; its runtime then has nothing to do on a one-scheduler chip */
	if (tsId != ACL_TS_ID_AICORE && tsId != ACL_TS_ID_AIVECTOR)
		ret = acl_errf(-EINVAL, "tsId %d must be ACL_TS_ID_AICORE (0) or ACL_TS_ID_AIVECTOR (1)",
			       (int)tsId);
	return acl_ret(__func__, ret);
}

/* CANN's acl layer: the five aclrtDeviceLimit values only. */
static int acl_dev_limit_known(aclrtDeviceLimit limit)
{
	if ((unsigned int)limit > ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE)
		return acl_errf(-EINVAL, "limit %d is not an aclrtDeviceLimit (0..4)", (int)limit);
	return 0;
}

/* CANN's runtime (ApiImpl::DeviceSetLimit): no SIMT limits on this chip, a NOLOG 207000. */
static int acl_dev_limit_supported(aclrtDeviceLimit limit)
{
	if (limit != ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE && limit != ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE)
		return acl_nolast(acl_errf(ACLI_ERTNOTSUPP, "limit %d is a SIMT limit: the simulated chip has no SIMT",
					   (int)limit));
	return 0;
}

ACL_EXPORT aclError aclrtDeviceSetLimit(aclrtDeviceLimit limit, size_t value)
{
	int ret = acl_dev_limit_known(limit);
	uint32_t v = (uint32_t)value;

	if (!ret && value > UINT32_MAX)
		ret = acl_errf(-EINVAL, "value %zu must be at most UINT32_MAX", value);
	if (!ret)
		ret = acl_dev_limit_supported(limit);
	if (ret)
		goto out;
	if (limit == ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE) {
		/*
		 * CANN keeps only a size above the default, rounded up to 16 KiB
		 * steps (its 32-bit sum wraps near UINT32_MAX; the last step here)
		 */
		if (v > ACL_STACK_DEFAULT)
			__atomic_store_n(&acl_stack_size, v > UINT32_MAX - ACL_STACK_STEP + 1 ?
					 UINT32_MAX / ACL_STACK_STEP * ACL_STACK_STEP :
					 (v + ACL_STACK_STEP - 1) / ACL_STACK_STEP * ACL_STACK_STEP,
					 __ATOMIC_RELAXED);
	} else if (v < ACL_FIFO_MIN || v > ACL_FIFO_MAX) {
		ret = acl_errf(ACLI_ERTPARAM, "value %u must be in [%u, %u]", v, ACL_FIFO_MIN, ACL_FIFO_MAX);
	} else {
		__atomic_store_n(&acl_fifo_size, (v + ACL_FIFO_STEP - 1) / ACL_FIFO_STEP * ACL_FIFO_STEP,
				 __ATOMIC_RELAXED);
	}
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtDeviceGetLimit(aclrtDeviceLimit limit, size_t *value)
{
	int ret = 0;

	if (!value)
		ret = acl_errf(-EINVAL, "value must not be NULL");
	if (!ret)
		ret = acl_dev_limit_known(limit);
	if (!ret)
		ret = acl_dev_limit_supported(limit);
	if (!ret)
		*value = __atomic_load_n(limit == ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE ? &acl_stack_size : &acl_fifo_size,
					 __ATOMIC_RELAXED);
	return acl_ret(__func__, ret);
}

uint32_t acl_printf_fifo_size(void)
{
	return __atomic_load_n(&acl_fifo_size, __ATOMIC_RELAXED);
}

int acl_dev_limits_check_open(int id)
{
	uint32_t stack = __atomic_load_n(&acl_stack_size, __ATOMIC_RELAXED);

	/* CANN's RawDevice::AllocCustomerStackPhyBase, when the device starts */
	if (stack > ACL_STACK_MAX)
		return acl_errf(ACLI_EDEVSETUP, "device %d: the AI core stack size %u set with aclrtDeviceSetLimit is above the chip's %u",
				id, stack, ACL_STACK_MAX);
	return 0;
}
