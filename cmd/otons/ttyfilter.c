/* SPDX-License-Identifier: ISC */
/*
 * The agent's output, on its way to the person's terminal (pty.c calls it).
 *
 * Why: a terminal does more than draw. It writes to the clipboard (OSC 52),
 * hands links and notifications to other programs, remembers keys and fonts
 * (DCS), and answers queries by typing into its input: the answer to a title
 * report (CSI 21 t) is text the agent chose, and once the session is over
 * that input is the person's shell. So the filter passes drawing and the
 * queries whose answers are fixed in form (numbers, colours), and drops the
 * rest whole: the terminal never sees a dropped sequence's first byte.
 *
 * How it reads: as a terminal does (the DEC/ECMA-48 parser), one byte at a
 * time, with its state kept between calls. A sequence whose fate depends on
 * its end (CSI, the first bytes of an OSC) is held, at most TTYF_HOLD bytes,
 * then written whole or dropped. 8-bit C1 controls (0x80-0x9f outside a UTF-8
 * character, or U+0080-U+009F encoded in UTF-8) are read as their 7-bit
 * ESC forms and written so: a terminal then reads what the filter read.
 * UTF-8 is decoded as the standard says (the shortest form, the ranges of
 * the second byte), so a byte 0x80-0x9f that a decoder would not take as
 * part of a character is a C1 here too. Kept:
 * - text, C0 controls but ENQ (its answer is the terminal's answerback);
 * - ESC sequences, but those that change how later bytes are read (ESC %:
 *   UTF-8 off; ESC SP: 8-bit controls) and the strings DCS, SOS, PM, APC
 *   (key and font definitions, DECRQSS and XTGETTCAP queries, kitty's
 *   graphics, which can read the person's files);
 * - CSI sequences, but window operations and reports (CSI t, except the
 *   title stack, 22 and 23), media copy (CSI i), DECSCL (8-bit controls),
 *   DECRQCRA (checksums of what is on the person's screen), VT52 mode
 *   (CSI ? 2 l), and CSI 5 n (otons' own question at the end: TTYF_SENTINEL);
 * - OSC 0, 1, 2 (titles), 4, 10, 11, 12 (colours: set, or queried with `?`:
 *   the answer is a colour), 104, 110, 111, 112 (their resets) and 8 (links)
 *   to http and https only: another scheme hands a file or a program's
 *   handler to a click. Every other OSC is dropped: 52 (the clipboard), 7,
 *   9 and 777 (notifications), 50 (fonts), 1337, 5113 (file transfers).
 * A kept OSC's text passes without its C0 controls; its end is written as
 * the agent wrote it (BEL or ST), or as ST where something else ended it.
 */
#include <string.h>
#include <strings.h>

#include "oto.h"
#include "ttyfilter.h"

enum {
	S_GROUND,
	S_ESC,	    /* held: ESC */
	S_ESC_INT,  /* held: ESC and intermediate bytes */
	S_CSI,	    /* held: ESC [ and what follows */
	S_CSI_DROP, /* until the final byte */
	S_OSC,	    /* held: ESC ] and the OSC's number */
	S_LINK,	    /* held: ESC ] 8 ; and the link's parameters, up to its URI's scheme */
	S_STR_PASS, /* an OSC's text, written as it comes */
	S_STR_DROP, /* a string dropped, until its end */
};

/* Which OSC is streamed: what its text is checked for. */
enum { K_PLAIN, K_PALETTE, K_DYNCOLOR };

#define ESC 0x1b
#define BEL 0x07
#define CAN 0x18
#define SUB 0x1a
#define ENQ 0x05
#define SO  0x0e

struct out {
	unsigned char *p;
	size_t n;
};

static void put(struct out *o, unsigned char c)
{
	o->p[o->n++] = c;
}

static void put_hold(struct ttyf *f, struct out *o)
{
	memcpy(o->p + o->n, f->hold, f->hold_len);
	o->n += f->hold_len;
	f->hold_len = 0;
}

/* 1 when held, 0 when the hold is full (the sequence is then dropped). */
static int hold(struct ttyf *f, unsigned char c)
{
	if (f->hold_len >= TTYF_HOLD)
		return 0;
	f->hold[f->hold_len++] = c;
	return 1;
}

void ttyf_init(struct ttyf *f)
{
	memset(f, 0, sizeof(*f));
}

/* How a byte of text or of a string reads (u8). */
enum { U_TEXT, U_HELD, U_CTRL, U_C1 };

