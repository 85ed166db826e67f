// SPDX-License-Identifier: MIT
/*
 * libacl: aclInit's references (aclFinalizeReference), the callbacks of
 * aclInit and aclFinalize, aclrtGetVersion. As CANN's acl.cpp and
 * init_callback_manager.cpp; all but the last test need no device.
 */
#include <pthread.h>

#include "lib_util.h"

/* What the callbacks saw, in order: "<tag>:<config length>" for init ones. */
static char seen[1024];
static char seen_cfg[256];
static aclError fail_code[8];	/* by tag index: what the callback answers */

static void note(const char *s)
{
	if (seen[0])
		strncat(seen, " ", sizeof(seen) - strlen(seen) - 1);
	strncat(seen, s, sizeof(seen) - strlen(seen) - 1);
}

/* userData is a tag string; fail_code[tag[0] - 'A'] is the answer */
static aclError init_cb(const char *cfg, size_t len, void *data)
{
	const char *tag = data;
	char buf[64];

	snprintf(buf, sizeof(buf), "%s:%zu", tag, len);
	note(buf);
	snprintf(seen_cfg, sizeof(seen_cfg), "%s", cfg);
	return fail_code[tag[0] - 'A'];
}

static aclError init_cb2(const char *cfg, size_t len, void *data)
{
	return init_cb(cfg, len, data);
}

static aclError fini_cb(void *data)
{
	const char *tag = data;

	note(tag);
	return fail_code[tag[0] - 'A'];
}

static aclError fini_cb2(void *data)
{
	return fini_cb(data);
}

/* true while the library is initialised (no device needed) */
static bool initialised(void)
{
	bool yes = aclrtSetDevice(-1) == ACL_ERROR_RT_INVALID_DEVICEID;

	aclGetRecentErrMsg();
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	return yes;
}

static void write_file(char *path, const char *content)
{
	int fd = mkstemp(path);

	if (fd < 0)
		return;
	if (write(fd, content, strlen(content)) < 0)
		path[0] = '\0';
	close(fd);
}

TEST(register_bad_inputs)
{
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclInitCallbackRegister(ACL_REG_TYPE_OTHER, NULL, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclFinalizeCallbackRegister(ACL_REG_TYPE_OTHER, NULL, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclInitCallbackUnRegister(ACL_REG_TYPE_OTHER, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclFinalizeCallbackUnRegister(ACL_REG_TYPE_OTHER, NULL));
	/* not registered, or registered for another type: CANN's 500000 */
	EXPECT_ACL(ACL_ERROR_INTERNAL_ERROR, aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, init_cb));
	EXPECT_ACL(ACL_ERROR_INTERNAL_ERROR, aclFinalizeCallbackUnRegister(ACL_REG_TYPE_OTHER, fini_cb));
	ASSERT_ACL_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, init_cb, "A"));
	EXPECT_ACL(ACL_ERROR_INTERNAL_ERROR, aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_DVPP, init_cb));
	EXPECT_ACL(ACL_ERROR_INTERNAL_ERROR, aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, init_cb2));
	/* init and finalize registrations are apart */
	EXPECT_ACL(ACL_ERROR_INTERNAL_ERROR,
		   aclFinalizeCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, (aclFinalizeCallbackFunc)(void (*)(void))init_cb));
	EXPECT_ACL_OK(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, init_cb));
	EXPECT_ACL(ACL_ERROR_INTERNAL_ERROR, aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, init_cb));
	/* acl-layer answers: never the last error */
	EXPECT_EQ(ACL_SUCCESS, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	/* none of it needed aclInit, nor did it initialise */
	EXPECT_FALSE(initialised());
}

