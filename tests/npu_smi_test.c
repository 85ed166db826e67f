// SPDX-License-Identifier: GPL-2.0
/*
 * tests/npu_smi_test.c - the real /usr/bin/npu-smi in the guest: `info
 * --json` (parsed by a small strict JSON parser here: the guest has no
 * python3) shows a process holding 64 MiB of device memory and 16 MiB of
 * pinned host memory with those figures; `watch-faults --count 1` prints
 * the fault of a bad copy; the documented exit codes.
 */
#include <ctype.h>
#include <signal.h>
#include <sys/wait.h>

#include "harness.h"
#include "npu_nl_util.h"

#define NPU_SMI	"/usr/bin/npu-smi"
#define NOBODY	65534

/* --- a strict JSON parser (RFC 8259), enough to check npu-smi ----------- */

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jval {
	enum jtype type;
	double num;
	bool b;
	char *str;		/* J_STR; member name for object members */
	char *key;
	struct jval *kids;	/* J_ARR, J_OBJ */
	int n;
};

struct jparser {
	const char *p;
	int depth;
};

static void jskip(struct jparser *j)
{
	while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')
		j->p++;
}

static int jvalue(struct jparser *j, struct jval *v);

static int jstring(struct jparser *j, char **out)
{
	size_t cap = 16, len = 0;
	char *s = malloc(cap);

	if (!s || *j->p != '"')
		return -1;
	j->p++;
	for (;;) {
		unsigned char c = *j->p++;

		if (len + 8 > cap)
			s = realloc(s, cap *= 2);
		if (!s || c < 0x20)
			return -1;	/* control characters must be escaped */
		if (c == '"')
			break;
		if (c == '\\') {
			c = *j->p++;
			switch (c) {
			case '"': case '\\': case '/': s[len++] = c; break;
			case 'b': s[len++] = '\b'; break;
			case 'f': s[len++] = '\f'; break;
			case 'n': s[len++] = '\n'; break;
			case 'r': s[len++] = '\r'; break;
			case 't': s[len++] = '\t'; break;
			case 'u': {
				unsigned int u = 0;
				int i;

				for (i = 0; i < 4; i++) {
					if (!isxdigit((unsigned char)j->p[i]))
						return -1;
					u = u * 16 + (isdigit((unsigned char)j->p[i]) ?
						      j->p[i] - '0' : (j->p[i] | 0x20) - 'a' + 10);
				}
				j->p += 4;
				s[len++] = u < 0x80 ? (char)u : '?';
				break;
			}
			default:
				return -1;
			}
			continue;
		}
		s[len++] = c;
	}
	s[len] = 0;
	*out = s;
	return 0;
}

static int jnumber(struct jparser *j, double *out)
{
	const char *s = j->p;
	char *end;

	if (*s == '-')
		s++;
	if (*s == '0' && isdigit((unsigned char)s[1]))
		return -1;	/* no leading zeros */
	if (!isdigit((unsigned char)*s))
		return -1;
	*out = strtod(j->p, &end);
	j->p = end;
	return 0;
}

static int jvalue(struct jparser *j, struct jval *v)
{
	memset(v, 0, sizeof(*v));
	if (++j->depth > 32)
		return -1;
	jskip(j);
	if (*j->p == '{' || *j->p == '[') {
		bool obj = *j->p == '{';
		char close = obj ? '}' : ']';

		v->type = obj ? J_OBJ : J_ARR;
		j->p++;
		jskip(j);
		if (*j->p == close) {
			j->p++;
			goto out;
		}
		for (;;) {
			struct jval *k;

			v->kids = realloc(v->kids, (v->n + 1) * sizeof(*v->kids));
			if (!v->kids)
				return -1;
			k = &v->kids[v->n++];
			jskip(j);
			if (obj) {
				char *key;

				if (jstring(j, &key))
					return -1;
				jskip(j);
				if (*j->p++ != ':')
					return -1;
				if (jvalue(j, k))
					return -1;
				k->key = key;
			} else if (jvalue(j, k)) {
				return -1;
			}
			jskip(j);
			if (*j->p == ',') {
				j->p++;
				continue;
			}
			if (*j->p++ != close)
				return -1;
			break;
		}
	} else if (*j->p == '"') {
		v->type = J_STR;
		if (jstring(j, &v->str))
			return -1;
	} else if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "false", 5)) {
		v->type = J_BOOL;
		v->b = *j->p == 't';
		j->p += v->b ? 4 : 5;
	} else if (!strncmp(j->p, "null", 4)) {
		v->type = J_NULL;
		j->p += 4;
	} else {
		v->type = J_NUM;
		if (jnumber(j, &v->num))
			return -1;
	}
