// SPDX-License-Identifier: MIT
/*
 * How devices are numbered and related: user, logical and physical device
 * ids, the topology between two devices, and the atomic operations a
 * device can do with the host or a peer (lib/README.md, "Device ids and
 * topology").
 *
 * libacl does not read ASCEND_RT_VISIBLE_DEVICES: user id N, logical id N
 * and physical id N (the driver's device_index) all name /dev/npuN. The
 * checks and codes are CANN's (src/runtime/api/api_c_device.cc, impl/
 * api_error.cc, api_impl.cc; the driver's answers through them), which
 * tell a bad id apart by where the vendor finds it: the runtime's own
 * checks answer 107001, the driver's 107000.
 */
#include <errno.h>
#include <stdint.h>

#include <acl/acl.h>

#include "context.h"
#include "device.h"
#include "error.h"

/* CANN's rts* entry points: a negative id is the runtime's 107000. */
static int acl_devid_not_negative(int32_t id, const char *what)
{
	if (id < 0)
		return acl_errf(ACLI_ERTPARAM, "%s %d must be >= 0", what, (int)id);
	return 0;
}

/* An id the driver looks up (CANN: drvDeviceGet*): none such is its 107000. */
static int acl_devid_drv(long long id, const char *what)
{
	if (acl_dev_check_id(id, what))
		return acl_errf(ACLI_ERTPARAM, "%s %lld: no such device", what, id);
	return 0;
}

/*
 * The six mappings. @drv: the id is looked up by the driver (physical to
 * logical, logical to physical), else checked by the runtime.
 */
static int acl_devid_map(int32_t id, int32_t *out, const char *what, bool drv)
{
	int ret = acl_enter(NULL, out);

	if (!ret)
		ret = acl_devid_not_negative(id, what);
	if (!ret)
		ret = drv ? acl_devid_drv(id, what) : acl_dev_check_id(id, what);
	if (!ret)
		*out = id;
	return ret;
}

ACL_EXPORT aclError aclrtGetLogicDevIdByUserDevId(const int32_t userDevid, int32_t *const logicDevId)
{
	return acl_ret(__func__, acl_devid_map(userDevid, logicDevId, "userDevid", false));
}

ACL_EXPORT aclError aclrtGetUserDevIdByLogicDevId(const int32_t logicDevId, int32_t *const userDevid)
{
	return acl_ret(__func__, acl_devid_map(logicDevId, userDevid, "logicDevId", false));
}

ACL_EXPORT aclError aclrtGetLogicDevIdByPhyDevId(const int32_t phyDevId, int32_t *const logicDevId)
{
	return acl_ret(__func__, acl_devid_map(phyDevId, logicDevId, "phyDevId", true));
}

ACL_EXPORT aclError aclrtGetPhyDevIdByLogicDevId(const int32_t logicDevId, int32_t *const phyDevId)
{
	return acl_ret(__func__, acl_devid_map(logicDevId, phyDevId, "logicDevId", true));
}

/* CANN answers these two through the logical-id calls above (device.cpp) */
ACL_EXPORT aclError aclrtGetUserDevIdByPhyDevId(const int32_t phyDevId, int32_t *const userDevId)
{
	return acl_ret(__func__, acl_devid_map(phyDevId, userDevId, "phyDevId", true));
}

ACL_EXPORT aclError aclrtGetPhyDevIdByUserDevId(const int32_t userDevId, int32_t *const phyDevId)
{
	return acl_ret(__func__, acl_devid_map(userDevId, phyDevId, "userDevId", true));
}

/*
 * The topology bit of two existing devices. The driver lets every device's
 * DMA engine reach every other's memory (PEER_ENABLE takes any pair), a
 * link CANN's driver would report as PCIe, all of whose kinds it folds
 * into PIX; a device and itself is HCCS (its runtime turns HCCS_SW back).
 */
static uint64_t acl_devs_topology(uint32_t a, uint32_t b)
{
	return a == b ? ACL_RT_DEVS_TOPOLOGY_HCCS : ACL_RT_DEVS_TOPOLOGY_PIX;
}

ACL_EXPORT aclError aclrtGetDevicesTopo(uint32_t deviceId, uint32_t otherDeviceId, uint64_t *value)
{
	int ret = acl_enter(NULL, value);

	/* CANN's driver checks both ids: its invalid value, 107000 */
	if (!ret)
		ret = acl_devid_drv(deviceId, "deviceId");
	if (!ret)
		ret = acl_devid_drv(otherDeviceId, "otherDeviceId");
	if (!ret)
		*value = acl_devs_topology(deviceId, otherDeviceId);
	return acl_ret(__func__, ret);
}

/* CANN's ValidateAtomicOperations: every operation in 0..44. */
static int acl_atomic_ops_check(const aclrtAtomicOperation *ops, uint32_t count)
{
	uint32_t i;

	for (i = 0; i < count; i++)
		if ((int)ops[i] < ACL_RT_ATOMIC_OPERATION_INTEGER_ADD ||
		    (int)ops[i] > ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_EXCH)
			return acl_errf(ACLI_ERTPARAM, "operations[%u] %d is not an aclrtAtomicOperation (0..44)", i,
					(int)ops[i]);
	return 0;
}

/* The runtime's argument checks the two queries share (its 107000, not the acl layer's). */
static int acl_atomic_args(uint32_t *caps, const aclrtAtomicOperation *ops, uint32_t count)
{
	int ret = acl_check_init();

	if (!ret && !caps)
		ret = acl_errf(ACLI_ERTPARAM, "capabilities must not be NULL");
	if (!ret && !ops)
		ret = acl_errf(ACLI_ERTPARAM, "operations must not be NULL");
	if (!ret && !count)
		ret = acl_errf(ACLI_ERTPARAM, "count must not be 0");
	return ret;
}

/*
 * The capabilities of @ops: none. CANN fills them from its chip table only
 * over a UB link to the host, or an HCCS, SIO or UB link to the peer; here
 * the host link is PCIe and peers are PIX, and the simulated engine has no
 * atomic commands at all.
 */
static void acl_atomic_caps(uint32_t *caps, uint32_t count)
{
	uint32_t i;

	for (i = 0; i < count; i++)
		caps[i] = 0;
}

ACL_EXPORT aclError aclrtDeviceGetHostAtomicCapabilities(uint32_t *capabilities,
							  const aclrtAtomicOperation *operations,
							  const uint32_t count, int32_t deviceId)
{
	int ret = acl_atomic_args(capabilities, operations, count);

	if (!ret)
		ret = acl_dev_check_id(deviceId, "deviceId");
	if (!ret)
		ret = acl_atomic_ops_check(operations, count);
	if (!ret)
		acl_atomic_caps(capabilities, count);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtDeviceGetP2PAtomicCapabilities(uint32_t *capabilities,
							 const aclrtAtomicOperation *operations,
							 const uint32_t count, int32_t srcDeviceId,
							 int32_t dstDeviceId)
{
	int ret = acl_atomic_args(capabilities, operations, count);

	/* CANN: the same id twice is a device id error */
	if (!ret && srcDeviceId == dstDeviceId)
		ret = acl_errf(-ENODEV, "dstDeviceId %d must differ from srcDeviceId", (int)dstDeviceId);
	if (!ret)
		ret = acl_dev_check_id(srcDeviceId, "srcDeviceId");
	if (!ret)
		ret = acl_dev_check_id(dstDeviceId, "dstDeviceId");
	if (!ret)
		ret = acl_atomic_ops_check(operations, count);
	if (!ret)
		acl_atomic_caps(capabilities, count);
	return acl_ret(__func__, ret);
}
