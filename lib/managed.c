// SPDX-License-Identifier: MIT
/*
 * Managed memory: aclrtMemAllocManaged, aclrtMemManagedAdvise,
 * aclrtMemManagedGetAttr(s), aclrtMemManagedPrefetchAsync and its batch.
 *
 * An allocation is anonymous host memory, 2 MiB aligned and rounded up to
 * 2 MiB, that every open device mirrors at the same address (MIRROR_MAP:
 * device VA == host VA; the DMA engine faults the pages in as it touches
 * them and the kernel invalidates its entries whenever the process's
 * mapping changes). A device opened later mirrors every live allocation
 * when it opens. Copies and memsets treat a managed pointer as memory of
 * the copying device (copy.c: the memory layer's records answer
 * NPU_ADDR_MIRROR, as the driver would); the host uses it as any memory. There is no device
 * copy of the data: no migration, so a prefetch to a device only builds
 * its entries, and one to the host does nothing.
 *
 * Hints (aclrtMemManagedAdvise) are recorded per 2 MiB granule and only
 * answered (aclrtMemManagedGetAttr(s)); they never change a result.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <acl/acl.h>

#include "context.h"
#include "copy.h"
#include "device.h"
#include "error.h"
#include "list.h"
#include "managed.h"
#include "mm.h"
#include "stream.h"

#define ACL_MANAGED_GRANULE	(2ULL << 20)

/* Location ids GetAttr answers besides device ids. */
#define ACL_MANAGED_ID_HOST	(-1)
#define ACL_MANAGED_ID_NONE	(-2)	/* none, or mixed over the range */

struct acl_granule {
	bool read_mostly;
	aclrtMemManagedLocation preferred;	/* type INVALID: none */
	aclrtMemManagedLocation last_prefetch;	/* type INVALID: never */
	uint64_t accessed_by;			/* bit N: device N */
};

struct acl_managed {
	struct list_head node;		/* in acl_managed_list */
	uint64_t addr, len;		/* constant */
	struct acl_granule *g;		/* len / 2 MiB of them */
};

/*
 * Protects acl_managed_list and every allocation's hints. Taken after
 * acl_global_lock and a device's lock (a device opening mirrors the list),
 * never before them.
 */
static pthread_mutex_t acl_managed_lock = PTHREAD_MUTEX_INITIALIZER;
static struct list_head acl_managed_list = LIST_HEAD_INIT(acl_managed_list);

/* The allocation holding [@addr, @addr + @len), acl_managed_lock held. */
static struct acl_managed *acl_managed_find_locked(uint64_t addr, uint64_t len)
{
	struct list_head *n;

	for (n = acl_managed_list.next; n != &acl_managed_list; n = n->next) {
		struct acl_managed *m = list_entry(n, struct acl_managed, node);

		if (addr >= m->addr && addr - m->addr < m->len && len <= m->len - (addr - m->addr))
			return m;
	}
	return NULL;
}

/* The granules [*first, *last] of the allocation holding the range, or 107000. */
static int acl_managed_range_locked(const void *ptr, uint64_t size, struct acl_managed **mp,
				    uint64_t *first, uint64_t *last)
{
	uint64_t addr = (uintptr_t)ptr;
	struct acl_managed *m = acl_managed_find_locked(addr, size);

	if (!m)
		return acl_errf(ACLI_ERTPARAM, "%p+%llu is not inside one aclrtMemAllocManaged allocation",
				ptr, (unsigned long long)size);
	*mp = m;
	*first = (addr - m->addr) / ACL_MANAGED_GRANULE;
	*last = (addr + size - 1 - m->addr) / ACL_MANAGED_GRANULE;
	return 0;
}

int acl_managed_dev_opened(struct acl_device *dev)
{
	struct list_head *n;
	int ret = 0;

	pthread_mutex_lock(&acl_managed_lock);
	for (n = acl_managed_list.next; n != &acl_managed_list && !ret; n = n->next) {
		struct acl_managed *m = list_entry(n, struct acl_managed, node);

		ret = acl_mm_mirror(dev, m->addr, m->len);
		/* an allocation racing with this open mirrored it already */
		if (ret == -EADDRINUSE) {
			acl_err_clear();
			ret = 0;
		}
	}
	pthread_mutex_unlock(&acl_managed_lock);
	return ret;
}