/*
 * UTF-8, the decoder's part: a continuation byte in range goes with its
 * character; a 0xC2 waits for the next byte (C2 80..9F is a C1 control);
 * a byte 0x80-0x9f that no character takes is a C1. pass: the held 0xC2 is
 * written when it turns out to be text.
 */
static int u8(struct ttyf *f, unsigned char c, struct out *o, int pass)
{
	if (f->c2) {
		f->c2 = 0;
		if (c >= 0x80 && c <= 0x9f)
			return U_C1;
		if (pass)
			put(o, 0xc2);
		if (c >= 0xa0 && c <= 0xbf)
			return U_TEXT;
	} else if (f->u8need) {
		if (c >= f->u8lo && c <= f->u8hi) {
			f->u8need--;
			f->u8lo = 0x80;
			f->u8hi = 0xbf;
			return U_TEXT;
		}
		/* A character cut short: the terminal shows U+FFFD; c is read anew. */
		f->u8need = 0;
	}
	if (c < 0x20 || c == 0x7f)
		return U_CTRL;
	if (c < 0x80)
		return U_TEXT;
	if (c <= 0x9f)
		return U_C1;
	if (c == 0xc2) {
		f->c2 = 1;
		return U_HELD;
	}
	f->u8lo = 0x80;
	f->u8hi = 0xbf;
	if (c >= 0xc3 && c <= 0xdf) {
		f->u8need = 1;
	} else if (c >= 0xe0 && c <= 0xef) {
		f->u8need = 2;
		if (c == 0xe0)
			f->u8lo = 0xa0; /* shorter forms are overlong */
		else if (c == 0xed)
			f->u8hi = 0x9f; /* surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		f->u8need = 3;
		if (c == 0xf0)
			f->u8lo = 0x90;
		else if (c == 0xf4)
			f->u8hi = 0x8f; /* beyond U+10FFFF */
	}
	/* 0xa0-0xbf alone, 0xc0, 0xc1, 0xf5-0xff: never valid; the terminal shows U+FFFD. */
	return U_TEXT;
}

static void feed(struct ttyf *f, unsigned char c, struct out *o);

/* An escape sequence begins (ESC, or a C1 read as ESC and the byte 0x40 below it). */
static void escape(struct ttyf *f)
{
	f->state = S_ESC;
	f->hold_len = 0;
	f->u8need = 0;
	f->c2 = 0;
	f->bad = 0;
	hold(f, ESC);
}

static void c1(struct ttyf *f, unsigned char code, struct out *o)
{
	escape(f);
	feed(f, (unsigned char)(code - 0x40), o);
}

static void ground(struct ttyf *f, unsigned char c, struct out *o)
{
	switch (u8(f, c, o, 1)) {
	case U_TEXT:
		put(o, c);
		break;
	case U_C1:
		c1(f, c, o);
		break;
	case U_CTRL:
		if (c == ESC)
			escape(f);
		else if (c != ENQ) {
			if (c == SO)
				f->flags |= TTYF_DIRTY;
			put(o, c);
		}
		break;
	default: /* U_HELD */
		break;
	}
}

/* The sequence is over, written or dropped: back to text. */
static void to_ground(struct ttyf *f)
{
	f->state = S_GROUND;
	f->hold_len = 0;
	f->str_esc = 0;
	f->bad = 0;
}

static void emit_held(struct ttyf *f, struct out *o)
{
	f->flags |= TTYF_DIRTY;
	put_hold(f, o);
	to_ground(f);
}

/*
 * What interrupts any sequence, as a terminal reads it: ESC starts another,
 * CAN and SUB cancel, other controls are done in passing (dropped here: the
 * sequence's bytes are held), a byte >= 0x80 is not part of one (the
 * sequence is dropped, the byte read as text). 1 when c was taken so.
 */
static int interrupt(struct ttyf *f, unsigned char c, struct out *o)
{
	if (c == ESC) {
		escape(f);
		return 1;
	}
	if (c == CAN || c == SUB) {
		to_ground(f);
		return 1;
	}
	if (c < 0x20 || c == 0x7f)
		return 1;
	if (c >= 0x80) {
		to_ground(f);
		ground(f, c, o);
		return 1;
	}
	return 0;
}

static void str_begin(struct ttyf *f, int state)
{
	f->state = (unsigned char)state;
	f->str_esc = 0;
	f->u8need = 0;
	f->c2 = 0;
}

