// UNIT: cmd/otons/ttyfilter.c
/*
 * otons' filter of the agent's terminal output: exact bytes in, exact bytes
 * out, whole and split at every byte (a sequence cut across reads is judged
 * as the same sequence); the reset it writes at the end, and the reading of
 * the terminal's answer to otons' own question.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "otons/ttyfilter.h"

#define RESET_BASE                                                                                 \
	"\033[!p\033[?9;1000;1001;1002;1003;1004;1005;1006;1015;1016;2004;2026l\033[?1;66l"        \
	"\033[?25;7h\033>\033(B\017\033[0 q"

/* in through a fresh filter in pieces of step bytes (0: at once); the output, and its flags. */
static size_t run(const char *in, size_t n, size_t step, char *out, unsigned int *flags)
{
	struct ttyf f;
	size_t k = 0;

	ttyf_init(&f);
	if (!step)
		step = n ? n : 1;
	for (size_t i = 0; i < n; i += step)
		k += ttyf_run(&f, in + i, n - i < step ? n - i : step, out + k);
	if (flags)
		*flags = f.flags;
	return k;
}

/* The filter makes want of in: at once, byte by byte, and cut in two at every byte. */
static void check_n(const char *in, size_t n, const char *want, size_t wn)
{
	static char out[TTYF_OUT_MAX(1024)];
	size_t k;

	assert_true(n <= 1024);
	k = run(in, n, 0, out, NULL);
	if (k != wn || memcmp(out, want, wn)) {
		print_error("got: ");
		for (size_t i = 0; i < k; i++)
			print_error(out[i] >= 0x20 && out[i] < 0x7f ? "%c" : "\\x%02x",
				    (unsigned char)out[i]);
		print_error("\n");
	}
	assert_int_equal(k, wn);
	assert_memory_equal(out, want, wn);
	k = run(in, n, 1, out, NULL);
	assert_int_equal(k, wn);
	assert_memory_equal(out, want, wn);
	for (size_t cut = 1; cut < n; cut++) {
		struct ttyf f;

		ttyf_init(&f);
		k = ttyf_run(&f, in, cut, out);
		k += ttyf_run(&f, in + cut, n - cut, out + k);
		assert_int_equal(k, wn);
		assert_memory_equal(out, want, wn);
	}
}
#define check(in, want) check_n(in, sizeof(in) - 1, want, sizeof(want) - 1)

static unsigned int flags_of(const char *in)
{
	char out[TTYF_OUT_MAX(512)];
	unsigned int fl;

	assert_true(strlen(in) <= 512);
	run(in, strlen(in), 0, out, &fl);
	return fl;
}

static void test_text_passes(void **state)
{
	(void)state;
	check("hello\r\n\tbell\a", "hello\r\n\tbell\a");
	/* UTF-8, continuation bytes 0x80-0x9f included: U+26D4 is E2 9B 94. */
	check("caf\xc3\xa9 \xe2\x80\x94 \xe2\x9b\x94 \xe2\x9c\xb3 \xf0\x9f\x98\x80 \xc2\xa0",
	      "caf\xc3\xa9 \xe2\x80\x94 \xe2\x9b\x94 \xe2\x9c\xb3 \xf0\x9f\x98\x80 \xc2\xa0");
	assert_int_equal(flags_of("plain text \xe2\x9b\x94\r\n"), 0);
}

static void test_drawing_passes(void **state)
{
	(void)state;
	check("\033[1;31mred\033[0m \033[38:2::1:2:3m\033[2J\033[H\0337\0338\033(0q\033(B",
	      "\033[1;31mred\033[0m \033[38:2::1:2:3m\033[2J\033[H\0337\0338\033(0q\033(B");
	check("\033[22;0t\033[23;0t\033[6n\033[c\033[>c\033[?1049h\033[?2004h",
	      "\033[22;0t\033[23;0t\033[6n\033[c\033[>c\033[?1049h\033[?2004h");
	assert_int_equal(flags_of("\033[8m"), TTYF_DIRTY);
}