TEST(one_callback_per_type_but_other)
{
	ASSERT_ACL_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, init_cb, "A"));
	EXPECT_ACL(ACL_ERROR_INTERNAL_ERROR, aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, init_cb2, "B"));
	EXPECT_ACL(ACL_ERROR_INTERNAL_ERROR, aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, init_cb, "B"));
	ASSERT_ACL_OK(aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_DVPP, fini_cb, "C"));
	EXPECT_ACL(ACL_ERROR_INTERNAL_ERROR, aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_DVPP, fini_cb2, "D"));
	/* OTHER takes any number, the same one again too: each is called */
	ASSERT_ACL_OK(aclInitCallbackRegister(ACL_REG_TYPE_OTHER, init_cb, "E"));
	ASSERT_ACL_OK(aclInitCallbackRegister(ACL_REG_TYPE_OTHER, init_cb, "F"));
	ASSERT_ACL_OK(aclFinalizeCallbackRegister(ACL_REG_TYPE_OTHER, fini_cb, "G"));
	ASSERT_ACL_OK(aclFinalizeCallbackRegister(ACL_REG_TYPE_OTHER, fini_cb, "H"));
	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_ACL_OK(aclFinalize());
	EXPECT_STREQ("A:0 E:0 F:0 C G H", seen);
	/* unregistering drops the first of them */
	seen[0] = '\0';
	ASSERT_ACL_OK(aclInitCallbackUnRegister(ACL_REG_TYPE_OTHER, init_cb));
	ASSERT_ACL_OK(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_OTHER, fini_cb));
	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_ACL_OK(aclFinalize());
	EXPECT_STREQ("A:0 F:0 C H", seen);
}

/* A callback that only notes its tag (for any tag) and succeeds. */
static aclError init_note(const char *cfg, size_t len, void *data)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%s:%zu", (const char *)data, len);
	note(buf);
	snprintf(seen_cfg, sizeof(seen_cfg), "%s", cfg);
	return ACL_SUCCESS;
}

static aclError fini_note(void *data)
{
	note(data);
	return ACL_SUCCESS;
}

/* Every type registered: which aclInit and aclFinalize call, in which order. */
static void register_all(void)
{
	static const struct {
		aclRegisterCallbackType type;
		const char *init, *fini;
	} regs[] = {
		{ ACL_REG_TYPE_OTHER, "A1", "a1" },
		{ ACL_REG_TYPE_ACL_RETR, "retr", "retr" },
		{ ACL_REG_TYPE_ACL_DVPP, "B", "b" },
		{ ACL_REG_TYPE_ACL_TDT_QUEUE, "tdtq", "tdtq" },
		{ ACL_REG_TYPE_ACL_TDT_CHANNEL, "tdtc", "tdtc" },
		{ ACL_REG_TYPE_ACL_OP_COMPILER, "C", "c" },
		{ ACL_REG_TYPE_ACL_OP_CBLAS, "cblas", "cblas" },
		{ ACL_REG_TYPE_ACL_OP_EXECUTOR, "D", "d" },
		{ ACL_REG_TYPE_ACL_MODEL, "E", "e" },
		{ (aclRegisterCallbackType)42, "x42", "x42" },
		{ ACL_REG_TYPE_OTHER, "A2", "a2" },
	};
	size_t i;

	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		ASSERT_EQ(ACL_SUCCESS, aclInitCallbackRegister(regs[i].type, init_note, (void *)regs[i].init));
		ASSERT_EQ(ACL_SUCCESS, aclFinalizeCallbackRegister(regs[i].type, fini_note, (void *)regs[i].fini));
	}
}

TEST(callback_order)
{
	char path[] = "/tmp/acl-init-XXXXXX";
	const char *json = "{\"defaultDevice\":{\"default_device\":\"0\"}}";
	char want[64];

	register_all();

	/* without a file: MODEL, DVPP, OTHER with "" and 0 */
	ASSERT_ACL_OK(aclInit(NULL));
	EXPECT_STREQ("E:0 B:0 A1:0 A2:0", seen);
	EXPECT_STREQ("", seen_cfg);
	seen[0] = '\0';
	ASSERT_ACL_OK(aclFinalize());
	EXPECT_STREQ("c e b a1 a2", seen);

	/* with one: OP_EXECUTOR too, each with the content and its length */
	write_file(path, json);
	ASSERT_NE('\0', path[0]);
	seen[0] = '\0';
	ASSERT_ACL_OK(aclInit(path));
	unlink(path);
	snprintf(want, sizeof(want), "E:%zu D:%zu B:%zu A1:%zu A2:%zu", strlen(json), strlen(json),
		 strlen(json), strlen(json), strlen(json));
	EXPECT_STREQ(want, seen);
	EXPECT_STREQ(json, seen_cfg);
	seen[0] = '\0';
	/* aclFinalizeReference's last reference calls them as aclFinalize does */
	ASSERT_ACL_OK(aclFinalizeReference(NULL));
	EXPECT_STREQ("c e b a1 a2", seen);
}

