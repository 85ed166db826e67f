// SPDX-License-Identifier: MIT
/*
 * aclDataBuffer: an operator's input or output as (address, size), as in
 * CANN (src/acl/aclrt_impl/data_buffer.cpp): nothing is checked or
 * allocated behind the address; the buffer is the caller's. Only Destroy
 * and Update of NULL fail (ACL_ERROR_INVALID_PARAM, the acl layer's).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include <acl/acl.h>

#include "error.h"

struct aclDataBuffer {
	void *data;
	size_t length;
};

ACL_EXPORT aclDataBuffer *aclCreateDataBuffer(void *data, size_t size)
{
	aclDataBuffer *b = malloc(sizeof(*b));

	if (!b) {
		acl_ret(__func__, acl_errf(-ENOMEM, "out of host memory"));
		return NULL;
	}
	b->data = data;
	b->length = size;
	return b;
}

ACL_EXPORT aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer)
{
	if (!dataBuffer)
		return acl_ret(__func__, acl_errf(-EINVAL, "dataBuffer must not be NULL"));
	free((void *)dataBuffer);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size)
{
	if (!dataBuffer)
		return acl_ret(__func__, acl_errf(-EINVAL, "dataBuffer must not be NULL"));
	dataBuffer->data = data;
	dataBuffer->length = size;
	return ACL_SUCCESS;
}

ACL_EXPORT void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer)
{
	return dataBuffer ? dataBuffer->data : NULL;
}

ACL_EXPORT uint32_t aclGetDataBufferSize(const aclDataBuffer *dataBuffer)
{
	/* CANN truncates: the low 32 bits */
	return dataBuffer ? (uint32_t)dataBuffer->length : 0;
}

ACL_EXPORT size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer)
{
	return dataBuffer ? dataBuffer->length : 0;
}
