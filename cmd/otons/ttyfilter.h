/* SPDX-License-Identifier: ISC */
#ifndef OTONS_TTYFILTER_H
#define OTONS_TTYFILTER_H

#include <stddef.h>

/*
 * ttyfilter.c: what the agent's pty writes, on its way to the person's
 * terminal. A state machine over escape sequences (7-bit, 8-bit C1 and
 * UTF-8-encoded C1), kept across calls, so a sequence split across reads
 * is judged whole. It drops what acts beyond drawing or makes the terminal
 * type text back; it notes what the agent set, for ttyf_reset. Pure.
 */

/* A sequence held until its fate is known; longer ones are dropped. */
#define TTYF_HOLD 256
/* The most ttyf_run writes for n bytes in: out must hold that much. */
#define TTYF_OUT_MAX(n) (3 * (n) + TTYF_HOLD + 16)
/* The most ttyf_reset writes. */
#define TTYF_RESET_MAX 192

/* The device status report (CSI 5 n) otons asks for at the end, and its answer's final byte. */
#define TTYF_SENTINEL "\033[5n"

struct ttyf {
	unsigned char state;
	unsigned char str_esc;	  /* an ESC inside a string, waiting for its next byte */
	unsigned char c2;	  /* a 0xC2 held: the first byte of a UTF-8 C1, or of text */
	unsigned char u8need;	  /* UTF-8 continuation bytes still due */
	unsigned char u8lo, u8hi; /* the range the next continuation byte must be in */
	unsigned char str_kind;	  /* which OSC is streamed (its checks) */
	unsigned char bad;	  /* the held CSI is not well formed: dropped at its end */
	unsigned int osc;	  /* the OSC's number, as read so far */
	unsigned int flags;	  /* TTYF_* below: what reached the terminal */
	size_t hold_len;
	unsigned char hold[TTYF_HOLD];
};

/* What ttyf_reset undoes: set as the agent's sequences pass. */
#define TTYF_DIRTY    0x01U /* any control sequence or charset shift reached the terminal */
#define TTYF_ALT      0x02U /* the alternate screen is on (1049) */
#define TTYF_ALT47    0x04U /* the alternate screen is on (47, 1047) */
#define TTYF_PALETTE  0x08U /* OSC 4 set a colour */
#define TTYF_DYNCOLOR 0x10U /* OSC 10, 11 or 12 set a colour */
#define TTYF_KBD      0x20U /* kitty's keyboard protocol (CSI > u, CSI = u) */
#define TTYF_MODKEYS  0x40U /* xterm's modifyOtherKeys and friends (CSI > m) */
#define TTYF_LINK     0x80U /* an OSC 8 link passed: one left open would take in what follows */

void ttyf_init(struct ttyf *f);
/* Filters n bytes into out (TTYF_OUT_MAX(n) bytes). Returns how many were written. */
size_t ttyf_run(struct ttyf *f, const void *in, size_t n, void *out);
/*
 * Writes the bytes that give the terminal back after the session
 * (TTYF_RESET_MAX at most): none when nothing but text reached it. Returns
 * their length, 0 when there are none or they do not fit in size.
 */
size_t ttyf_reset(const struct ttyf *f, char *out, size_t size);
/*
 * Scans the terminal's input at the end for the answer to TTYF_SENTINEL
 * (CSI digits n, 7- or 8-bit) across calls; *st starts at 0. Returns how
 * many bytes of in come before and with the answer, or 0 when it has not
 * come in them (then all of in is taken).
 */
size_t ttyf_answer(unsigned int *st, const void *in, size_t n);

#endif
