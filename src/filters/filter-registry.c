/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "filter-registry.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "filt-builtin.h"

static const struct baro_filter *const builtins[] = {
	&baro_filter_raw,    &baro_filter_range,  &baro_filter_health,
	&baro_filter_lowpass, &baro_filter_median, &baro_filter_gate,
};

#define N_BUILTINS (sizeof(builtins) / sizeof(builtins[0]))

static const struct baro_filter2 *const builtins2[] = {
	&baro_filter_comp,
};

#define N_BUILTINS2 (sizeof(builtins2) / sizeof(builtins2[0]))

/* Longest filter name accepted from a spec or a plugin. */
#define NAME_MAX_LEN 32

const struct baro_filter *
baro_filter_builtin(const char *name)
{
	for (size_t i = 0; i < N_BUILTINS; i++)
		if (strcmp(builtins[i]->name, name) == 0)
			return builtins[i];
	return NULL;
}

const struct baro_filter *const *
baro_filter_builtins(size_t *count)
{
	*count = N_BUILTINS;
	return builtins;
}

const struct baro_filter2 *
baro_filter2_builtin(const char *name)
{
	for (size_t i = 0; i < N_BUILTINS2; i++)
		if (strcmp(builtins2[i]->name, name) == 0)
			return builtins2[i];
	return NULL;
}

const struct baro_filter2 *const *
baro_filter2_builtins(size_t *count)
{
	*count = N_BUILTINS2;
	return builtins2;
}

size_t
baro_filter_spec_len(const char *list)
{
	const char *p = list;

	for (;;) {
		const char *comma = strchr(p, ',');
		if (!comma)
			return strlen(list);
		const char *next = comma + 1;
		size_t tok = strcspn(next, ",:");
		if (!memchr(next, '=', tok))
			return (size_t)(comma - list);
		p = next;
	}
}

static void
set_label(struct baro_filter_instance *fi, const char *prefix,
	  const char *name, const char *params)
{
	size_t len = sizeof(fi->label);
	int n = snprintf(fi->label, len, "%s%s%s%s", prefix, name,
			 *params ? ":" : "", params);
	/* A cut label says so, so two long specs are not mistaken for one
	 * another without a hint. */
	if (n >= 0 && (size_t)n >= len)
		memcpy(fi->label + len - 4, "...", 4);
}

static void
builtin_names(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < N_BUILTINS + N_BUILTINS2 && used < len; i++) {
		const char *name = i < N_BUILTINS
					   ? builtins[i]->name
					   : builtins2[i - N_BUILTINS]->name;
		int w = snprintf(buf + used, len - used, "%s%s",
				 i ? ", " : "", name);
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
}

static int
valid_name(const char *name)
{
	size_t n = 0;

	for (; name[n]; n++) {
		char c = name[n];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-'))
			return 0;
	}
	return n > 0 && n <= NAME_MAX_LEN;
}

/* What both versions' tables have, for one set of checks. */
struct table_view {
	uint32_t abi_version;
	const char *name;
	bool create, step, reset, destroy;
};

/* The checks common to both versions; 0 or -EPROTO / -EBADE. */
static int
check_table(const char *path, const struct table_view *t, uint32_t want,
	    char *err, size_t errlen)
{
	if (t->abi_version != want) {
		snprintf(err, errlen, "plugin %s: filter ABI version %u, this "
			 "program speaks %u (rebuild the filter against its "
			 "<barod/baro-filter.h>)", path,
			 (unsigned)t->abi_version, (unsigned)want);
		return -EPROTO;
	}
	const char *missing = !t->create    ? "create"
			      : !t->step    ? "step"
			      : !t->reset   ? "reset"
			      : !t->destroy ? "destroy"
					    : NULL;
	if (missing) {
		snprintf(err, errlen, "plugin %s: the filter has no %s() "
			 "callback (NULL)", path, missing);
		return -EBADE;
	}
	if (!t->name || !valid_name(t->name)) {
		snprintf(err, errlen, "plugin %s: the filter's name is %s, "
			 "not 1 to %d of [a-z0-9_-]", path,
			 t->name ? "invalid" : "NULL", NAME_MAX_LEN);
		return -EBADE;
	}
	return 0;
}

/* entry(version) returned NULL. */
static int
refused(const char *path, const char *symbol, unsigned version, char *err,
	size_t errlen)
{
	snprintf(err, errlen, "plugin %s: %s(%u) returned NULL: the filter "
		 "does not support ABI version %u", path, symbol, version,
		 version);
	return -EPROTO;
}