out:
	j->depth--;
	return 0;
}

/* The whole text is one value, nothing after it. */
static int jparse(const char *text, struct jval *v)
{
	struct jparser j = { .p = text };

	if (jvalue(&j, v))
		return -1;
	jskip(&j);
	return *j.p ? -1 : 0;
}

static const struct jval *jget(const struct jval *o, const char *key)
{
	int i;

	if (!o || o->type != J_OBJ)
		return NULL;
	for (i = 0; i < o->n; i++)
		if (!strcmp(o->kids[i].key, key))
			return &o->kids[i];
	return NULL;
}

static double jnum(const struct jval *o, const char *key)
{
	const struct jval *v = jget(o, key);

	return v && v->type == J_NUM ? v->num : -1;
}

static const char *jstr(const struct jval *o, const char *key)
{
	const struct jval *v = jget(o, key);

	return v && v->type == J_STR ? v->str : "";
}

/* --- running npu-smi ------------------------------------------------- */

/*
 * Run npu-smi with @argv (NULL-terminated, argv[0] included), optionally
 * as @uid; its stdout into @out (up to @n bytes). Returns the exit status,
 * or -1.
 */
static int run_smi(char *const argv[], uid_t uid, char *out, size_t n)
{
	int pfd[2], status;
	size_t len = 0;
	ssize_t r;
	pid_t pid;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		if (uid && (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
			    setresuid(uid, uid, uid)))
			_exit(120);
		execv(NPU_SMI, argv);
		_exit(127);
	}
	close(pfd[1]);
	while (out && len + 1 < n &&
	       (r = read(pfd[0], out + len, n - 1 - len)) > 0)
		len += r;
	if (out)
		out[len] = 0;
	close(pfd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

#define NEED_SMI() do {								\
	if (access(NPU_SMI, X_OK))						\
		SKIP(return, NPU_SMI " is not in the image (make tools)");	\
} while (0)

static char out[1 << 20];

TEST(info_json_shows_exact_figures)
{
	char *argv[] = { "npu-smi", "info", "--json", NULL };
	const struct jval *devs, *procs, *p = NULL;
	struct jval doc;
	int hold[2], i, status;
	pid_t holder;

	NEED_SMI();
	holder = npu_holder(0, 64 << 20, 16 << 20, 0, hold);
	ASSERT_LT(0, holder);
	ASSERT_EQ(0, run_smi(argv, 0, out, sizeof(out)));
	ASSERT_EQ(0, jparse(out, &doc));
	devs = jget(&doc, "devices");
	procs = jget(&doc, "processes");
	ASSERT_NONNULL(devs);
	ASSERT_NONNULL(procs);
	ASSERT_EQ(J_ARR, devs->type);
	ASSERT_EQ(J_ARR, procs->type);
	ASSERT_EQ(npu_device_count(), devs->n);
	for (i = 0; i < devs->n; i++) {
		struct npu_get_info info;
		char name[16];
		int fd = npu_open(i);

		ASSERT_LE(0, fd);
		ASSERT_EQ(0, npu_info(fd, &info));
		snprintf(name, sizeof(name), "npu%d", i);
		EXPECT_EQ(i, jnum(&devs->kids[i], "index"));
		EXPECT_STREQ(name, jstr(&devs->kids[i], "name"));
		EXPECT_EQ((double)info.mem_total,
			  jnum(&devs->kids[i], "memory_total"));
		EXPECT_STREQ((char *)info.soc_name,
			     jstr(&devs->kids[i], "soc_name"));
		close(fd);
	}
	for (i = 0; i < procs->n; i++)
		if (jnum(&procs->kids[i], "pid") == holder)
			p = &procs->kids[i];
	ASSERT_NONNULL(p);
	EXPECT_EQ(0, jnum(p, "device"));
	EXPECT_EQ((double)(64 << 20), jnum(p, "device_memory"));
	EXPECT_EQ((double)(16 << 20), jnum(p, "host_pinned"));
	EXPECT_EQ((double)(16 << 20), jnum(p, "host_memlock"));
	EXPECT_STREQ("npu_smi_test", jstr(p, "comm"));
	close(hold[1]);
	waitpid(holder, &status, 0);
}

