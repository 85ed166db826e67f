// SPDX-License-Identifier: MIT
/*
 * tests/vendor/kernel_standins.cpp - host stand-ins for the device kernels
 * of the vendor's runtime examples (hicann/runtime example/kernel_func/),
 * until the simulated chip runs AI-core code.
 *
 * STAND-INS, NOT KERNELS. Each function has the launch signature of the
 * vendor's kernel_ops.h and queues, on the caller's stream, libacl work
 * that leaves device memory as the kernel would (x[i] for i < blockDim,
 * as the kernels' block_idx does):
 *
 *   EasyOP   x[i] += 1      ShortOP  x[i] *= 2
 *   LongOP   x[i] += 1 after LONGOP_MS milliseconds (the vendor's float
 *            loop ends positive, so the kernel adds 1)
 *   ErrorOP  a task that faults on the device: a copy between addresses
 *            of a VA reservation with nothing mapped, so the stream's
 *            synchronize reports a task error and a STOP_ON_FAILURE
 *            stream drops what follows, as after an AI-core trap
 *   WriteDo  devPtr[i] = value, printing "Source data: <value>"
 *   ReadDo   prints "Destination data: <devPtr[i]>"
 *   PrintDo  prints "Hello World"
 *
 * The arithmetic runs on the host in stream order: a copy of x into a
 * page-locked staging buffer, an aclrtLaunchHostFunc function that
 * computes (and prints), a copy back, then a host function that retires
 * the buffer. Nothing runs before the stream's earlier tasks completed and
 * nothing after starts before it is done, so failure modes, aborts and
 * synchronizes see the work where a kernel would be. Host functions follow
 * the stream's host-function model (aclrtSubscribeHostFunc included): a
 * stream subscribed for callbacks (aclrtSubscribeReport) must also take
 * host functions.
 *
 * Retired staging buffers are given back at the next stand-in launch, by
 * the launching thread (never inside a host function). Those whose
 * retiring host function never ran (a stream that stopped on a failure or
 * was aborted) stay until exit; libacl forgets their registrations when
 * the device closes. A launch that libacl refuses is reported on stderr
 * ("kernel stand-in: ...") and queues nothing more.
 *
 * ascendc.cmake compiles this file once per ascendc_library(), with
 * NPU_STANDIN_<KERNEL FILE> defined for the kernel files the library lists.
 */
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

#include <time.h>

#include "acl/acl.h"