TEST(init_callback_failure)
{
	aclError code = ACL_ERROR_RT_PARAM_INVALID;	/* a runtime code: still not the last error */
	const char *msg;

	ASSERT_ACL_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, init_cb, "A"));
	ASSERT_ACL_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_DVPP, init_cb, "B"));
	ASSERT_ACL_OK(aclInitCallbackRegister(ACL_REG_TYPE_OTHER, init_cb, "C"));
	ASSERT_ACL_OK(aclFinalizeCallbackRegister(ACL_REG_TYPE_OTHER, fini_cb, "D"));
	fail_code[1] = code;
	EXPECT_ACL(code, aclInit(NULL));
	EXPECT_STREQ("A:0 B:0", seen);
	EXPECT_EQ(ACL_SUCCESS, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_FALSE(initialised());
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclFinalize());
	EXPECT_STREQ("A:0 B:0", seen);

	EXPECT_EQ(code, aclInit(NULL));
	msg = aclGetRecentErrMsg();
	ASSERT_NONNULL(msg);
	EXPECT_NONNULL(strstr(msg, "ACL_REG_TYPE_ACL_DVPP init callback"));
	EXPECT_NONNULL(strstr(msg, "107000"));

	/* the next aclInit runs them all again */
	fail_code[1] = ACL_SUCCESS;
	seen[0] = '\0';
	ASSERT_ACL_OK(aclInit(NULL));
	EXPECT_STREQ("A:0 B:0 C:0", seen);
	EXPECT_TRUE(initialised());
	ASSERT_ACL_OK(aclFinalize());
}

TEST(finalize_callback_failure)
{
	aclError code = 123456;
	uint64_t refs = 99;

	ASSERT_ACL_OK(aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_OP_COMPILER, fini_cb, "A"));
	ASSERT_ACL_OK(aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_MODEL, fini_cb, "B"));
	ASSERT_ACL_OK(aclFinalizeCallbackRegister(ACL_REG_TYPE_OTHER, fini_cb, "C"));
	ASSERT_ACL_OK(aclInit(NULL));
	fail_code[1] = code;
	/* the failure leaves the library initialised, its reference held */
	EXPECT_ACL(code, aclFinalize());
	EXPECT_STREQ("A B", seen);
	EXPECT_EQ(ACL_SUCCESS, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_TRUE(initialised());
	EXPECT_ACL(code, aclFinalizeReference(&refs));
	EXPECT_EQ(1, refs);
	EXPECT_TRUE(initialised());

	fail_code[1] = ACL_SUCCESS;
	seen[0] = '\0';
	ASSERT_ACL_OK(aclFinalizeReference(&refs));
	EXPECT_EQ(0, refs);
	EXPECT_STREQ("A B C", seen);
	EXPECT_FALSE(initialised());
}

TEST(late_registration)
{
	char path[] = "/tmp/acl-init-XXXXXX";

	write_file(path, "{}");
	ASSERT_NE('\0', path[0]);
	/* before aclInit: not called */
	ASSERT_ACL_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, init_cb, "A"));
	EXPECT_STREQ("", seen);
	ASSERT_ACL_OK(aclInit(path));
	unlink(path);
	EXPECT_STREQ("A:2", seen);
	/* while initialised: called at once with the configuration, its failure ignored */
	fail_code[1] = ACL_ERROR_INVALID_PARAM;
	ASSERT_ACL_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_RETR, init_cb, "B"));
	EXPECT_STREQ("A:2 B:2", seen);
	EXPECT_STREQ("{}", seen_cfg);
	ASSERT_ACL_OK(aclInitCallbackRegister(ACL_REG_TYPE_OTHER, init_cb2, "C"));
	EXPECT_STREQ("A:2 B:2 C:2", seen);
	/* a finalize callback registered late is called at the finalize */
	ASSERT_ACL_OK(aclFinalizeCallbackRegister(ACL_REG_TYPE_OTHER, fini_cb, "D"));
	ASSERT_ACL_OK(aclFinalize());
	EXPECT_STREQ("A:2 B:2 C:2 D", seen);
	/* after aclFinalize: not called; registrations outlive it */
	ASSERT_ACL_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_DVPP, init_cb, "E"));
	EXPECT_STREQ("A:2 B:2 C:2 D", seen);
	seen[0] = '\0';
	ASSERT_ACL_OK(aclInit(NULL));
	EXPECT_STREQ("A:0 E:0 C:0", seen);
	ASSERT_ACL_OK(aclFinalize());
}

