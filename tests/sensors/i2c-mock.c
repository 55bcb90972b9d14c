/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * umockdev's custom ioctl handler API (0.16+) serving i2c-dev.  umockdev
 * has no i2c-dev support of its own (its recorder knows USB, evdev,
 * hidraw, SPI and ttys), but a handler sees every ioctl on an attached
 * node with the caller's memory reachable through
 * umockdev_ioctl_data_resolve(): the struct the argument points to, then
 * the pointers inside it.  Changes to resolved memory go back to the
 * caller when the ioctl completes.
 */
#include "i2c-mock.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <umockdev.h>

#define MOCK_BUSES 24	/* the registry test puts a chip on a bus each */
#define BUS_CHIPS 8

struct mock_bus {
	struct i2c_mock *mock;
	bool used;
	unsigned n;
	struct emu_chip *chips[BUS_CHIPS];
	size_t n_chips;
	UMockdevIoctlBase *handler;
	struct i2c_mock_counts counts;
};

struct i2c_mock {
	UMockdevTestbed *testbed;
	struct mock_bus buses[MOCK_BUSES];
	const uint64_t *clock_us;	/* the test's, or NULL: monotonic */
};

bool
i2c_mock_preloaded(void)
{
	const char *p = getenv("LD_PRELOAD");

	if (p == NULL || strstr(p, "libumockdev-preload") == NULL)
		return false;
	/* Named is not loaded: the dynamic loader only warns about a
	 * preload library it cannot find, and the test would then talk to
	 * the machine's /dev.  RTLD_NOLOAD finds it only if it is in. */
	void *lib = dlopen("libumockdev-preload.so.0", RTLD_NOW | RTLD_NOLOAD);
	if (lib == NULL)
		return false;
	dlclose(lib);
	return true;
}

int
i2c_mock_skip(const char *test)
{
	printf("%s: skipped: needs umockdev's preload library loaded "
	       "(LD_PRELOAD=libumockdev-preload.so.0, as meson test sets it; "
	       "Debian package libumockdev0, which ./dev deps installs)\n",
	       test);
	return 77;
}

static struct emu_chip *
find_chip(struct mock_bus *bus, unsigned addr)
{
	struct timespec ts;
	uint64_t now;

	/* Every transfer finds its chip here: the chip's clock. */
	if (bus->mock->clock_us != NULL) {
		now = *bus->mock->clock_us;
	} else {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (uint64_t)ts.tv_sec * 1000000u +
		      (uint64_t)ts.tv_nsec / 1000u;
	}
	for (size_t i = 0; i < bus->n_chips; i++) {
		if (bus->chips[i]->addr == addr) {
			bus->chips[i]->now_us = now;
			return bus->chips[i];
		}
	}
	return NULL;
}

/* I2C_SLAVE is per open file, as in the kernel: kept on the client,
 * which umockdev creates once per connection (one per fd). */
static unsigned
client_addr(UMockdevIoctlClient *client)
{
	return GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(client), "i2c-addr"));
}

static UMockdevIoctlData *
resolve(UMockdevIoctlData *parent, size_t offset, size_t len)
{
	GError *error = NULL;
	UMockdevIoctlData *d = umockdev_ioctl_data_resolve(parent, offset, len,
							    &error);

	if (error != NULL) {
		fprintf(stderr, "i2c-mock: resolve: %s\n", error->message);
		g_error_free(error);
		return NULL;
	}
	return d;
}

/* One SMBus transaction; 0 or -errno. */
static int
smbus(struct emu_chip *chip, const struct i2c_smbus_ioctl_data *req,
      union i2c_smbus_data *data)
{
	bool rd = req->read_write == I2C_SMBUS_READ;
	uint8_t len;

