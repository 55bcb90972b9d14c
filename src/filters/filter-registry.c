/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "filter-registry.h"

#include <dlfcn.h>
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
	for (size_t i = 0; i < N_BUILTINS && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s",
				 i ? ", " : "", builtins[i]->name);
		if (w < 0)
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

/* The plugin's filter table, checked; the handle stays open on success. */
static int
load_plugin(const char *path, void **handle,
	    const struct baro_filter **filter, char *err, size_t errlen)
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
	(void)dlerror();
	void *sym = dlsym(h, BARO_FILTER_ENTRY_SYMBOL);
	if (!sym) {
		snprintf(err, errlen, "plugin %s: no %s symbol (export "
			 "const struct baro_filter *%s(uint32_t), see "
			 "<barod/baro-filter.h>)", path,
			 BARO_FILTER_ENTRY_SYMBOL, BARO_FILTER_ENTRY_SYMBOL);
		dlclose(h);
		return -ELIBBAD;
	}
	/* ISO C has no object-to-function pointer cast; POSIX guarantees
	 * the representations agree. */
	baro_filter_entry_fn entry;
	memcpy(&entry, &sym, sizeof(entry));

	const struct baro_filter *f = entry(BARO_FILTER_ABI_VERSION);
	if (!f) {
		snprintf(err, errlen, "plugin %s: %s(%u) returned NULL: the "
			 "filter does not support ABI version %u", path,
			 BARO_FILTER_ENTRY_SYMBOL, BARO_FILTER_ABI_VERSION,
			 BARO_FILTER_ABI_VERSION);
		dlclose(h);
		return -EPROTO;
	}
	if (f->abi_version != BARO_FILTER_ABI_VERSION) {
		snprintf(err, errlen, "plugin %s: filter ABI version %u, this "
			 "program speaks %u (rebuild the filter against its "
			 "<barod/baro-filter.h>)", path,
			 (unsigned)f->abi_version, BARO_FILTER_ABI_VERSION);
		dlclose(h);
		return -EPROTO;
	}
	const char *missing = !f->create    ? "create"
			      : !f->step    ? "step"
			      : !f->reset   ? "reset"
			      : !f->destroy ? "destroy"
					    : NULL;
	if (missing) {
		snprintf(err, errlen, "plugin %s: the filter has no %s() "
			 "callback (NULL)", path, missing);
		dlclose(h);
		return -EBADE;
	}
	if (!f->name || !valid_name(f->name)) {
		snprintf(err, errlen, "plugin %s: the filter's name is %s, "
			 "not 1 to %d of [a-z0-9_-]", path,
			 f->name ? "invalid" : "NULL", NAME_MAX_LEN);
		dlclose(h);
		return -EBADE;
	}
	*handle = h;
	*filter = f;
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
	int rc = fi->filter->create(&state, params, msg, sizeof(msg));

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
		snprintf(err, errlen, "plugin %s: %s", fi->filter->name, msg);
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

	int rc = load_plugin(path, &fi->dl_handle, &fi->filter, err, errlen);
	if (rc < 0)
		return rc;
	set_label(fi, "plugin:", fi->filter->name, params);
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
	if (nlen < sizeof(name)) {
		memcpy(name, spec, nlen);
		name[nlen] = '\0';
		f = baro_filter_builtin(name);
	}
	if (!f) {
		builtin_names(names, sizeof(names));
		snprintf(err, errlen, "unknown filter '%.*s' (built-ins: %s; "
			 "or plugin:PATH)", (int)(nlen > 64 ? 64 : nlen), spec,
			 names);
		return -ENOENT;
	}
	fi->filter = f;
	set_label(fi, "", f->name, rest);
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
	if (fi->dl_handle)
		dlclose(fi->dl_handle);
	*fi = (struct baro_filter_instance){ 0 };
}

void
baro_filter_instance_step(struct baro_filter_instance *fi, uint64_t now_us,
			  const struct baro_filter_input *in,
			  struct baro_filter_output *out)
{
	*out = (struct baro_filter_output){ .alt_m = NAN, .test_ratio = NAN };
	fi->filter->step(fi->state, now_us, in, out);
}

void
baro_filter_instance_reset(struct baro_filter_instance *fi)
{
	fi->filter->reset(fi->state);
}

size_t
baro_filter_instance_state_size(const struct baro_filter_instance *fi)
{
	return fi->filter->state_size ? fi->filter->state_size(fi->state) : 0;
}
