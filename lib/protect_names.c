/* SPDX-License-Identifier: ISC */
/*
 * The files the host runs later (otomount(1), PROTECTED FILES): what
 * otomount makes read-only in every writable tree, and what otodiff flags
 * in a copy-on-write session's changes. Pure.
 */
#include <string.h>

#include "oto.h"

/*
 * At each writable tree's top: what a shell reads when the tree is a home
 * or is sourced (bash, sh, zsh), what runs on entering the directory
 * (.envrc, direnv), what an editor or agent runs from the folder it opens
 * (.vscode tasks and settings, .idea run configurations, .devcontainer's
 * initializeCommand on the host, .mcp.json's MCP servers, .claude's hooks
 * and commands), and git's and ripgrep's per-user configuration read from
 * a home (.gitconfig: core.fsmonitor, aliases; .ripgreprc: --pre).
 */
const char *const protect_start[] = {
	".bashrc", ".bash_profile", ".bash_logout", ".bash_login", ".profile",
	".zshrc",  ".zshenv",	    ".zprofile",    ".zlogin",	   ".zlogout",
	".envrc",  ".gitconfig",    ".ripgreprc",   ".mcp.json",   ".vscode",
	".idea",   ".devcontainer", ".claude",	    NULL,
};

/* In a git directory: what git runs, or reads to decide what to run. */
const char *const protect_gitdir[] = { "hooks", "info", "config", "config.worktree", NULL };

static int in_list(const char *const *l, const char *s, size_t n)
{
	for (; *l; l++)
		if (strlen(*l) == n && !memcmp(*l, s, n))
			return 1;
	return 0;
}

int protect_runs_later(const char *rel)
{
	const char *c = rel, *next;
	int first = 1;

	while (*c == '/')
		c++;
	for (; *c; c = next, first = 0) {
		const char *slash = strchr(c, '/');
		size_t n = slash ? (size_t)(slash - c) : strlen(c);

		next = slash ? slash + 1 : c + n;
		if (first && in_list(protect_start, c, n))
			return 1;
		if (n == 4 && !memcmp(c, ".git", 4)) {
			const char *g = next;
			size_t gn;

			/* A .git file (a gitdir: pointer), or what git runs in a .git directory. */
			if (!*g)
				return 1;
			gn = strchr(g, '/') ? (size_t)(strchr(g, '/') - g) : strlen(g);
			if (in_list(protect_gitdir, g, gn))
				return 1;
			/* .git/modules/NAME/...: a submodule's git directory. */
			if (gn == 7 && !memcmp(g, "modules", 7) && g[7] == '/') {
				const char *m = strchr(g + 8, '/');

				if (m && in_list(protect_gitdir, m + 1,
						 strchr(m + 1, '/')
						     ? (size_t)(strchr(m + 1, '/') - m - 1)
						     : strlen(m + 1)))
					return 1;
			}
		}
	}
	return 0;
}