int acl_managed_free(void *ptr)
{
	uint64_t addr = (uintptr_t)ptr;
	struct acl_managed *m;
	struct acl_device *dev;
	int pos = 0;

	pthread_mutex_lock(&acl_managed_lock);
	m = acl_managed_find_locked(addr, 1);
	if (m && m->addr != addr) {
		pthread_mutex_unlock(&acl_managed_lock);
		return acl_errf(-EINVAL, "devPtr %p points inside managed memory starting at %#llx",
				ptr, (unsigned long long)m->addr);
	}
	if (m) {
		list_del(&m->node);
		while ((dev = acl_dev_iter(&pos)))
			acl_mm_unmirror(dev, m->addr);
	}
	pthread_mutex_unlock(&acl_managed_lock);
	if (!m)
		return 0;
	munmap(ptr, m->len);
	free(m->g);
	free(m);
	return 1;
}

void acl_managed_forget(void)
{
	/* the child keeps the memory (copy-on-write) and the list */
	pthread_mutex_init(&acl_managed_lock, NULL);
}

ACL_EXPORT aclError aclrtMemAllocManaged(void **ptr, uint64_t size, uint32_t flag)
{
	struct acl_device *cur, *dev;
	struct acl_managed *m = NULL;
	uint64_t len, i;
	void *p = MAP_FAILED;
	int ret, pos = 0;

	ret = acl_enter(NULL, ptr);
	if (ret)
		goto out;
	if (flag != ACL_RT_MEM_ATTACH_GLOBAL) {
		ret = acl_errf(-EINVAL, "flag %#x must be ACL_RT_MEM_ATTACH_GLOBAL", flag);
		goto out;
	}
	if (!size) {
		ret = acl_errf(ACLI_ERTPARAM, "size must be non-zero");
		goto out;
	}
	ret = acl_cur_dev(&cur);
	if (ret)
		goto out;
	len = acl_round_up(size, ACL_MANAGED_GRANULE);
	if (len < size) {
		ret = acl_errf(-ENOMEM, "size %llu is too large", (unsigned long long)size);
		goto out;
	}
	m = calloc(1, sizeof(*m));
	if (m)
		m->g = calloc(len / ACL_MANAGED_GRANULE, sizeof(*m->g));
	if (!m || !m->g) {
		ret = acl_errf(-ENOMEM, "out of memory");
		goto out;
	}
	p = acl_map_aligned(len, ACL_MANAGED_GRANULE, 0, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE);
	if (p == MAP_FAILED) {
		ret = acl_errf(-ENOMEM, "cannot map %llu bytes of managed memory: %s",
			       (unsigned long long)len, strerror(errno));
		goto out;
	}
	m->addr = (uintptr_t)p;
	m->len = len;
	for (i = 0; i < len / ACL_MANAGED_GRANULE; i++)
		m->g[i].preferred.id = m->g[i].last_prefetch.id = ACL_MANAGED_ID_NONE;

	/* Under the lock: a device opening meanwhile mirrors it once listed. */
	pthread_mutex_lock(&acl_managed_lock);
	while ((dev = acl_dev_iter(&pos))) {
		ret = acl_mm_mirror(dev, m->addr, len);
		if (ret)
			break;
	}
	if (ret) {
		pos = 0;
		while ((dev = acl_dev_iter(&pos)))
			acl_mm_unmirror(dev, m->addr);
	} else {
		list_add_tail(&m->node, &acl_managed_list);
	}
	pthread_mutex_unlock(&acl_managed_lock);
	if (!ret) {
		*ptr = p;
		return ACL_SUCCESS;
	}
out:
	if (p != MAP_FAILED)
		munmap(p, len);
	if (m)
		free(m->g);
	free(m);
	return acl_ret(__func__, ret);
}

