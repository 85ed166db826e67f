// SPDX-License-Identifier: GPL-2.0
/*
 * npu-demo: walk the seed flows through libacl and say what happened.
 *
 *  1. Virtual memory management: granularity, MallocPhysical, Reserve,
 *     MapMem, SetAccess, copy in and out through the VA, unmap, release,
 *     free.
 *  2. Host page-locked memory: MallocHost + MemcpyAsync + SynchronizeStream.
 *  3. Registered host memory: malloc + HostRegisterV2(PINNED | MAPPED) +
 *     HostGetDevicePointer + a device task through the device pointer.
 *  4. Pinned vs pageable copy bandwidth.
 *  5. Sharing between processes: this process exports a filled physical
 *     handle for one pid; a forked child imports it by the name it gets
 *     through a pipe, maps it and reads the data back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include <acl/acl.h>

static int failed;

#define STEP(call) step(#call, (call))

static int step(const char *what, aclError err)
{
	if (err == ACL_SUCCESS) {
		printf("  ok    %s\n", what);
		return 0;
	}
	printf("  FAIL  %s = %d: %s\n", what, err, aclGetRecentErrMsg());
	failed = 1;
	return -1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Device memory on NPU 0 in 2 MiB pages, and read-write access for it. */
static aclrtPhysicalMemProp prop = {
	.handleType = ACL_MEM_HANDLE_TYPE_NONE,
	.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED,
	.memAttr = ACL_HBM_MEM_HUGE,
	.location = { .id = 0, .type = ACL_MEM_LOCATION_TYPE_DEVICE },
};
static aclrtMemAccessDesc desc = {
	.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE,
	.location = { .id = 0, .type = ACL_MEM_LOCATION_TYPE_DEVICE },
};

static void vmm_flow(void)
{
	aclrtDrvMemHandle handle;
	size_t gran = 0, size;
	void *va = NULL;
	char *in, *out;

	printf("Virtual memory management\n");
	if (STEP(aclrtMemGetAllocationGranularity(&prop,
			ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &gran)))
		return;
	size = 2 * gran;
	printf("        granularity %zu KiB, using %zu KiB\n", gran >> 10,
	       size >> 10);
	if (STEP(aclrtMallocPhysical(&handle, size, &prop, 0)))
		return;
	if (STEP(aclrtReserveMemAddress(&va, size, 0, NULL, 0)))
		goto free;
	printf("        reserved device VA %p\n", va);
	if (STEP(aclrtMapMem(va, size, 0, handle, 0)))
		goto release;
	if (STEP(aclrtMemSetAccess(va, size, &desc, 1)))
		goto unmap;

	in = malloc(size);
	out = calloc(1, size);
	for (size_t i = 0; i < size; i++)
		in[i] = (char)(i * 31 + 7);
	if (!STEP(aclrtMemcpy(va, size, in, size, ACL_MEMCPY_HOST_TO_DEVICE)) &&
	    !STEP(aclrtMemcpy(out, size, va, size, ACL_MEMCPY_DEVICE_TO_HOST))) {
		int same = !memcmp(in, out, size);

		printf("        %zu bytes in and back out through %p: %s\n",
		       size, va, same ? "identical" : "DIFFERENT");
		failed |= !same;
	}
	free(in);
	free(out);
unmap:
	STEP(aclrtUnmapMem(va));
release:
	STEP(aclrtReleaseMemAddress(va));
free:
	STEP(aclrtFreePhysical(handle));
}

