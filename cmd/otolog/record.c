/* SPDX-License-Identifier: ISC */
/*
 * The whole of otolog but its options and system calls: bytes in, lines
 * read and counted, the summary out. Pure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otolog.h"

int otolog_init(struct otolog *c, enum otolog_mode mode, int follow)
{
	memset(c, 0, sizeof(*c));
	c->mode = mode;
	c->follow = follow;
	c->obj = calloc(1, sizeof(*c->obj));
	if (!c->obj || lines_init(&c->lines) < 0) {
		free(c->obj);
		c->obj = NULL;
		return errno = ENOMEM, -1;
	}
	c->obj->cap = LOG_LINE_MAX;
	c->obj->buf = malloc(c->obj->cap);
	if (!c->obj->buf) {
		otolog_fini(c);
		return errno = ENOMEM, -1;
	}
	return 0;
}

/* why: the reader's reason, or (key) the key that is missing or of the wrong type. */
static void bad(struct otolog *c, unsigned long long lineno, const char *why, int key)
{
	if (!c->malformed++) {
		c->bad_line = lineno;
		c->bad_why = why;
		c->bad_key = key;
	}
}

static int one_line(void *ctx, const char *line, size_t len, unsigned long long lineno)
{
	struct otolog *c = ctx;
	const struct group *g;
	struct event e;
	const char *why;
	int unknown;

	if (json_parse(c->obj, line, len, &why) < 0) {
		bad(c, lineno, why, 0);
		return 0;
	}
	if (event_read(c->obj, &e, &why, &unknown) < 0) {
		if (unknown)
			c->unknown++;
		else
			bad(c, lineno, why, 1);
		return 0;
	}
	c->read++;
	if (summary_add(&c->sum, &e, &g) < 0)
		return -1;
	if (c->follow)
		text_follow(&c->out, &e, g);
	return c->out.failed ? (errno = ENOMEM, -1) : 0;
}

int otolog_feed(struct otolog *c, const char *data, size_t n)
{
	return lines_feed(&c->lines, data, n, one_line, c);
}

int otolog_end(struct otolog *c)
{
	c->cut += (unsigned long long)lines_end(&c->lines);
	if (summary_end(&c->sum) < 0)
		return -1;
	if (c->follow && c->sum.ns)
		out_str(&c->out, "\n");
	if (c->mode == MODE_JSON)
		json_summary(&c->out, &c->sum);
	else if (c->mode == MODE_POLICY)
		policy_write(&c->out, &c->sum);
	else
		text_summary(&c->out, &c->sum);
	return c->out.failed ? (errno = ENOMEM, -1) : 0;
}

unsigned long long otolog_skipped(const struct otolog *c)
{
	return c->malformed + c->lines.overlong + c->cut;
}

void otolog_skipped_text(const struct otolog *c, char *buf, size_t size)
{
	int n = 0;

	buf[0] = 0;
	if (!otolog_skipped(c) && !c->unknown)
		return;
	n = snprintf(buf, size, "%llu of %llu lines not read:", otolog_skipped(c) + c->unknown,
		     c->lines.lineno);
	if (c->malformed && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n,
			      c->bad_key
				  ? " %llu malformed (the first, line %llu: \"%s\" missing or of "
				    "the wrong type),"
				  : " %llu malformed (the first, line %llu: %s),",
			      c->malformed, c->bad_line, c->bad_why);
	if (c->lines.overlong && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, " %llu longer than %d bytes,",
			      c->lines.overlong, LOG_LINE_MAX);
	if (c->cut && n >= 0 && (size_t)n < size)
		n +=
		    snprintf(buf + n, size - (size_t)n, " %llu without its newline (cut),", c->cut);
	if (c->unknown && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, " %llu of a source otolog does not know,",
			      c->unknown);
	if (n > 0 && (size_t)n < size)
		buf[n - 1] = 0; /* the last comma */
}

void otolog_fini(struct otolog *c)
{
	if (c->obj)
		free(c->obj->buf);
	free(c->obj);
	lines_free(&c->lines);
	summary_free(&c->sum);
	out_free(&c->out);
	c->obj = NULL;
}
