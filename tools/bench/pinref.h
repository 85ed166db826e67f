/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tools/bench/pinref.h - the kernel's own ways to pin user memory for DMA,
 * as references for host registration:
 *
 *  - VFIO type1: VFIO_IOMMU_MAP_DMA / VFIO_IOMMU_UNMAP_DMA through
 *    /dev/vfio/vfio (VFIO_TYPE1v2_IOMMU) with the group of the PCI
 *    function named by $NPU_VFIO_BDF (tools/vm-run --vfio binds it to
 *    vfio-pci). Pins and maps into an IOMMU domain: the same work as
 *    NPU_IOCTL_HOST_REGISTER.
 *  - io_uring IORING_REGISTER_BUFFERS (raw syscalls): pins only.
 */
#ifndef NPU_BENCH_PINREF_H
#define NPU_BENCH_PINREF_H

#include <fcntl.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <linux/io_uring.h>
#include <linux/vfio.h>

#include "bench.h"

struct vfio_ref {
	int container;
	int group;
	char bdf[64];
	int group_id;
};

/* Open the container and the group; 0, or -1 with a note printed. */
static inline int vfio_ref_open(struct vfio_ref *v)
{
	struct vfio_group_status st = { .argsz = sizeof(st) };
	const char *bdf = getenv("NPU_VFIO_BDF");
	char link[PATH_MAX], path[PATH_MAX], *slash;
	ssize_t n;

	memset(v, 0, sizeof(*v));
	v->container = v->group = -1;
	if (!bdf || !*bdf) {
		printf("note vfio: NPU_VFIO_BDF is not set (run with tools/vm-run --vfio)\n");
		return -1;
	}
	snprintf(v->bdf, sizeof(v->bdf), "%s", bdf);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/iommu_group", bdf);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0) {
		printf("note vfio: %s: %s\n", path, strerror(errno));
		return -1;
	}
	link[n] = 0;
	slash = strrchr(link, '/');
	v->group_id = atoi(slash ? slash + 1 : link);

	v->container = open("/dev/vfio/vfio", O_RDWR);
	if (v->container < 0) {
		printf("note vfio: /dev/vfio/vfio: %s\n", strerror(errno));
		return -1;
	}
	if (ioctl(v->container, VFIO_GET_API_VERSION) != VFIO_API_VERSION ||
	    !ioctl(v->container, VFIO_CHECK_EXTENSION, VFIO_TYPE1v2_IOMMU)) {
		printf("note vfio: no VFIO_TYPE1v2_IOMMU\n");
		goto fail;
	}
	snprintf(path, sizeof(path), "/dev/vfio/%d", v->group_id);
	v->group = open(path, O_RDWR);
	if (v->group < 0) {
		printf("note vfio: %s: %s\n", path, strerror(errno));
		goto fail;
	}
	if (ioctl(v->group, VFIO_GROUP_GET_STATUS, &st) ||
	    !(st.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		printf("note vfio: group %d is not viable\n", v->group_id);
		goto fail;
	}
	if (ioctl(v->group, VFIO_GROUP_SET_CONTAINER, &v->container) ||
	    ioctl(v->container, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU)) {
		printf("note vfio: attaching group %d: %s\n", v->group_id, strerror(errno));
		goto fail;
	}
	printf("note vfio: %s, group %d, VFIO_TYPE1v2_IOMMU\n", bdf, v->group_id);
	return 0;
fail:
	if (v->group >= 0)
		close(v->group);
	close(v->container);
	v->container = v->group = -1;
	return -1;
}

static inline void vfio_ref_close(struct vfio_ref *v)
{
	if (v->group >= 0) {
		ioctl(v->group, VFIO_GROUP_UNSET_CONTAINER);
		close(v->group);
	}
	if (v->container >= 0)
		close(v->container);
}

#define VFIO_REF_IOVA	(1ULL << 32)

static inline void vfio_ref_map(struct vfio_ref *v, void *p, size_t len)
{
	struct vfio_iommu_type1_dma_map map = {
		.argsz = sizeof(map),
		.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE,
		.vaddr = (uintptr_t)p,
		.iova = VFIO_REF_IOVA,
		.size = len,
	};

	SYS_CHECK(ioctl(v->container, VFIO_IOMMU_MAP_DMA, &map));
}

static inline void vfio_ref_unmap(struct vfio_ref *v, size_t len)
{
	struct vfio_iommu_type1_dma_unmap unmap = {
		.argsz = sizeof(unmap),
		.iova = VFIO_REF_IOVA,
		.size = len,
	};

	SYS_CHECK(ioctl(v->container, VFIO_IOMMU_UNMAP_DMA, &unmap));
	if (unmap.size != len)
		bench_die("VFIO_IOMMU_UNMAP_DMA unmapped %llu of %zu bytes",
			  (unsigned long long)unmap.size, len);
}

/* An io_uring instance whose only use is buffer registration; -1 if none. */
static inline int uring_ref_open(void)
{
	struct io_uring_params params;
	int fd;

	memset(&params, 0, sizeof(params));
	fd = syscall(__NR_io_uring_setup, 4, &params);
	if (fd < 0)
		printf("note io_uring: io_uring_setup: %s\n", strerror(errno));
	return fd;
}

static inline void uring_ref_register(int fd, void *p, size_t len)
{
	struct iovec iov = { .iov_base = p, .iov_len = len };

	SYS_CHECK(syscall(__NR_io_uring_register, fd, IORING_REGISTER_BUFFERS, &iov, 1));
}

static inline void uring_ref_unregister(int fd)
{
	SYS_CHECK(syscall(__NR_io_uring_register, fd, IORING_UNREGISTER_BUFFERS, NULL, 0));
}

#endif /* NPU_BENCH_PINREF_H */
