// SPDX-License-Identifier: MIT
/*
 * Device memory: aclrtMalloc/Free, memory info, pointer attributes: the
 * API's checks, sizes and placement policies over the memory layer
 * (mm.c), which allocates, maps and frees.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>

#include <acl/acl.h>

#include "context.h"
#include "device.h"
#include "error.h"
#include "managed.h"
#include "mm.h"
#include "query.h"
#include "stream.h"

#define ACL_POLICY_BASE_MASK	0xffU
#define ACL_POLICY_MODIFIERS	(ACL_MEM_TYPE_LOW_BAND_WIDTH | ACL_MEM_TYPE_HIGH_BAND_WIDTH | \
				 ACL_MEM_ACCESS_USER_SPACE_READONLY)

/* Page size for @policy, or 0 for "huge if large, falling back". */
static int acl_policy_page(uint32_t policy, uint64_t *page)
{
	uint32_t base = policy & ACL_POLICY_BASE_MASK;

	if (policy & ~(ACL_POLICY_BASE_MASK | ACL_POLICY_MODIFIERS))
		return acl_errf(-EINVAL, "policy %#x has unknown bits %#x", policy,
				policy & ~(ACL_POLICY_BASE_MASK | ACL_POLICY_MODIFIERS));
	if ((policy & ACL_MEM_TYPE_LOW_BAND_WIDTH) && (policy & ACL_MEM_TYPE_HIGH_BAND_WIDTH))
		return acl_errf(-EINVAL, "policy %#x: LOW_BAND_WIDTH and HIGH_BAND_WIDTH exclude each other",
				policy);
	switch (base) {
	case ACL_MEM_MALLOC_HUGE_FIRST:
	case ACL_MEM_MALLOC_HUGE_FIRST_P2P:
		*page = 0;
		return 0;
	case ACL_MEM_MALLOC_HUGE_ONLY:
	case ACL_MEM_MALLOC_HUGE_ONLY_P2P:
		*page = NPU_PAGE_2M;
		return 0;
	case ACL_MEM_MALLOC_NORMAL_ONLY:
	case ACL_MEM_MALLOC_NORMAL_ONLY_P2P:
		*page = NPU_PAGE_4K;
		return 0;
	case ACL_MEM_MALLOC_HUGE1G_ONLY:
	case ACL_MEM_MALLOC_HUGE1G_ONLY_P2P:
		*page = NPU_PAGE_1G;
		return 0;
	}
	return acl_errf(-EINVAL, "policy %#x: base policy %u is not an aclrtMemMallocPolicy", policy, base);
}

static int acl_malloc(struct acl_device *dev, void **devPtr, size_t size, uint32_t policy)
{
	uint64_t page, len, va;
	bool fallback = false;
	int ret;

	ret = acl_policy_page(policy, &page);
	if (ret)
		return ret;
	if (!page) {
		fallback = size >= NPU_PAGE_2M;
		page = fallback ? NPU_PAGE_2M : NPU_PAGE_4K;
		if (fallback && !(dev->page_sizes & NPU_PAGE_2M)) {
			page = NPU_PAGE_4K;
			fallback = false;
		}
	}
	if (!(dev->page_sizes & page))
		return acl_errf(-EOPNOTSUPP, "policy %#x: device %d has no %llu KiB pages", policy, dev->id,
				(unsigned long long)(page >> 10));
	len = acl_round_up(size, page);
	if (len < size)
		return acl_errf(-EINVAL, "size %zu too large", size);
	/*
	 * ACL_MEM_ACCESS_USER_SPACE_READONLY restricts the CPU's view, which
	 * never maps device memory here: the device keeps read-write access.
	 */
	ret = acl_mm_alloc(dev, len, page, &va);
	if (ret == -ENOMEM && fallback) {
		len = acl_round_up(size, NPU_PAGE_4K);
		ret = acl_mm_alloc(dev, len, NPU_PAGE_4K, &va);
	}
	if (!ret)
		*devPtr = (void *)(uintptr_t)va;
	return ret;
}

/*
 * The cfg (NULL: none) of aclrtMallocWithCfg, or with @runtime of
 * aclrtMallocForTaskScheduler, which follows CANN's runtime
 * (ApiErrorDecorator::DevMalloc, ApiImpl::ParseMallocCfg): what the acl
 * layer leaves to it is 107000, and RSV attributes are skipped.
 */
