// FUZZ: cmd/otons/parse.c
/*
 * The session's record on arbitrary bytes: the kernel's audit records otons
 * reads (a LANDLOCK_ACCESS body and its event's SYSCALL record, whose comm,
 * exe and path the agent chooses), and the session's open line, whose chain
 * holds the launcher's words. Nothing may crash or overflow, and every line
 * made must be one inert JSON line: no control byte but its final newline,
 * every quote inside a string escaped, the length reported the length
 * written, and nothing when it does not fit.
 *
 * The input: BODY \0 SYSCALL-RECORD \0 WORD \0 WORD...
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oto.h"
#include "otons/otons.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_line(const char *line, size_t n, size_t size)
{
	int in = 0;

	if (!n)
		return;
	if (n >= size || strlen(line) != n || line[0] != '{' || line[n - 1] != '\n' ||
	    line[n - 2] != '}')
		abort();
	for (size_t i = 0; i + 1 < n; i++) {
		unsigned char c = (unsigned char)line[i];

		if (c < 0x20 || c == 0x7f)
			abort();
		if (in && c == '\\') {
			i++; /* the escaped byte */
			continue;
		}
		if (c == '"')
			in = !in;
	}
	if (in)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct timespec t = { 1764700000, 123456000 };
	struct session s = { .id = "5f0c9e1a", .opens = 1 };
	const char *argv[64];
	char *in = malloc(size + 2), *sys, *w, line[4096], small[96], out[256];
	size_t body, n, syslen;
	long long sec;
	unsigned int ms;
	unsigned long long serial;
	int k = 0;

	if (!in)
		abort();
	memcpy(in, data, size);
	in[size] = in[size + 1] = 0;
	/* The body, the SYSCALL record, then words: each up to a NUL. */
	sys = in + strlen(in) + 1;
	syslen = sys <= in + size ? strlen(sys) : 0;
	if (sys > in + size)
		sys = in + size;
	(void)otons_audit_stamp(in, strlen(in), &sec, &ms, &serial, &body);
	(void)otons_audit_field(in, strlen(in), "blockers", out, sizeof(out));
	(void)otons_audit_field(sys, syslen, "exe", out, sizeof(out));
	for (size_t sz = sizeof(line); sz >= 16; sz = sz == sizeof(line) ? sizeof(small) : 0) {
		char *b = sz == sizeof(line) ? line : small;

		n = (size_t)otons_landlock_format(b, sz, &t, s.id, 4242, in, strlen(in), sys,
						  syslen, 7);
		check_line(b, n, sz);
	}
	for (w = sys + syslen + 1; w <= in + size && k < 63; w += strlen(w) + 1)
		argv[k++] = w;
	argv[k] = NULL;
	n = session_open_line(line, sizeof(line), &t, &s, "otons", 65534, k ? argv[0] : NULL, argv);
	check_line(line, n, sizeof(line));
	n = session_open_line(small, sizeof(small), &t, &s, "otons", 65534, NULL, argv);
	check_line(small, n, sizeof(small));
	n = session_close_line(line, sizeof(line), &t, &s, size % 300 - 20,
			       (enum session_end)(size % 6), size & 1, (long long)size * 999);
	check_line(line, n, sizeof(line));
	(void)session_id_ok(in);
	free(in);
	return 0;
}
