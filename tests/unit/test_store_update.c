// UNIT: lib/store_merge.c lib/store_update_strerror.c lib/store_strerror.c lib/store_name_ok.c
// UNIT: lib/store_size.c
/*
 * Unit tests of store_update's pure parts: the merge of a store's entries
 * with new ones (lib/store_merge.c) and the messages (store_update_strerror.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "oto.h"

#define P(n, v)                                                                                    \
	{                                                                                          \
		n, (const uint8_t *)(v), sizeof(v) - 1                                             \
	}

static struct store_plain OUT[STORE_MAX_ENTRIES];

/* The old order kept, a replaced entry where it stood, a new name last. */
static void test_replace_in_place_add_last(void **state)
{
	const struct store_plain old[] = { P("A", "1"), P("B", "2"), P("C", "3") };
	const struct store_plain pe[] = { P("B", "two"), P("D", "4") };

	(void)state;
	assert_int_equal(store_merge(OUT, old, 3, pe, 2), 4);
	assert_string_equal(OUT[0].name, "A");
	assert_ptr_equal(OUT[0].value, old[0].value);
	assert_string_equal(OUT[1].name, "B");
	assert_ptr_equal(OUT[1].value, pe[0].value);
	assert_int_equal(OUT[1].value_len, 3);
	assert_string_equal(OUT[2].name, "C");
	assert_string_equal(OUT[3].name, "D");
	assert_ptr_equal(OUT[3].value, pe[1].value);
}

/* The last of two new entries with one name wins, in the first one's place. */
static void test_last_of_two_wins(void **state)
{
	const struct store_plain pe[] = { P("X", "1"), P("Y", "2"), P("X", "3") };

	(void)state;
	assert_int_equal(store_merge(OUT, NULL, 0, pe, 3), 2);
	assert_string_equal(OUT[0].name, "X");
	assert_ptr_equal(OUT[0].value, pe[2].value);
	assert_string_equal(OUT[1].name, "Y");
	assert_int_equal(store_merge(OUT, NULL, 0, NULL, 0), 0);
}

/* 256 entries: a replacement still fits, a 257th name does not. */
static void test_limit(void **state)
{
	static char names[STORE_MAX_ENTRIES + 1][16];
	static struct store_plain old[STORE_MAX_ENTRIES + 1];
	struct store_plain pe;

	(void)state;
	for (int i = 0; i <= STORE_MAX_ENTRIES; i++) {
		snprintf(names[i], sizeof(names[i]), "N%d", i);
		old[i] = (struct store_plain){ names[i], (const uint8_t *)"v", 1 };
	}
	pe = old[7];
	assert_int_equal(store_merge(OUT, old, STORE_MAX_ENTRIES, &pe, 1), STORE_MAX_ENTRIES);
	pe = old[STORE_MAX_ENTRIES];
	assert_int_equal(store_merge(OUT, old, STORE_MAX_ENTRIES, &pe, 1), -1);
	assert_int_equal(store_merge(OUT, old, STORE_MAX_ENTRIES + 1, NULL, 0), -1);
	assert_int_equal(store_size(OUT, STORE_MAX_ENTRIES),
			 STORE_HDR_BYTES +
			     (size_t)STORE_MAX_ENTRIES * (STORE_ENTRY_FIXED + 1 + STORE_TAG_BYTES) +
			     (10 * 2 + 90 * 3 + 156 * 4));
}

/* Each result has its message; a store's error says what is wrong with it. */
static void test_strerror(void **state)
{
	(void)state;
	for (int r = STORE_UPD_OK; r < STORE_UPD_NUM; r++)
		assert_string_not_equal(store_update_strerror(r, 0), "unknown store update error");
	assert_string_equal(store_update_strerror(STORE_UPD_NUM, 0), "unknown store update error");
	assert_string_equal(store_update_strerror(-1, 0), "unknown store update error");
	assert_string_equal(store_update_strerror(STORE_UPD_STORE, STORE_EVERIFY),
			    store_strerror(STORE_EVERIFY));
	assert_string_equal(
	    store_update_strerror(STORE_UPD_BUSY, 0),
	    "another writer (a seal, a session saving a login) kept its directory locked too long");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replace_in_place_add_last),
		cmocka_unit_test(test_last_of_two_wins),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_strerror),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
