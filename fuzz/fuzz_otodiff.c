// FUZZ: cmd/otodiff/textdiff.c cmd/otodiff/parse.c
/*
 * What otodiff reads that a session's agent or a tampered session directory
 * wrote: the record (lib/cow_session.c), a path's bytes (its escaping, into
 * a stream and into a buffer; the files the host runs later), any bytes as
 * a diff's line shows them, a repository's config (the paths it names,
 * each joined to a directory), and two texts to diff, split at the first
 * 0xff byte. No input may crash or read out of bounds; a record that parses
 * formats back to the same bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oto.h"
#include "otodiff/otodiff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_path(void *arg, enum gitcfg_kind kind, const char *val)
{
	char out[4096];

	(void)arg;
	if (kind > GITCFG_COMMAND || !*val)
		abort();
	/* A joined path never leaves the tree's top. */
	if (gitcfg_join(out, sizeof(out), "a/.git", val) == 0 &&
	    (out[0] == '/' || !strcmp(out, "..") || !strncmp(out, "../", 3) ||
	     strstr(out, "/../") || (strlen(out) >= 3 && !strcmp(out + strlen(out) - 3, "/.."))))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cow_session s;
	static char back[COW_SESSION_MAX];
	static FILE *null;
	const uint8_t *sep = memchr(data, 0xff, size);
	char *str;

	if (!null)
		null = fopen("/dev/null", "w");
	if (cow_session_parse(&s, (const char *)data, size) == 0) {
		size_t n = cow_session_format(back, sizeof(back), &s);

		/* Numbers may be written with leading zeros; the rest comes back whole. */
		if (!n)
			abort();
	}
	str = malloc(size + 1);
	if (!str)
		return 0;
	memcpy(str, data, size);
	str[size] = 0;
	path_show(null, str);
	(void)path_shown(str);
	bytes_show(null, (const char *)data, size, 1);
	(void)protect_runs_later(str);
	(void)gitcfg_paths((const char *)data, size, on_path, NULL);
	free(str);
	if (sep)
		(void)textdiff(null, (const char *)data, (size_t)(sep - data),
			       (const char *)sep + 1, size - (size_t)(sep - data) - 1);
	return 0;
}
