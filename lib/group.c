// SPDX-License-Identifier: MIT
/*
 * Compute groups (aclrtSetGroup and the group-info calls): a partition of
 * a device's cores that tasks are sent to. CANN offers them only on the
 * chips whose runtime has RT_FEATURE_DEVICE_GROUP (of the parts libacl
 * knows, the 310P class, CHIP_DC); everywhere else each runtime call is
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT after the acl layer's NULL checks
 * (api_impl_standard_soc.cc SetGroup/GetGroupCount/GetGroupInfo). Where
 * they exist, the driver reports the groups an operator configured; the
 * simulated device has none configured, so the count is 0, every group
 * id is ACL_ERROR_RT_GROUP_NOT_CREATE (device.cc GroupDevice) and
 * aclrtCreateGroupInfo has nothing to allocate (NULL, as CANN for a count
 * of 0). aclrtDestroyGroupInfo can then only be given an array libacl
 * never made: CANN would delete[] it; libacl refuses it.
 */
#include <errno.h>
#include <stdint.h>

#include <acl/acl.h>

#include "context.h"
#include "device.h"
#include "error.h"
#include "query.h"

/* CANN's group ids: MIN_GROUP_ID .. devProperties.maxGroupId (MAX_GROUP_ID) */
#define ACL_GROUP_ID_MAX	3

/*
 * The runtime's common start, after the acl layer's NULL checks: the
 * chip's feature first, then the current context; the simulated device's
 * group count on success.
 */
static int acl_groups(uint32_t *count)
{
	struct acl_device *dev;
	int ret;

	if (!(acl_chip_features() & ACL_SOC_DEVICE_GROUP))
		return acl_setlast(acl_errf(ACLI_ERTNOTSUPP, "the chip has no compute groups (CANN: RT_FEATURE_DEVICE_GROUP, the 310P class)"));
	ret = acl_cur_dev(&dev);
	if (!ret)
		*count = 0;
	return ret;
}

ACL_EXPORT aclError aclrtSetGroup(int32_t groupId)
{
	uint32_t count;
	int ret;

	ret = acl_check_init();
	if (!ret)
		ret = acl_groups(&count);
	if (!ret && (groupId < 0 || groupId > ACL_GROUP_ID_MAX))
		ret = acl_errf(ACLI_ERTPARAM, "groupId %d is not in [0, %d]", groupId, ACL_GROUP_ID_MAX);
	else if (!ret)
		ret = acl_errf(ACLI_EGROUPNOTCREATE, "group %d was not created (the device has %u groups)",
			       groupId, count);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtGetGroupCount(uint32_t *count)
{
	int ret;

	ret = acl_enter(NULL, count);
	if (!ret)
		ret = acl_groups(count);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclrtGroupInfo *aclrtCreateGroupInfo(void)
{
	uint32_t count;
	int ret;

	ret = acl_check_init();
	if (!ret)
		ret = acl_groups(&count);
	if (ret) {
		(void)acl_ret(__func__, ret);
		return NULL;
	}
	/* a count of 0: CANN allocates nothing and answers NULL, with a warning but no last error */
	(void)acl_ret(__func__, acl_nolast(acl_errf(ACLI_EGROUPNOTCREATE,
						    "the device has no groups (count %u), so there is nothing to hold",
						    count)));
	return NULL;
}

ACL_EXPORT aclError aclrtDestroyGroupInfo(aclrtGroupInfo *groupInfo)
{
	int ret;

	ret = acl_enter(NULL, groupInfo);
	if (!ret)
		ret = acl_errf(-EINVAL, "groupInfo %p was not made by aclrtCreateGroupInfo", (void *)groupInfo);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtGetAllGroupInfo(aclrtGroupInfo *groupInfo)
{
	uint32_t count;
	int ret;

	ret = acl_enter(NULL, groupInfo);
	if (!ret)
		ret = acl_groups(&count);
	if (!ret)
		ret = acl_errf(ACLI_EGROUPNOTCREATE, "the device has no groups (count %u)", count);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtGetGroupInfoDetail(const aclrtGroupInfo *groupInfo, int32_t groupIndex, aclrtGroupAttr attr,
					    void *attrValue, size_t valueLen, size_t *paramRetSize)
{
	uint32_t count;
	int ret;

	(void)attr, (void)valueLen;
	ret = acl_enter(NULL, groupInfo, attrValue, paramRetSize);
	if (!ret)
		ret = acl_groups(&count);
	/* the index is checked before the attribute: with no groups, every index is out of range */
	if (!ret && (groupIndex < 0 || (uint32_t)groupIndex >= count))
		ret = acl_errf(-EINVAL, "groupIndex %d is not in [0, %u)", groupIndex, count);
	return acl_ret(__func__, ret);
}
