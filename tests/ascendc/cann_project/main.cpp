// SPDX-License-Identifier: MIT
/*
 * tests/ascendc/cann_project/main.cpp - launches the kernel library's
 * kernel and the device binary's: built by tests/install-check (no
 * device there; it is not run).
 */
#include <cstdint>
#include <cstdio>

#include "acl/acl.h"

int32_t ScaleDo(uint32_t blockDim, void *stream, uint8_t *x);

int main()
{
	aclrtBinHandle bin;
	aclrtFuncHandle fn;
	aclrtStream stream;
	void *x;

	if (aclInit(nullptr) || aclrtSetDevice(0) || aclrtCreateStream(&stream) ||
	    aclrtMalloc(&x, 64, ACL_MEM_MALLOC_HUGE_FIRST) ||
	    ScaleDo(8, stream, static_cast<uint8_t *>(x)) ||
	    aclrtBinaryLoadFromFile("out/fatbin/scale_fatbin/scale_fatbin.o", nullptr, &bin) ||
	    aclrtBinaryGetFunction(bin, "scale", &fn) ||
	    aclrtLaunchKernelWithHostArgs(fn, 8, stream, nullptr, &x, sizeof(x), nullptr, 0) ||
	    aclrtSynchronizeStream(stream)) {
		std::printf("failed: %s\n", aclGetRecentErrMsg());
		return 1;
	}
	return 0;
}