static void esc_byte(struct ttyf *f, unsigned char c, struct out *o)
{
	if (interrupt(f, c, o))
		return;
	if (f->state == S_ESC) {
		switch (c) {
		case '[':
			hold(f, c);
			f->bad = 0;
			f->state = S_CSI;
			return;
		case ']':
			hold(f, c);
			f->osc = 0;
			str_begin(f, S_OSC);
			return;
		case 'P': /* DCS */
		case 'X': /* SOS */
		case '^': /* PM */
		case '_': /* APC */
			str_begin(f, S_STR_DROP);
			f->hold_len = 0;
			return;
		case '\\': /* a lone ST ends nothing */
			to_ground(f);
			return;
		default:
			break;
		}
	}
	if (c < 0x30) { /* an intermediate byte */
		if (!hold(f, c))
			f->bad = 1;
		f->state = S_ESC_INT;
		return;
	}
	/* The final byte. ESC % (UTF-8 off) and ESC SP (8-bit controls) are dropped. */
	if ((f->state == S_ESC_INT && (f->bad || f->hold[1] == ' ' || f->hold[1] == '%')) ||
	    !hold(f, c)) {
		to_ground(f);
		return;
	}
	emit_held(f, o);
}

/* The numbers of a CSI's parameters: n[i], -1 for an empty one; how many, at most max. */
static size_t csi_params(const unsigned char *p, size_t len, long *n, size_t max)
{
	size_t k = 0;
	int sub = 0;

	n[0] = -1;
	for (size_t i = 0; i < len; i++) {
		if (p[i] >= '0' && p[i] <= '9' && !sub) {
			if (n[k] < 0)
				n[k] = 0;
			if (n[k] < 100000)
				n[k] = n[k] * 10 + (p[i] - '0');
		} else if (p[i] == ':') {
			/* A sub-parameter (CSI 5:1 n is 5, as a terminal reads it): not part of the
			 * number. */
			sub = 1;
		} else if (p[i] == ';' && k + 1 < max) {
			n[++k] = -1;
			sub = 0;
		} else if (p[i] == ';') {
			break;
		}
	}
	return k + 1;
}

/* A complete CSI (in hold): 1 to write it, 0 to drop it. Notes what it sets. */
static int csi_keep(struct ttyf *f)
{
	const unsigned char *s = f->hold + 2;
	size_t len = f->hold_len - 2;
	unsigned char fin = s[len - 1], prefix = 0, inter = 0;
	size_t plen, np;
	long n[32];

	len--; /* the final byte */
	if (len && s[0] >= 0x3c && s[0] <= 0x3f)
		prefix = s[0];
	for (plen = 0; plen < len && s[plen] >= 0x30; plen++)
		;
	if (plen < len)
		inter = s[plen];
	np = csi_params(s + (prefix != 0), plen - (prefix != 0), n, 32);
	switch (fin) {
	case 't':
		/* Window operations and reports; the title stack alone is drawing. */
		return !prefix && !inter && !memchr(s, ':', plen) && (n[0] == 22 || n[0] == 23);
	case 'i': /* media copy: the printer */
		return 0;
	case 'p': /* DECSCL: 8-bit controls */
		return inter != '"';
	case 'y': /* DECRQCRA: checksums of the screen */
		return inter != '*';
	case 'n':
		return prefix || inter || n[0] != 5;
	case 'u':
		if (prefix == '>' || prefix == '=')
			f->flags |= TTYF_KBD;
		return 1;
	case 'm':
		if (prefix == '>')
			f->flags |= TTYF_MODKEYS;
		return 1;
	case 'h':
	case 'l':
		if (prefix != '?' || inter)
			return 1;
		for (size_t i = 0; i < np; i++) {
			unsigned int alt = n[i] == 1049			? TTYF_ALT
					   : n[i] == 47 || n[i] == 1047 ? TTYF_ALT47
									: 0;

			if (n[i] == 2 && fin == 'l')
				return 0; /* VT52 mode: ESC sequences of another language */
			if (fin == 'h')
				f->flags |= alt;
			else if (alt)
				f->flags &= ~(TTYF_ALT | TTYF_ALT47);
		}
		return 1;
	default:
		return 1;
	}
}

static void csi_byte(struct ttyf *f, unsigned char c, struct out *o)
{
	if (interrupt(f, c, o))
		return;
	if (f->state == S_CSI_DROP) {
		if (c >= 0x40)
			to_ground(f);
		return;
	}
	/* A parameter byte after an intermediate makes the sequence void, as it does in a terminal.
	 */
	if (c < 0x40 && c >= 0x30 && f->hold_len > 2 && f->hold[f->hold_len - 1] < 0x30)
		f->bad = 1;
	/* So does a prefix (< = > ?) anywhere but first. */
	if (c >= 0x3c && c < 0x40 && f->hold_len > 2)
		f->bad = 1;
	if (!hold(f, c)) {
		f->state = S_CSI_DROP;
		if (c >= 0x40)
			to_ground(f);
		return;
	}
	if (c < 0x40)
		return;
	if (!f->bad && csi_keep(f))
		emit_held(f, o);
	else
		to_ground(f);
}