	switch (req->size) {
	case I2C_SMBUS_BYTE:
		/* Send byte: the command alone; receive byte: from the
		 * pointer. */
		return rd ? emu_chip_read(chip, chip->ptr, &data->byte, 1) :
			    emu_chip_write(chip, req->command, NULL, 0);
	case I2C_SMBUS_BYTE_DATA:
		return rd ? emu_chip_read(chip, req->command, &data->byte, 1) :
			    emu_chip_write(chip, req->command, &data->byte, 1);
	case I2C_SMBUS_WORD_DATA: {
		uint8_t w[2] = { (uint8_t)data->word, (uint8_t)(data->word >> 8) };
		int ret = rd ? emu_chip_read(chip, req->command, w, 2) :
			       emu_chip_write(chip, req->command, w, 2);

		data->word = (uint16_t)(w[0] | w[1] << 8);
		return ret;
	}
	case I2C_SMBUS_I2C_BLOCK_BROKEN:
	case I2C_SMBUS_I2C_BLOCK_DATA:
		len = data->block[0];
		if (len == 0 || len > I2C_SMBUS_BLOCK_MAX)
			return -EINVAL;
		return rd ? emu_chip_read(chip, req->command, data->block + 1, len) :
			    emu_chip_write(chip, req->command, data->block + 1,
					   len);
	default:
		return -EOPNOTSUPP;
	}
}

/* The wire shape of an SMBus transaction: a write is START, address,
 * command, data; a read is the command written, then a repeated START
 * and the data read (receive byte: the read alone). */
static void
count_smbus(struct mock_bus *bus, const struct i2c_smbus_ioctl_data *req,
	    const union i2c_smbus_data *data)
{
	bool rd = req->read_write == I2C_SMBUS_READ;
	enum i2c_mock_xfer_kind kind;
	unsigned long n;

	switch (req->size) {
	case I2C_SMBUS_BYTE:
		kind = rd ? I2C_MOCK_RECV_BYTE : I2C_MOCK_SEND_BYTE;
		n = 0;
		break;
	case I2C_SMBUS_BYTE_DATA:
		kind = rd ? I2C_MOCK_READ_BYTE_DATA : I2C_MOCK_WRITE_BYTE_DATA;
		n = 1;
		break;
	case I2C_SMBUS_WORD_DATA:
		kind = rd ? I2C_MOCK_READ_WORD_DATA : I2C_MOCK_WRITE_WORD_DATA;
		n = 2;
		break;
	default:	/* the I2C block kinds, the only others served */
		kind = rd ? I2C_MOCK_READ_I2C_BLOCK : I2C_MOCK_WRITE_I2C_BLOCK;
		n = data->block[0];
		break;
	}
	struct i2c_mock_xfer *x = &bus->counts.xfer[kind];
	x->transfers++;
	if (kind == I2C_MOCK_RECV_BYTE) {
		x->starts++;
		x->in++;
	} else if (rd) {
		x->starts += 2;
		x->out++;
		x->in += n;
	} else {
		x->starts++;
		x->out += 1 + n;
	}
}

static void
handle_smbus(struct mock_bus *bus, UMockdevIoctlClient *client)
{
	UMockdevIoctlData *arg = umockdev_ioctl_client_get_arg(client);
	UMockdevIoctlData *req_d, *data_d = NULL;
	struct emu_chip *chip = find_chip(bus, client_addr(client));
	int ret;

	req_d = resolve(arg, 0, sizeof(struct i2c_smbus_ioctl_data));
	if (req_d == NULL) {
		umockdev_ioctl_client_complete(client, -1, EFAULT);
		return;
	}
	struct i2c_smbus_ioctl_data *req = (void *)req_d->data;
	/* A send byte carries no data (libi2c passes NULL). */
	bool no_data = req->size == I2C_SMBUS_BYTE &&
		       req->read_write == I2C_SMBUS_WRITE;
	union i2c_smbus_data none = { 0 };
	if (!no_data)
		data_d = resolve(req_d, offsetof(struct i2c_smbus_ioctl_data, data),
				 sizeof(union i2c_smbus_data));
	if (!no_data && data_d == NULL)
		ret = -EFAULT;
	else if (chip == NULL)
		ret = -EREMOTEIO;	/* nobody acknowledges the address */
	else
		ret = smbus(chip, req, no_data ? &none :
				       (union i2c_smbus_data *)data_d->data);
	if (ret < 0)
		bus->counts.failed++;
	else
		count_smbus(bus, req, no_data ? &none :
				      (union i2c_smbus_data *)data_d->data);
	umockdev_ioctl_client_complete(client, ret < 0 ? -1 : 0,
				       ret < 0 ? -ret : 0);
	if (data_d != NULL)
		g_object_unref(data_d);
	g_object_unref(req_d);
}

