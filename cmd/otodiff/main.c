/* SPDX-License-Identifier: ISC */
/*
 * otodiff: review a copy-on-write session on the host (otomount --cow DIR):
 * list what it changed, apply it (--commit), or drop it (--discard).
 *
 * Consumes: argv; DIR/session and DIR/upper/ (the agent's changes: read as
 * untrusted), each tree's host path as the record names it.
 * Writes: the list on stdout; with --commit the host's trees, and DIR/session's
 * start moved to the commit's time; with --discard, DIR removed.
 * Exits: 0, 100 usage, 101 a conflict (nothing committed) or a record that
 * does not parse, 111 a system call failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "otodiff.h"

int main(int argc, char **argv)
{
	struct otodiff_opts o;
	static struct cowdir s;

	log_init(argv[0]);
	xotodiff_parse(&o, argc, argv);

	/* 1. The record and the trees: DIR is a session's, each host tree the one it started on. */
	xsession_open(&s, o.dir);
	s.max_size = o.max_size;

	/* 2. --discard: DIR and everything in it, no symlink followed. */
	if (o.mode == MODE_DISCARD) {
		const char *slash = strrchr(o.dir, '/');
		char parent[COW_PATH_MAX];
		int p;

		snprintf(parent, sizeof(parent), "%.*s", (int)(slash - o.dir), o.dir);
		p = open_nofollow(*parent ? parent : "/", O_PATH | O_DIRECTORY);
		if (p < 0 || rm_tree(p, slash + 1) < 0)
			die(EXIT_SYS, errno, "unable to remove %s", o.dir);
		printf("discarded %s\n", o.dir);
		return 0;
	}

	/*
	 * 3. A session mounted when the host last went down may have lost
	 *    writes (its overlays skip syncs): listed with a warning, never
	 *    committed.
	 */
	if (s.stale && o.mode == MODE_COMMIT)
		die(EXIT_REJECT, 0,
		    "nothing committed: the host restarted while the session in %s was mounted "
		    "(its writes may be lost): review it, copy what you need by hand, discard it",
		    o.dir);
	if (s.stale)
		warnx("the host restarted while the session in %s was mounted: writes may be lost",
		      o.dir);

	/* 4. The changes, tree by tree: the upper layer against the host. */
	xscan(&s);

	/*
	 * 5. Renames found by content (overlayfs in a user namespace copies a
	 *    renamed file: a deletion and an addition); which of them the host
	 *    runs later (a repository's config read for what it names); then
	 *    listed or applied.
	 */
	xscan_renames(&s);
	scan_runs_later(&s);
	if (o.mode == MODE_COMMIT)
		return xcommit(&s, &o);
	xshow(&s, &o);
	return 0;
}
