// FUZZ: cmd/otogate/pkt.c cmd/otogate/askline.c cmd/otogate/allow.c
/*
 * A push's ref updates (pkt.c) are the agent's bytes. Input: one byte
 * choosing the pieces' size (1 to 7), then a body's start. The parser fed it whole and fed it in
 * pieces cut at every offset says the same (the same verdict, the same bytes used, the same
 * updates); what it accepts holds only updates whose ids are lowercase hex of 40 or 64 digits and
 * whose ref has no blank or control byte, at most PKT_MAX_REFS; its question line and its refusal
 * fit their bounds. Nothing may crash or read out of bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "otogate/otogate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct pkt_cmds whole, cut;
static char out[1 << 18];

static int feed(struct pkt_cmds *c, const char *p, size_t n, size_t *total)
{
	size_t used;
	int r = pkt_cmds_feed(c, p, n, &used);

	*total += used;
	return r;
}

static void check(const struct pkt_cmds *c)
{
	if (c->n > PKT_MAX_REFS)
		abort();
	for (size_t i = 0; i < c->n; i++) {
		const struct pkt_ref *r = &c->refs[i];
		size_t ol = strlen(r->old), rl = strlen(r->name);

		if ((ol != 40 && ol != 64) || strlen(r->new) != ol || !rl || rl > PKT_MAX_REF)
			abort();
		for (size_t k = 0; k < ol; k++)
			if (!strchr("0123456789abcdef", r->old[k]) ||
			    !strchr("0123456789abcdef", r->new[k]))
				abort();
		for (size_t k = 0; k < rl; k++)
			if ((unsigned char)r->name[k] <= 0x20 || r->name[k] == 0x7f)
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data + 1;
	size_t tw = 0, step;
	int rw, rc = 0;

	if (!size)
		return 0;
	step = 1 + data[0] % 7;
	size--;
	memset(&whole, 0, sizeof(whole));
	rw = feed(&whole, p, size, &tw);
	if (rw < 0 && !whole.err)
		abort();
	if (rw == 1) {
		struct gate_question q = { .grant = "G",
					   .host = "h.test",
					   .method = "POST",
					   .method_len = 4,
					   .path = "/r.git/git-receive-pack",
					   .path_len = 23,
					   .length = -1,
					   .rule = "ask=writes",
					   .push = &whole };
		struct timespec t = { 0 };
		size_t n = gate_question_format(out, sizeof(out), &t, "s", 1, &q);

		check(&whole);
		if (!n || n > 1024 || out[n - 1] != '\n' || memchr(out, '\n', n - 1))
			abort();
		n = pkt_deny_format(out, sizeof(out), &whole, "otogate: denied");
		if (whole.report && !n)
			abort();
	}
	/* The same bytes in pieces of step bytes: the same outcome. */
	memset(&cut, 0, sizeof(cut));
	{
		size_t tc = 0;

		for (size_t at = 0; at < size && rc == 0; at += step)
			rc = feed(&cut, p + at, size - at < step ? size - at : step, &tc);
		if (rc != rw ||
		    (rw == 1 && (tc != tw || cut.n != whole.n ||
				 memcmp(cut.refs, whole.refs, sizeof(cut.refs[0]) * cut.n))))
			abort();
	}
	return 0;
}
