// SPDX-License-Identifier: GPL-3.0-or-later
/* Placeholder until the csv reader lands: recognises nothing. */
#include "log-reader.h"

#include <errno.h>

static bool
sniff(const uint8_t *head, size_t len)
{
	(void)head;
	(void)len;
	return false;
}

static int
open_(void **priv, struct log_input *in, struct log_info *info, char *err,
      size_t errlen)
{
	(void)priv; (void)in; (void)info; (void)err; (void)errlen;
	return -ENOSYS;
}

static int
next(void *priv, struct log_input *in, struct log_record *rec,
     struct log_info *info, char *err, size_t errlen)
{
	(void)priv; (void)in; (void)rec; (void)info; (void)err; (void)errlen;
	return -ENOSYS;
}

static void
list_types(void *priv, log_type_cb cb, void *ud)
{
	(void)priv; (void)cb; (void)ud;
}

static const char *
channel_name(void *priv, unsigned channel)
{
	(void)priv;
	(void)channel;
	return NULL;
}

static void
close_(void *priv)
{
	(void)priv;
}

const struct log_format_ops log_format_csv = {
	.name = "csv", .sniff = sniff, .open = open_, .next = next,
	.list_types = list_types, .channel_name = channel_name,
	.close = close_,
};