TEST(finalize_reference_counts_inits)
{
	uint64_t refs = 99;

	/* nothing to drop: 100037, also before any aclInit; NULL refCount is fine */
	EXPECT_ACL(ACL_ERROR_REPEAT_FINALIZE, aclFinalizeReference(&refs));
	EXPECT_EQ(0, refs);
	EXPECT_ACL(ACL_ERROR_REPEAT_FINALIZE, aclFinalizeReference(NULL));
	EXPECT_EQ(ACL_SUCCESS, aclrtGetLastError(ACL_RT_THREAD_LEVEL));

	ASSERT_ACL_OK(aclFinalizeCallbackRegister(ACL_REG_TYPE_OTHER, fini_cb, "A"));
	ASSERT_ACL_OK(aclInit(NULL));
	/* a repeat answers 100002 and still counts (CANN's aclInitImpl) */
	EXPECT_ACL(ACL_ERROR_REPEAT_INITIALIZE, aclInit(NULL));
	EXPECT_ACL(ACL_ERROR_REPEAT_INITIALIZE, aclInit(NULL));
	ASSERT_ACL_OK(aclFinalizeReference(&refs));
	EXPECT_EQ(2, refs);
	ASSERT_ACL_OK(aclFinalizeReference(NULL));
	EXPECT_TRUE(initialised());
	EXPECT_STREQ("", seen);
	ASSERT_ACL_OK(aclFinalizeReference(&refs));
	EXPECT_EQ(0, refs);
	EXPECT_STREQ("A", seen);
	EXPECT_FALSE(initialised());
	EXPECT_ACL(ACL_ERROR_REPEAT_FINALIZE, aclFinalizeReference(&refs));
	EXPECT_EQ(0, refs);
	EXPECT_ACL(ACL_ERROR_REPEAT_FINALIZE, aclFinalize());

	/* aclFinalize drops every reference at once */
	seen[0] = '\0';
	ASSERT_ACL_OK(aclInit(NULL));
	EXPECT_ACL(ACL_ERROR_REPEAT_INITIALIZE, aclInit(NULL));
	ASSERT_ACL_OK(aclFinalize());
	EXPECT_STREQ("A", seen);
	EXPECT_ACL(ACL_ERROR_REPEAT_FINALIZE, aclFinalizeReference(&refs));
	EXPECT_EQ(0, refs);
}

static aclError reenter_init(const char *cfg, size_t len, void *data)
{
	(void)cfg;
	(void)len;
	(void)data;
	note(aclInit(NULL) == ACL_ERROR_INTERNAL_ERROR ? "init:500000" : "init:?");
	note(aclFinalizeReference(NULL) == ACL_ERROR_INTERNAL_ERROR ? "ref:500000" : "ref:?");
	/* registration takes no lock a callback runs under */
	note(aclInitCallbackRegister(ACL_REG_TYPE_OTHER, init_cb, "A") == ACL_SUCCESS ? "reg" : "reg:?");
	return ACL_SUCCESS;
}

static aclError reenter_fini(void *data)
{
	(void)data;
	note(aclFinalize() == ACL_ERROR_INTERNAL_ERROR ? "fini:500000" : "fini:?");
	/* the library is still initialised in a finalize callback */
	note(initialised() ? "live" : "gone");
	return ACL_SUCCESS;
}

TEST(callbacks_may_call_the_api)
{
	const char *msg;

	ASSERT_ACL_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, reenter_init, NULL));
	ASSERT_ACL_OK(aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_MODEL, reenter_fini, NULL));
	ASSERT_ACL_OK(aclInit(NULL));
	/* the OTHER callback registered by the MODEL one is called in the same aclInit */
	EXPECT_STREQ("init:500000 ref:500000 reg A:0", seen);
	msg = aclGetRecentErrMsg();
	ASSERT_NONNULL(msg);
	EXPECT_NONNULL(strstr(msg, "aclFinalizeReference: aclFinalizeReference cannot be called from"));
	seen[0] = '\0';
	ASSERT_ACL_OK(aclFinalize());
	EXPECT_STREQ("fini:500000 live", seen);
}

