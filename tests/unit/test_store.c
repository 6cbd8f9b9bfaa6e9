// UNIT: lib/store_strerror.c lib/store_name_ok.c lib/store_parse.c lib/store_find.c
// UNIT: lib/store_ad.c lib/store_verify.c lib/store_open.c lib/store_size.c lib/store_build.c
// UNIT: lib/key_encode.c lib/key_decode.c lib/store_phantom.c
/*
 * Unit tests of the sealed store format and the key's text form (lib/store_*.c,
 * lib/key_*.c), shared by otosecret and otogate.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sodium.h>

#include "oto.h"

static uint8_t KEY[STORE_KEY_BYTES], KEY2[STORE_KEY_BYTES], ID[STORE_ID_BYTES];
static struct store_view V;

static size_t build(const struct store_plain *pe, uint32_t n, uint8_t **out)
{
	size_t sz = store_size(pe, n);

	assert_true(sz > 0);
	*out = malloc(sz);
	assert_int_equal(store_build(ID, pe, n, KEY, *out, sz), 0);
	return sz;
}

static const struct store_plain THREE[] = {
	{ "ALPHA", (const uint8_t *)"one", 3 },
	{ "B", (const uint8_t *)"two\0bytes\n", 10 },
	{ "EMPTY_", (const uint8_t *)"", 0 },
};

static int verify_all(const struct store_view *v, const uint8_t *key)
{
	for (uint32_t i = 0; i < v->count; i++)
		if (store_verify(v, i, key))
			return STORE_EVERIFY;
	return STORE_OK;
}

static void test_round_trip(void **state)
{
	uint8_t *s, out[16];
	size_t sz = build(THREE, 3, &s);

	(void)state;
	assert_int_equal(sz, STORE_HDR_BYTES + 3 * (STORE_ENTRY_FIXED + STORE_TAG_BYTES) + 5 + 3 +
				 1 + 10 + 6 + 0);
	assert_int_equal(store_parse(s, sz, &V), STORE_OK);
	assert_int_equal(V.count, 3);
	assert_memory_equal(V.id, ID, STORE_ID_BYTES);
	assert_int_equal(store_find(&V, "B"), 1);
	assert_int_equal(store_find(&V, "ALPH"), -1);
	assert_int_equal(store_find(&V, "EMPTY_"), 2);
	assert_int_equal(verify_all(&V, KEY), STORE_OK);
	for (uint32_t i = 0; i < 3; i++) {
		assert_int_equal(store_open(&V, i, KEY, out), STORE_OK);
		assert_int_equal(V.e[i].value_len, THREE[i].value_len);
		assert_memory_equal(out, THREE[i].value, THREE[i].value_len);
	}
	/* A wrong key: nothing verifies, nothing decrypts. */
	assert_int_equal(verify_all(&V, KEY2), STORE_EVERIFY);
	assert_int_equal(store_open(&V, 0, KEY2, out), STORE_EVERIFY);
	free(s);
}

static void test_every_byte_flip_rejected(void **state)
{
	uint8_t *s;
	size_t sz = build(THREE, 3, &s);

	(void)state;
	for (size_t i = 0; i < sz; i++) {
		for (int bit = 0; bit < 8; bit++) {
			s[i] ^= (uint8_t)(1 << bit);
			int err = store_parse(s, sz, &V);

			if (!err)
				err = verify_all(&V, KEY);
			assert_int_not_equal(err, STORE_OK);
			s[i] ^= (uint8_t)(1 << bit);
		}
	}
	free(s);
}

static void test_truncation_rejected(void **state)
{
	uint8_t *s, *s2;
	size_t sz = build(THREE, 3, &s);
	size_t first_two =
	    STORE_HDR_BYTES + 2 * (STORE_ENTRY_FIXED + STORE_TAG_BYTES) + 5 + 3 + 1 + 10;

	(void)state;
	for (size_t len = 0; len < sz; len++)
		assert_int_not_equal(store_parse(s, len, &V), STORE_OK);
	/* Cut the last entry and lower the count to match: the count is in every AD. */
	s2 = malloc(first_two);
	memcpy(s2, s, first_two);
	s2[28] = 2;
	assert_int_equal(store_parse(s2, first_two, &V), STORE_OK);
	assert_int_equal(V.count, 2);
	assert_int_equal(store_verify(&V, 0, KEY), STORE_EVERIFY);
	assert_int_equal(store_verify(&V, 1, KEY), STORE_EVERIFY);
	free(s2);
	free(s);
}

