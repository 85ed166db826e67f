// SPDX-License-Identifier: GPL-2.0
/*
 * tests/npu_smi_test.c - the real /usr/bin/npu-smi in the guest: `info
 * --json` (parsed by a small strict JSON parser here: the guest has no
 * python3) shows a process holding 64 MiB of device memory and 16 MiB of
 * pinned host memory with those figures; `watch-faults --count 1` prints
 * the fault of a bad copy; `info` and its pages in the vendor's layout,
 * line for line (its npu-smi source and docs/en/Ascend_950_npu-smi in
 * github hicann/driver); the NPU utilisation, low on an idle device and
 * high while a process keeps its DMA engine busy, in the summary, the
 * usages and common pages and info watch; the documented exit codes.
 */
#include <ctype.h>
#include <signal.h>
#include <sys/wait.h>

#include "harness.h"
#include "npu_nl_util.h"
#include "npu_smi_util.h"

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
		/* the engine's busy nanoseconds, exact: a number, never absent */
		EXPECT_LE(0, jnum(&devs->kids[i], "busy_ns"));
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

/* The vendor's summary layout (Ascend 950 form), line for line. */
static const char *const box_top =
	"+-------------------------------------------------------------------------------------------------+";
static const char *const box_dev =
	"+--------+------------------+---------------+-----------------------------------------------------+";
static const char *const box_dev_end =
	"+========+==================+===============+=====================================================+";
static const char *const box_proc =
	"+---------------------------+---------------+-----------------------------------------------------+";
static const char *const box_proc_end =
	"+===========================+===============+=====================================================+";

/* Line @i of @text into @line (without the newline); -1 past the end. */
static int nth_line(const char *text, int i, char *line, size_t n)
{
	const char *p = text, *end;

	while (i-- > 0) {
		p = strchr(p, '\n');
		if (!p)
			return -1;
		p++;
	}
	if (!*p)
		return -1;
	end = strchr(p, '\n');
	snprintf(line, n, "%.*s", (int)(end ? end - p : (long)strlen(p)), p);
	return 0;
}