static void pinned_flow(void)
{
	size_t size = 8 << 20;
	aclrtStream stream;
	void *host, *dev;
	char *back;

	printf("Host page-locked memory: MallocHost + MemcpyAsync\n");
	if (STEP(aclrtCreateStream(&stream)))
		return;
	if (STEP(aclrtMallocHost(&host, size)))
		goto stream;
	if (STEP(aclrtMalloc(&dev, size, ACL_MEM_MALLOC_HUGE_FIRST)))
		goto host;
	memset(host, 0x5a, size);
	if (!STEP(aclrtMemcpyAsync(dev, size, host, size,
				   ACL_MEMCPY_HOST_TO_DEVICE, stream)) &&
	    !STEP(aclrtSynchronizeStream(stream))) {
		back = malloc(size);
		if (!STEP(aclrtMemcpy(back, size, dev, size,
				      ACL_MEMCPY_DEVICE_TO_HOST))) {
			int ok = back[0] == 0x5a && back[size - 1] == 0x5a;

			printf("        device copy reads back 0x%02x..0x%02x: %s\n",
			       (unsigned char)back[0],
			       (unsigned char)back[size - 1],
			       ok ? "as written" : "WRONG");
			failed |= !ok;
		}
		free(back);
	}
	STEP(aclrtFree(dev));
host:
	STEP(aclrtFreeHost(host));
stream:
	STEP(aclrtDestroyStream(stream));
}

static void registered_flow(void)
{
	size_t size = 4 << 20;
	aclrtStream stream;
	void *dev_ptr;
	char *buf;

	printf("Registered host memory: HostRegisterV2(PINNED | MAPPED)\n");
	if (posix_memalign((void **)&buf, 4096, size))
		return;
	memset(buf, 0, size);
	if (STEP(aclrtCreateStream(&stream)))
		goto free;
	if (STEP(aclrtHostRegisterV2(buf, size,
				     ACL_HOST_REG_PINNED | ACL_HOST_REG_MAPPED)))
		goto stream;
	if (!STEP(aclrtHostGetDevicePointer(buf, &dev_ptr, 0))) {
		printf("        host %p is device %p\n", (void *)buf, dev_ptr);
		/* A device task writes the host pages through the device VA. */
		if (!STEP(aclrtMemsetAsync(dev_ptr, size, 0x77, size, stream)) &&
		    !STEP(aclrtSynchronizeStream(stream))) {
			int ok = buf[0] == 0x77 && buf[size - 1] == 0x77;

			printf("        host sees the device's memset: %s\n",
			       ok ? "yes" : "NO");
			failed |= !ok;
		}
	}
	STEP(aclrtHostUnregister(buf));
stream:
	STEP(aclrtDestroyStream(stream));
free:
	free(buf);
}

