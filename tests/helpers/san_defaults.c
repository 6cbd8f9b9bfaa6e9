/* SPDX-License-Identifier: ISC */
/*
 * Linked into every tool of the ASan/UBSan build (make LIBC=glibc SAN=1),
 * never into a shipped binary: the sanitizers' defaults for a sandbox.
 * LeakSanitizer stops the world with ptrace at exit, which the stages'
 * seccomp filters and namespaces refuse (it would turn every exit into a
 * failure); otoexec's clean environment drops ASAN_OPTIONS before the next
 * program (otoprobe, in the tests) starts, so the default is compiled in.
 * Leaks are the unit tests' business.
 */
const char *__asan_default_options(void);
const char *__ubsan_default_options(void);

const char *__asan_default_options(void)
{
	return "detect_leaks=0:color=never";
}

const char *__ubsan_default_options(void)
{
	return "print_stacktrace=1:halt_on_error=1";
}
