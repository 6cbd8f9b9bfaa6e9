/* SPDX-License-Identifier: ISC */
/*
 * The granted entries, and nothing else, decrypted into locked memory; each
 * gets its phantom, the string the agent holds in its place: "oto-phantom-"
 * and random letters, exactly as long as the value, so that a body the
 * gateway turns back from value to phantom keeps its Content-Length.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "http.h"
#include "oto.h"
#include "otogate.h"

void xsecrets_load(struct otogate_opts *o)
{
	static struct store_view v;
	uint8_t *key, *store;
	size_t len;
	int err;

	if (sodium_init() < 0)
		die(EXIT_SYS, 0, "unable to initialise libsodium");
	key = xkey_load(o->key_fd, o->key_path);
	store = xstore_load(o->store_fd, o->store_path, &len, 0, 1);
	err = store_parse(store, len, &v);
	if (err)
		die(EXIT_REJECT, 0, "store %s: %s", o->store_path ? o->store_path : "--store-fd",
		    store_strerror(err));
	/* A store with one tampered byte anywhere is refused; verifying decrypts nothing. */
	for (uint32_t i = 0; i < v.count; i++)
		if (store_verify(&v, i, key))
			die(EXIT_REJECT, 0, "entry %u (%.*s): %s", i, (int)v.e[i].name_len,
			    v.e[i].name, store_strerror(STORE_EVERIFY));
	for (size_t i = 0; i < o->ngrants; i++) {
		struct grant *g = &o->grants[i];
		int idx = store_find(&v, g->name);
		size_t n;

		if (idx < 0)
			die(EXIT_REJECT, 0, "--grant %s: no such name in the store", g->name);
		n = v.e[idx].value_len;
		/*
		 * A short value would be found, and replaced, in responses that
		 * never held it; a long one is more than the replacer holds.
		 */
		if (n < GATE_MIN_SECRET || n > HTTP_MAX_SECRET)
			die(EXIT_REJECT, 0,
			    "--grant %s: the value is %zu bytes: the gateway takes %d to %d",
			    g->name, n, GATE_MIN_SECRET, HTTP_MAX_SECRET);
		g->real = sodium_malloc(n + 1);
		if (!g->real)
			die(EXIT_SYS, errno, "unable to allocate locked memory for %s", g->name);
		if (store_open(&v, (uint32_t)idx, key, g->real))
			die(EXIT_REJECT, 0, "--grant %s: %s", g->name,
			    store_strerror(STORE_EVERIFY));
		g->real[n] = 0;
		g->len = n;
		/* It goes into request headers: it must be a valid header value. */
		if (!http_value_ok((const char *)g->real, n))
			die(EXIT_REJECT, 0,
			    "--grant %s: the value cannot stand in an HTTP header (a control byte, "
			    "or white space at an end)",
			    g->name);
		g->phantom = malloc(n + 1);
		if (!g->phantom)
			die(EXIT_SYS, errno, "unable to allocate the phantom of %s", g->name);
		memcpy(g->phantom, GATE_PHANTOM, sizeof(GATE_PHANTOM) - 1);
		randombytes_buf(g->phantom + sizeof(GATE_PHANTOM) - 1,
				n - (sizeof(GATE_PHANTOM) - 1));
		phantom_letters(g->phantom + sizeof(GATE_PHANTOM) - 1,
				n - (sizeof(GATE_PHANTOM) - 1));
		g->phantom[n] = 0;
	}
	sodium_memzero(key, STORE_KEY_BYTES);
	sodium_free(key);
	free(store);
}