static void test_swap_rename_move_rejected(void **state)
{
	const struct store_plain two[] = { { "AA", (const uint8_t *)"xx", 2 },
					   { "BB", (const uint8_t *)"yy", 2 } };
	uint8_t *s, *t;
	size_t sz = build(two, 2, &s), e = STORE_ENTRY_FIXED + 2 + 2 + STORE_TAG_BYTES;

	(void)state;
	/* Swap the two (equal-sized) entries: each now sits at the other's index. */
	t = malloc(sz);
	memcpy(t, s, STORE_HDR_BYTES);
	memcpy(t + STORE_HDR_BYTES, s + STORE_HDR_BYTES + e, e);
	memcpy(t + STORE_HDR_BYTES + e, s + STORE_HDR_BYTES, e);
	assert_int_equal(store_parse(t, sz, &V), STORE_OK);
	assert_int_equal(store_verify(&V, 0, KEY), STORE_EVERIFY);
	assert_int_equal(store_verify(&V, 1, KEY), STORE_EVERIFY);
	/* Rename AA to CC (still a valid name). */
	memcpy(t, s, sz);
	memcpy(t + STORE_HDR_BYTES + STORE_ENTRY_FIXED, "CC", 2);
	assert_int_equal(store_parse(t, sz, &V), STORE_OK);
	assert_int_equal(store_verify(&V, 0, KEY), STORE_EVERIFY);
	assert_int_equal(store_verify(&V, 1, KEY), STORE_OK);
	/* Another store id (the entry moved to another store). */
	memcpy(t, s, sz);
	t[12] ^= 1;
	assert_int_equal(store_parse(t, sz, &V), STORE_OK);
	assert_int_equal(store_verify(&V, 0, KEY), STORE_EVERIFY);
	free(t);
	free(s);
}

static void test_parse_errors(void **state)
{
	uint8_t *s, *t;
	size_t sz = build(THREE, 3, &s);

	(void)state;
	t = malloc(sz + 1);
	assert_int_equal(store_parse((const uint8_t *)"NOTASTORE", 9, &V), STORE_EMAGIC);
	assert_int_equal(store_parse(s, 5, &V), STORE_ESHORT);
	memcpy(t, s, sz);
	t[8] = 2;
	assert_int_equal(store_parse(t, sz, &V), STORE_EVERSION);
	memcpy(t, s, sz);
	t[10] = 1;
	assert_int_equal(store_parse(t, sz, &V), STORE_ERESERVED);
	memcpy(t, s, sz);
	t[28] = 0x01;
	t[29] = 0x01; /* 257 entries */
	assert_int_equal(store_parse(t, sz, &V), STORE_ECOUNT);
	assert_int_equal(V.count, 0);
	memcpy(t, s, sz);
	t[STORE_HDR_BYTES] = 0; /* name length 0 */
	assert_int_equal(store_parse(t, sz, &V), STORE_ENAME);
	memcpy(t, s, sz);
	t[STORE_HDR_BYTES] = 65;
	assert_int_equal(store_parse(t, sz, &V), STORE_ENAME);
	memcpy(t, s, sz);
	t[STORE_HDR_BYTES + STORE_ENTRY_FIXED] = '1'; /* ALPHA -> 1LPHA */
	assert_int_equal(store_parse(t, sz, &V), STORE_ENAME);
	memcpy(t, s, sz);
	t[STORE_HDR_BYTES + 1] = 0x01;
	t[STORE_HDR_BYTES + 3] = 0x01; /* value length 65537 */
	assert_int_equal(store_parse(t, sz, &V), STORE_EVALUE);
	memcpy(t, s, sz);
	t[STORE_HDR_BYTES + 1] = 0xff;
	t[STORE_HDR_BYTES + 2] = 0xff;
	t[STORE_HDR_BYTES + 3] = 0; /* 65535: far past the end */
	assert_int_equal(store_parse(t, sz, &V), STORE_ESHORT);
	memcpy(t, s, sz);
	t[sz] = 0;
	assert_int_equal(store_parse(t, sz + 1, &V), STORE_ETRAILING);
	assert_int_equal(V.count, 0);
	assert_int_equal(store_parse(s, STORE_MAX_SIZE + 1, &V), STORE_ETOOBIG);
	free(t);
	free(s);
}

static void test_duplicate_name(void **state)
{
	const struct store_plain dup[] = { { "X", (const uint8_t *)"1", 1 },
					   { "X", (const uint8_t *)"2", 1 } };
	uint8_t *s;
	size_t sz = build(dup, 2, &s);

	(void)state;
	assert_int_equal(store_parse(s, sz, &V), STORE_EDUP);
	free(s);
}

