// FUZZ: cmd/otoask/parse.c lib/tty_stat_parse.c
/*
 * What otoask reads from a session's socket is another program's bytes,
 * and what it reads from /proc/PID/stat holds a command's name the agent
 * chose: the parsers take any line, and what they accept reaches the
 * terminal as printable ASCII only, with no quote or backslash.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oto.h"
#include "otoask/otoask.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void printable(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e || *s == '"' || *s == '\\')
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct ask_session ss;
	struct ask_req q;
	char buf[700];
	unsigned long t;

	if (ask_session_parse(s, size, &ss) == 0) {
		if (!ss.id[0] || !ask_is_session_line(s, size))
			abort();
		ask_session_label(&ss, buf, sizeof(buf));
		printable(buf);
	}
	if (ask_req_parse(s, size, &q) == 0) {
		ask_req_show(&q, buf, sizeof(buf));
		for (const char *p = buf; *p; p++)
			if (*p < 0x20 || *p > 0x7e)
				abort();
		/* A saved line: one or two lines of printable ASCII, whatever the request. */
		ask_config_line(&q, "allow-session", buf, sizeof(buf));
		for (const char *p = buf; *p; p++)
			if ((*p < 0x20 && *p != '\n') || *p > 0x7e)
				abort();
	}
	(void)tty_stat_parse(s, size, &t);
	return 0;
}