/* Plain I2C messages: a write sets the register pointer and writes any
 * further bytes, a read continues from the pointer. */
static void
handle_rdwr(struct mock_bus *bus, UMockdevIoctlClient *client)
{
	UMockdevIoctlData *arg = umockdev_ioctl_client_get_arg(client);
	UMockdevIoctlData *rdwr_d, *msgs_d = NULL;
	int ret = 0;

	rdwr_d = resolve(arg, 0, sizeof(struct i2c_rdwr_ioctl_data));
	if (rdwr_d == NULL) {
		umockdev_ioctl_client_complete(client, -1, EFAULT);
		return;
	}
	struct i2c_rdwr_ioctl_data *rdwr = (void *)rdwr_d->data;
	uint32_t n = rdwr->nmsgs;
	if (n == 0 || n > I2C_RDWR_IOCTL_MAX_MSGS)
		ret = -EINVAL;
	else if ((msgs_d = resolve(rdwr_d, 0, n * sizeof(struct i2c_msg))) == NULL)
		ret = -EFAULT;
	for (uint32_t i = 0; ret == 0 && i < n; i++) {
		struct i2c_msg *m = (struct i2c_msg *)msgs_d->data + i;
		struct emu_chip *chip = find_chip(bus, m->addr);
		UMockdevIoctlData *buf_d = NULL;

		if (m->len > 0) {
			buf_d = resolve(msgs_d, i * sizeof(*m) +
					offsetof(struct i2c_msg, buf), m->len);
			if (buf_d == NULL) {
				ret = -EFAULT;
				break;
			}
		}
		if (chip == NULL)
			ret = -EREMOTEIO;
		else if (m->flags & I2C_M_RD)
			ret = emu_chip_read(chip, chip->ptr, buf_d->data, m->len);
		else if (m->len > 0)
			ret = emu_chip_write(chip, buf_d->data[0], buf_d->data + 1,
					     m->len - 1u);
		if (buf_d != NULL)
			g_object_unref(buf_d);
		/* Each message is a START (repeated after the first) and
		 * the address, then its bytes. */
		if (ret < 0) {
			bus->counts.failed++;
		} else {
			bool rd = m->flags & I2C_M_RD;
			struct i2c_mock_xfer *x = &bus->counts.xfer[
				rd ? I2C_MOCK_RDWR_READ : I2C_MOCK_RDWR_WRITE];

			x->transfers++;
			x->starts++;
			if (rd)
				x->in += m->len;
			else
				x->out += m->len;
		}
	}
	umockdev_ioctl_client_complete(client, ret < 0 ? -1 : (glong)n,
				       ret < 0 ? -ret : 0);
	if (msgs_d != NULL)
		g_object_unref(msgs_d);
	g_object_unref(rdwr_d);
}