static void test_clipboard_dropped(void **state)
{
	(void)state;
	check("a\033]52;c;aGVsbG8=\ab", "ab");
	check("a\033]52;c;aGVsbG8=\033\\b", "ab");
	check("a\033]52;c;?\033\\b", "ab");
	/* 8-bit, and C1 in UTF-8. */
	check("a\x9d"
	      "52;c;YQ==\x9c"
	      "b",
	      "ab");
	check("a\xc2\x9d"
	      "52;c;YQ==\xc2\x9c"
	      "b",
	      "ab");
	/* Nothing dropped reaches the terminal: a session of it alone needs no reset. */
	assert_int_equal(flags_of("\033]52;c;YQ==\a"), 0);
}

static void test_reports_dropped(void **state)
{
	(void)state;
	/* The title and icon reports answer with the agent's own text. */
	check("x\033[21ty\033[20tz", "xyz");
	check("x\x9b"
	      "21ty",
	      "xy");
	check("x\xc2\x9b"
	      "21ty",
	      "xy");
	/* Window operations, media copy, DECSCL, DECRQCRA, VT52, otons' own question. */
	check(
	    "\033[8;1;1t\033[3;0;0t\033[5i\033[?5i\033[62;1\"p\033[1;1;1;1;1;1*y\033[?2l\033[5nok",
	    "ok");
	/* DCS (DECRQSS, XTGETTCAP, DECUDK), APC (kitty graphics), PM, SOS. */
	check("\033P$qm\033\\\033P+q544e\033\\\033P0;1|17/6563686f\033\\ok", "ok");
	check("\033_Ga=T,t=f;L2V0Yy9wYXNzd2Q=\033\\\033^pm\033\\\033Xsos\033\\ok", "ok");
	check("\x90$qm\x9c\x9f"
	      "Ga=q\x9cok",
	      "ok");
	/* A sub-parameter is not part of the number: CSI 2:1 t is 2, CSI 5:1 n is 5. */
	check("\033[5:1n\033[2:2t\033[22:0tok", "ok");
	/* ENQ: the answerback. */
	check("a\005b", "ab");
}

static void test_title_kept_and_cut(void **state)
{
	(void)state;
	check("\033]0;l;touch /tmp/x;\a", "\033]0;l;touch /tmp/x;\a");
	check("\033]2;\xe2\x9c\xb3 Claude\033\\", "\033]2;\xe2\x9c\xb3 Claude\033\\");
	/* C0 controls in a title go; something else that ends it is written as ST. */
	check("\033]0;a\nb\rc\033[31m", "\033]0;abc\033\\\033[31m");
	check("\033]0;a\x9b"
	      "31m",
	      "\033]0;a\033\\\033[31m");
	check("\033]0;a\xc2\x9b"
	      "31m",
	      "\033]0;a\033\\\033[31m");
	/* CAN cancels it, in the terminal too. */
	check("\033]0;ti\030x", "\033]0;ti\030x");
	/* ESC ] 0 ; then OSC 52 inside it: the first ends at the second's ESC. */
	check("\033]0;t\033]52;c;YQ==\a", "\033]0;t\033\\");
}

static void test_links(void **state)
{
	(void)state;
	check("\033]8;;https://example.org/\033\\link\033]8;;\033\\",
	      "\033]8;;https://example.org/\033\\link\033]8;;\033\\");
	check("\033]8;id=7;HTTP://x/\alink\033]8;;\a", "\033]8;id=7;HTTP://x/\alink\033]8;;\a");
	check("\033]8;;file:///etc/passwd\alink\033]8;;\a", "link\033]8;;\a");
	check("\033]8;;vscode://x\alink\033]8;;\a", "link\033]8;;\a");
	check("\033]8;;httpx://x\alink", "link");
	check("\033]8;;http\a", "");
	check("\033]08;;https://x\a", "");
}

