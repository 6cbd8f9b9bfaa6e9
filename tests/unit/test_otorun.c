// UNIT: cmd/otorun/words.c cmd/otorun/parse.c cmd/otorun/chain.c cmd/otorun/here.c lib/opt.c
/*
 * Unit tests of otorun's pure parts: the quoting, the values and their
 * messages, a config file's lines, the checks, the chain's words and text,
 * and the logical path of the tools' directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "otorun/otorun.h"

static char *q(const char *s)
{
	struct strbuf b = { 0 };

	quote_add(&b, s);
	assert_false(b.oom);
	return b.p;
}

static void test_quote(void **state)
{
	(void)state;
	assert_string_equal(q("plain-A_z0.9/:=@%+,"), "plain-A_z0.9/:=@%+,");
	assert_string_equal(q(""), "''");
	assert_string_equal(q("sp ace"), "'sp ace'");
	assert_string_equal(q("it's"), "'it'\\''s'");
	assert_string_equal(q("'"), "''\\'''");
	assert_string_equal(q("a\n\n"), "'a\n\n'");
	assert_string_equal(q("$(x)`y`*?[a]~"), "'$(x)`y`*?[a]~'");
	assert_string_equal(q("back\\slash"), "'back\\slash'");
	assert_string_equal(q("\xc3\xa9"), "'\xc3\xa9'");
}

static void test_shown_and_names(void **state)
{
	char *s = shown("a\nb\x01\x7f\xc3\xa9\t");

	(void)state;
	assert_string_equal(s, "a?b??\xc3\xa9?");
	assert_true(is_num("007"));
	assert_false(is_num(""));
	assert_false(is_num("1 "));
	assert_false(is_num("-1"));
	assert_true(is_name("_A9"));
	assert_false(is_name("9A"));
	assert_false(is_name(""));
	assert_false(is_name("a-b"));
	assert_false(is_name("\xc3\xa9"));
	assert_true(takes_value("--config"));
	assert_false(takes_value("--print"));
	assert_true(is_flag("--cgroup=x"));
	assert_false(is_flag("--cgroup-x"));
}

static int line(const char *in, char **text, char **name, char **val, int *has)
{
	static char buf[256];
	size_t n = strlen(in);

	memcpy(buf, in, n + 1);
	/* A NUL inside: "\x01" stands for one here. */
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '\x01')
			buf[i] = 0;
	return config_line(buf, n, text, name, val, has);
}

static void test_config_line(void **state)
{
	char *text, *name, *val;
	int has;

	(void)state;
	assert_int_equal(line("", &text, &name, &val, &has), 0);
	assert_int_equal(line(" \t\r", &text, &name, &val, &has), 0);
	assert_int_equal(line("  # --role x", &text, &name, &val, &has), 0);
	assert_int_equal(line("\t--role  member x \r", &text, &name, &val, &has), 1);
	assert_string_equal(text, "--role  member x ");
	assert_string_equal(name, "--role");
	assert_string_equal(val, "member x ");
	assert_true(has);
	assert_int_equal(line("--no-net", &text, &name, &val, &has), 1);
	assert_false(has);
	assert_int_equal(line("--role ", &text, &name, &val, &has), 1);
	assert_true(has);
	assert_string_equal(val, "");
	/* One CR at the end only; NUL bytes dropped, as sh's read does. */
	assert_int_equal(line("--env X=a\r\r", &text, &name, &val, &has), 1);
	assert_string_equal(val, "X=a\r");
	assert_int_equal(line("--env X=a\001b", &text, &name, &val, &has), 1);
	assert_string_equal(val, "X=ab");
}

static const char *opt_err(struct otorun_opts *o, const char *n, const char *v)
{
	static char buf[512];
	char *err = NULL;

	if (opt_apply(o, n, v, &err) == 0)
		return NULL;
	assert_non_null(err);
	strcpy(buf, err);
	return buf;
}

