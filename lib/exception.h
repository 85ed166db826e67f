/* SPDX-License-Identifier: MIT */
/*
 * Task exceptions: a command of a context's stream failed on the device,
 * and the application's exception callbacks (exception.c) hear of it.
 * Calls nothing but the bottom of the library.
 */
#ifndef LIBACL_EXCEPTION_H
#define LIBACL_EXCEPTION_H

#include <stdbool.h>
#include <stdint.h>

/* A failed task, as the driver's STREAM_SYNC named it. */
struct acl_task_fault {
	int device;		/* the device's id */
	uint32_t stream;	/* the kernel stream id: aclrtStreamGetId's */
	uint32_t task;		/* the command's task id (aclrtGetThreadLastTaskId's numbering) */
	uint32_t tid;		/* the thread that submitted it */
	uint32_t code;		/* the runtime's error code for it */
	/* a kernel's (an AI-core fault or trap): its launch, from the stream's record */
	bool kernel;		/* the task is a kernel launch */
	void *func;		/* its aclrtFuncHandle (not held: may be unloaded since), or NULL */
	uint64_t args_va;	/* the device address of its argument block, or 0 */
	uint32_t args_len;	/* its bytes */
};

/*
 * Call the registered exception callbacks with @f, in the calling
 * thread, before it goes on: the one of aclrtSetExceptionInfoCallback,
 * then the others in registration order; for a kernel's, then the
 * exception callback of its function's binary (aclrtBinarySetExceptionCallback).
 */
void acl_exception_report(const struct acl_task_fault *f);

#endif /* LIBACL_EXCEPTION_H */