static int acl_location_check(aclrtMemManagedLocation loc, const char *what)
{
	if ((unsigned int)loc.type > ACL_MEM_LOCATIONTYPE_HOST_NUMA_CURRENT)
		return acl_errf(-EINVAL, "%s.type %d is not an aclrtMemManagedLocationType", what,
				(int)loc.type);
	if (loc.type == ACL_MEM_LOCATIONTYPE_INVALID)
		return acl_errf(ACLI_ERTPARAM, "%s.type must not be ACL_MEM_LOCATIONTYPE_INVALID", what);
	if (loc.type == ACL_MEM_LOCATIONTYPE_DEVICE)
		return acl_dev_check_id(loc.id, "location.id");
	return 0;
}

ACL_EXPORT aclError aclrtMemManagedAdvise(const void *const ptr, uint64_t size,
					  aclrtMemManagedAdviseType advise,
					  aclrtMemManagedLocation location)
{
	struct acl_managed *m;
	uint64_t first, last, i;
	int ret;

	ret = acl_enter(NULL, ptr);
	if (ret)
		goto out;
	if (!size) {
		ret = acl_errf(-EINVAL, "size must be non-zero");
		goto out;
	}
	if ((unsigned int)advise > ACL_MEM_ADVISE_UNSET_ACCESSED_BY) {
		ret = acl_errf(-EINVAL, "advise %d is not an aclrtMemManagedAdviseType", (int)advise);
		goto out;
	}
	if (advise == ACL_MEM_ADVISE_SET_PREFERRED_LOCATION ||
	    advise == ACL_MEM_ADVISE_SET_ACCESSED_BY || advise == ACL_MEM_ADVISE_UNSET_ACCESSED_BY) {
		ret = acl_location_check(location, "location");
		if (ret)
			goto out;
	}
	if ((advise == ACL_MEM_ADVISE_SET_ACCESSED_BY || advise == ACL_MEM_ADVISE_UNSET_ACCESSED_BY) &&
	    location.type != ACL_MEM_LOCATIONTYPE_DEVICE) {
		ret = acl_errf(ACLI_ERTPARAM, "ACCESSED_BY needs a location of type ACL_MEM_LOCATIONTYPE_DEVICE");
		goto out;
	}
	pthread_mutex_lock(&acl_managed_lock);
	ret = acl_managed_range_locked(ptr, size, &m, &first, &last);
	for (i = first; !ret && i <= last; i++) {
		struct acl_granule *g = &m->g[i];

		switch (advise) {
		case ACL_MEM_ADVISE_SET_READ_MOSTLY:
		case ACL_MEM_ADVISE_UNSET_READ_MOSTLY:
			g->read_mostly = advise == ACL_MEM_ADVISE_SET_READ_MOSTLY;
			break;
		case ACL_MEM_ADVISE_SET_PREFERRED_LOCATION:
			g->preferred = location;
			break;
		case ACL_MEM_ADVISE_UNSET_PREFERRED_LOCATION:
			g->preferred.type = ACL_MEM_LOCATIONTYPE_INVALID;
			g->preferred.id = ACL_MANAGED_ID_NONE;
			break;
		case ACL_MEM_ADVISE_SET_ACCESSED_BY:
			g->accessed_by |= 1ULL << location.id;
			break;
		default:
			g->accessed_by &= ~(1ULL << location.id);
			break;
		}
	}
	pthread_mutex_unlock(&acl_managed_lock);
out:
	return acl_ret(__func__, ret);
}

/* A location's id as GetAttr answers it for the plain LOCATION attributes. */
static int32_t acl_location_id(aclrtMemManagedLocation loc)
{
	switch (loc.type) {
	case ACL_MEM_LOCATIONTYPE_DEVICE:
		return loc.id;
	case ACL_MEM_LOCATIONTYPE_INVALID:
		return ACL_MANAGED_ID_NONE;
	default:
		return ACL_MANAGED_ID_HOST;
	}
}

