// SPDX-License-Identifier: MIT
/*
 * A stand-in for CANN's libacl_rt.so (soname libacl_rt.so) to link
 * tests/link_names.c against, so that the binary needs libacl_rt.so the
 * way one linked against the vendor's libraries does. It is never loaded
 * at run time: there libacl_rt.so is libacl's symlink. Every answer here
 * is wrong on purpose, so a test that ran against it would fail.
 */
#include <stddef.h>
#include <stdint.h>

int aclInit(const char *configPath)
{
	(void)configPath;
	return -1;
}

int aclFinalize(void)
{
	return -1;
}

int aclrtGetDeviceCount(uint32_t *count)
{
	*count = 12345;
	return -1;
}

size_t aclDataTypeSize(int dataType)
{
	(void)dataType;
	return 12345;
}

uint16_t aclFloatToFloat16(float value)
{
	(void)value;
	return 0xdead;
}

const char *aclGetRecentErrMsg(void)
{
	return "stub";
}

int aclsysGetVersionStr(char *pkgName, char *versionStr)
{
	(void)pkgName;
	(void)versionStr;
	return -1;
}