static int count_lines(const char *text)
{
	int n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

static void reset_counters(void)
{
	char *argv[] = { "npu-smi", "reset-counters", NULL };

	run_smi(argv, 0, NULL, 0);
}

/* The bus id as the vendor prints it ("%04X:%02X:%02X.%-2X"), or NA. */
static void bus_id(const struct npu_get_info *info, char *buf, size_t n)
{
	if (info->caps & NPU_CAP_PCI_CARRIER)
		snprintf(buf, n, "%04X:%02X:%02X.%-2X", info->pci_domain, info->pci_bus,
			 info->pci_devfn >> 3, info->pci_devfn & 7);
	else
		snprintf(buf, n, "%-11s  ", "NA");
}

/*
 * The NPU Util(%) of a summary's second device line ("| %-11u " after the
 * 13 columns of the Bus-Id), or -1 if it is not a percentage there.
 */
static int summary_util(const char *line)
{
	char f[16];

	if (strlen(line) < 57)
		return -1;
	snprintf(f, sizeof(f), "%.11s", line + 46);
	*strchrnul(f, ' ') = 0;
	return smi_percent(f);
}

/* The NPU Util(%) of device @dev in the summary @text, or -1. */
static int summary_util_of(const char *text, int dev)
{
	char line[256], want[16];
	int i;

	snprintf(want, sizeof(want), "| %-7d| ", dev);
	for (i = 0; !nth_line(text, i, line, sizeof(line)); i++)
		if (!strncmp(line, want, strlen(want)))
			return nth_line(text, i + 1, line, sizeof(line)) ? -1 :
			       summary_util(line);
	return -1;
}

/*
 * `npu-smi info` with a holder of 64 MiB on device 0: the device table,
 * then the process table, exactly as the vendor's tool lays them out; the
 * holder is the only process of device 0, device 1 has none. No device
 * works: each NPU Util(%) is low.
 */
TEST(info_summary_layout)
{
	char *argv[] = { "npu-smi", "info", NULL };
	char *bare[] = { "npu-smi", NULL };
	char want[64][128], line[256], bus[32], ver[16];
	int hold[2], status, n = 0, i, util, ndev = npu_device_count();
	pid_t holder;

	NEED_SMI();
	reset_counters();
	holder = npu_holder(0, 64 << 20, 0, 0, hold);
	ASSERT_LT(0, holder);
	ASSERT_LE(1, ndev);
	ASSERT_GE(8, ndev);
	ASSERT_EQ(0, run_smi(argv, 0, out, sizeof(out)));
#define W(...) snprintf(want[n++], sizeof(want[0]), __VA_ARGS__)
	for (i = 0; i < ndev; i++) {
		struct npu_get_info info;
		int fd = npu_open(i);

		ASSERT_LE(0, fd);
		ASSERT_EQ(0, npu_info(fd, &info));
		close(fd);
		if (!i) {
			snprintf(ver, sizeof(ver), "%u.%u.%u", info.driver_version >> 16,
				 (info.driver_version >> 8) & 0xff, info.driver_version & 0xff);
			W("%s", box_top);
			W("| npu-smi %-40s Version: %-37s |", "1.13.0", ver);
			W("%s", box_dev);
			W("| NPU ID | Name             | Health        | Power(W)    Temp(C)           Hugepages-Usage(page) |");
			W("|        |                  | Bus-Id        | NPU Util(%%) Memory-Usage(MB)  HBM-Usage(MB)         |");
			W("%s", box_dev_end);
		}
		bus_id(&info, bus, sizeof(bus));
		W("| %-7d| %-17s| %-13s | %-11s %-17s %-6d/ %-13d |", i, (char *)info.soc_name,
		  "OK", "NA", "NA", 0, 0);
		/* the utilisation as seen, if it is a low percentage */
		ASSERT_EQ(0, nth_line(out, n, line, sizeof(line)));
		util = summary_util(line);
		EXPECT_LE(0, util);
		EXPECT_GE(5, util);
		W("|        |                  | %s | %-11d %-5d/ %-10d %-6llu/ %-13llu |", bus, util,
		  0, 0, (unsigned long long)info.mem_used >> 20,
		  (unsigned long long)info.mem_total >> 20);
		W("%s", box_dev_end);
	}
	W("%s", box_proc);
	W("| NPU ID                    | Process id    | Process name             | Process memory(MB)       |");
	W("%s", box_proc_end);
	W("| %-26d | %-13d | %-24s | %-23d |", 0, holder, "npu_smi_test", 64);
	W("%s", box_proc_end);
	for (i = 1; i < ndev; i++) {
		W("| No running processes found in NPU %-7d%55s|", i, "");
		W("%s", box_proc_end);
	}
#undef W
	EXPECT_EQ(n, count_lines(out));
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, nth_line(out, i, line, sizeof(line)));
		EXPECT_EQ(99, strlen(line));
		if (strcmp(want[i], line))
			TH_LOG("line %d:\nwant '%s'\nseen '%s'", i, want[i], line);
		EXPECT_STREQ(want[i], line);
	}
	/* without a command, npu-smi is npu-smi info */
	ASSERT_EQ(0, run_smi(bare, 0, line, sizeof(line)));
	EXPECT_EQ(0, strncmp(line, out, strlen(line)));
	close(hold[1]);
	waitpid(holder, &status, 0);
}

/* The keys of a `key : value` page, in order, in the "\t%-30s : " layout. */
static void check_keys(const char *page, const char *const *keys, int n)
{
	char line[256], want[64];
	int i;

	EXPECT_EQ(n, count_lines(page));
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, nth_line(page, i, line, sizeof(line)));
		snprintf(want, sizeof(want), "\t%-30s : ", keys[i]);
		if (strncmp(line, want, strlen(want)))
			TH_LOG("line %d: want key '%s', seen '%s'", i, keys[i], line);
		EXPECT_EQ(0, strncmp(line, want, strlen(want)));
	}
}

static char *page(const char *type, const char *dev)
{
	char *argv[] = { "npu-smi", "info", "-t", (char *)type, "-i", (char *)dev, NULL };

	return run_smi(argv, 0, out, sizeof(out)) ? NULL : out;
}