static void test_other_osc(void **state)
{
	(void)state;
	check("\033]7;file://h/etc\a\033]9;hi\a\033]777;notify;a;b\a\033]1337;File=x\a"
	      "\033]50;?\a\033]5113;x\a\033]P0000000\aok",
	      "ok");
	check("\033]11;?\033\\\033]4;1;?\a\033]104\a\033]110\033\\",
	      "\033]11;?\033\\\033]4;1;?\a\033]104\a\033]110\033\\");
	assert_int_equal(flags_of("\033]11;?\a\033]4;1;?;2;?\a"), TTYF_DIRTY);
	assert_int_equal(flags_of("\033]11;#000000\a"), TTYF_DIRTY | TTYF_DYNCOLOR);
	assert_int_equal(flags_of("\033]4;1;rgb:00/00/00\a"), TTYF_DIRTY | TTYF_PALETTE);
}

static void test_c1_and_utf8(void **state)
{
	(void)state;
	/* 8-bit controls, and C1 encoded in UTF-8, are written in their 7-bit form. */
	check("\x9b"
	      "31mX\x85",
	      "\033[31mX\033E");
	check("\xc2\x9b"
	      "31mX",
	      "\033[31mX");
	/* An overlong or cut character does not hide a C1 from the filter. */
	check("\xe0\x80\x9b"
	      "31m",
	      "\xe0\033@\033[31m");
	check("\xe2\x82\x9b"
	      "31m",
	      "\xe2\x82\x9b"
	      "31m");
	check("\xe2"
	      "A\x9b"
	      "31m",
	      "\xe2"
	      "A\033[31m");
	check("\xc0\x9b"
	      "21t",
	      "\xc0");
	/* A lone ST, ESC ESC, and bytes >= 0x80 inside a sequence. */
	check("a\033\\b\033\033[1mc", "ab\033[1mc");
	check("\033[3\xe2\x9c\xb3m", "\xe2\x9c\xb3m");
}

static void test_changes_of_language_dropped(void **state)
{
	(void)state;
	/* UTF-8 off (ESC %), 8-bit controls (ESC SP G): later bytes would read otherwise. */
	check("\033%@x\033%Gy\033 Gz\033 Fw", "xyzw");
	check("\033#8", "\033#8");
}

static void test_long_and_void_sequences(void **state)
{
	char in[600], out[TTYF_OUT_MAX(600)];
	size_t k;

	(void)state;
	memcpy(in, "\033[", 2);
	memset(in + 2, '1', 500);
	memcpy(in + 502, "tok", 3);
	assert_int_equal(run(in, 505, 0, out, NULL), 2);
	assert_memory_equal(out, "ok", 2);
	/* An ESC sequence whose final byte no longer fits: dropped whole, never cut. */
	in[0] = '\033';
	memset(in + 1, '.', TTYF_HOLD - 1);
	memcpy(in + TTYF_HOLD, "hok", 3);
	k = run(in, TTYF_HOLD + 3, 0, out, NULL);
	assert_int_equal(k, 2);
	assert_memory_equal(out, "ok", 2);
	/* A parameter after an intermediate, a prefix not first: void in a terminal too. */
	check("\033[1 2q\033[1?hok", "ok");
	/* An OSC whose start is too long to judge. */
	memcpy(in, "\033]8;", 4);
	memset(in + 4, 'a', 400);
	memcpy(in + 404, ";https://x\aok", 13);
	k = run(in, 417, 0, out, NULL);
	assert_int_equal(k, 2);
	assert_memory_equal(out, "ok", 2);
}