static gboolean
handle_ioctl(UMockdevIoctlBase *base, UMockdevIoctlClient *client,
	     gpointer user_data)
{
	struct mock_bus *bus = user_data;
	UMockdevIoctlData *arg = umockdev_ioctl_client_get_arg(client);
	unsigned long request = umockdev_ioctl_client_get_request(client);
	unsigned long value = 0;

	(void)base;
	bus->counts.ioctls++;
	switch (request) {
	case I2C_SLAVE:
	case I2C_SLAVE_FORCE: {
		/* The argument is the address itself, not a pointer. */
		memcpy(&value, arg->data, sizeof(value));
		struct emu_chip *chip = find_chip(bus, (unsigned)value);
		if (value > 0x7f) {
			umockdev_ioctl_client_complete(client, -1, EINVAL);
		} else if (request == I2C_SLAVE && chip != NULL &&
			   chip->kernel_owned) {
			umockdev_ioctl_client_complete(client, -1, EBUSY);
		} else {
			g_object_set_data(G_OBJECT(client), "i2c-addr",
					  GUINT_TO_POINTER((unsigned)value));
			umockdev_ioctl_client_complete(client, 0, 0);
		}
		return TRUE;
	}
	case I2C_FUNCS: {
		UMockdevIoctlData *f = resolve(arg, 0, sizeof(unsigned long));
		value = I2C_FUNC_I2C | I2C_FUNC_SMBUS_EMUL;
		if (f == NULL) {
			umockdev_ioctl_client_complete(client, -1, EFAULT);
			return TRUE;
		}
		memcpy(f->data, &value, sizeof(value));
		umockdev_ioctl_client_complete(client, 0, 0);
		g_object_unref(f);
		return TRUE;
	}
	case I2C_SMBUS:
		handle_smbus(bus, client);
		return TRUE;
	case I2C_RDWR:
		handle_rdwr(bus, client);
		return TRUE;
	default:
		umockdev_ioctl_client_complete(client, -1, ENOTTY);
		return TRUE;
	}
}

struct i2c_mock *
i2c_mock_new(void)
{
	if (!i2c_mock_preloaded())
		return NULL;
	struct i2c_mock *mock = calloc(1, sizeof(*mock));
	if (mock == NULL)
		return NULL;
	mock->testbed = umockdev_testbed_new();
	return mock;
}

void
i2c_mock_free(struct i2c_mock *mock)
{
	if (mock == NULL)
		return;
	for (size_t i = 0; i < MOCK_BUSES; i++) {
		struct mock_bus *bus = &mock->buses[i];
		char dev[32];

		if (!bus->used)
			continue;
		snprintf(dev, sizeof(dev), "/dev/i2c-%u", bus->n);
		umockdev_testbed_detach_ioctl(mock->testbed, dev, NULL);
		g_object_unref(bus->handler);
	}
	g_object_unref(mock->testbed);
	free(mock);
}

int
i2c_mock_add_bus(struct i2c_mock *mock, unsigned n)
{
	struct mock_bus *bus = NULL;
	GError *error = NULL;
	char desc[256], dev[32];

	for (size_t i = 0; i < MOCK_BUSES && bus == NULL; i++)
		if (!mock->buses[i].used)
			bus = &mock->buses[i];
	if (bus == NULL)
		return -ENOSPC;

	/* A uevent-style record: add_device() with DEVNAME alone does not
	 * create the /dev node, this does. */
	snprintf(desc, sizeof(desc),
		 "P: /devices/platform/i2c-mock.%u/i2c-%u/i2c-dev/i2c-%u\n"
		 "N: i2c-%u\n"
		 "E: SUBSYSTEM=i2c-dev\n"
		 "E: DEVNAME=/dev/i2c-%u\n"
		 "A: dev=89:%u\n",
		 n, n, n, n, n, n);
	if (!umockdev_testbed_add_from_string(mock->testbed, desc, &error)) {
		fprintf(stderr, "i2c-mock: add bus %u: %s\n", n, error->message);
		g_error_free(error);
		return -EIO;
	}
	snprintf(dev, sizeof(dev), "/dev/i2c-%u", n);
	bus->handler = umockdev_ioctl_base_new();
	g_signal_connect(bus->handler, "handle-ioctl", G_CALLBACK(handle_ioctl),
			 bus);
	if (!umockdev_testbed_attach_ioctl(mock->testbed, dev, bus->handler,
					   &error)) {
		fprintf(stderr, "i2c-mock: attach %s: %s\n", dev, error->message);
		g_error_free(error);
		g_object_unref(bus->handler);
		return -EIO;
	}
	bus->used = true;
	bus->mock = mock;
	bus->n = n;
	return 0;
}