/* The answer for @attribute over a range of managed memory; dataSize checked. */
static int acl_managed_attr(aclrtMemManagedRangeAttribute attribute, const void *ptr, size_t size, void *data,
			    size_t dataSize)
{
	aclrtMemManagedLocation loc = { ACL_MEM_LOCATIONTYPE_INVALID, ACL_MANAGED_ID_NONE };
	bool prefetch, mixed = false, read_mostly = true;
	uint64_t first, last, i, acc = ~0ULL;
	struct acl_managed *m;
	int32_t *out = data;
	int ret;

	prefetch = attribute >= ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION;
	pthread_mutex_lock(&acl_managed_lock);
	ret = acl_managed_range_locked(ptr, size, &m, &first, &last);
	for (i = first; !ret && i <= last; i++) {
		aclrtMemManagedLocation l = prefetch ? m->g[i].last_prefetch : m->g[i].preferred;

		read_mostly &= m->g[i].read_mostly;
		acc &= m->g[i].accessed_by;
		if (i == first)
			loc = l;
		else if (l.type != loc.type || l.id != loc.id)
			mixed = true;
	}
	pthread_mutex_unlock(&acl_managed_lock);
	if (ret)
		return ret;
	if (mixed) {
		loc.type = ACL_MEM_LOCATIONTYPE_INVALID;
		loc.id = ACL_MANAGED_ID_NONE;
	}
	switch (attribute) {
	case ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY:
		*out = read_mostly;
		break;
	case ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY:
		for (i = 0; i < dataSize / 4; i++)
			out[i] = ACL_MANAGED_ID_NONE;
		for (i = 0; acc && dataSize >= 4; acc &= acc - 1, dataSize -= 4)
			out[i++] = __builtin_ctzll(acc);
		break;
	case ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION:
	case ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION:
		*out = acl_location_id(loc);
		break;
	case ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE:
	case ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE:
		*out = loc.type;
		break;
	default:
		*out = loc.type == ACL_MEM_LOCATIONTYPE_HOST ? ACL_MANAGED_ID_HOST : loc.id;
		break;
	}
	return 0;
}

static bool acl_managed_attr_known(aclrtMemManagedRangeAttribute attribute)
{
	return attribute >= ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY &&
	       attribute <= ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID;
}

/* dataSize for @attribute: one int32_t; ACCESSED_BY any number of them. */
static bool acl_managed_size_ok(aclrtMemManagedRangeAttribute attribute, size_t dataSize)
{
	return attribute == ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY ? dataSize && !(dataSize % 4) : dataSize == 4;
}

ACL_EXPORT aclError aclrtMemManagedGetAttr(aclrtMemManagedRangeAttribute attribute, const void *ptr,
					   size_t size, void *data, size_t dataSize)
{
	int ret;

	ret = acl_enter(NULL, ptr, data);
	if (ret)
		goto out;
	if (!size) {
		ret = acl_errf(-EINVAL, "size must be non-zero");
		goto out;
	}
	if (!acl_managed_attr_known(attribute)) {
		ret = acl_errf(-EINVAL, "attribute %d is not an aclrtMemManagedRangeAttribute", (int)attribute);
		goto out;
	}
	if (!acl_managed_size_ok(attribute, dataSize)) {
		ret = acl_errf(-EINVAL, "dataSize %zu: %s", dataSize,
			       attribute == ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY ?
			       "must be a non-zero multiple of 4" : "must be 4 (one int32_t)");
		goto out;
	}
	ret = acl_managed_attr(attribute, ptr, size, data, dataSize);
out:
	return acl_ret(__func__, ret);
}

/*
 * Several attributes of one range, each into its own data[i] of
 * dataSizes[i] bytes. As CANN: the acl layer checks the pointers and the
 * size (100000); the runtime and the driver the rest (107000), every
 * attribute before any answer.
 */