/* Each -t page has the vendor's keys (its docs), in its order. */
TEST(info_type_pages)
{
	static const char *const board[] = {
		"NPU ID", "Product Name", "NPU Name", "Chip Name", "Chip Version", "Model",
		"Manufacturer", "Serial Number", "Software Version", "Firmware Version",
		"Compatibility", "Board ID", "Main Board ID", "PCB ID", "BOM ID",
		"PCIe Bus Info", "Slot ID", "Class ID", "PCI Vendor ID", "PCI Device ID",
		"Subsystem Vendor ID", "Subsystem Device ID", "Chip Count", "DDie ID",
		"Chip Position ID",
	};
	static const char *const common[] = {
		"NPU ID", "Memory Usage Rate(%)", "HBM Usage Rate(%)", "Aicore Usage Rate(%)",
		"Aicore Freq(MHZ)", "Aicore curFreq(MHZ)", "Aicore Count", "Temperature(C)",
		"NPU Real-time Power(W)",
	};
	static const char *const usages[] = {
		"NPU ID", "DDR Capacity(MB)", "DDR Usage Rate(%)", "DDR Hugepages Total(page)",
		"DDR Hugepages Usage Rate(%)", "HBM Capacity(MB)", "HBM Usage Rate(%)",
		"Aicore Usage Rate(%)", "Aivector Usage Rate(%)", "Aicpu Usage Rate(%)",
		"Ctrlcpu Usage Rate(%)", "DDR Bandwidth Usage Rate(%)",
		"HBM Bandwidth Usage Rate(%)", "NPU Utilization(%)", "Aicube Usage Rate(%)",
	};
	static const char *const memory[] = {
		"NPU ID", "DDR Capacity(MB)", "DDR Clock Speed(MHz)", "HBM Capacity(MB)",
		"HBM Clock Speed(MHz)", "HBM Temperature(C)", "HBM Manufacturer ID",
	};
	static const char *const health[] = {
		"NPU ID", "Health", "Error Code", "Error Information",
	};
	static const char *const no_usage[] = {
		"Aicore Usage Rate(%)", "Aivector Usage Rate(%)", "Aicpu Usage Rate(%)",
		"Ctrlcpu Usage Rate(%)", "HBM Bandwidth Usage Rate(%)", "Aicube Usage Rate(%)",
	};
	struct npu_get_info info;
	char val[64], want[64];
	unsigned int i;
	int fd = npu_open(1 % npu_device_count());
	const char *p;

	NEED_SMI();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, npu_info(fd, &info));
	close(fd);
	snprintf(want, sizeof(want), "%u", info.device_index);
	p = page("board", want);
	ASSERT_NONNULL(p);
	check_keys(p, board, sizeof(board) / sizeof(board[0]));
	EXPECT_EQ(0, smi_field(p, "NPU ID", val, sizeof(val)));
	EXPECT_STREQ(want, val);
	EXPECT_EQ(0, smi_field(p, "Chip Name", val, sizeof(val)));
	EXPECT_STREQ((char *)info.soc_name, val);
	EXPECT_EQ(0, smi_field(p, "Firmware Version", val, sizeof(val)));
	EXPECT_STREQ("NA", val);	/* no firmware: the vendor's NA */
	if (info.caps & NPU_CAP_PCI_CARRIER) {
		EXPECT_EQ(0, smi_field(p, "PCI Vendor ID", val, sizeof(val)));
		EXPECT_STREQ("0x1B36", val);	/* QEMU's pci-testdev */
	}
	p = page("common", want);
	ASSERT_NONNULL(p);
	check_keys(p, common, sizeof(common) / sizeof(common[0]));
	/* the vendor's 950 prints the overall utilisation here: a percentage */
	EXPECT_EQ(0, smi_field(p, "Aicore Usage Rate(%)", val, sizeof(val)));
	EXPECT_LE(0, smi_percent(val));
	EXPECT_EQ(0, smi_field(p, "Aicore Count", val, sizeof(val)));
	EXPECT_EQ(info.cube_cores, strtoul(val, NULL, 10));
	EXPECT_EQ(0, smi_field(p, "Temperature(C)", val, sizeof(val)));
	EXPECT_STREQ("NA", val);
	EXPECT_EQ(0, smi_field(p, "NPU Real-time Power(W)", val, sizeof(val)));
	EXPECT_STREQ("NA", val);
	p = page("usages", want);
	ASSERT_NONNULL(p);
	check_keys(p, usages, sizeof(usages) / sizeof(usages[0]));
	EXPECT_EQ(0, smi_field(p, "HBM Capacity(MB)", val, sizeof(val)));
	EXPECT_EQ(info.mem_total >> 20, strtoull(val, NULL, 10));
	EXPECT_EQ(0, smi_field(p, "NPU Utilization(%)", val, sizeof(val)));
	EXPECT_LE(0, smi_percent(val));
	/* the AI cores run nothing yet: no figure, not a made-up 0 */
	for (i = 0; i < sizeof(no_usage) / sizeof(no_usage[0]); i++) {
		EXPECT_EQ(0, smi_field(p, no_usage[i], val, sizeof(val)));
		EXPECT_STREQ("NA", val);
	}
	p = page("memory", want);
	ASSERT_NONNULL(p);
	check_keys(p, memory, sizeof(memory) / sizeof(memory[0]));
	EXPECT_EQ(0, smi_field(p, "HBM Clock Speed(MHz)", val, sizeof(val)));
	EXPECT_STREQ("NA", val);
	reset_counters();
	p = page("health", want);
	ASSERT_NONNULL(p);
	check_keys(p, health, sizeof(health) / sizeof(health[0]));
	EXPECT_EQ(0, smi_field(p, "Health", val, sizeof(val)));
	EXPECT_STREQ("OK", val);
	EXPECT_EQ(0, smi_field(p, "Error Code", val, sizeof(val)));
	EXPECT_STREQ("NA", val);
}