static bool
has_symbol(void *h, const char *name)
{
	(void)dlerror();
	return dlsym(h, name) != NULL;
}

#define LOAD_V2_REFUSED 2

/* Version 2's table, when the object exports its entry: 1 with *f set,
 * 0 when it has no such symbol, LOAD_V2_REFUSED (err set) when its entry
 * returns NULL, or a negative errno. */
static int
load_v2(void *h, const char *path, const struct baro_filter2 **f, char *err,
	size_t errlen)
{
	(void)dlerror();
	void *sym = dlsym(h, BARO_FILTER2_ENTRY_SYMBOL);
	if (!sym)
		return 0;
	/* ISO C has no object-to-function pointer cast; POSIX guarantees
	 * the representations agree. */
	baro_filter2_entry_fn entry;
	memcpy(&entry, &sym, sizeof(entry));

	const struct baro_filter2 *t = entry(BARO_FILTER2_ABI_VERSION);
	if (!t) {
		(void)refused(path, BARO_FILTER2_ENTRY_SYMBOL,
			      BARO_FILTER2_ABI_VERSION, err, errlen);
		return LOAD_V2_REFUSED;
	}
	struct table_view v = {
		.abi_version = t->abi_version, .name = t->name,
		.create = t->create, .step = t->step, .reset = t->reset,
		.destroy = t->destroy,
	};
	int rc = check_table(path, &v, BARO_FILTER2_ABI_VERSION, err, errlen);
	if (rc < 0)
		return rc;
	*f = t;
	return 1;
}

static int
load_v1(void *h, const char *path, const struct baro_filter **f, char *err,
	size_t errlen)
{
	(void)dlerror();
	void *sym = dlsym(h, BARO_FILTER_ENTRY_SYMBOL);
	if (!sym) {
		snprintf(err, errlen, "plugin %s: no %s symbol, nor %s "
			 "(export const struct baro_filter *%s(uint32_t) or "
			 "const struct baro_filter2 *%s(uint32_t), see "
			 "<barod/baro-filter.h>)", path,
			 BARO_FILTER_ENTRY_SYMBOL, BARO_FILTER2_ENTRY_SYMBOL,
			 BARO_FILTER_ENTRY_SYMBOL, BARO_FILTER2_ENTRY_SYMBOL);
		return -ELIBBAD;
	}
	baro_filter_entry_fn entry;
	memcpy(&entry, &sym, sizeof(entry));

	const struct baro_filter *t = entry(BARO_FILTER_ABI_VERSION);
	if (!t)
		return refused(path, BARO_FILTER_ENTRY_SYMBOL,
			       BARO_FILTER_ABI_VERSION, err, errlen);
	struct table_view v = {
		.abi_version = t->abi_version, .name = t->name,
		.create = t->create, .step = t->step, .reset = t->reset,
		.destroy = t->destroy,
	};
	int rc = check_table(path, &v, BARO_FILTER_ABI_VERSION, err, errlen);
	if (rc < 0)
		return rc;
	*f = t;
	return 0;
}

/* The plugin's filter table, version 2 looked for first, checked; the
 * handle stays open on success. */
static int
load_plugin(const char *path, struct baro_filter_instance *fi, char *err,
	    size_t errlen)
{
	if (access(path, F_OK) != 0) {
		int e = errno;
		snprintf(err, errlen, "plugin %s: %s", path, strerror(e));
		return e == ENOENT ? -ENOENT : -e;
	}
	/* RTLD_LOCAL: two plugins may define the same symbols. */
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *why = dlerror();
		snprintf(err, errlen, "plugin %s: cannot load: %s", path,
			 why ? why : "unknown dlopen error");
		return -ELIBBAD;
	}
	int rc = load_v2(h, path, &fi->filter2, err, errlen);
	/* An object that serves both but refuses this host's version 2
	 * still serves version 1; without that entry the refusal stands. */
	if (rc == LOAD_V2_REFUSED)
		rc = has_symbol(h, BARO_FILTER_ENTRY_SYMBOL) ? 0 : -EPROTO;
	if (rc == 0)
		rc = load_v1(h, path, &fi->filter, err, errlen);
	if (rc < 0) {
		fi->filter = NULL;
		fi->filter2 = NULL;
		dlclose(h);
		return rc;
	}
	fi->dl_handle = h;
	/* A base name too long for fi->file is cut: it only tells apart. */
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t blen = strnlen(base, sizeof(fi->file) - 1);
	memcpy(fi->file, base, blen);
	fi->file[blen] = '\0';
	return 0;
}

/* f->create() with its message kept apart, so ours can name the filter
 * and an empty or unterminated one from a plugin is still a message. */