static void test_limits(void **state)
{
	static struct store_plain many[STORE_MAX_ENTRIES + 1];
	static uint8_t big[STORE_MAX_VALUE + 1];
	char names[STORE_MAX_ENTRIES + 1][16];
	uint8_t *s;
	size_t sz;

	(void)state;
	for (int i = 0; i <= STORE_MAX_ENTRIES; i++) {
		snprintf(names[i], sizeof(names[i]), "N%u", (unsigned int)i);
		many[i] = (struct store_plain){ names[i], big, 1 };
	}
	assert_true(store_size(many, STORE_MAX_ENTRIES) > 0);
	assert_int_equal(store_size(many, STORE_MAX_ENTRIES + 1), 0);
	many[0].value_len = STORE_MAX_VALUE;
	assert_true(store_size(many, 1) > 0);
	many[0].value_len = STORE_MAX_VALUE + 1;
	assert_int_equal(store_size(many, 1), 0);
	/* 16 values of 64 KiB pass 1 MiB in total. */
	for (int i = 0; i < 16; i++)
		many[i].value_len = STORE_MAX_VALUE;
	assert_int_equal(store_size(many, 16), 0);
	assert_true(store_size(many, 15) > 0);
	/* The largest value round-trips. */
	many[0].value_len = STORE_MAX_VALUE;
	sz = build(many, 1, &s);
	assert_int_equal(store_parse(s, sz, &V), STORE_OK);
	assert_int_equal(V.e[0].value_len, STORE_MAX_VALUE);
	free(s);
	assert_int_equal(store_size((const struct store_plain[]){ { "bad-name", big, 1 } }, 1), 0);
}

static void test_names(void **state)
{
	(void)state;
	assert_true(store_name_ok("A", 1));
	assert_true(store_name_ok("_x9", 3));
	assert_false(store_name_ok("9x", 2));
	assert_false(store_name_ok("", 0));
	assert_false(store_name_ok("A-B", 3));
	assert_false(store_name_ok("A=B", 3));
	char n65[66];
	memset(n65, 'A', 65);
	n65[65] = 0;
	assert_true(store_name_ok(n65, 64));
	assert_false(store_name_ok(n65, 65));
}