namespace {

const unsigned int LONGOP_MS = 300;
const size_t PAGE = 4096;
const size_t FAULT_VA_SIZE = 2UL << 20;

enum Op { OP_ADD1, OP_MUL2, OP_LONG, OP_WRITE, OP_READ, OP_PRINT };

struct Job {
	Op op;
	uint32_t n;		/* blockDim: elements of the buffer */
	int32_t value;		/* WriteDo's value */
	uint32_t *buf;		/* page-locked staging, registered with the device */
	size_t bytes;		/* registered length (whole pages) */
};

std::mutex retired_lock;
std::vector<Job *> retired;

void report(const char *kernel, const char *what, aclError ret)
{
	std::fprintf(stderr, "kernel stand-in: %s: %s returned %d\n", kernel, what,
		     static_cast<int>(ret));
}

/* Give back the staging of retired jobs; the calling thread has a context. */
void reap()
{
	std::vector<Job *> done;

	{
		std::lock_guard<std::mutex> g(retired_lock);
		done.swap(retired);
	}
	for (Job *j : done) {
		if (j->buf) {
			(void)aclrtHostUnregister(j->buf);
			std::free(j->buf);
		}
		delete j;
	}
}

/* Host function: the job's last task ran, its resources may go. */
void retire(void *arg)
{
	std::lock_guard<std::mutex> g(retired_lock);
	retired.push_back(static_cast<Job *>(arg));
}

void sleep_ms(unsigned int ms)
{
	struct timespec ts = { static_cast<time_t>(ms / 1000),
			       static_cast<long>(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Host function: what the kernel's blocks compute, on the staged copy. */
void compute(void *arg)
{
	Job *j = static_cast<Job *>(arg);

	if (j->op == OP_LONG)
		sleep_ms(LONGOP_MS);
	for (uint32_t i = 0; i < j->n; i++) {
		switch (j->op) {
		case OP_ADD1:
		case OP_LONG:
			j->buf[i] += 1;
			break;
		case OP_MUL2:
			j->buf[i] *= 2;
			break;
		case OP_WRITE:
			j->buf[i] = static_cast<uint32_t>(j->value);
			std::printf("Source data: %d\n", static_cast<int>(j->value));
			break;
		case OP_READ:
			std::printf("Destination data: %d\n", static_cast<int>(j->buf[i]));
			break;
		case OP_PRINT:
			std::printf("Hello World\n");
			break;
		}
	}
	std::fflush(stdout);
}

/*
 * Queue @op over the first @n 32-bit words at @dev (NULL for PrintDo):
 * copy in (unless the kernel only writes), compute, copy out (if it
 * writes), retire.
 */
__attribute__((unused)) void launch(const char *name, Op op, uint32_t n, void *stream, void *dev,
				    int32_t value = 0)
{
	bool in = dev && op != OP_WRITE, out = dev && op != OP_READ;
	size_t len = static_cast<size_t>(n) * sizeof(uint32_t);
	Job *j = new Job();
	aclError ret;

	reap();
	j->op = op;
	j->n = n;
	j->value = value;
	if (dev && n) {
		void *mem, *devptr = nullptr;

		j->bytes = (len + PAGE - 1) / PAGE * PAGE;
		if (posix_memalign(&mem, PAGE, j->bytes)) {
			std::fprintf(stderr, "kernel stand-in: %s: out of memory\n", name);
			delete j;
			return;
		}
		j->buf = static_cast<uint32_t *>(mem);
		ret = aclrtHostRegister(j->buf, j->bytes, ACL_HOST_REGISTER_MAPPED, &devptr);
		if (ret != ACL_SUCCESS) {
			report(name, "aclrtHostRegister", ret);
			std::free(j->buf);
			delete j;
			return;
		}
	}
	if (!n)
		in = out = false;
	/* past the first queued task the job belongs to the stream: never freed here */
	ret = !in ? ACL_SUCCESS :
	      aclrtMemcpyAsync(j->buf, len, dev, len, ACL_MEMCPY_DEVICE_TO_HOST, stream);
	if (ret != ACL_SUCCESS) {
		report(name, "aclrtMemcpyAsync (in)", ret);
		retire(j);
		return;
	}
	ret = aclrtLaunchHostFunc(stream, compute, j);
	if (ret != ACL_SUCCESS) {
		report(name, "aclrtLaunchHostFunc", ret);
		if (!in)
			retire(j);
		return;
	}
	ret = !out ? ACL_SUCCESS :
	      aclrtMemcpyAsync(dev, len, j->buf, len, ACL_MEMCPY_HOST_TO_DEVICE, stream);
	if (ret != ACL_SUCCESS) {
		report(name, "aclrtMemcpyAsync (out)", ret);
		return;
	}
	ret = aclrtLaunchHostFunc(stream, retire, j);
	if (ret != ACL_SUCCESS)
		report(name, "aclrtLaunchHostFunc (retire)", ret);
}

/*
 * A task that faults: a device-to-device copy inside a fresh VA
 * reservation where nothing is mapped. The memory layer knows the range as
 * device memory, so libacl queues the copy; the DMA engine faults on it
 * when the stream reaches it. No host function of ours follows the fault
 * (a STOP_ON_FAILURE stream would drop it, and a real kernel adds no task
 * after itself), so nothing can tell when the reservation is free to go:
 * it stays until the device closes, address space only (no memory is
 * mapped). Reusing one across launches could, after a reset, copy inside
 * a range someone else reserved and mapped at that address.
 */
__attribute__((unused)) void launch_fault(const char *name, void *stream)
{
	aclError ret;
	char *va;

	reap();
	ret = aclrtReserveMemAddress(reinterpret_cast<void **>(&va), FAULT_VA_SIZE, 0, nullptr, 0);
	if (ret != ACL_SUCCESS) {
		report(name, "aclrtReserveMemAddress", ret);
		return;
	}
	ret = aclrtMemcpyAsync(va, 64, va + FAULT_VA_SIZE / 2, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, stream);
	if (ret != ACL_SUCCESS) {
		report(name, "aclrtMemcpyAsync", ret);
		(void)aclrtReleaseMemAddress(va);
	}
}

} // namespace

/* The launch functions of the vendor's example/kernel_func/kernel_ops.h. */
void EasyOP(uint32_t blockDim, void *stream, uint32_t *x);
void ErrorOP(uint32_t blockDim, void *stream);
void LongOP(uint32_t blockDim, void *stream, uint32_t *x);
void ShortOP(uint32_t blockDim, void *stream, uint32_t *x);
void WriteDo(uint32_t blockDim, void *stream, int *devPtr, int value);
void ReadDo(uint32_t blockDim, void *stream, int *devPtr);
void PrintDo(uint32_t blockDim, void *stream);

#ifdef NPU_STANDIN_EASY_OP
void EasyOP(uint32_t blockDim, void *stream, uint32_t *x)
{
	launch("EasyOP", OP_ADD1, blockDim, stream, x);
}
#endif

#ifdef NPU_STANDIN_ERROR_OP
void ErrorOP(uint32_t blockDim, void *stream)
{
	(void)blockDim;
	launch_fault("ErrorOP", stream);
}
#endif

#ifdef NPU_STANDIN_LONG_OP
void LongOP(uint32_t blockDim, void *stream, uint32_t *x)
{
	launch("LongOP", OP_LONG, blockDim, stream, x);
}
#endif

#ifdef NPU_STANDIN_SHORT_OP
void ShortOP(uint32_t blockDim, void *stream, uint32_t *x)
{
	launch("ShortOP", OP_MUL2, blockDim, stream, x);
}
#endif

#ifdef NPU_STANDIN_WRITE_READ_VALUE
void WriteDo(uint32_t blockDim, void *stream, int *devPtr, int value)
{
	launch("WriteDo", OP_WRITE, blockDim, stream, devPtr, value);
}

void ReadDo(uint32_t blockDim, void *stream, int *devPtr)
{
	launch("ReadDo", OP_READ, blockDim, stream, devPtr);
}
#endif

#ifdef NPU_STANDIN_KERNEL_PRINT
void PrintDo(uint32_t blockDim, void *stream)
{
	launch("PrintDo", OP_PRINT, blockDim, stream, nullptr);
}
#endif