static int acl_malloc_cfg_check(struct acl_device *dev, const aclrtMallocConfig *cfg, bool runtime)
{
	int err = runtime ? ACLI_ERTPARAM : -EINVAL;
	size_t i;

	if (!cfg)
		return 0;
	if (cfg->numAttrs && !cfg->attrs)
		return acl_errf(-EINVAL, "cfg->attrs must not be NULL when cfg->numAttrs is %zu", cfg->numAttrs);
	if (runtime && !cfg->attrs)
		return acl_errf(err, "cfg->attrs must not be NULL");
	for (i = 0; i < cfg->numAttrs; i++) {
		const aclrtMallocAttribute *a = &cfg->attrs[i];

		switch (a->attr) {
		case ACL_RT_MEM_ATTR_RSV:
			if (runtime)
				break;
			return acl_errf(err, "cfg->attrs[%zu]: attr RSV is reserved", i);
		case ACL_RT_MEM_ATTR_MODULE_ID:
			break;
		case ACL_RT_MEM_ATTR_DEVICE_ID:
			if (a->value.deviceId != (uint32_t)dev->id)
				return acl_errf(err, "cfg->attrs[%zu]: DEVICE_ID %u must be the current device %d",
						i, a->value.deviceId, dev->id);
			break;
		case ACL_RT_MEM_ATTR_VA_FLAG:
			return acl_errf(err, "cfg->attrs[%zu]: VA_FLAG applies to aclrtMallocHostWithCfg only",
					i);
		default:
			return acl_errf(err, "cfg->attrs[%zu]: attr %d is not MODULE_ID, DEVICE_ID or VA_FLAG",
					i, (int)a->attr);
		}
	}
	return 0;
}

static int acl_malloc_args(void **devPtr, size_t size)
{
	if (!devPtr)
		return acl_errf(-EINVAL, "devPtr must not be NULL");
	if (!size)
		return acl_errf(-EINVAL, "size must be non-zero");
	return 0;
}

/* How an aclrt*Malloc* call sizes and places its allocation (runtime spec section 8). */
enum acl_malloc_mode {
	ACL_MALLOC_PADDED,	/* aclrtMalloc: 32-aligned plus a 32-byte tail */
	ACL_MALLOC_CFG,		/* aclrtMallocWithCfg: padded; the policy's modifier bits count */
	ACL_MALLOC_ALIGN32,	/* aclrtMallocAlign32: 32-aligned, no tail */
	ACL_MALLOC_CACHED,	/* aclrtMallocCached: padded; only the four non-P2P policies */
	ACL_MALLOC_TS,		/* aclrtMallocForTaskScheduler: 32-aligned; the base policy places */
};

#define ACL_MALLOC_ALIGN	32ULL
#define ACL_MALLOC_TAIL		32ULL

/*
 * The bytes an allocation of @size asks the device for: rounded up to 32,
 * plus 32 bytes of padding unless @align32 or @policy is one of the HUGE1G
 * ones (the value as given, even when it selects no placement: the
 * vendor decides the padding on it). The result is rounded to the page
 * size afterwards.
 */
static int acl_malloc_size(size_t size, uint32_t policy, bool align32, uint64_t *req)
{
	uint64_t n = acl_round_up(size, ACL_MALLOC_ALIGN);

	if (!align32 && policy != ACL_MEM_MALLOC_HUGE1G_ONLY && policy != ACL_MEM_MALLOC_HUGE1G_ONLY_P2P)
		n += ACL_MALLOC_TAIL;
	if (n < size)
		return acl_errf(-EINVAL, "size %zu too large", size);
	*req = n;
	return 0;
}

/*
 * The placement aclrtMalloc, aclrtMallocAlign32 and aclrtMallocCached
 * take: only a whole value equal to one of the policies selects one (for
 * Cached, one of the four non-P2P ones); any other value, a modifier bit
 * included, gets the default, huge pages first, without an error (the
 * vendor's aclMallocMemInner and aclrtMallocCachedImpl).
 */