static int
create_state(struct baro_filter_instance *fi, const char *params, char *err,
	     size_t errlen)
{
	char msg[256] = "";
	void *state = NULL;
	int rc = fi->filter2 ? fi->filter2->create(&state, params, msg,
						   sizeof(msg))
			     : fi->filter->create(&state, params, msg,
						  sizeof(msg));

	msg[sizeof(msg) - 1] = '\0';
	if (rc == 0) {
		fi->state = state;
		return 0;
	}
	if (rc > 0) {
		snprintf(err, errlen, "%s: create() returned %d, not 0 or a "
			 "negative errno", fi->label, rc);
		return -EBADE;
	}
	if (msg[0] == '\0')
		snprintf(msg, sizeof(msg), "%s", strerror(-rc));
	if (fi->dl_handle)
		snprintf(err, errlen, "plugin %s: %s",
			 baro_filter_instance_name(fi), msg);
	else
		snprintf(err, errlen, "%s", msg);
	return rc;
}

static int
create_plugin(struct baro_filter_instance *fi, const char *rest,
	      unsigned flags, char *err, size_t errlen)
{
	char path[PATH_MAX];
	const char *colon = strchr(rest, ':');
	size_t plen = colon ? (size_t)(colon - rest) : strlen(rest);
	const char *params = colon ? colon + 1 : "";

	if (!(flags & BARO_FILTER_SPEC_PLUGINS)) {
		snprintf(err, errlen, "plugin filters are not allowed here");
		return -EPERM;
	}
	if (plen == 0) {
		snprintf(err, errlen, "plugin: no path (expected "
			 "plugin:PATH[:key=val,...])");
		return -EINVAL;
	}
	const char *dot = memchr(rest, '/', plen) ? "" : "./";
	if (plen + strlen(dot) >= sizeof(path)) {
		snprintf(err, errlen, "plugin: path is too long (%zu bytes)",
			 plen);
		return -ENAMETOOLONG;
	}
	snprintf(path, sizeof(path), "%s%.*s", dot, (int)plen, rest);

	int rc = load_plugin(path, fi, err, errlen);
	if (rc < 0)
		return rc;
	set_label(fi, "plugin:", baro_filter_instance_name(fi), params);
	rc = create_state(fi, params, err, errlen);
	if (rc < 0) {
		dlclose(fi->dl_handle);
		*fi = (struct baro_filter_instance){ 0 };
	}
	return rc;
}

int
baro_filter_instance_create(struct baro_filter_instance *fi, const char *spec,
			    unsigned flags, char *err, size_t errlen)
{
	char name[NAME_MAX_LEN + 1];
	char names[128];
	const char *colon = strchr(spec, ':');
	size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
	const char *rest = colon ? colon + 1 : "";

	*fi = (struct baro_filter_instance){ 0 };
	if (errlen > 0)
		err[0] = '\0';
	if (nlen == 0) {
		snprintf(err, errlen, "empty filter name in '%s' (expected "
			 "NAME[:key=val,...] or plugin:PATH[:key=val,...])",
			 spec);
		return -EINVAL;
	}
	if (nlen == 6 && memcmp(spec, "plugin", 6) == 0)
		return create_plugin(fi, rest, flags, err, errlen);

	const struct baro_filter *f = NULL;
	const struct baro_filter2 *f2 = NULL;
	if (nlen < sizeof(name)) {
		memcpy(name, spec, nlen);
		name[nlen] = '\0';
		f = baro_filter_builtin(name);
		f2 = f ? NULL : baro_filter2_builtin(name);
	}
	if (!f && !f2) {
		builtin_names(names, sizeof(names));
		snprintf(err, errlen, "unknown filter '%.*s' (built-ins: %s; "
			 "or plugin:PATH)", (int)(nlen > 64 ? 64 : nlen), spec,
			 names);
		return -ENOENT;
	}
	fi->filter = f;
	fi->filter2 = f2;
	set_label(fi, "", baro_filter_instance_name(fi), rest);
	int rc = create_state(fi, rest, err, errlen);
	if (rc < 0)
		*fi = (struct baro_filter_instance){ 0 };
	return rc;
}

void
baro_filter_instance_destroy(struct baro_filter_instance *fi)
{
	/* A set filter means create() succeeded, even with a NULL state. */
	if (fi->filter)
		fi->filter->destroy(fi->state);
	else if (fi->filter2)
		fi->filter2->destroy(fi->state);
	if (fi->dl_handle)
		dlclose(fi->dl_handle);
	*fi = (struct baro_filter_instance){ 0 };
}