static void test_reset(void **state)
{
	char out[TTYF_OUT_MAX(64)], r[TTYF_RESET_MAX];
	struct ttyf f;
	size_t n;

	(void)state;
	ttyf_init(&f);
	ttyf_run(&f, "text only\r\n", 11, out);
	assert_int_equal(ttyf_reset(&f, r, sizeof(r)), 0);
	ttyf_run(&f, "\033[8mhidden", 10, out);
	n = ttyf_reset(&f, r, sizeof(r));
	assert_int_equal(n, strlen(RESET_BASE "\033[0m"));
	assert_memory_equal(r, RESET_BASE "\033[0m", n);
	/* What the agent set is undone; the alternate screen first. */
	ttyf_init(&f);
	n = ttyf_run(&f, "\033[?1049h\033[>1u\033[>4;2m\033]4;1;red\a\033]11;blue\a", 40, out);
	n = ttyf_reset(&f, r, sizeof(r));
	assert_string_equal((r[n] = 0, r),
			    "\033[?1049l" RESET_BASE "\033[<99u\033[>4m\033]104\033\\"
			    "\033]110\033\\\033]111\033\\\033]112\033\\\033[0m");
	assert_true(n <= TTYF_RESET_MAX);
	/*
	 * Nothing that clears or moves the cursor (but 1049's own return):
	 * a margin (CSI r), a position, a clear, origin mode (6), which puts
	 * the cursor home when it changes (tmux, xterm).
	 */
	for (const char *c = r; (c = strstr(c, "\033[")); c++) {
		size_t k = strspn(c + 2, "0123456789;?<>=! ");
		char fin = c[2 + k];

		assert_true(fin != 'r' && fin != 'H' && fin != 'f' && fin != 'J' && fin != 'K');
		if (c[2] == '?' && fin != 'u')
			for (const char *q = c + 3; q < c + 2 + k; q += strcspn(q, ";") + 1)
				assert_false(atoi(q) == 6);
	}
	/* Left again: no 1049l; 47 takes 1047l. */
	ttyf_init(&f);
	ttyf_run(&f, "\033[?1049h\033[?1049l", 16, out);
	n = ttyf_reset(&f, r, sizeof(r));
	assert_memory_equal(r, RESET_BASE, strlen(RESET_BASE));
	ttyf_init(&f);
	ttyf_run(&f, "\033[?47h", 6, out);
	n = ttyf_reset(&f, r, sizeof(r));
	assert_memory_equal(r, "\033[?1047l" RESET_BASE, 8 + strlen(RESET_BASE));
	/* Too small a buffer: nothing. */
	assert_int_equal(ttyf_reset(&f, r, 10), 0);
	/* A link left open is closed: the operator's prompt would be its text. */
	ttyf_init(&f);
	ttyf_run(&f, "\033]8;;https://x/\033\\a", 19, out);
	assert_int_equal(f.flags, TTYF_DIRTY | TTYF_LINK);
	n = ttyf_reset(&f, r, sizeof(r));
	assert_memory_equal(r, RESET_BASE "\033]8;;\033\\\033[0m", n);
	assert_int_equal(n, strlen(RESET_BASE) + 11);
	/* A title left open is closed first. */
	ttyf_init(&f);
	ttyf_run(&f, "\033]0;open", 8, out);
	n = ttyf_reset(&f, r, sizeof(r));
	assert_memory_equal(r, "\033\\" RESET_BASE, 2 + strlen(RESET_BASE));
	/* SO alone (shift out) is reset too. */
	ttyf_init(&f);
	ttyf_run(&f, "\016", 1, out);
	assert_int_equal(f.flags, TTYF_DIRTY);
}

static void test_answer(void **state)
{
	unsigned int st = 0;

	(void)state;
	assert_int_equal(ttyf_answer(&st, "x\033[1;1R\033]11;rgb:0/0/0\033\\\033[0nrest", 31), 27);
	st = 0;
	assert_int_equal(ttyf_answer(&st, "\033[?62;22c\033[", 11), 0);
	assert_int_equal(ttyf_answer(&st, "0", 1), 0);
	assert_int_equal(ttyf_answer(&st, "nz", 2), 1);
	st = 0;
	assert_int_equal(ttyf_answer(&st,
				     "\x9b"
				     "0n",
				     3),
			 3);
	st = 0;
	assert_int_equal(ttyf_answer(&st, "\033[?13n\033[n", 10), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_passes),
		cmocka_unit_test(test_drawing_passes),
		cmocka_unit_test(test_clipboard_dropped),
		cmocka_unit_test(test_reports_dropped),
		cmocka_unit_test(test_title_kept_and_cut),
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_other_osc),
		cmocka_unit_test(test_c1_and_utf8),
		cmocka_unit_test(test_changes_of_language_dropped),
		cmocka_unit_test(test_long_and_void_sequences),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_answer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