static uint32_t acl_exact_policy(uint32_t policy, enum acl_malloc_mode mode)
{
	switch (policy) {
	case ACL_MEM_MALLOC_HUGE_FIRST_P2P:
	case ACL_MEM_MALLOC_HUGE_ONLY_P2P:
	case ACL_MEM_MALLOC_NORMAL_ONLY_P2P:
	case ACL_MEM_MALLOC_HUGE1G_ONLY_P2P:
		if (mode == ACL_MALLOC_CACHED)
			break;
		return policy;
	case ACL_MEM_MALLOC_HUGE_FIRST:
	case ACL_MEM_MALLOC_HUGE_ONLY:
	case ACL_MEM_MALLOC_NORMAL_ONLY:
	case ACL_MEM_MALLOC_HUGE1G_ONLY:
		return policy;
	}
	return ACL_MEM_MALLOC_HUGE_FIRST;
}

/* The aclrtMalloc family (@cfg may be NULL) as @fn. */
static aclError acl_malloc_api(const char *fn, void **devPtr, size_t size, uint32_t policy,
			       const aclrtMallocConfig *cfg, enum acl_malloc_mode mode)
{
	uint32_t place = mode == ACL_MALLOC_CFG ? policy :
			 mode == ACL_MALLOC_TS ? acl_exact_policy(policy & ACL_POLICY_BASE_MASK, mode) :
			 acl_exact_policy(policy, mode);
	struct acl_device *dev;
	uint64_t page, req = 0;
	int ret;

	ret = acl_check_init();
	if (!ret)
		ret = acl_malloc_args(devPtr, size);
	if (!ret)
		ret = acl_policy_page(place, &page);
	if (!ret)
		ret = acl_malloc_size(size, mode == ACL_MALLOC_CFG ? policy & ACL_POLICY_BASE_MASK : policy,
				      mode == ACL_MALLOC_ALIGN32 || mode == ACL_MALLOC_TS, &req);
	if (!ret)
		ret = acl_cur_dev(&dev);
	if (!ret)
		ret = acl_malloc_cfg_check(dev, cfg, mode == ACL_MALLOC_TS);
	if (!ret)
		ret = acl_malloc(dev, devPtr, req, place);
	return acl_ret(fn, ret);
}

ACL_EXPORT aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
	return acl_malloc_api(__func__, devPtr, size, policy, NULL, ACL_MALLOC_PADDED);
}

ACL_EXPORT aclError aclrtMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
				       aclrtMallocConfig *cfg)
{
	return acl_malloc_api(__func__, devPtr, size, policy, cfg, ACL_MALLOC_CFG);
}

/*
 * CANN: aclrtMallocWithCfg's path with the runtime's TS advice (memory the
 * task scheduler reaches, below 4 GiB of its device's memory); the runtime
 * rounds the size to 32 bytes, adds no tail, places by the policy's low
 * byte and gives any other value its default. The simulated device has
 * one kind of memory, which its engine reaches whole.
 */
ACL_EXPORT aclError aclrtMallocForTaskScheduler(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
						aclrtMallocConfig *cfg)
{
	return acl_malloc_api(__func__, devPtr, size, policy, cfg, ACL_MALLOC_TS);
}

ACL_EXPORT aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
	return acl_malloc_api(__func__, devPtr, size, policy, NULL, ACL_MALLOC_ALIGN32);
}

ACL_EXPORT aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
	return acl_malloc_api(__func__, devPtr, size, policy, NULL, ACL_MALLOC_CACHED);
}

/* Why @addr is no aclrtMalloc allocation start of @dev, for the message. */
static int acl_free_bad_ptr(struct acl_device *dev, void *devPtr)
{
	struct acl_mem_info q;

	if (!acl_mm_query(dev, (uintptr_t)devPtr, &q) && q.kind == NPU_ADDR_DEVICE) {
		if (q.base != (uintptr_t)devPtr)
			return acl_errf(-EINVAL, "devPtr %p points inside an allocation starting at %#llx",
					devPtr, (unsigned long long)q.base);
		if (q.rkind == ACL_REGION_IPC)
			return acl_errf(-EINVAL, "devPtr %p was imported by aclrtIpcMemImportByKey: close it with aclrtIpcMemClose",
					devPtr);
		return acl_errf(-EINVAL, "devPtr %p was not allocated by aclrtMalloc (use the matching release)",
				devPtr);
	}
	return acl_errf(-EINVAL, "devPtr %p is not an aclrtMalloc allocation of the current device (freed already?)",
			devPtr);
}