ACL_EXPORT aclError aclrtMemManagedGetAttrs(aclrtMemManagedRangeAttribute *attributes, size_t numAttributes,
					    const void *ptr, size_t size, void **data, size_t *dataSizes)
{
	size_t i;
	int ret;

	ret = acl_enter(NULL, ptr, attributes, data, dataSizes);
	if (ret)
		goto out;
	if (!size) {
		ret = acl_errf(-EINVAL, "size must be non-zero");
		goto out;
	}
	for (i = 0; i < numAttributes; i++) {
		if (!acl_managed_attr_known(attributes[i])) {
			ret = acl_errf(ACLI_ERTPARAM, "attributes[%zu] %d is not an aclrtMemManagedRangeAttribute",
				       i, (int)attributes[i]);
			goto out;
		}
	}
	if (!numAttributes) {
		ret = acl_errf(ACLI_ERTPARAM, "numAttributes must be non-zero");
		goto out;
	}
	for (i = 0; i < numAttributes; i++) {
		if (!data[i] || !acl_managed_size_ok(attributes[i], dataSizes[i])) {
			ret = acl_errf(ACLI_ERTPARAM, "data[%zu] must not be NULL and dataSizes[%zu] (%zu) must be %s",
				       i, i, dataSizes[i],
				       attributes[i] == ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY ?
				       "a non-zero multiple of 4" : "4");
			goto out;
		}
	}
	for (i = 0; i < numAttributes && !ret; i++)
		ret = acl_managed_attr(attributes[i], ptr, size, data[i], dataSizes[i]);
out:
	return acl_ret(__func__, ret);
}

/*
 * Does a prefetch to @location fit stream @s? To a device: only on a
 * stream of that device, whose queue is where the device's entries are
 * built (107000).
 */
static int acl_prefetch_stream_check(struct acl_stream *s, aclrtMemManagedLocation location)
{
	if (location.type == ACL_MEM_LOCATIONTYPE_DEVICE && location.id != s->dev->id)
		return acl_errf(ACLI_ERTPARAM, "prefetch to device %d on a stream of device %d: use a stream of device %d",
				location.id, s->dev->id, location.id);
	return 0;
}

/*
 * Prefetch [@ptr, +@size) of managed memory to @location on @s (checked):
 * recorded as the LAST_PREFETCH_* attributes. To the host: the data is
 * there already; nothing to queue, so it is complete in stream order at
 * once. To a device: fault the pages in for its DMA engine (read access:
 * untouched pages come in as the zero page, and a later device write
 * faults once more for its own page).
 */
static int acl_managed_prefetch(struct acl_stream *s, const void *ptr, size_t size,
				aclrtMemManagedLocation location)
{
	uint64_t first, last, i, addr = (uintptr_t)ptr;
	struct acl_managed *m;
	int ret;

	pthread_mutex_lock(&acl_managed_lock);
	ret = acl_managed_range_locked(ptr, size, &m, &first, &last);
	for (i = first; !ret && i <= last; i++)
		m->g[i].last_prefetch = location;
	pthread_mutex_unlock(&acl_managed_lock);
	if (!ret && location.type == ACL_MEM_LOCATIONTYPE_DEVICE) {
		uint64_t start = addr & ~4095ULL;

		ret = acl_stream_touch(s, (const void *)(uintptr_t)start, acl_round_up(addr + size, 4096) - start);
	}
	return ret;
}

ACL_EXPORT aclError aclrtMemManagedPrefetchAsync(const void *ptr, size_t size,
						 aclrtMemManagedLocation location, uint32_t flags,
						 aclrtStream stream)
{
	struct acl_stream *s = NULL;
	int ret;

	ret = acl_enter(NULL, ptr);
	if (ret)
		goto out;
	if (!size || flags) {
		ret = acl_errf(-EINVAL, !size ? "size must be non-zero" : "flags %#x must be 0", flags);
		goto out;
	}
	ret = acl_location_check(location, "location");
	if (!ret)
		ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (!ret)
		ret = acl_prefetch_stream_check(s, location);
	if (!ret)
		ret = acl_managed_prefetch(s, ptr, size, location);
out:
	if (s)
		acl_stream_put(s);
	return acl_ret(__func__, ret);
}

