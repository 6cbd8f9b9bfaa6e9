/* SPDX-License-Identifier: ISC */
/*
 * The relay's context (struct relay): made for a configuration, a table of
 * system calls and the TUN (its clock is relay.h's). Never exits: the unit test and
 * the fuzz target make one with fake system calls.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oto.h"
#include "otonet.h"
#include "relay.h"

int relay_init(struct relay *r, const struct relay_cfg *cfg, const struct relay_sys *sys, int tun)
{
	memset(r, 0, sizeof(*r));
	r->cfg = cfg;
	r->sys = sys;
	r->tun = tun;
	r->ep = -1;
	if (flow_table_init(&r->ft, cfg->max_flows) < 0)
		return -1;
	r->batch = malloc(BATCH_BYTES);
	r->vnet = malloc(VNET_HLEN + BUFSZ);
	r->dns = malloc(sizeof(*r->dns));
	/* The name bindings: only for --allow-name rules and transparent grants,
	 * all allocated now; with a decider too: which name led to an address,
	 * for its requests (ask.c). */
	if (!r->batch || !r->vnet || !r->dns ||
	    ((cfg->f->nnames || cfg->f->ngates || cfg->ask) &&
	     names_init(&r->names, NAMES_MAX) < 0) ||
	    (cfg->ask && ask_init(&r->ask) < 0) ||
	    record_init(&r->rec, cfg->log_fd, cfg->log_budget) < 0) {
		record_fini(&r->rec);
		ask_fini(&r->ask);
		names_fini(&r->names);
		free(r->batch);
		free(r->vnet);
		free(r->dns);
		flow_table_fini(&r->ft);
		errno = ENOMEM;
		return -1;
	}
	r->obuf = r->vnet + VNET_HLEN;
	return 0;
}