/* An OSC's number, read and followed by ';': the state its text goes on in. */
static int osc_fate(struct ttyf *f)
{
	f->str_kind = K_PLAIN;
	switch (f->osc) {
	case 0:
	case 1:
	case 2:
	case 104:
	case 110:
	case 111:
	case 112:
		return S_STR_PASS;
	case 4:
		f->str_kind = K_PALETTE;
		return S_STR_PASS;
	case 10:
	case 11:
	case 12:
		f->str_kind = K_DYNCOLOR;
		return S_STR_PASS;
	case 8:
		/* Held on, as ESC ] 8 ; exactly: its URI decides. */
		return f->hold_len == 4 ? S_LINK : S_STR_DROP;
	default:
		return S_STR_DROP;
	}
}

/* An OSC 8 held (ESC ] 8 ; PARAMS ; URI...): its fate so far; ended: its end came. */
static int link_fate(const struct ttyf *f, int ended)
{
	static const char *const ok[] = { "http:", "https:" };
	const unsigned char *s = f->hold + 4, *semi, *uri;
	size_t len = f->hold_len - 4;
	int wait = 0;

	semi = memchr(s, ';', len);
	if (!semi)
		return ended ? S_STR_DROP : S_LINK;
	uri = semi + 1;
	len -= (size_t)(uri - s);
	if (ended && !len)
		return S_STR_PASS; /* ESC ] 8 ; ; ST: the end of a link */
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		size_t k = strlen(ok[i]);

		if (len >= k && !strncasecmp((const char *)uri, ok[i], k))
			return S_STR_PASS;
		if (len < k && !strncasecmp((const char *)uri, ok[i], len))
			wait = 1; /* still the beginning of an allowed scheme */
	}
	return wait && !ended ? S_LINK : S_STR_DROP;
}

/* A string's end: BEL, ST (ESC), or what else ended it (0). */
static void str_end(struct ttyf *f, unsigned char how, struct out *o)
{
	int pass = f->state == S_STR_PASS;

	if (f->state == S_LINK) {
		pass = link_fate(f, 1) == S_STR_PASS;
	} else if (f->state == S_OSC) {
		/* ESC ] 104 ST and friends: a reset without arguments. */
		pass = f->hold_len > 2 && f->hold[f->hold_len - 1] != ';' &&
		       (f->osc == 104 || f->osc == 110 || f->osc == 111 || f->osc == 112);
	}
	if (pass) {
		put_hold(f, o);
		if (how == BEL) {
			put(o, BEL);
		} else {
			put(o, ESC);
			put(o, '\\');
		}
		f->flags |= TTYF_DIRTY;
	}
	to_ground(f);
}

/* A byte of an OSC whose fate is not known yet. */
static void osc_held(struct ttyf *f, unsigned char c, struct out *o)
{
	/* Too long to judge, or not a number (Linux's ESC ] P, and the like): dropped. */
	int fate = S_STR_DROP;

	if (c < 0x80 && hold(f, c)) {
		if (f->state == S_LINK) {
			fate = link_fate(f, 0);
		} else if (c >= '0' && c <= '9') {
			if (f->osc < 100000)
				f->osc = f->osc * 10 + (unsigned int)(c - '0');
			return;
		} else if (c == ';' && f->hold_len > 3) {
			fate = osc_fate(f);
		}
	}
	if (fate == S_STR_PASS) {
		f->flags |= TTYF_DIRTY | (f->state == S_LINK ? TTYF_LINK : 0);
		put_hold(f, o);
	} else if (fate == S_STR_DROP) {
		f->hold_len = 0;
	}
	f->state = (unsigned char)fate;
}

