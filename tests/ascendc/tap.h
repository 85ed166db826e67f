// SPDX-License-Identifier: GPL-2.0
/*
 * tests/ascendc/tap.h - a minimal TAP 13 runner for the host-only C++ tests
 * of make npucc-check (tests/harness.h is C and forks per test; these tests
 * need neither). TEST(name) { ... CHECK(cond, fmt, ...) ... } registers a
 * test; TAP_MAIN runs them in order, prints "ok N - name" or "not ok", and
 * exits 1 if any failed. A failed CHECK prints a "# " line and continues.
 * Traps are caught with trap_run(): SIGILL (ud2) inside it returns true.
 */
#ifndef NPUCC_TEST_TAP_H
#define NPUCC_TEST_TAP_H

#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

namespace tap {
struct test {
	const char *name;
	void (*fn)();
};
inline std::vector<test> &all()
{
	static std::vector<test> v;
	return v;
}
inline int &failures()
{
	static int n;
	return n;
}
struct reg {
	reg(const char *name, void (*fn)()) { all().push_back({name, fn}); }
};

inline sigjmp_buf &trap_env()
{
	static sigjmp_buf env;
	return env;
}
inline void on_sigill(int) { siglongjmp(trap_env(), 1); }

/* run f; true if it executed ud2 (SIGILL) */
inline bool trap_run(const std::function<void()> &f)
{
	struct sigaction sa = {}, old = {};
	sa.sa_handler = on_sigill;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGILL, &sa, &old);
	bool trapped = false;
	if (sigsetjmp(trap_env(), 1) == 0)
		f();
	else
		trapped = true;
	sigaction(SIGILL, &old, nullptr);
	return trapped;
}

inline int main()
{
	std::printf("TAP version 13\n1..%zu\n", all().size());
	int n = 0, failed = 0;
	for (auto &t : all()) {
		int before = failures();
		t.fn();
		n++;
		bool ok = failures() == before;
		failed += !ok;
		std::printf("%sok %d - %s\n", ok ? "" : "not ", n, t.name);
		std::fflush(stdout);
	}
	std::printf("# %d passed, %d failed\n", n - failed, failed);
	return failed ? 1 : 0;
}
} // namespace tap

#define TEST(name)                                        \
	static void test_##name();                        \
	static tap::reg reg_##name(#name, test_##name);   \
	static void test_##name()

#define CHECK(cond, ...)                                                      \
	do {                                                                  \
		if (!(cond)) {                                                \
			std::printf("# %s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
			std::printf(__VA_ARGS__);                             \
			std::printf("\n");                                    \
			tap::failures()++;                                    \
		}                                                             \
	} while (0)

#define TAP_MAIN \
	int main() { return tap::main(); }

#endif /* NPUCC_TEST_TAP_H */