static void test_opt_messages(void **state)
{
	struct otorun_opts o;

	(void)state;
	opts_init(&o);
	assert_null(opt_err(&o, "--log-fd", "3"));
	assert_string_equal(opt_err(&o, "--log-fd", "3;id\n"),
			    "--log-fd 3;id?: expected a file descriptor number");
	assert_string_equal(opt_err(&o, "--tcp-idle", ""), "--tcp-idle : expected a number");
	assert_string_equal(opt_err(&o, "--pids-max", "1_0"),
			    "--pids-max 1_0: expected a number (see otons(1))");
	assert_null(opt_err(&o, "--cpu-max", "1.5"));
	assert_string_equal(opt_err(&o, "--cgroup=rel", NULL),
			    "--cgroup=rel: the directory must be an absolute path");
	assert_string_equal(opt_err(&o, "--cgroup=/", NULL),
			    "--cgroup=/: the directory must be an absolute path");
	assert_string_equal(opt_err(&o, "--secret", "1x"),
			    "--secret 1x: NAME must be letters, digits and _");
	assert_string_equal(opt_err(&o, "--secret", "S:env=1"),
			    "--secret S:env=1: env=VAR must name a variable");
	assert_string_equal(opt_err(&o, "--secret", "S:fd=x"),
			    "--secret S:fd=x: fd=N must be a number");
	assert_string_equal(opt_err(&o, "--secret", "S:file=r"),
			    "--secret S:file=r: file=PATH must be an absolute path in the view");
	assert_string_equal(opt_err(&o, "--secret", "S::"),
			    "--secret S::: HOW must be env, env=VAR, file=PATH or fd=N");
	assert_string_equal(opt_err(&o, "--grant", "G=http://h"),
			    "--grant G=http://h: expected NAME=https://HOST[:PORT]");
	assert_string_equal(opt_err(&o, "--grant", "G-1=https://h"),
			    "--grant G-1=https://h: NAME must be letters, digits and _");
	assert_string_equal(opt_err(&o, "--bo\ngus", NULL), "unknown option --bo?gus (see --help)");
	assert_int_equal(o.cgroup, 1);
	assert_null(o.cgroup_dir);
}

static void test_checks_in_order(void **state)
{
	struct otorun_opts o;
	char x[] = "x", *cmd[] = { x, NULL };

	(void)state;
	opts_init(&o);
	assert_string_equal(opts_check(&o, 1000), "no command to run (see --help)");
	o.cmd = cmd;
	assert_string_equal(opts_check(&o, 1000), "--agent-root is required");
	o.root = "/a";
	o.role = "member";
	o.person = "p";
	o.store = "/s";
	assert_string_equal(opts_check(&o, 1000),
			    "--store and --key-file are only used with --secret or --grant");
	o.store = "";
	/* --ca-file stands alone: the view's trust (otomount), with or without --grant. */
	o.cafile = "/ca.pem";
	assert_null(opts_check(&o, 1000));
	o.cafile = NULL;
	assert_string_equal(
	    opts_check(&o, 0),
	    "run as root: --as USER[:GROUP] names the unprivileged account to run as");
	assert_null(opts_check(&o, 1000));
}

static void test_chain(void **state)
{
	struct otorun_opts o;
	struct chain c;
	struct chain_tools t = { "/b/otogate", "/b/otonet", "/b/otons", "/b/otomount", "/b" };
	char a0[] = "sh", a1[] = "-c", a2[] = "echo 'hi'", *cmd[] = { a0, a1, a2, NULL };
	char *err = NULL;

	(void)state;
	opts_init(&o);
	o.cmd = cmd;
	o.root = "/a b";
	o.role = "member";
	o.person = "p";
	o.as = "nobody";
	o.log_fd = "3";
	o.newsession = 1;
	o.store = "/s";
	o.key = "/k";
	o.profile = "/p";
	assert_int_equal(opt_apply(&o, "--secret", "S:fd=4", &err), 0);
	assert_int_equal(opt_apply(&o, "--cgroup=/c d", NULL, &err), 0);
	assert_int_equal(opt_apply(&o, "--env", "PATH=/x y", &err), 0);
	assert_int_equal(chain_build(&c, &o, &t, o.cgroup_dir), 0);
	assert_string_equal(c.opens.p, " 8</s 9</k 4>&3 7</p");
	assert_string_equal(c.w.text.p,
			    " /b/otonet --as nobody --log-fd 3 -- \\\n"
			    "  /b/otons --share net --cgroup='/c d' --log-fd 4 -- \\\n"
			    "  /b/otomount --agent-root '/a b' --role member --person p"
			    " --ro /b:/opt/oto/bin -- \\\n"
			    "  /opt/oto/bin/otosecret --store-fd 8 --key-fd 9 --use S:fd=4 -- \\\n"
			    "  /opt/oto/bin/otoexec --profile-fd 7 --keep-fd 4 --env 'PATH=/x y'"
			    " --new-session -- sh -c 'echo '\\''hi'\\'''");
	/* The words themselves, as sh reads them from the text. */
	assert_string_equal(c.w.v[9], "--cgroup=/c d");
	assert_string_equal(c.w.v[c.w.n - 1], "echo 'hi'");
	assert_null(c.w.v[c.w.n]);
}

