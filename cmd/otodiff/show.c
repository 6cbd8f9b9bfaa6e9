/* SPDX-License-Identifier: ISC */
/* The list of a session's changes, each modified text file's diff after its line. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "otodiff.h"

#define TEXT_MAX (1UL << 20) /* bigger files are not diffed */

static const char *const WORD[] = {
	[C_ADD] = "added", [C_MOD] = "modified", [C_DEL] = "deleted",
	[C_MODE] = "mode", [C_SKIP] = "skipped", [C_RENAME] = "renamed",
};
_Static_assert(ARRAY_SIZE(WORD) == C_NUM_KINDS, "a word for each kind");

/*
 * What lands, in size: a file's bytes (and, when fewer are allocated, a
 * sparse file's allocation: its holes are committed as holes), a
 * symlink's target. 1 when the target was escaped.
 */
static int show_size(FILE *f, const struct cowdir *s, const struct change *c)
{
	enum node n = c->kind == C_DEL ? c->host : c->up;
	char t[PATH_MAX];
	ssize_t len = -1;
	int fd, escaped = 0;

	if (c->kind == C_SKIP || (n != N_FILE && n != N_LINK))
		return 0;
	if (n == N_FILE && c->kind == C_DEL)
		fprintf(f, " (%lld byte%s)", (long long)c->host_size, c->host_size == 1 ? "" : "s");
	else if (n == N_FILE && c->kind == C_MOD)
		fprintf(f, " (%lld -> %lld byte%s", (long long)c->host_size, (long long)c->up_size,
			c->up_size == 1 ? "" : "s");
	else if (n == N_FILE)
		fprintf(f, " (%lld byte%s", (long long)c->up_size, c->up_size == 1 ? "" : "s");
	if (n == N_FILE && c->kind != C_DEL)
		fprintf(f, c->up_alloc < c->up_size ? ", %lld allocated)" : ")",
			(long long)c->up_alloc);
	if (n != N_LINK)
		return 0;
	if (c->kind != C_DEL) {
		fd = open_beneath(s->upper[c->tree], c->rel, O_PATH | O_NOFOLLOW);
		len = fd < 0 ? -1 : readlinkat(fd, "", t, sizeof(t));
		if (fd >= 0)
			close(fd);
	}
	fputs(" (symlink", f);
	if (len >= 0) {
		fputs(" to ", f);
		bytes_show(f, t, (size_t)len, 0);
		escaped = !text_plain(t, (size_t)len, 0);
	}
	fputc(')', f);
	return escaped;
}

int over_max(const struct cowdir *s, const struct change *c)
{
	return c->up == N_FILE && (c->kind == C_ADD || c->kind == C_MOD || c->kind == C_RENAME) &&
	       (unsigned long long)c->up_size > s->max_size;
}

void show_line(FILE *f, const struct cowdir *s, const struct change *c)
{
	int dir = c->kind == C_DEL ? c->host == N_DIR : c->up == N_DIR, escaped = 0;

	fprintf(f, "%s ", WORD[c->kind]);
	if (c->kind == C_RENAME) {
		escaped = path_show(f, view_path(s, c->from_tree, c->from));
		fputs(" -> ", f);
	}
	escaped |= path_show(f, view_path(s, c->tree, c->rel));
	if (dir && *c->rel)
		fputc('/', f);
	if (c->kind == C_MODE)
		fprintf(f, " %o -> %o", (unsigned)c->host_mode, (unsigned)c->up_mode);
	escaped |= show_size(f, s, c);
	/* A name that could pass for another on a terminal: said so, before any other mark. */
	if (escaped)
		fputs(" (name escaped)", f);
	if (over_max(s, c))
		fputs(" (over --max-size)", f);
	if (c->kind == C_SKIP)
		fprintf(f, " (%s: never committed)", c->why);
	else if (c->runs_later)
		fputs(" (runs on the host later)", f);
	fputc('\n', f);
}

/* rel's bytes beneath dirfd, at most TEXT_MAX: malloc'd, NULL when too big or unreadable. */
static char *slurp(int dirfd, const char *rel, size_t *len)
{
	int fd = open_beneath(dirfd, rel, O_RDONLY | O_NOFOLLOW);
	char *b = fd < 0 ? NULL : fd_read_whole(fd, TEXT_MAX, len);

	if (fd >= 0)
		close(fd);
	return b;
}

/* A modified file's diff; an added one's against nothing, so that its bytes are seen too. */
static void show_diff(const struct cowdir *s, const struct change *c)
{
	size_t alen = 0, blen = 0;
	char *a = c->kind == C_ADD ? calloc(1, 1) : slurp(s->host[c->tree], c->rel, &alen);
	char *b = slurp(s->upper[c->tree], c->rel, &blen);

	if (!a || !b || is_binary(a, alen) || is_binary(b, blen)) {
		fputs(a && b ? "  (binary)\n" : "  (too large to show)\n", stdout);
	} else {
		if (c->kind == C_ADD) {
			fputs("--- /dev/null\n+++ ", stdout);
		} else {
			fputs("--- ", stdout);
			path_show(stdout, view_path(s, c->tree, c->rel));
			fputs(" (host)\n+++ ", stdout);
		}
		path_show(stdout, view_path(s, c->tree, c->rel));
		fputs(" (session)\n", stdout);
		if (textdiff(stdout, a, alen, b, blen) < 0)
			fputs("  (too many lines to show)\n", stdout);
	}
	free(a);
	free(b);
}

void xshow(const struct cowdir *s, const struct otodiff_opts *o)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct change *c = &s->c[i];

		if (c->hidden)
			continue;
		show_line(stdout, s, c);
		if (!o->summary && (c->kind == C_MOD || c->kind == C_ADD) && c->up == N_FILE)
			show_diff(s, c);
	}
	if (fflush(stdout) == EOF)
		die(EXIT_SYS, errno, "unable to write the list");
}
