/* SPDX-License-Identifier: ISC */
/*
 * otosecret: decrypt the session's credentials from a sealed store and hand
 * them to the next program, then exec it.
 *
 * Consumes: argv up to "--"; the store fd and the key fd (closed before the
 * exec); every OTO_* variable but OTO_STATUS_FD (reported to, passed on) and
 * OTO_PTY (passed on to otoexec);
 * OTO_TEST_PAUSE=1 (a test hook: stop with SIGSTOP while holding plaintext);
 * seal's test hooks OTO_TEST_SEAL_WAIT_MS, OTO_TEST_SEAL_STOP and
 * OTO_TEST_SEAL_NO_TMPFILE (modes.c).
 * Passes on: the rest of argv, exec'd; each --use entry as a variable, a
 * tmpfs file or a sealed memfd; every other inherited fd.
 * Exits: 100 usage, 101 store, key or name rejected (nothing injected), 111 a
 * system call failed, 126/127 exec. Also: keygen, seal, list, phantom (see
 * modes.c), import (import.c).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include <sodium.h>

#include "oto.h"
#include "otosecret.h"

int main(int argc, char **argv)
{
	static struct otosecret_opts o;
	static struct store_view v;
	const struct rlimit nocore = { 0, 0 };
	static const char *const KEPT[] = { "OTO_STATUS_FD", "OTO_PTY", "OTO_REFUSALS", "OTO_VIEW",
					    "OTO_WHY" };
	const char *kept[ARRAY_SIZE(KEPT)];
	uint8_t *key, *store, **plain;
	char **env;
	size_t len;
	int err, stop;

	log_init(argv[0]);

	/*
	 * 1. Before any secret is in memory: no core dump, and not dumpable, so
	 *    neither a crash nor a ptrace or /proc/PID/mem reader of the same
	 *    uid can copy the key or a value out of this process.
	 */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 || setrlimit(RLIMIT_CORE, &nocore) < 0)
		die(EXIT_SYS, errno, "unable to make the process undumpable");
	xotosecret_parse(&o, argc, argv);
	stop =
	    (int)xtest_switch("OTO_TEST_PAUSE", 0, 0, 1, "a SIGSTOP while the plaintext is held");
	if (sodium_init() < 0)
		die(EXIT_SYS, 0, "unable to initialise libsodium");
	switch (o.mode) {
	case MODE_KEYGEN:
		xotosecret_keygen(&o);
		return 0;
	case MODE_SEAL:
		xotosecret_seal(&o);
		return 0;
	case MODE_LIST:
		xotosecret_list(&o);
		return 0;
	case MODE_PHANTOM:
		xotosecret_phantom(&o);
		return 0;
	case MODE_IMPORT:
		xotosecret_import(&o);
		return 0;
	case MODE_CHAIN:
		break;
	default:
		die_usage("unknown mode");
	}

	/* 2. Read the key and the store; both fds are closed once read. */
	key = xkey_load(o.key_fd, o.key_path);
	store = xstore_load(o.store_fd, o.store_path, &len, 0, 1);
	err = store_parse(store, len, &v);
	if (err)
		die(EXIT_REJECT, 0, "store %s: %s", o.store_path ? o.store_path : "--store-fd",
		    store_strerror(err));

	/* 3. Authenticate every entry, decrypt the used ones: all before any injection. */
	plain = xinject_decrypt(&v, &o, key);
	if (stop)
		raise(SIGSTOP);
	sodium_memzero(key, STORE_KEY_BYTES);

	/*
	 * 4. The consumed variables go before the new environment is built from
	 *    what is left. Those for the later stages stay: OTO_STATUS_FD (they
	 *    report to it), and otoexec's: OTO_PTY (it makes the agent's pty),
	 *    OTO_REFUSALS (the refusal log's socket), OTO_VIEW (a profile by
	 *    path is refused in the view); and OTO_WHY, the agent's (otomount's).
	 */
	for (size_t i = 0; i < ARRAY_SIZE(KEPT); i++) {
		kept[i] = getenv(KEPT[i]);
		kept[i] = kept[i] ? strdup(kept[i]) : NULL;
	}
	env_unset_prefix("OTO_");
	for (size_t i = 0; i < ARRAY_SIZE(KEPT); i++)
		if (kept[i] && setenv(KEPT[i], kept[i], 1) < 0)
			die(EXIT_SYS, errno, "unable to keep %s", KEPT[i]);

	/* 5. Files and fds (all or nothing), then the environment block. */
	env = xinject_place(&v, &o, plain);

	/*
	 * 6. The values for files and fds were wiped as each was placed; those
	 *    for variables are the new environment's strings, in locked memory
	 *    until the exec replaces this address space.
	 */
	free(store);
	xinject_exec(o.argv, env, plain, o.nuses);
}