static void test_key_text(void **state)
{
	char text[KEY_TEXT_MAX];
	uint8_t back[STORE_KEY_BYTES];
	int n = key_encode(KEY, text, sizeof(text));

	(void)state;
	assert_int_equal(n, 10 + 43 + 1);
	assert_int_equal(text[n - 1], '\n');
	assert_int_equal(
	    strspn(text + 10, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
	    43);
	assert_int_equal(key_decode(text, (size_t)n, back), 0);
	assert_memory_equal(back, KEY, STORE_KEY_BYTES);
	/* Without the newline, with CRLF: the same key. */
	assert_int_equal(key_decode(text, (size_t)n - 1, back), 0);
	text[n - 1] = '\r';
	assert_int_equal(key_decode(text, (size_t)n, back), 0);
	assert_memory_equal(back, KEY, STORE_KEY_BYTES);
	/* Truncated, lengthened, wrong prefix, bad character. */
	assert_int_equal(key_decode(text, (size_t)n - 3, back), -1);
	assert_int_equal(key_decode("oto-key-1:AAAA", 14, back), -1);
	text[0] = 'O';
	assert_int_equal(key_decode(text, (size_t)n - 1, back), -1);
	text[0] = 'o';
	text[20] = '+';
	assert_int_equal(key_decode(text, (size_t)n - 1, back), -1);
	assert_int_equal(key_decode("", 0, back), -1);
}

/* The AD's exact bytes: the header, the index, the name's length, the name. */
static void test_ad_layout(void **state)
{
	uint8_t hdr[STORE_HDR_BYTES], ad[STORE_AD_MAX], want[STORE_HDR_BYTES + 5 + 3];

	(void)state;
	for (size_t i = 0; i < sizeof(hdr); i++)
		hdr[i] = (uint8_t)(0xa0 + i);
	memcpy(want, hdr, STORE_HDR_BYTES);
	memcpy(want + STORE_HDR_BYTES,
	       "\x04\x03\x02\x01\x03"
	       "ABC",
	       8);
	assert_int_equal(store_ad(hdr, 0x01020304, "ABC", 3, ad), sizeof(want));
	assert_memory_equal(ad, want, sizeof(want));
	/* The longest name fills STORE_AD_MAX exactly. */
	char n64[STORE_MAX_NAME];
	memset(n64, 'N', sizeof(n64));
	assert_int_equal(store_ad(hdr, 0, n64, sizeof(n64), ad), STORE_AD_MAX);
	assert_int_equal(ad[STORE_HDR_BYTES + 4], STORE_MAX_NAME);
	assert_memory_equal(ad + STORE_HDR_BYTES + 5, n64, sizeof(n64));
}

/*
 * The phantom: from the id, the name and the value's length alone, the same
 * at every call; another id, name or length, another phantom. The first
 * vector pins the derivation: a change to it would give every operator's
 * agents new phantoms, and undo every approval a CLI remembers.
 */
static void test_phantom(void **state)
{
	static const uint8_t nonce[STORE_NONCE_BYTES], ct[64 + STORE_TAG_BYTES];
	static const uint8_t nonce2[STORE_NONCE_BYTES] = { 1 }, ct2[64 + STORE_TAG_BYTES] = { 2 };
	static struct store_view v;
	uint8_t id[STORE_ID_BYTES];
	char a[65], b[65], c[65];

	(void)state;
	for (size_t i = 0; i < sizeof(id); i++)
		id[i] = (uint8_t)i;
	v.id = id;
	v.count = 3;
	v.e[0] = (struct store_entry){ "API_KEY", 7, nonce, ct, 40 };
	v.e[1] = (struct store_entry){ "API_KEZ", 7, nonce, ct, 40 };
	v.e[2] = (struct store_entry){ "API_KEY", 7, nonce2, ct2, 41 };
	assert_int_equal(store_phantom(&v, 0, a), 0);
	assert_string_equal(a, "oto-phantom-ocg0l806ot5fhczrlapbrn6gmbjz");
	assert_int_equal(strlen(a), 40);
	assert_int_equal(strspn(a + 12, "abcdefghijklmnopqrstuvwxyz0123456789"), 28);
	assert_int_equal(store_phantom(&v, 0, b), 0);
	assert_string_equal(a, b);
	/* Another name, another length, another id: another phantom. */
	assert_int_equal(store_phantom(&v, 1, b), 0);
	assert_string_not_equal(a, b);
	assert_int_equal(store_phantom(&v, 2, c), 0);
	assert_int_equal(strlen(c), 41);
	assert_int_not_equal(memcmp(a, c, 40), 0);
	id[15] ^= 1;
	assert_int_equal(store_phantom(&v, 0, b), 0);
	assert_string_not_equal(a, b);
	id[15] ^= 1;
	/* Not the sealed bytes: a new seal (new nonces) keeps it. */
	v.e[0].nonce = nonce2;
	v.e[0].ct = ct2;
	assert_int_equal(store_phantom(&v, 0, b), 0);
	assert_string_equal(a, b);
	/* No letters to make, or no such entry. */
	v.e[1].value_len = 12;
	errno = 0;
	assert_int_equal(store_phantom(&v, 1, b), -1);
	assert_int_equal(errno, EINVAL);
	v.e[1].value_len = 13;
	assert_int_equal(store_phantom(&v, 1, b), 0);
	assert_int_equal(strlen(b), 13);
	assert_int_equal(store_phantom(&v, 3, b), -1);
}

/* Every error has its own message, and an unknown one says so. */
static void test_strerror(void **state)
{
	(void)state;
	assert_string_equal(
	    store_strerror(STORE_EVERIFY),
	    "the key does not open this store (another key, or the store was altered)");
	assert_string_equal(store_strerror(STORE_EMAGIC), "not an otosecret store (bad magic)");
	for (int e = STORE_OK; e <= STORE_EVERIFY; e++)
		assert_string_not_equal(store_strerror(e), "unknown store error");
	assert_string_equal(store_strerror(STORE_EVERIFY + 1), "unknown store error");
	assert_string_equal(store_strerror(-1), "unknown store error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_every_byte_flip_rejected),
		cmocka_unit_test(test_truncation_rejected),
		cmocka_unit_test(test_swap_rename_move_rejected),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_duplicate_name),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_key_text),
		cmocka_unit_test(test_ad_layout),
		cmocka_unit_test(test_strerror),
		cmocka_unit_test(test_phantom),
	};

	if (sodium_init() < 0)
		return 1;
	randombytes_buf(KEY, sizeof(KEY));
	randombytes_buf(KEY2, sizeof(KEY2));
	randombytes_buf(ID, sizeof(ID));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