/* proc-mem: the vendor's "Process id:... Process name:... Process memory(MB):..." */
TEST(info_proc_mem)
{
	char want[128];
	int hold[2], status;
	const char *p;
	pid_t holder;

	NEED_SMI();
	p = page("proc-mem", "1");
	if (npu_device_count() > 1) {
		ASSERT_NONNULL(p);
		EXPECT_STREQ("\tNPU ID                         : 1\n\tNo process in device.\n", p);
	}
	holder = npu_holder(0, 64 << 20, 0, 0, hold);
	ASSERT_LT(0, holder);
	p = page("proc-mem", "0");
	ASSERT_NONNULL(p);
	snprintf(want, sizeof(want), "\tProcess id:%-7d Process name:%-17s Process memory(MB):64\n",
		 holder, "npu_smi_test");
	EXPECT_NONNULL(strstr(p, want));
	close(hold[1]);
	waitpid(holder, &status, 0);
}

/* -l: the device count and each device; -m: ids and chip names; phyid-remap. */
TEST(info_list_and_mapping)
{
	char *list[] = { "npu-smi", "info", "-l", NULL };
	char *map[] = { "npu-smi", "info", "-m", NULL };
	char *remap[] = { "npu-smi", "info", "-t", "phyid-remap", "-p", "0", NULL };
	char *remap_bad[] = { "npu-smi", "info", "-t", "phyid-remap", "-p", "99", NULL };
	char want[4096], line[256], *w = want;
	int ndev = npu_device_count(), i;

	NEED_SMI();
	ASSERT_EQ(0, run_smi(list, 0, out, sizeof(out)));
	w += sprintf(w, "\t%-30s : %d\n\n", "Total Count", ndev);
	for (i = 0; i < ndev; i++)
		w += sprintf(w, "\t%-30s : %d\n\t%-30s : NA\n\t%-30s : NA\n\n", "NPU ID", i,
			     "Product Name", "Serial Number");
	EXPECT_STREQ(want, out);
	ASSERT_EQ(0, run_smi(map, 0, out, sizeof(out)));
	ASSERT_EQ(0, nth_line(out, 0, line, sizeof(line)));
	snprintf(want, sizeof(want), "\t%-30s %-30s %-30s %-30s %-30s", "NPU ID", "Slot ID",
		 "Chip ID", "Chip Phy-ID", "Chip Name");
	EXPECT_STREQ(want, line);
	EXPECT_EQ(ndev + 1, count_lines(out));
	for (i = 0; i < ndev; i++) {
		struct npu_get_info info;
		char slot[16];
		int fd = npu_open(i);

		ASSERT_LE(0, fd);
		ASSERT_EQ(0, npu_info(fd, &info));
		close(fd);
		if (info.caps & NPU_CAP_PCI_CARRIER)
			snprintf(slot, sizeof(slot), "%u", info.pci_devfn >> 3);
		else
			snprintf(slot, sizeof(slot), "NA");
		ASSERT_EQ(0, nth_line(out, i + 1, line, sizeof(line)));
		snprintf(want, sizeof(want), "\t%-30d %-30s %-30d %-30d %s", i, slot, 0, i,
			 (char *)info.soc_name);
		EXPECT_STREQ(want, line);
	}
	ASSERT_EQ(0, run_smi(remap, 0, out, sizeof(out)));
	EXPECT_EQ(0, strncmp(out, "\tChip Phy-ID                   :0\n\tNPU ID                        :0\n", 66));
	EXPECT_EQ(6, run_smi(remap_bad, 0, NULL, 0));
}