bool
baro_filter_instance_is_v2(const struct baro_filter_instance *fi)
{
	return fi->filter2 != NULL;
}

const char *
baro_filter_instance_name(const struct baro_filter_instance *fi)
{
	return fi->filter2 ? fi->filter2->name : fi->filter->name;
}

static const struct baro_filter_output2 nothing2 = {
	.alt_m = NAN, .climb_m_s = NAN, .test_ratio = NAN,
};

void
baro_filter_instance_step(struct baro_filter_instance *fi, uint64_t now_us,
			  const struct baro_filter_input *in,
			  struct baro_filter_output *out)
{
	*out = (struct baro_filter_output){ .alt_m = NAN, .test_ratio = NAN };
	if (fi->filter) {
		fi->filter->step(fi->state, now_us, in, out);
		return;
	}
	struct baro_filter_frame fr = { .now_us = now_us, .nbaro = 1 };
	if (in) {
		fr.baro[0] = (struct baro_filter_baro){
			.time_us = in->time_us,
			.flags = BARO_FILTER_SENSOR_VALID |
				 BARO_FILTER_SENSOR_FRESH |
				 (in->flags & BARO_FILTER_IN_HAS_TEMPERATURE
					  ? BARO_FILTER_BARO_HAS_TEMPERATURE
					  : 0u),
			.pressure_pa = in->pressure_pa,
			.temperature_c = in->temperature_c,
			.alt_m = in->alt_m,
		};
	}
	struct baro_filter_output2 o = nothing2;
	fi->filter2->step(fi->state, &fr, &o);
	out->alt_m = o.alt_m;
	out->test_ratio = o.test_ratio;
	out->flags = o.flags;
}

uint32_t
baro_filter_v1_baro_flags(uint32_t flags)
{
	return BARO_FILTER_BARO_OUT_SELECTED |
	       (flags & BARO_FILTER_OUT_HEALTHY ? BARO_FILTER_BARO_OUT_HEALTHY
						: 0u) |
	       (flags & BARO_FILTER_OUT_REJECTED ? BARO_FILTER_BARO_OUT_REJECTED
						 : 0u);
}

void
baro_filter_instance_step2(struct baro_filter_instance *fi,
			   const struct baro_filter_frame *in,
			   struct baro_filter_output2 *out)
{
	*out = nothing2;
	if (fi->filter2) {
		fi->filter2->step(fi->state, in, out);
		return;
	}
	const struct baro_filter_baro *b = &in->baro[0];
	struct baro_filter_output o;
	if (b->flags & BARO_FILTER_SENSOR_FRESH) {
		struct baro_filter_input v1 = {
			.time_us = b->time_us,
			.pressure_pa = b->pressure_pa,
			.temperature_c = b->temperature_c,
			.alt_m = b->alt_m,
			.flags = b->flags & BARO_FILTER_BARO_HAS_TEMPERATURE
					 ? BARO_FILTER_IN_HAS_TEMPERATURE
					 : 0u,
		};
		baro_filter_instance_step(fi, in->now_us, &v1, &o);
	} else {
		baro_filter_instance_step(fi, in->now_us, NULL, &o);
	}
	out->alt_m = o.alt_m;
	out->test_ratio = o.test_ratio;
	out->flags = o.flags;
	out->baro_flags[0] = baro_filter_v1_baro_flags(o.flags);
}

void
baro_filter_instance_reset(struct baro_filter_instance *fi)
{
	if (fi->filter2)
		fi->filter2->reset(fi->state);
	else
		fi->filter->reset(fi->state);
}

size_t
baro_filter_instance_state_size(const struct baro_filter_instance *fi)
{
	size_t (*size)(const void *) = fi->filter2 ? fi->filter2->state_size
						   : fi->filter->state_size;
	return size ? size(fi->state) : 0;
}

int
baro_filter_instance_label_file(struct baro_filter_instance *fi)
{
	const char *prefix = "plugin:";
	size_t pl = strlen(prefix);
	if (!fi->dl_handle || !fi->file[0] ||
	    strncmp(fi->label, prefix, pl) != 0)
		return -EINVAL;
	size_t at = pl + strlen(baro_filter_instance_name(fi));
	size_t len = strlen(fi->label), add = 1 + strlen(fi->file);
	if (len + add >= sizeof(fi->label))
		return -EINVAL;
	memmove(fi->label + at + add, fi->label + at, len - at + 1);
	fi->label[at] = '@';
	memcpy(fi->label + at + 1, fi->file, add - 1);
	return 0;
}
