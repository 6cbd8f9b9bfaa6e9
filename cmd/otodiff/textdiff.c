/* SPDX-License-Identifier: ISC */
/*
 * A unified diff of two texts, line by line: the common head and tail cut
 * off, the longest common subsequence of what is between (a table of
 * lengths, bounded by TEXTDIFF_MAX_CELLS), hunks with three lines of
 * context, GNU diff's headers ("@@ -A,N +B,M @@", ",1" left out) and its
 * "\ No newline at end of file"; a line holding anything but printable
 * ASCII and TABs escaped and marked. Pure: what the agent wrote is only read.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "otodiff.h"

#define CONTEXT 3

struct line {
	const char *p;
	size_t n; /* with its '\n', if it has one */
};

enum op_kind { OP_EQ, OP_DEL, OP_INS };
struct op {
	enum op_kind kind;
	size_t a, b; /* the line of a and of b the op stands at */
};

/* The lines of buf; NULL (and *n past the bound) when too many. */
static struct line *lines_of(const char *buf, size_t len, size_t *n)
{
	size_t cnt = 0, i = 0;
	struct line *l;

	for (size_t k = 0; k < len; k++)
		cnt += buf[k] == '\n';
	cnt += len && buf[len - 1] != '\n';
	*n = cnt;
	if (cnt > TEXTDIFF_MAX_LINES)
		return NULL;
	l = calloc(cnt ? cnt : 1, sizeof(*l));
	if (!l)
		return NULL;
	for (const char *p = buf, *end = buf + len; p < end; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t k = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);

		l[i].p = p;
		l[i].n = k;
		p += k;
	}
	return l;
}

static int same(const struct line *x, const struct line *y)
{
	return x->n == y->n && (!x->n || !memcmp(x->p, y->p, x->n));
}

/*
 * A line of printable ASCII and TABs as it is; any other, marked with a '!'
 * before its sign (no line of a diff starts so) and every byte but those
 * escaped: a CR or an ESC sequence would otherwise redraw the terminal's
 * line, and the person would read something other than what lands.
 */
static void put_line(FILE *f, char sign, const struct line *l)
{
	int eol = l->n && l->p[l->n - 1] == '\n';
	size_t n = eol ? l->n - 1 : l->n;

	if (text_plain(l->p, n, 1)) {
		fputc(sign, f);
		fwrite(l->p, 1, n, f);
	} else {
		fputc('!', f);
		fputc(sign, f);
		bytes_show(f, l->p, n, 1);
	}
	fputs(eol ? "\n" : "\n\\ No newline at end of file\n", f);
}

/* "-A,N" as GNU diff writes it: N 0 names the line before, N 1 is left out. */
static void put_range(FILE *f, char sign, size_t start, size_t n)
{
	if (n == 1)
		fprintf(f, " %c%zu", sign, start + 1);
	else
		fprintf(f, " %c%zu,%zu", sign, n ? start + 1 : start, n);
}

static void put_hunks(FILE *f, const struct op *op, size_t nops, const struct line *a,
		      const struct line *b)
{
	size_t k = 0;

	while (k < nops) {
		size_t s, e, na = 0, nb = 0;

		while (k < nops && op[k].kind == OP_EQ)
			k++;
		if (k == nops)
			break;
		s = k > CONTEXT ? k - CONTEXT : 0;
		/* Extend over changes closer than twice the context. */
		for (e = k; e < nops;) {
			size_t eq = 0;

			while (e + eq < nops && op[e + eq].kind == OP_EQ)
				eq++;
			if (e + eq == nops || eq > 2 * CONTEXT) {
				e += eq < CONTEXT ? eq : CONTEXT;
				break;
			}
			e += eq;
			while (e < nops && op[e].kind != OP_EQ)
				e++;
		}
		for (size_t i = s; i < e; i++) {
			na += op[i].kind != OP_INS;
			nb += op[i].kind != OP_DEL;
		}
		fputs("@@", f);
		put_range(f, '-', op[s].a, na);
		put_range(f, '+', op[s].b, nb);
		fputs(" @@\n", f);
		for (size_t i = s; i < e; i++) {
			if (op[i].kind == OP_EQ)
				put_line(f, ' ', &a[op[i].a]);
			else if (op[i].kind == OP_DEL)
				put_line(f, '-', &a[op[i].a]);
			else
				put_line(f, '+', &b[op[i].b]);
		}
		k = e;
	}
}

/* The ops of a[p..p+n) against b[p..p+m), by the table of LCS lengths. */
static int middle(struct op *op, size_t *nops, const struct line *a, const struct line *b, size_t p,
		  size_t n, size_t m)
{
	uint32_t *t;
	size_t i = 0, j = 0, w = m + 1;

	if ((n + 1) * (m + 1) > TEXTDIFF_MAX_CELLS)
		return -1;
	t = calloc((n + 1) * (m + 1), sizeof(*t));
	if (!t)
		return -1;
	for (size_t x = n; x-- > 0;)
		for (size_t y = m; y-- > 0;)
			t[x * w + y] = same(&a[p + x], &b[p + y]) ? t[(x + 1) * w + y + 1] + 1
				       : t[(x + 1) * w + y] > t[x * w + y + 1] ? t[(x + 1) * w + y]
									       : t[x * w + y + 1];
	while (i < n || j < m) {
		struct op *o = &op[(*nops)++];

		o->a = p + i;
		o->b = p + j;
		if (i < n && j < m && same(&a[p + i], &b[p + j])) {
			o->kind = OP_EQ;
			i++, j++;
		} else if (i < n && (j == m || t[(i + 1) * w + j] >= t[i * w + j + 1])) {
			o->kind = OP_DEL; /* deletions first, as GNU diff */
			i++;
		} else {
			o->kind = OP_INS;
			j++;
		}
	}
	free(t);
	return 0;
}

int textdiff(FILE *f, const char *a, size_t alen, const char *b, size_t blen)
{
	size_t na, nb, p = 0, s = 0, nops = 0;
	struct line *la = lines_of(a, alen, &na), *lb = lines_of(b, blen, &nb);
	struct op *op = la && lb ? calloc(na + nb + 1, sizeof(*op)) : NULL;
	int r = -1;

	if (!op)
		goto out;
	while (p < na && p < nb && same(&la[p], &lb[p]))
		p++;
	while (s < na - p && s < nb - p && same(&la[na - 1 - s], &lb[nb - 1 - s]))
		s++;
	for (size_t i = 0; i < p; i++)
		op[nops++] = (struct op){ OP_EQ, i, i };
	if (middle(op, &nops, la, lb, p, na - p - s, nb - p - s) < 0)
		goto out;
	for (size_t i = 0; i < s; i++)
		op[nops++] = (struct op){ OP_EQ, na - s + i, nb - s + i };
	put_hunks(f, op, nops, la, lb);
	r = 0;
out:
	free(op);
	free(la);
	free(lb);
	return r;
}