/* The NPU Util(%) of an info watch row of every column (" %-12u" at 96), or -1. */
static int watch_util(const char *line)
{
	char f[16];

	if (strlen(line) < 109 || line[96] != ' ')
		return -1;
	snprintf(f, sizeof(f), "%.12s", line + 97);
	*strchrnul(f, ' ') = 0;
	return smi_percent(f);
}

/*
 * info watch: the vendor's header and a row per sample (--count, npu's,
 * stops it); what the chip cannot measure is NA, the NPU utilisation of an
 * idle device is low; -s picks the columns.
 */
TEST(info_watch)
{
	char *all[] = { "npu-smi", "info", "watch", "-i", "0", "--count", "2", NULL };
	char *some[] = { "npu-smi", "info", "watch", "-i", "0", "-d", "1", "-s", "pm",
			 "--count", "1", NULL };
	char line[256], want[256];
	struct npu_get_info info;
	int fd = npu_open(0), i, util;

	NEED_SMI();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, npu_info(fd, &info));
	close(fd);
	ASSERT_EQ(0, run_smi(all, 0, out, sizeof(out)));
	EXPECT_EQ(3, count_lines(out));
	ASSERT_EQ(0, nth_line(out, 0, line, sizeof(line)));
	/* the vendor's source: "%-12s" a column, " %-12s" after Memory BW(%) */
	EXPECT_STREQ("NpuID(Idx)  " "Pwr(W)      " "Temp(C)     " "AI Core(%)  " "AI Cpu(%)   "
		     "Ctrl Cpu(%) " "Memory(%)   " "Memory BW(%)" " NPU Util(%) " " AI Cube(%)  ", line);
	for (i = 1; i < 3; i++) {
		ASSERT_EQ(0, nth_line(out, i, line, sizeof(line)));
		util = watch_util(line);
		EXPECT_LE(0, util);
		EXPECT_GE(5, util);
		snprintf(want, sizeof(want), "%-12d%-12s%-12s%-12s%-12s%-12s%-12llu%-12s %-12d %-12s",
			 0, "NA", "NA", "NA", "NA", "NA",
			 (unsigned long long)((info.mem_used >> 20) * 100 / (info.mem_total >> 20)),
			 "NA", util, "NA");
		EXPECT_STREQ(want, line);
	}
	ASSERT_EQ(0, run_smi(some, 0, out, sizeof(out)));
	ASSERT_EQ(0, nth_line(out, 0, line, sizeof(line)));
	EXPECT_STREQ("NpuID(Idx)  Pwr(W)      Memory(%)   ", line);
	EXPECT_EQ(2, count_lines(out));
}

/* The NPU utilisation of device 0 as `info -t usages` and `-t common` print it. */
static void page_utils(int *usages, int *common)
{
	char val[64];
	const char *p;

	*usages = *common = -1;
	p = page("usages", "0");
	if (p && !smi_field(p, "NPU Utilization(%)", val, sizeof(val)))
		*usages = smi_percent(val);
	p = page("common", "0");
	if (p && !smi_field(p, "Aicore Usage Rate(%)", val, sizeof(val)))
		*common = smi_percent(val);
}

/*
 * The NPU Util(%) of row @i of `info watch -i 0 -s an`: the row must be
 * exactly "%-12u%-12s %-12u" of 0, NA and a percentage; else -1.
 */
static int watch_an_util(const char *text, int i)
{
	char line[256], want[64], head[32];
	int util;

	snprintf(head, sizeof(head), "%-12d%-12s ", 0, "NA");
	if (nth_line(text, i, line, sizeof(line)) || strncmp(line, head, strlen(head)))
		return -1;
	snprintf(want, sizeof(want), "%.12s", line + strlen(head));
	*strchrnul(want, ' ') = 0;
	util = smi_percent(want);
	snprintf(want, sizeof(want), "%s%-12d", head, util);
	return strcmp(want, line) ? -1 : util;
}