#define REG_THREADS	8
#define REG_EACH	64

static unsigned int counted;

static aclError count_cb(const char *cfg, size_t len, void *data)
{
	(void)cfg;
	(void)len;
	(void)data;
	__atomic_add_fetch(&counted, 1, __ATOMIC_RELAXED);
	return ACL_SUCCESS;
}

static void *reg_thread(void *arg)
{
	long fails = 0;
	int i;

	for (i = 0; i < REG_EACH; i++)
		fails += aclInitCallbackRegister(ACL_REG_TYPE_OTHER, count_cb, arg) != ACL_SUCCESS;
	return (void *)fails;
}

static void *unreg_thread(void *arg)
{
	long fails = 0;
	int i;

	(void)arg;
	for (i = 0; i < REG_EACH; i++)
		fails += aclInitCallbackUnRegister(ACL_REG_TYPE_OTHER, count_cb) != ACL_SUCCESS;
	return (void *)fails;
}

TEST(registration_from_threads)
{
	pthread_t t[REG_THREADS];
	void *fails;
	int i;

	for (i = 0; i < REG_THREADS; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, reg_thread, NULL));
	for (i = 0; i < REG_THREADS; i++) {
		ASSERT_EQ(0, pthread_join(t[i], &fails));
		EXPECT_EQ(0, (long)fails);
	}
	ASSERT_ACL_OK(aclInit(NULL));
	EXPECT_EQ(REG_THREADS * REG_EACH, counted);
	/* registering while initialised calls each at once, from its thread */
	counted = 0;
	for (i = 0; i < REG_THREADS; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, reg_thread, NULL));
	for (i = 0; i < REG_THREADS; i++) {
		ASSERT_EQ(0, pthread_join(t[i], &fails));
		EXPECT_EQ(0, (long)fails);
	}
	EXPECT_EQ(REG_THREADS * REG_EACH, counted);
	ASSERT_ACL_OK(aclFinalize());
	for (i = 0; i < REG_THREADS; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, unreg_thread, NULL));
	for (i = 0; i < REG_THREADS; i++) {
		ASSERT_EQ(0, pthread_join(t[i], &fails));
		EXPECT_EQ(0, (long)fails);
	}
	/* half are left */
	counted = 0;
	ASSERT_ACL_OK(aclInit(NULL));
	EXPECT_EQ(REG_THREADS * REG_EACH, counted);
	ASSERT_ACL_OK(aclFinalize());
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST(get_version)
{
	int32_t major = -1, minor = -1, patch = -1;

	/* no aclInit needed */
	ASSERT_ACL_OK(aclrtGetVersion(&major, &minor, &patch));
	EXPECT_EQ(ACL_MAJOR_VERSION, major);
	EXPECT_EQ(ACL_MINOR_VERSION, minor);
	EXPECT_EQ(ACL_PATCH_VERSION, patch);
	EXPECT_EQ(1, major);
	EXPECT_EQ(17, minor);
	EXPECT_EQ(0, patch);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetVersion(NULL, &minor, &patch));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetVersion(&major, NULL, &patch));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetVersion(&major, &minor, NULL));
	EXPECT_EQ(ACL_SUCCESS, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
}
#pragma GCC diagnostic pop

static aclError fini_uses_device(void *data)
{
	void *p = NULL;

	(void)data;
	/* contexts are still there: a finalize callback releases what it holds */
	if (aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
		return ACL_ERROR_RT_MEMORY_ALLOCATION;
	note(aclrtFree(p) == ACL_SUCCESS ? "freed" : "free:?");
	return ACL_SUCCESS;
}

TEST(finalize_callbacks_run_before_contexts_go)
{
	NEED_DEVICE();
	ASSERT_ACL_OK(aclFinalizeCallbackRegister(ACL_REG_TYPE_OTHER, fini_uses_device, NULL));
	ASSERT_ACL_OK(aclFinalize());
	EXPECT_STREQ("freed", seen);
	EXPECT_EQ(-1, lib_npu_fd());
}

TEST_HARNESS_MAIN
