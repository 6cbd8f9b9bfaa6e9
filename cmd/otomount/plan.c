/* SPDX-License-Identifier: ISC */
/* The view, planned: the list of entries that build.c makes in the new root. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "oto.h"
#include "otomount.h"

struct plan_entry *xplan_add(struct plan *p, enum plan_kind kind, const char *dst, char *data,
			     size_t len, mode_t mode)
{
	struct plan_entry *e;

	/* Grown by doubling: about a hundred entries, one allocation or two. */
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;

		e = realloc(p->e, cap * sizeof(*e));
		if (!e)
			die(EXIT_SYS, errno, "unable to plan %s: out of memory", dst);
		p->e = e;
		p->cap = cap;
	}
	e = &p->e[p->n++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->dst = dst;
	e->tree = -1;
	e->src_fd = -1;
	e->data = data;
	e->len = len;
	e->mode = mode;
	return e;
}

void xplan_tree(struct plan *p, const char *dst, int tree, int is_dir, const char *src)
{
	struct plan_entry *e = xplan_add(p, P_TREE, dst, NULL, 0, 0);

	e->tree = tree;
	e->is_dir = is_dir;
	e->src = src;
}