/*
 * The NPU utilisation is the DMA engine's busy time: low while device 0
 * idles, high while a process keeps it copying, low again once it stopped,
 * in the summary, the usages and common pages and both rows of info watch
 * (the first over a short window, the second over the 1 s between them).
 * Only device 0 works: device 1 stays idle. The AI cores stay NA.
 */
TEST(utilisation_follows_the_dma_engine)
{
	char *summary[] = { "npu-smi", "info", NULL };
	char *watch[] = { "npu-smi", "info", "watch", "-i", "0", "-d", "1", "-s", "an",
			  "--count", "2", NULL };
	char line[256];
	int hold[2], status, usages, common, i, util, ndev = npu_device_count();
	pid_t loop;

	NEED_SMI();
	page_utils(&usages, &common);
	EXPECT_LE(0, usages);
	EXPECT_GE(5, usages);
	EXPECT_LE(0, common);
	EXPECT_GE(5, common);

	loop = npu_busy_loop(0, hold);
	ASSERT_LT(0, loop);
	page_utils(&usages, &common);
	TH_LOG("busy: usages %d%%, common %d%%", usages, common);
	EXPECT_LE(50, usages);
	EXPECT_LE(50, common);
	ASSERT_EQ(0, run_smi(summary, 0, out, sizeof(out)));
	util = summary_util_of(out, 0);
	TH_LOG("busy: summary %d%%", util);
	EXPECT_LE(50, util);
	if (ndev > 1) {
		util = summary_util_of(out, 1);
		EXPECT_LE(0, util);
		EXPECT_GE(5, util);
	}
	ASSERT_EQ(0, run_smi(watch, 0, out, sizeof(out)));
	EXPECT_EQ(3, count_lines(out));
	ASSERT_EQ(0, nth_line(out, 0, line, sizeof(line)));
	EXPECT_STREQ("NpuID(Idx)  AI Core(%)   NPU Util(%) ", line);
	for (i = 1; i < 3; i++) {
		util = watch_an_util(out, i);
		TH_LOG("busy: watch row %d: %d%%", i, util);
		EXPECT_LE(50, util);
	}
	close(hold[1]);
	ASSERT_EQ(loop, waitpid(loop, &status, 0));
	EXPECT_EQ(0, status);

	page_utils(&usages, &common);
	EXPECT_LE(0, usages);
	EXPECT_GE(5, usages);
	ASSERT_EQ(0, run_smi(watch, 0, out, sizeof(out)));
	EXPECT_EQ(3, count_lines(out));
	for (i = 1; i < 3; i++) {
		util = watch_an_util(out, i);
		EXPECT_LE(0, util);
		EXPECT_GE(5, util);
	}
}

/* info proc: a row per process of the device: pid, name, device, pinned, memlock MiB. */
TEST(info_proc)
{
	char *argv[] = { "npu-smi", "info", "proc", "-i", "0", "--count", "1", NULL };
	int hold[2], status;
	char want[128];
	pid_t holder;

	NEED_SMI();
	holder = npu_holder(0, 64 << 20, 16 << 20, 0, hold);
	ASSERT_LT(0, holder);
	ASSERT_EQ(0, run_smi(argv, 0, out, sizeof(out)));
	snprintf(want, sizeof(want), "%-12d%-12d%-18s%-20d%-12d%d\n", 0, holder,
		 "npu_smi_test", 64, 16, 16);
	EXPECT_NONNULL(strstr(out, want));
	EXPECT_EQ(0, strncmp(out, "NpuID(Idx)  Process id  ", 24));
	close(hold[1]);
	waitpid(holder, &status, 0);
}

