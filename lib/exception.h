/* SPDX-License-Identifier: MIT */
/*
 * Task exceptions: a command of a context's stream failed on the device,
 * and the application's exception callbacks (exception.c) hear of it.
 * Calls nothing but the bottom of the library.
 */
#ifndef LIBACL_EXCEPTION_H
#define LIBACL_EXCEPTION_H

#include <stdint.h>

/* A failed task, as the driver's STREAM_SYNC named it. */
struct acl_task_fault {
	int device;		/* the device's id */
	uint32_t stream;	/* the kernel stream id: aclrtStreamGetId's */
	uint32_t task;		/* the command's task id (aclrtGetThreadLastTaskId's numbering) */
	uint32_t tid;		/* the thread that submitted it */
	uint32_t code;		/* the runtime's error code for it */
};

/*
 * Call the registered exception callbacks with @f, in the calling
 * thread, before it goes on: the one of aclrtSetExceptionInfoCallback,
 * then the others in registration order.
 */
void acl_exception_report(const struct acl_task_fault *f);

#endif /* LIBACL_EXCEPTION_H */