/*
 * Batch: prefetchLocs[k] applies from prefetchLocIdxs[k] to the next
 * index. CANN's checks: the acl layer's NULL arrays, count and
 * numPrefetchLocs 0, flags, count < numPrefetchLocs (100000); then the
 * runtime's (107000): the indexes (first 0, increasing, below count),
 * ptrs[i] NULL, device ids. Here every range must lie in managed memory
 * (107000) and a device location be the stream's device, all checked
 * before anything is queued; then each range is one prefetch, in order.
 */
ACL_EXPORT aclError aclrtMemManagedPrefetchBatchAsync(const void **ptrs, size_t *sizes, size_t count,
						      aclrtMemManagedLocation *prefetchLocs, size_t *prefetchLocIdxs,
						      size_t numPrefetchLocs, uint64_t flags, aclrtStream stream)
{
	struct acl_stream *s = NULL;
	struct acl_managed *m;
	uint64_t first, last;
	size_t i, k;
	int ret;

	ret = acl_enter(NULL, ptrs, sizes, prefetchLocs, prefetchLocIdxs);
	if (ret)
		goto out;
	if (!count || !numPrefetchLocs || flags || count < numPrefetchLocs) {
		ret = acl_errf(-EINVAL, "%s", !count ? "count must be non-zero" :
			       !numPrefetchLocs ? "numPrefetchLocs must be non-zero" :
			       flags ? "flags must be 0" : "numPrefetchLocs must not exceed count");
		goto out;
	}
	if (prefetchLocIdxs[0]) {
		ret = acl_errf(ACLI_ERTPARAM, "prefetchLocIdxs[0] is %zu, must be 0", prefetchLocIdxs[0]);
		goto out;
	}
	for (i = 0; i < count; i++) {
		if (!ptrs[i]) {
			ret = acl_errf(ACLI_ERTPARAM, "ptrs[%zu] must not be NULL", i);
			goto out;
		}
	}
	for (k = 0; k < numPrefetchLocs; k++) {
		if (prefetchLocIdxs[k] >= count || (k && prefetchLocIdxs[k] <= prefetchLocIdxs[k - 1])) {
			ret = acl_errf(ACLI_ERTPARAM, "prefetchLocIdxs[%zu] %zu: indexes must increase and stay below count %zu",
				       k, prefetchLocIdxs[k], count);
			goto out;
		}
	}
	for (k = 0; k < numPrefetchLocs; k++) {
		aclrtMemManagedLocation l = prefetchLocs[k];

		if ((unsigned int)l.type > ACL_MEM_LOCATIONTYPE_HOST_NUMA_CURRENT ||
		    l.type == ACL_MEM_LOCATIONTYPE_INVALID ||
		    (l.type == ACL_MEM_LOCATIONTYPE_DEVICE && (l.id < 0 || (unsigned int)l.id >= acl_dev_count()))) {
			ret = acl_errf(ACLI_ERTPARAM, "prefetchLocs[%zu] (type %d, id %d) is not a location to prefetch to",
				       k, (int)l.type, l.id);
			goto out;
		}
	}
	ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	for (k = 0; !ret && k < numPrefetchLocs; k++)
		ret = acl_prefetch_stream_check(s, prefetchLocs[k]);
	for (i = 0; !ret && i < count; i++) {
		pthread_mutex_lock(&acl_managed_lock);
		ret = sizes[i] ? acl_managed_range_locked(ptrs[i], sizes[i], &m, &first, &last) :
				 acl_errf(ACLI_ERTPARAM, "sizes[%zu] must be non-zero", i);
		pthread_mutex_unlock(&acl_managed_lock);
	}
	for (i = 0, k = 0; !ret && i < count; i++) {
		while (k + 1 < numPrefetchLocs && prefetchLocIdxs[k + 1] <= i)
			k++;
		ret = acl_managed_prefetch(s, ptrs[i], sizes[i], prefetchLocs[k]);
	}
out:
	if (s)
		acl_stream_put(s);
	return acl_ret(__func__, ret);
}