/* aclrtFree; @sync: aclrtFreeWithDevSync, which first waits for the device. */
static int acl_free(void *devPtr, bool sync)
{
	struct acl_device *dev;
	int ret;

	ret = acl_enter(&dev, devPtr);
	if (!ret && sync)
		ret = acl_dev_sync(dev);
	if (ret)
		return ret;
	ret = acl_managed_free(devPtr);
	if (ret)
		return ret > 0 ? 0 : ret;
	ret = acl_mm_free(dev, (uintptr_t)devPtr, ACL_REGION_MALLOC);
	return ret == -ENOENT ? acl_free_bad_ptr(dev, devPtr) : ret;
}

ACL_EXPORT aclError aclrtFree(void *devPtr)
{
	return acl_ret(__func__, acl_free(devPtr, false));
}

ACL_EXPORT aclError aclrtFreeWithDevSync(void *devPtr)
{
	return acl_ret(__func__, acl_free(devPtr, true));
}

ACL_EXPORT aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total)
{
	struct npu_get_info info = { .size = sizeof(info) };
	struct acl_device *dev;
	int ret;

	ret = acl_check_init();
	if (ret)
		goto out;
	if ((unsigned int)attr > ACL_MEM_P2P_HUGE1G) {
		ret = acl_errf(-EINVAL, "attr %d is not an aclrtMemAttr", (int)attr);
		goto out;
	}
	if (!free || !total) {
		ret = acl_errf(-EINVAL, "%s must not be NULL", !free ? "free" : "total");
		goto out;
	}
	ret = acl_cur_dev(&dev);
	if (ret)
		goto out;
	/* one kind of device memory: every attr answers it */
	ret = acl_query_info(dev->id, &info, "deviceId");
	if (ret)
		goto out;
	*total = info.mem_total;
	*free = info.mem_total > info.mem_used ? info.mem_total - info.mem_used : 0;
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtPointerGetAttributes(const void *ptr, aclrtPtrAttributes *attributes)
{
	struct acl_device *cur = NULL, *dev;
	struct acl_mem_info q;
	int ret, pos = 0;

	ret = acl_enter(NULL, ptr, attributes);
	if (ret)
		goto out;
	/* CANN needs no context here: without one, the open devices answer */
	if (acl_cur_dev(&cur))
		acl_err_clear();
	memset(attributes, 0, sizeof(*attributes));
	attributes->location.type = ACL_MEM_LOCATION_TYPE_UNREGISTERED;
	attributes->pageSize = 4096;
	/* the current device first: its id for managed memory */
	for (dev = cur ? cur : acl_dev_iter(&pos); dev; dev = acl_dev_iter(&pos)) {
		if (dev == cur && pos)
			continue;
		ret = acl_mm_query(dev, (uintptr_t)ptr, &q);
		if (ret)
			goto out;
		/* every open device mirrors it: the current one answers */
		if (q.kind == NPU_ADDR_MIRROR) {
			attributes->location.type = ACL_MEM_LOCATION_TYPE_MANAGED;
			attributes->location.id = dev->id;
			break;
		}
		/* a reservation's hole may hold another device's mapping (mm.c) */
		if (q.kind == NPU_ADDR_DEVICE && acl_mem_hole(&q)) {
			struct acl_device *home = acl_mm_home(dev, (uintptr_t)ptr);

			ret = home != dev ? acl_mm_query(home, (uintptr_t)ptr, &q) : 0;
			if (ret)
				goto out;
			dev = home;	/* the loop ends here */
		}
		if (q.kind == NPU_ADDR_DEVICE) {
			attributes->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
			attributes->location.id = dev->id;
			if (q.page_size)
				attributes->pageSize = q.page_size;
			break;
		}
		/* registered with any device, aclrtMallocHost's included: HOST, id 0 as CANN's */
		if (q.kind == NPU_ADDR_HOST) {
			attributes->location.type = ACL_MEM_LOCATION_TYPE_HOST;
			break;
		}
	}
out:
	return acl_ret(__func__, ret);
}