int
i2c_mock_add_gpiochip(struct i2c_mock *mock, unsigned n)
{
	GError *error = NULL;
	char desc[256];

	/* 254 is a usual dynamic major for gpiochips; nothing opens the
	 * node for real. */
	snprintf(desc, sizeof(desc),
		 "P: /devices/platform/gpio-mock.%u/gpiochip%u\n"
		 "N: gpiochip%u\n"
		 "E: SUBSYSTEM=gpio\n"
		 "E: DEVNAME=/dev/gpiochip%u\n"
		 "A: dev=254:%u\n",
		 n, n, n, n, n);
	if (!umockdev_testbed_add_from_string(mock->testbed, desc, &error)) {
		fprintf(stderr, "i2c-mock: add gpiochip%u: %s\n", n,
			error->message);
		g_error_free(error);
		return -EIO;
	}
	return 0;
}

void
i2c_mock_attach(struct i2c_mock *mock, unsigned n, struct emu_chip *chip)
{
	for (size_t i = 0; i < MOCK_BUSES; i++) {
		struct mock_bus *bus = &mock->buses[i];

		if (bus->used && bus->n == n && bus->n_chips < BUS_CHIPS) {
			bus->chips[bus->n_chips++] = chip;
			return;
		}
	}
}

const char *
i2c_mock_xfer_name(enum i2c_mock_xfer_kind kind)
{
	static const char *const names[I2C_MOCK_XFER_KINDS] = {
		[I2C_MOCK_SEND_BYTE] = "send-byte",
		[I2C_MOCK_RECV_BYTE] = "receive-byte",
		[I2C_MOCK_WRITE_BYTE_DATA] = "write-byte-data",
		[I2C_MOCK_READ_BYTE_DATA] = "read-byte-data",
		[I2C_MOCK_WRITE_WORD_DATA] = "write-word-data",
		[I2C_MOCK_READ_WORD_DATA] = "read-word-data",
		[I2C_MOCK_WRITE_I2C_BLOCK] = "i2c-block-write",
		[I2C_MOCK_READ_I2C_BLOCK] = "i2c-block-read",
		[I2C_MOCK_RDWR_WRITE] = "rdwr-write",
		[I2C_MOCK_RDWR_READ] = "rdwr-read",
	};

	return (unsigned)kind < I2C_MOCK_XFER_KINDS ? names[kind] : "?";
}

void
i2c_mock_counts(const struct i2c_mock *mock, unsigned n,
		struct i2c_mock_counts *out)
{
	*out = (struct i2c_mock_counts){ 0 };
	for (size_t i = 0; i < MOCK_BUSES; i++)
		if (mock->buses[i].used && mock->buses[i].n == n)
			*out = mock->buses[i].counts;
}

void
i2c_mock_counts_reset(struct i2c_mock *mock, unsigned n)
{
	for (size_t i = 0; i < MOCK_BUSES; i++)
		if (mock->buses[i].used && mock->buses[i].n == n)
			mock->buses[i].counts = (struct i2c_mock_counts){ 0 };
}

struct i2c_mock_xfer
i2c_mock_counts_total(const struct i2c_mock_counts *c)
{
	struct i2c_mock_xfer t = { 0 };

	for (size_t k = 0; k < I2C_MOCK_XFER_KINDS; k++) {
		t.transfers += c->xfer[k].transfers;
		t.starts += c->xfer[k].starts;
		t.out += c->xfer[k].out;
		t.in += c->xfer[k].in;
	}
	return t;
}

void
i2c_mock_set_clock(struct i2c_mock *mock, const uint64_t *now_us)
{
	mock->clock_us = now_us;
}