/* -v, -h, info -h and set -h in the vendor's words. */
TEST(version_and_help)
{
	char *v[] = { "npu-smi", "-v", NULL };
	char *h[] = { "npu-smi", "-h", NULL };
	char *ih[] = { "npu-smi", "info", "-h", NULL };
	char *sh[] = { "npu-smi", "set", "--help", NULL };

	NEED_SMI();
	ASSERT_EQ(0, run_smi(v, 0, out, sizeof(out)));
	EXPECT_STREQ("npu-smi version: 1.13.0\n", out);
	ASSERT_EQ(0, run_smi(h, 0, out, sizeof(out)));
	EXPECT_EQ(0, strncmp(out, "Usage: npu-smi <Command|-h|-v> [Options...]\n\nnpu-smi Command:\n"
			     "\t-h            This command's help information\n", 99));
	EXPECT_NONNULL(strstr(out, "\tinfo          Show hardware details\n"));
	ASSERT_EQ(0, run_smi(ih, 0, out, sizeof(out)));
	EXPECT_EQ(0, strncmp(out, "Usage: npu-smi info <watch|proc|-h|-m|-l|-t type> [Options...]\n", 63));
	ASSERT_EQ(0, run_smi(sh, 0, out, sizeof(out)));
	EXPECT_EQ(0, strncmp(out, "Usage: npu-smi set <-h|-t type> [Options...]\n", 45));
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
	char *notype[] = { "npu-smi", "info", "-t", "bogus", "-i", "0", NULL };
	char *noid[] = { "npu-smi", "info", "-t", "memory", NULL };
	char *page_nodev[] = { "npu-smi", "info", "-t", "memory", "-i", "99", NULL };
	char *temp[] = { "npu-smi", "info", "-t", "temp", "-i", "0", NULL };
	char *chip1[] = { "npu-smi", "info", "-t", "board", "-i", "0", "-c", "1", NULL };
	char *both[] = { "npu-smi", "info", "-l", "-m", NULL };
	char *watch_d[] = { "npu-smi", "info", "watch", "-d", "0", NULL };
	char *watch_s[] = { "npu-smi", "info", "watch", "-s", "x", NULL };
	char *watch_nodev[] = { "npu-smi", "info", "watch", "-i", "99", NULL };
	char *set_ecc[] = { "npu-smi", "set", "-t", "clear-ecc-info", "-i", "0", NULL };
	char *set_bogus[] = { "npu-smi", "set", "-t", "bogus", "-i", "0", NULL };
	char *set_noid[] = { "npu-smi", "set", "-t", "reset", NULL };
	char *set_nodev[] = { "npu-smi", "set", "-t", "reset", "-i", "99", NULL };

	NEED_SMI();
	EXPECT_EQ(0, run_smi(help, 0, out, sizeof(out)));
	EXPECT_NONNULL(strstr(out, "Usage: npu-smi"));
	EXPECT_EQ(2, run_smi(bogus, 0, NULL, 0));
	EXPECT_EQ(2, run_smi(badopt, 0, NULL, 0));
	EXPECT_EQ(2, run_smi(badcount, 0, NULL, 0));
	EXPECT_EQ(6, run_smi(nodev, 0, NULL, 0));
	EXPECT_EQ(3, run_smi(reset, NOBODY, NULL, 0));
	EXPECT_EQ(0, run_smi(reset, 0, NULL, 0));
	EXPECT_EQ(2, run_smi(notype, 0, NULL, 0));
	EXPECT_EQ(2, run_smi(noid, 0, NULL, 0));
	EXPECT_EQ(6, run_smi(page_nodev, 0, NULL, 0));
	/* a sensor the chip does not have: the vendor's sentence, exit 8 */
	EXPECT_EQ(8, run_smi(temp, 0, out, sizeof(out)));
	EXPECT_STREQ("This device does not support querying temp.\n", out);
	EXPECT_EQ(6, run_smi(chip1, 0, NULL, 0));
	EXPECT_EQ(2, run_smi(both, 0, NULL, 0));
	EXPECT_EQ(2, run_smi(watch_d, 0, NULL, 0));
	EXPECT_EQ(2, run_smi(watch_s, 0, NULL, 0));
	EXPECT_EQ(6, run_smi(watch_nodev, 0, NULL, 0));
	/* no ECC on the simulated chip: said, not pretended (reset: npu_reset_test) */
	EXPECT_EQ(8, run_smi(set_ecc, 0, out, sizeof(out)));
	EXPECT_STREQ("This device does not support setting clear-ecc-info.\n", out);
	EXPECT_EQ(2, run_smi(set_bogus, 0, NULL, 0));
	EXPECT_EQ(2, run_smi(set_noid, 0, NULL, 0));
	EXPECT_EQ(6, run_smi(set_nodev, 0, NULL, 0));
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