static void str_byte(struct ttyf *f, unsigned char c, struct out *o)
{
	int pass = f->state == S_STR_PASS;

	if (f->str_esc) {
		f->str_esc = 0;
		if (c == '\\') {
			str_end(f, ESC, o);
			return;
		}
		/* ESC and something else: the string ends, and a sequence begins. */
		str_end(f, 0, o);
		escape(f);
		feed(f, c, o);
		return;
	}
	switch (u8(f, c, o, pass)) {
	case U_TEXT:
		if (f->state == S_OSC || f->state == S_LINK) {
			osc_held(f, c, o);
		} else if (pass) {
			if (f->str_kind == K_PALETTE &&
			    !((c >= '0' && c <= '9') || c == ';' || c == '?'))
				f->flags |= TTYF_PALETTE;
			if (f->str_kind == K_DYNCOLOR && c != ';' && c != '?')
				f->flags |= TTYF_DYNCOLOR;
			put(o, c);
		}
		return;
	case U_C1:
		if (c == 0x9c) { /* ST, 8-bit or in UTF-8 */
			str_end(f, ESC, o);
			return;
		}
		str_end(f, 0, o);
		c1(f, c, o);
		return;
	case U_CTRL:
		if (c == BEL) {
			str_end(f, BEL, o);
		} else if (c == ESC) {
			f->str_esc = 1;
		} else if (c == CAN || c == SUB) {
			/* The terminal throws the string away: so it must see the cancel. */
			if (pass)
				put(o, c);
			to_ground(f);
		}
		return;
	default: /* U_HELD */
		return;
	}
}

static void feed(struct ttyf *f, unsigned char c, struct out *o)
{
	switch (f->state) {
	case S_GROUND:
		ground(f, c, o);
		break;
	case S_ESC:
	case S_ESC_INT:
		esc_byte(f, c, o);
		break;
	case S_CSI:
	case S_CSI_DROP:
		csi_byte(f, c, o);
		break;
	default: /* the strings */
		str_byte(f, c, o);
		break;
	}
}

size_t ttyf_run(struct ttyf *f, const void *in, size_t n, void *out)
{
	const unsigned char *p = in;
	struct out o = { .p = out, .n = 0 };

	for (size_t i = 0; i < n; i++)
		feed(f, p[i], &o);
	return o.n;
}

static size_t add(char *out, size_t size, size_t n, const char *s)
{
	size_t k = strlen(s);

	if (n + k < size)
		memcpy(out + n, s, k);
	return n + k;
}

size_t ttyf_reset(const struct ttyf *f, char *out, size_t size)
{
	size_t n = 0;

	if (!(f->flags & TTYF_DIRTY))
		return 0;
	/* A title the agent left open would take what follows as its text. */
	if (f->state == S_STR_PASS)
		n = add(out, size, n, "\033\\");
	/* Then the person's screen back (1049 also puts the cursor back where it was). */
	if (f->flags & TTYF_ALT)
		n = add(out, size, n, "\033[?1049l");
	else if (f->flags & TTYF_ALT47)
		n = add(out, size, n, "\033[?1047l");
	/*
	 * DECSTR: attributes, charsets, origin mode, margins, insert mode,
	 * cursor keys and keypad, without a clear or a move. Then what it
	 * leaves: the mouse, focus events, bracketed paste, synchronized
	 * output, a hidden cursor, no autowrap, the cursor's shape. Not
	 * origin mode (6) on its own: a change of it puts the cursor home.
	 */
	n = add(out, size, n,
		"\033[!p\033[?9;1000;1001;1002;1003;1004;1005;1006;1015;1016;2004;2026l");
	n = add(out, size, n, "\033[?1;66l\033[?25;7h\033>\033(B\017\033[0 q");
	if (f->flags & TTYF_KBD)
		n = add(out, size, n, "\033[<99u");
	if (f->flags & TTYF_MODKEYS)
		n = add(out, size, n, "\033[>4m");
	if (f->flags & TTYF_PALETTE)
		n = add(out, size, n, "\033]104\033\\");
	if (f->flags & TTYF_DYNCOLOR)
		n = add(out, size, n, "\033]110\033\\\033]111\033\\\033]112\033\\");
	if (f->flags & TTYF_LINK)
		n = add(out, size, n, "\033]8;;\033\\");
	n = add(out, size, n, "\033[0m");
	return n < size ? n : 0;
}

size_t ttyf_answer(unsigned int *st, const void *in, size_t n)
{
	const unsigned char *p = in;

	/* *st: 0 nothing, 1 ESC, 2 CSI, 3 CSI and digits. */
	for (size_t i = 0; i < n; i++) {
		unsigned char c = p[i];

		if (c == 0x9b || (*st == 1 && c == '[')) {
			*st = 2;
		} else if (c == ESC) {
			*st = 1;
		} else if ((*st == 2 || *st == 3) && c >= '0' && c <= '9') {
			*st = 3;
		} else if (*st == 3 && c == 'n') {
			*st = 0;
			return i + 1;
		} else {
			*st = 0;
		}
	}
	return 0;
}