/* --mode: its checks, and the words it adds to otonet's and to each grant. */
static void test_mode(void **state)
{
	struct otorun_opts o;
	struct chain c;
	struct chain_tools t = { "/b/otogate", "/b/otonet", "/b/otons", "/b/otomount", "/b" };
	char x[] = "x", *cmd[] = { x, NULL };
	char *err = NULL;

	(void)state;
	opts_init(&o);
	o.cmd = cmd;
	o.root = "/a";
	o.role = "member";
	o.person = "p";
	assert_string_equal(opt_err(&o, "--mode", "ask"),
			    "--mode ask: expected auto, ask-new, ask-writes or ask-all");
	assert_int_equal(o.mode, MODE_NONE);
	assert_int_equal(opt_apply(&o, "--mode", "ask-writes", &err), 0);
	assert_int_equal(o.mode, MODE_ASK_WRITES);
	assert_string_equal(opts_check(&o, 1000),
			    "--mode ask-writes needs a decider: give --ask SOCKET (otoask "
			    "--listen) or --ask-fd N");
	o.nonet = 1;
	assert_string_equal(opts_check(&o, 1000),
			    "--mode ask-writes asks through otonet: drop --no-net");
	o.nonet = 0;
	o.ask = "/s";
	assert_null(opts_check(&o, 1000));
	assert_int_equal(opt_apply(&o, "--mode", "auto", &err), 0);
	assert_string_equal(opts_check(&o, 1000),
			    "--mode auto asks nothing: drop --ask and --ask-fd, or choose --mode "
			    "ask-new, ask-writes or ask-all");
	o.ask = "";
	assert_null(opts_check(&o, 1000));

	/* ask-all: --no-public once, ask=*:/ on each grant that lacks it. */
	o.ask_fd = "12";
	o.store = "/s";
	o.key = "/k";
	o.newsession = 0;
	assert_int_equal(opt_apply(&o, "--allow-name", "--no-public", &err), 0);
	assert_int_equal(opt_apply(&o, "--grant", "A=https://h,allow=GET:/", &err), 0);
	assert_int_equal(opt_apply(&o, "--grant", "B=https://g,ask=*:/", &err), 0);
	assert_int_equal(opt_apply(&o, "--mode", "ask-all", &err), 0);
	assert_int_equal(chain_build(&c, &o, &t, NULL), 0);
	assert_string_equal(c.w.text.p,
			    " /b/otogate --store-fd 5 --key-fd 6"
			    " --grant 'A=https://h,allow=GET:/,ask=*:/'"
			    " --grant 'B=https://g,ask=*:/' --ask-fd 12 -- \\\n"
			    "  /b/otonet --allow-name --no-public --no-public --ask-fd 12 -- \\\n"
			    "  /b/otons --share net -- \\\n"
			    "  /b/otomount --agent-root /a --role member --person p"
			    " --ro /b:/opt/oto/bin -- \\\n"
			    "  /opt/oto/bin/otoexec --env-keep A --env-keep A_URL --env-keep B"
			    " --env-keep B_URL --env PATH=/usr/local/bin:/usr/bin:/bin:/opt/oto/bin"
			    " -- x");
	assert_string_equal(c.w.v[6], "A=https://h,allow=GET:/,ask=*:/");
}

static void test_path_logical(void **state)
{
	char *p;

	(void)state;
#define LOGICAL(cwd, dir, want)                                                                    \
	p = path_logical(cwd, dir);                                                                \
	assert_string_equal(p, want);                                                              \
	free(p)
	LOGICAL("/w/x", "bin", "/w/x/bin");
	LOGICAL("/w/x", "./bin/.", "/w/x/bin");
	LOGICAL("/w/x", "../../../bin", "/bin");
	LOGICAL("/w/../x", "b", "/w/../x/b");
	LOGICAL("/", "b//c/", "/b/c");
	LOGICAL(NULL, "/a//b/./c/../d", "/a/b/d");
	LOGICAL(NULL, "//a/b", "//a/b");
	LOGICAL(NULL, "///a", "/a");
	LOGICAL(NULL, "/..", "/");
}

/* Everything parse.c allocated, at once. */
static int teardown(void **state)
{
	(void)state;
	arena_free();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quote),		cmocka_unit_test(test_shown_and_names),
		cmocka_unit_test(test_config_line),	cmocka_unit_test(test_opt_messages),
		cmocka_unit_test(test_checks_in_order), cmocka_unit_test(test_chain),
		cmocka_unit_test(test_path_logical),	cmocka_unit_test(test_mode),
	};

	return cmocka_run_group_tests(tests, NULL, teardown);
}
