// SPDX-License-Identifier: GPL-3.0-or-later
#include "str-pool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t
hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static char **
find(char **slot, size_t cap, const char *s)
{
	size_t i = (size_t)hash(s) & (cap - 1);
	while (slot[i] && strcmp(slot[i], s) != 0)
		i = (i + 1) & (cap - 1);
	return &slot[i];
}

/* Double the table: kept at most half full, so probes stay short. */
static int
grow(struct str_pool *p)
{
	size_t cap = p->cap ? 2 * p->cap : 64;
	char **slot = calloc(cap, sizeof(*slot));
	if (!slot)
		return -1;
	for (size_t i = 0; i < p->cap; i++)
		if (p->slot[i])
			*find(slot, cap, p->slot[i]) = p->slot[i];
	free(p->slot);
	p->slot = slot;
	p->cap = cap;
	return 0;
}

const char *
str_pool_get(struct str_pool *p, const char *s)
{
	if (2 * (p->n + 1) > p->cap && grow(p) < 0)
		return NULL;
	char **at = find(p->slot, p->cap, s);
	if (!*at) {
		size_t len = strlen(s) + 1;
		if (!(*at = malloc(len)))
			return NULL;
		memcpy(*at, s, len);
		p->n++;
	}
	return *at;
}

const char *
str_pool_get_cut(struct str_pool *p, const char *s, size_t max)
{
	size_t len = strlen(s);
	if (max == 0 || len < max)
		return str_pool_get(p, s);
	char *cut = malloc(max);
	if (!cut)
		return NULL;
	memcpy(cut, s, max - 1);
	cut[max - 1] = '\0';
	const char *r = str_pool_get(p, cut);
	free(cut);
	return r;
}

void
str_pool_free(struct str_pool *p)
{
	for (size_t i = 0; i < p->cap; i++)
		free(p->slot[i]);
	free(p->slot);
	*p = (struct str_pool){ 0 };
}