TEST(info_json_one_device)
{
	char *argv[] = { "npu-smi", "-i", "0", "--json", NULL };
	const struct jval *devs;
	struct jval doc;

	NEED_SMI();
	ASSERT_EQ(0, run_smi(argv, 0, out, sizeof(out)));
	ASSERT_EQ(0, jparse(out, &doc));
	devs = jget(&doc, "devices");
	ASSERT_NONNULL(devs);
	ASSERT_EQ(1, devs->n);
	EXPECT_EQ(0, jnum(&devs->kids[0], "index"));
}

TEST(info_table)
{
	char *argv[] = { "npu-smi", NULL };

	NEED_SMI();
	ASSERT_EQ(0, run_smi(argv, 0, out, sizeof(out)));
	EXPECT_NONNULL(strstr(out, "npu0"));
	EXPECT_NONNULL(strstr(out, "Processes:"));
}

TEST(watch_faults_prints_bad_copy)
{
	int opipe[2], epipe[2], status, fd;
	char line[512], expect[128];
	uint64_t src, dst;
	uint32_t stream;
	size_t len = 0;
	ssize_t r;
	pid_t pid;

	NEED_SMI();
	ASSERT_EQ(0, pipe(opipe));
	ASSERT_EQ(0, pipe(epipe));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		dup2(opipe[1], 1);
		dup2(epipe[1], 2);
		execl(NPU_SMI, "npu-smi", "watch-faults", "--count", "1", NULL);
		_exit(127);
	}
	close(opipe[1]);
	close(epipe[1]);
	/* it says so on stderr once it has joined the group */
	r = read(epipe[0], line, sizeof(line) - 1);
	ASSERT_LT(0, r);
	line[r] = 0;
	ASSERT_NONNULL(strstr(line, "watching"));

	fd = npu_open(0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, npu_stream_create(fd, &stream));
	src = npu_hole(SZ_2M, SZ_2M);
	dst = npu_hole(SZ_2M, SZ_2M);
	npu_expect_dma_faults(true);
	EXPECT_EQ(-EIO, npu_run(fd, stream, npu_copy_cmd(dst, src, SZ_4K, 0)));
	npu_expect_dma_faults(false);
	while (len + 1 < sizeof(line) &&
	       (r = read(opipe[0], line + len, sizeof(line) - 1 - len)) > 0)
		len += r;
	line[len] = 0;
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	TH_LOG("npu-smi: %s", line);
	snprintf(expect, sizeof(expect), "npu0 pid %d (npu_smi_test) stream %u write va 0x%llx: ",
		 getpid(), stream, (unsigned long long)dst);
	EXPECT_EQ(0, strncmp(line, expect, strlen(expect)));
	/* one line: exactly one event */
	EXPECT_EQ(line + len - 1, strchr(line, '\n'));
	close(fd);
}

TEST(exit_codes)
{
	char *help[] = { "npu-smi", "--help", NULL };
	char *bogus[] = { "npu-smi", "bogus", NULL };
	char *badopt[] = { "npu-smi", "info", "--nope", NULL };
	char *badcount[] = { "npu-smi", "watch-faults", "--count", "0", NULL };
	char *nodev[] = { "npu-smi", "-i", "99", NULL };
	char *reset[] = { "npu-smi", "reset-counters", NULL };

	NEED_SMI();
	EXPECT_EQ(0, run_smi(help, 0, out, sizeof(out)));
	EXPECT_NONNULL(strstr(out, "usage: npu-smi"));
	EXPECT_EQ(2, run_smi(bogus, 0, NULL, 0));
	EXPECT_EQ(2, run_smi(badopt, 0, NULL, 0));
	EXPECT_EQ(2, run_smi(badcount, 0, NULL, 0));
	EXPECT_EQ(6, run_smi(nodev, 0, NULL, 0));
	EXPECT_EQ(3, run_smi(reset, NOBODY, NULL, 0));
	EXPECT_EQ(0, run_smi(reset, 0, NULL, 0));
}

TEST(json_parser_is_strict)
{
	struct jval v;

	EXPECT_EQ(0, jparse("{\"a\": [1, 2, {\"b\": \"c\\n\"}], \"d\": true}", &v));
	EXPECT_EQ(-1, jparse("{\"a\": 1,}", &v));
	EXPECT_EQ(-1, jparse("[1, 2] x", &v));
	EXPECT_EQ(-1, jparse("{\"a\": 01}", &v));
	EXPECT_EQ(-1, jparse("\"a\tb\"", &v));
	EXPECT_EQ(-1, jparse("{a: 1}", &v));
}

TEST_HARNESS_MAIN
