/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A pool of interned strings: each distinct text is stored once and
 * handed out as a pointer that lives until the pool is freed.  Results
 * read back from shard summaries (baro-replay merge) hold their metric
 * names and rule texts this way, so 100,000 results share a few dozen
 * strings instead of carrying a copy each.
 */
#ifndef BAROD_STR_POOL_H
#define BAROD_STR_POOL_H

#include <stddef.h>

struct str_pool {
	char **slot;	/* open addressing; NULL: empty */
	size_t cap;	/* a power of two, or 0 */
	size_t n;
};

/* The pool's copy of s (made on first sight), or NULL: out of memory. */
const char *
str_pool_get(struct str_pool *p, const char *s);

/* As str_pool_get() for s cut to at most max - 1 bytes (max > 0): what
 * a fixed char[max] field held. */
const char *
str_pool_get_cut(struct str_pool *p, const char *s, size_t max);

/* Free every string; the pool is empty and usable again. */
void
str_pool_free(struct str_pool *p);

#endif