static double h2d_rate(void *dev, void *src, size_t size, int reps)
{
	double t = now();

	for (int i = 0; i < reps; i++)
		if (aclrtMemcpy(dev, size, src, size,
				ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS)
			return 0;
	return (double)size * reps / (now() - t) / 1e6;
}

static void bandwidth(void)
{
	size_t size = 32 << 20;
	void *dev, *pinned;
	char *pageable;
	double p, q;

	printf("Copy bandwidth, host to device, %zu MiB\n", size >> 20);
	if (STEP(aclrtMalloc(&dev, size, ACL_MEM_MALLOC_HUGE_FIRST)))
		return;
	if (STEP(aclrtMallocHost(&pinned, size)))
		goto dev;
	pageable = malloc(size);
	memset(pinned, 1, size);
	memset(pageable, 1, size);
	h2d_rate(dev, pinned, size, 1);		/* back the device pages */
	p = h2d_rate(dev, pinned, size, 3);
	q = h2d_rate(dev, pageable, size, 3);
	printf("        pinned   %8.1f MB/s (direct DMA)\n", p);
	printf("        pageable %8.1f MB/s (staged through a pinned buffer)\n", q);
	free(pageable);
	STEP(aclrtFreeHost(pinned));
dev:
	STEP(aclrtFree(dev));
}

/* The importer: a child process with a library of its own. */
static int share_child(int rd, int wr, size_t size)
{
	aclrtDrvMemHandle handle;
	uint64_t shareable;
	int32_t tgid;
	void *va;
	char *out = calloc(1, size);
	int same = 0;

	/* after fork the library is initialised with no device set */
	if (STEP(aclrtSetDevice(0)) || STEP(aclrtDeviceGetBareTgid(&tgid)))
		return 1;
	printf("        [importer, tgid %d] asks to be allowed\n", tgid);
	fflush(stdout);
	if (write(wr, &tgid, sizeof(tgid)) != sizeof(tgid) ||
	    read(rd, &shareable, sizeof(shareable)) != sizeof(shareable))
		return 1;
	printf("        [importer] got shareable handle %#llx\n", (unsigned long long)shareable);
	if (STEP(aclrtMemImportFromShareableHandle(shareable, 0, &handle)))
		return 1;
	if (!STEP(aclrtReserveMemAddress(&va, size, 0, NULL, 0))) {
		if (!STEP(aclrtMapMem(va, size, 0, handle, 0))) {
			if (!STEP(aclrtMemSetAccess(va, size, &desc, 1)) &&
			    !STEP(aclrtMemcpy(out, size, va, size, ACL_MEMCPY_DEVICE_TO_HOST))) {
				same = 1;
				for (size_t i = 0; i < size; i++)
					same &= out[i] == (char)(i * 17 + 3);
				printf("        [importer] reads %zu bytes at %p: %s\n", size, va,
				       same ? "the exporter's data" : "WRONG DATA");
			}
			STEP(aclrtUnmapMem(va));
		}
		STEP(aclrtReleaseMemAddress(va));
	}
	STEP(aclrtFreePhysical(handle));
	free(out);
	return !same || failed;
}

static void share_flow(void)
{
	size_t size = 2 << 20;
	int up[2], down[2], status;
	aclrtDrvMemHandle handle;
	uint64_t shareable;
	int32_t tgid;
	char *in;
	void *va;
	pid_t pid;

	printf("Sharing physical memory with another process\n");
	if (STEP(aclrtMallocPhysical(&handle, size, &prop, 0)))
		return;
	if (STEP(aclrtReserveMemAddress(&va, size, 0, NULL, 0)))
		goto free;
	if (STEP(aclrtMapMem(va, size, 0, handle, 0)))
		goto release;
	in = malloc(size);
	for (size_t i = 0; i < size; i++)
		in[i] = (char)(i * 17 + 3);
	if (STEP(aclrtMemSetAccess(va, size, &desc, 1)) ||
	    STEP(aclrtMemcpy(va, size, in, size, ACL_MEMCPY_HOST_TO_DEVICE)) ||
	    STEP(aclrtMemExportToShareableHandle(handle, ACL_MEM_HANDLE_TYPE_NONE,
						 ACL_RT_VMM_EXPORT_FLAG_DEFAULT, &shareable)))
		goto unmap;
	printf("        [exporter, pid %d] exported as %#llx\n", getpid(),
	       (unsigned long long)shareable);
	if (pipe(up) || pipe(down)) {
		failed = 1;
		goto unmap;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(up[0]);
		close(down[1]);
		status = share_child(down[0], up[1], size);
		fflush(stdout);
		_exit(status);
	}
	close(up[1]);
	close(down[0]);
	if (pid < 0 || read(up[0], &tgid, sizeof(tgid)) != sizeof(tgid)) {
		failed = 1;
	} else if (!STEP(aclrtMemSetPidToShareableHandle(shareable, &tgid, 1))) {
		printf("        [exporter] allowed tgid %d, sending the name\n", tgid);
		fflush(stdout);
		if (write(down[1], &shareable, sizeof(shareable)) != sizeof(shareable))
			failed = 1;
	}
	close(down[1]);
	close(up[0]);
	if (pid > 0) {
		waitpid(pid, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			failed = 1;
		printf("        importer %s\n", failed ? "FAILED" : "read the data back");
	}
unmap:
	free(in);
	STEP(aclrtUnmapMem(va));
release:
	STEP(aclrtReleaseMemAddress(va));
free:
	STEP(aclrtFreePhysical(handle));
}

int main(void)
{
	uint32_t count = 0;

	printf("npu demo\n");
	if (STEP(aclInit(NULL)) || STEP(aclrtGetDeviceCount(&count)))
		return 1;
	printf("        %u device(s)\n", count);
	if (STEP(aclrtSetDevice(0)))
		return 1;
	vmm_flow();
	pinned_flow();
	registered_flow();
	bandwidth();
	share_flow();
	STEP(aclrtResetDevice(0));
	STEP(aclFinalize());
	printf("demo %s\n", failed ? "FAILED" : "passed");
	return failed;
}
