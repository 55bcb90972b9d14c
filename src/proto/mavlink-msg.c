/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Pack and unpack of each message, field by field at the offsets of the
 * facts sheet's section 10, little-endian whatever the host.  Offsets are
 * written out as numbers so they can be checked against the sheet by eye.
 */
#include <errno.h>
#include <math.h>

#include "mavlink.h"
#include "util-endian.h"

#include <string.h>


/* A char[n] field: the string up to n chars, NUL-padded, and no NUL at
 * all when it fills the field (so s need not be terminated at n). */
static void
put_chars(uint8_t *p, const char *s, size_t n)
{
	size_t i = 0;

	for (; i < n && s[i] != '\0'; i++)
		p[i] = (uint8_t)s[i];
	memset(p + i, 0, n - i);
}

/* Into s[n + 1], always terminated; bytes after a NUL on the wire are not
 * text and are cleared so equal strings unpack to equal structs. */
static void
get_chars(const uint8_t *p, size_t n, char *s)
{
	size_t i = 0;

	for (; i < n && p[i] != 0; i++)
		s[i] = (char)p[i];
	memset(s + i, 0, n + 1 - i);
}

size_t
mavlink_pack_heartbeat(const struct mavlink_heartbeat *m, uint8_t *pl)
{
	le_put32(pl + 0, m->custom_mode);
	pl[4] = m->type;
	pl[5] = m->autopilot;
	pl[6] = m->base_mode;
	pl[7] = m->system_status;
	pl[8] = m->mavlink_version;
	return 9;
}

void
mavlink_unpack_heartbeat(const uint8_t *pl, struct mavlink_heartbeat *m)
{
	memset(m, 0, sizeof(*m));
	m->custom_mode = le_get32(pl + 0);
	m->type = pl[4];
	m->autopilot = pl[5];
	m->base_mode = pl[6];
	m->system_status = pl[7];
	m->mavlink_version = pl[8];
}

size_t
mavlink_pack_system_time(const struct mavlink_system_time *m, uint8_t *pl)
{
	le_put64(pl + 0, m->time_unix_usec);
	le_put32(pl + 8, m->time_boot_ms);
	return 12;
}

void
mavlink_unpack_system_time(const uint8_t *pl, struct mavlink_system_time *m)
{
	memset(m, 0, sizeof(*m));
	m->time_unix_usec = le_get64(pl + 0);
	m->time_boot_ms = le_get32(pl + 8);
}

size_t
mavlink_pack_global_position_int(const struct mavlink_global_position_int *m,
				 uint8_t *pl)
{
	le_put32(pl + 0, m->time_boot_ms);
	le_put32(pl + 4, (uint32_t)m->lat);
	le_put32(pl + 8, (uint32_t)m->lon);
	le_put32(pl + 12, (uint32_t)m->alt);
	le_put32(pl + 16, (uint32_t)m->relative_alt);
	le_put16(pl + 20, (uint16_t)m->vx);
	le_put16(pl + 22, (uint16_t)m->vy);
	le_put16(pl + 24, (uint16_t)m->vz);
	le_put16(pl + 26, m->hdg);
	return 28;
}

void
mavlink_unpack_global_position_int(const uint8_t *pl,
				   struct mavlink_global_position_int *m)
{
	memset(m, 0, sizeof(*m));
	m->time_boot_ms = le_get32(pl + 0);
	m->lat = (int32_t)le_get32(pl + 4);
	m->lon = (int32_t)le_get32(pl + 8);
	m->alt = (int32_t)le_get32(pl + 12);
	m->relative_alt = (int32_t)le_get32(pl + 16);
	m->vx = le_get_i16(pl + 20);
	m->vy = le_get_i16(pl + 22);
	m->vz = le_get_i16(pl + 24);
	m->hdg = le_get16(pl + 26);
}

/* Offsets 36..59 (the custom version strings) and the uid2 extension
 * are written as zeros and not read. */
size_t
mavlink_pack_autopilot_version(const struct mavlink_autopilot_version *m,
			       uint8_t *pl)
{
	memset(pl, 0, 78);
	le_put64(pl + 0, m->capabilities);
	le_put64(pl + 8, m->uid);
	le_put32(pl + 16, m->flight_sw_version);
	le_put32(pl + 20, m->middleware_sw_version);
	le_put32(pl + 24, m->os_sw_version);
	le_put32(pl + 28, m->board_version);
	le_put16(pl + 32, m->vendor_id);
	le_put16(pl + 34, m->product_id);
	return 78;
}

void
mavlink_unpack_autopilot_version(const uint8_t *pl,
				 struct mavlink_autopilot_version *m)
{
	memset(m, 0, sizeof(*m));
	m->capabilities = le_get64(pl + 0);
	m->uid = le_get64(pl + 8);
	m->flight_sw_version = le_get32(pl + 16);
	m->middleware_sw_version = le_get32(pl + 20);
	m->os_sw_version = le_get32(pl + 24);
	m->board_version = le_get32(pl + 28);
	m->vendor_id = le_get16(pl + 32);
	m->product_id = le_get16(pl + 34);
}

size_t
mavlink_pack_scaled_pressure(const struct mavlink_scaled_pressure *m,
			     uint8_t *pl)
{
	le_put32(pl + 0, m->time_boot_ms);
	le_put_f32(pl + 4, m->press_abs);
	le_put_f32(pl + 8, m->press_diff);
	le_put16(pl + 12, (uint16_t)m->temperature);
	le_put16(pl + 14, (uint16_t)m->temperature_press_diff);
	return 16;
}

void
mavlink_unpack_scaled_pressure(const uint8_t *pl,
			       struct mavlink_scaled_pressure *m)
{
	memset(m, 0, sizeof(*m));
	m->time_boot_ms = le_get32(pl + 0);
	m->press_abs = le_get_f32(pl + 4);
	m->press_diff = le_get_f32(pl + 8);
	m->temperature = le_get_i16(pl + 12);
	m->temperature_press_diff = le_get_i16(pl + 14);
}

size_t
mavlink_pack_hil_sensor(const struct mavlink_hil_sensor *m, uint8_t *pl)
{
	le_put64(pl + 0, m->time_usec);
	le_put_f32(pl + 8, m->xacc);
	le_put_f32(pl + 12, m->yacc);
	le_put_f32(pl + 16, m->zacc);
	le_put_f32(pl + 20, m->xgyro);
	le_put_f32(pl + 24, m->ygyro);
	le_put_f32(pl + 28, m->zgyro);
	le_put_f32(pl + 32, m->xmag);
	le_put_f32(pl + 36, m->ymag);
	le_put_f32(pl + 40, m->zmag);
	le_put_f32(pl + 44, m->abs_pressure);
	le_put_f32(pl + 48, m->diff_pressure);
	le_put_f32(pl + 52, m->pressure_alt);
	le_put_f32(pl + 56, m->temperature);
	le_put32(pl + 60, m->fields_updated);
	pl[64] = m->id;
	return 65;
}

void
mavlink_unpack_hil_sensor(const uint8_t *pl, struct mavlink_hil_sensor *m)
{
	memset(m, 0, sizeof(*m));
	m->time_usec = le_get64(pl + 0);
	m->xacc = le_get_f32(pl + 8);
	m->yacc = le_get_f32(pl + 12);
	m->zacc = le_get_f32(pl + 16);
	m->xgyro = le_get_f32(pl + 20);
	m->ygyro = le_get_f32(pl + 24);
	m->zgyro = le_get_f32(pl + 28);
	m->xmag = le_get_f32(pl + 32);
	m->ymag = le_get_f32(pl + 36);
	m->zmag = le_get_f32(pl + 40);
	m->abs_pressure = le_get_f32(pl + 44);
	m->diff_pressure = le_get_f32(pl + 48);
	m->pressure_alt = le_get_f32(pl + 52);
	m->temperature = le_get_f32(pl + 56);
	m->fields_updated = le_get32(pl + 60);
	m->id = pl[64];
}

size_t
mavlink_pack_hil_actuator_controls(const struct mavlink_hil_actuator_controls *m,
				   uint8_t *pl)
{
	le_put64(pl + 0, m->time_usec);
	le_put64(pl + 8, m->flags);
	for (int i = 0; i < 16; i++)
		le_put_f32(pl + 16 + 4 * i, m->controls[i]);
	pl[80] = m->mode;
	return 81;
}

void
mavlink_unpack_hil_actuator_controls(const uint8_t *pl,
				     struct mavlink_hil_actuator_controls *m)
{
	memset(m, 0, sizeof(*m));
	m->time_usec = le_get64(pl + 0);
	m->flags = le_get64(pl + 8);
	for (int i = 0; i < 16; i++)
		m->controls[i] = le_get_f32(pl + 16 + 4 * i);
	m->mode = pl[80];
}

size_t
mavlink_pack_hil_gps(const struct mavlink_hil_gps *m, uint8_t *pl)
{
	le_put64(pl + 0, m->time_usec);
	le_put32(pl + 8, (uint32_t)m->lat);
	le_put32(pl + 12, (uint32_t)m->lon);
	le_put32(pl + 16, (uint32_t)m->alt);
	le_put16(pl + 20, m->eph);
	le_put16(pl + 22, m->epv);
	le_put16(pl + 24, m->vel);
	le_put16(pl + 26, (uint16_t)m->vn);
	le_put16(pl + 28, (uint16_t)m->ve);
	le_put16(pl + 30, (uint16_t)m->vd);
	le_put16(pl + 32, m->cog);
	pl[34] = m->fix_type;
	pl[35] = m->satellites_visible;
	pl[36] = m->id;
	le_put16(pl + 37, m->yaw);
	return 39;
}

void
mavlink_unpack_hil_gps(const uint8_t *pl, struct mavlink_hil_gps *m)
{
	memset(m, 0, sizeof(*m));
	m->time_usec = le_get64(pl + 0);
	m->lat = le_get_i32(pl + 8);
	m->lon = le_get_i32(pl + 12);
	m->alt = le_get_i32(pl + 16);
	m->eph = le_get16(pl + 20);
	m->epv = le_get16(pl + 22);
	m->vel = le_get16(pl + 24);
	m->vn = le_get_i16(pl + 26);
	m->ve = le_get_i16(pl + 28);
	m->vd = le_get_i16(pl + 30);
	m->cog = le_get16(pl + 32);
	m->fix_type = pl[34];
	m->satellites_visible = pl[35];
	m->id = pl[36];
	m->yaw = le_get16(pl + 37);
}

size_t
mavlink_pack_hil_state_quaternion(const struct mavlink_hil_state_quaternion *m,
				  uint8_t *pl)
{
	le_put64(pl + 0, m->time_usec);
	for (int i = 0; i < 4; i++)
		le_put_f32(pl + 8 + 4 * i, m->attitude_quaternion[i]);
	le_put_f32(pl + 24, m->rollspeed);
	le_put_f32(pl + 28, m->pitchspeed);
	le_put_f32(pl + 32, m->yawspeed);
	le_put32(pl + 36, (uint32_t)m->lat);
	le_put32(pl + 40, (uint32_t)m->lon);
	le_put32(pl + 44, (uint32_t)m->alt);
	le_put16(pl + 48, (uint16_t)m->vx);
	le_put16(pl + 50, (uint16_t)m->vy);
	le_put16(pl + 52, (uint16_t)m->vz);
	le_put16(pl + 54, m->ind_airspeed);
	le_put16(pl + 56, m->true_airspeed);
	le_put16(pl + 58, (uint16_t)m->xacc);
	le_put16(pl + 60, (uint16_t)m->yacc);
	le_put16(pl + 62, (uint16_t)m->zacc);
	return 64;
}

void
mavlink_unpack_hil_state_quaternion(const uint8_t *pl,
				    struct mavlink_hil_state_quaternion *m)
{
	memset(m, 0, sizeof(*m));
	m->time_usec = le_get64(pl + 0);
	for (int i = 0; i < 4; i++)
		m->attitude_quaternion[i] = le_get_f32(pl + 8 + 4 * i);
	m->rollspeed = le_get_f32(pl + 24);
	m->pitchspeed = le_get_f32(pl + 28);
	m->yawspeed = le_get_f32(pl + 32);
	m->lat = le_get_i32(pl + 36);
	m->lon = le_get_i32(pl + 40);
	m->alt = le_get_i32(pl + 44);
	m->vx = le_get_i16(pl + 48);
	m->vy = le_get_i16(pl + 50);
	m->vz = le_get_i16(pl + 52);
	m->ind_airspeed = le_get16(pl + 54);
	m->true_airspeed = le_get16(pl + 56);
	m->xacc = le_get_i16(pl + 58);
	m->yacc = le_get_i16(pl + 60);
	m->zacc = le_get_i16(pl + 62);
}

size_t
mavlink_pack_param_request_read(const struct mavlink_param_request_read *m,
				uint8_t *pl)
{
	le_put16(pl + 0, (uint16_t)m->param_index);
	pl[2] = m->target_system;
	pl[3] = m->target_component;
	put_chars(pl + 4, m->param_id, 16);
	return 20;
}

void
mavlink_unpack_param_request_read(const uint8_t *pl,
				  struct mavlink_param_request_read *m)
{
	memset(m, 0, sizeof(*m));
	m->param_index = le_get_i16(pl + 0);
	m->target_system = pl[2];
	m->target_component = pl[3];
	get_chars(pl + 4, 16, m->param_id);
}

size_t
mavlink_pack_param_request_list(const struct mavlink_param_request_list *m,
				uint8_t *pl)
{
	pl[0] = m->target_system;
	pl[1] = m->target_component;
	return 2;
}

void
mavlink_unpack_param_request_list(const uint8_t *pl,
				  struct mavlink_param_request_list *m)
{
	memset(m, 0, sizeof(*m));
	m->target_system = pl[0];
	m->target_component = pl[1];
}

size_t
mavlink_pack_param_value(const struct mavlink_param_value *m, uint8_t *pl)
{
	le_put_f32(pl + 0, m->param_value);
	le_put16(pl + 4, m->param_count);
	le_put16(pl + 6, m->param_index);
	put_chars(pl + 8, m->param_id, 16);
	pl[24] = m->param_type;
	return 25;
}

void
mavlink_unpack_param_value(const uint8_t *pl, struct mavlink_param_value *m)
{
	memset(m, 0, sizeof(*m));
	m->param_value = le_get_f32(pl + 0);
	m->param_count = le_get16(pl + 4);
	m->param_index = le_get16(pl + 6);
	get_chars(pl + 8, 16, m->param_id);
	m->param_type = pl[24];
}

size_t
mavlink_pack_param_set(const struct mavlink_param_set *m, uint8_t *pl)
{
	le_put_f32(pl + 0, m->param_value);
	pl[4] = m->target_system;
	pl[5] = m->target_component;
	put_chars(pl + 6, m->param_id, 16);
	pl[22] = m->param_type;
	return 23;
}

void
mavlink_unpack_param_set(const uint8_t *pl, struct mavlink_param_set *m)
{
	memset(m, 0, sizeof(*m));
	m->param_value = le_get_f32(pl + 0);
	m->target_system = pl[4];
	m->target_component = pl[5];
	get_chars(pl + 6, 16, m->param_id);
	m->param_type = pl[22];
}

size_t
mavlink_pack_command_long(const struct mavlink_command_long *m, uint8_t *pl)
{
	for (int i = 0; i < 7; i++)
		le_put_f32(pl + 4 * i, m->param[i]);
	le_put16(pl + 28, m->command);
	pl[30] = m->target_system;
	pl[31] = m->target_component;
	pl[32] = m->confirmation;
	return 33;
}

void
mavlink_unpack_command_long(const uint8_t *pl, struct mavlink_command_long *m)
{
	memset(m, 0, sizeof(*m));
	for (int i = 0; i < 7; i++)
		m->param[i] = le_get_f32(pl + 4 * i);
	m->command = le_get16(pl + 28);
	m->target_system = pl[30];
	m->target_component = pl[31];
	m->confirmation = pl[32];
}

size_t
mavlink_pack_command_int(const struct mavlink_command_int *m, uint8_t *pl)
{
	for (int i = 0; i < 4; i++)
		le_put_f32(pl + 4 * i, m->param[i]);
	le_put32(pl + 16, (uint32_t)m->x);
	le_put32(pl + 20, (uint32_t)m->y);
	le_put_f32(pl + 24, m->z);
	le_put16(pl + 28, m->command);
	pl[30] = m->target_system;
	pl[31] = m->target_component;
	pl[32] = m->frame;
	pl[33] = m->current;
	pl[34] = m->autocontinue;
	return 35;
}

void
mavlink_unpack_command_int(const uint8_t *pl, struct mavlink_command_int *m)
{
	memset(m, 0, sizeof(*m));
	for (int i = 0; i < 4; i++)
		m->param[i] = le_get_f32(pl + 4 * i);
	m->x = (int32_t)le_get32(pl + 16);
	m->y = (int32_t)le_get32(pl + 20);
	m->z = le_get_f32(pl + 24);
	m->command = le_get16(pl + 28);
	m->target_system = pl[30];
	m->target_component = pl[31];
	m->frame = pl[32];
	m->current = pl[33];
	m->autocontinue = pl[34];
}

int
mavlink_unpack_command(uint32_t msgid, const uint8_t *pl,
		       struct mavlink_command_long *m)
{
	struct mavlink_command_int ci;

	switch (msgid) {
	case MAVLINK_MSG_COMMAND_LONG:
		mavlink_unpack_command_long(pl, m);
		return 0;
	case MAVLINK_MSG_COMMAND_INT:
		mavlink_unpack_command_int(pl, &ci);
		memset(m, 0, sizeof(*m));
		for (int i = 0; i < 4; i++)
			m->param[i] = ci.param[i];
		m->param[4] = (float)((double)ci.x * 1e-7);
		m->param[5] = (float)((double)ci.y * 1e-7);
		m->param[6] = ci.z;
		m->command = ci.command;
		m->target_system = ci.target_system;
		m->target_component = ci.target_component;
		return 0;
	default:
		return -ENOENT;
	}
}

size_t
mavlink_pack_command_ack(const struct mavlink_command_ack *m, uint8_t *pl)
{
	le_put16(pl + 0, m->command);
	pl[2] = m->result;
	pl[3] = m->progress;
	le_put32(pl + 4, (uint32_t)m->result_param2);
	pl[8] = m->target_system;
	pl[9] = m->target_component;
	return 10;
}

void
mavlink_unpack_command_ack(const uint8_t *pl, struct mavlink_command_ack *m)
{
	memset(m, 0, sizeof(*m));
	m->command = le_get16(pl + 0);
	m->result = pl[2];
	m->progress = pl[3];
	m->result_param2 = le_get_i32(pl + 4);
	m->target_system = pl[8];
	m->target_component = pl[9];
}

size_t
mavlink_pack_mission_count(const struct mavlink_mission_count *m, uint8_t *pl)
{
	le_put16(pl + 0, m->count);
	pl[2] = m->target_system;
	pl[3] = m->target_component;
	pl[4] = m->mission_type;
	le_put32(pl + 5, m->opaque_id);
	return 9;
}

void
mavlink_unpack_mission_count(const uint8_t *pl, struct mavlink_mission_count *m)
{
	memset(m, 0, sizeof(*m));
	m->count = le_get16(pl + 0);
	m->target_system = pl[2];
	m->target_component = pl[3];
	m->mission_type = pl[4];
	m->opaque_id = le_get32(pl + 5);
}

size_t
mavlink_pack_mission_request(const struct mavlink_mission_request *m,
			     uint8_t *pl)
{
	le_put16(pl + 0, m->seq);
	pl[2] = m->target_system;
	pl[3] = m->target_component;
	pl[4] = m->mission_type;
	return 5;
}

void
mavlink_unpack_mission_request(const uint8_t *pl,
			       struct mavlink_mission_request *m)
{
	memset(m, 0, sizeof(*m));
	m->seq = le_get16(pl + 0);
	m->target_system = pl[2];
	m->target_component = pl[3];
	m->mission_type = pl[4];
}

size_t
mavlink_pack_mission_item_int(const struct mavlink_mission_item_int *m,
			      uint8_t *pl)
{
	le_put_f32(pl + 0, m->param1);
	le_put_f32(pl + 4, m->param2);
	le_put_f32(pl + 8, m->param3);
	le_put_f32(pl + 12, m->param4);
	le_put32(pl + 16, (uint32_t)m->x);
	le_put32(pl + 20, (uint32_t)m->y);
	le_put_f32(pl + 24, m->z);
	le_put16(pl + 28, m->seq);
	le_put16(pl + 30, m->command);
	pl[32] = m->target_system;
	pl[33] = m->target_component;
	pl[34] = m->frame;
	pl[35] = m->current;
	pl[36] = m->autocontinue;
	pl[37] = m->mission_type;
	return 38;
}

void
mavlink_unpack_mission_item_int(const uint8_t *pl,
				struct mavlink_mission_item_int *m)
{
	memset(m, 0, sizeof(*m));
	m->param1 = le_get_f32(pl + 0);
	m->param2 = le_get_f32(pl + 4);
	m->param3 = le_get_f32(pl + 8);
	m->param4 = le_get_f32(pl + 12);
	m->x = le_get_i32(pl + 16);
	m->y = le_get_i32(pl + 20);
	m->z = le_get_f32(pl + 24);
	m->seq = le_get16(pl + 28);
	m->command = le_get16(pl + 30);
	m->target_system = pl[32];
	m->target_component = pl[33];
	m->frame = pl[34];
	m->current = pl[35];
	m->autocontinue = pl[36];
	m->mission_type = pl[37];
}

size_t
mavlink_pack_mission_ack(const struct mavlink_mission_ack *m, uint8_t *pl)
{
	pl[0] = m->target_system;
	pl[1] = m->target_component;
	pl[2] = m->type;
	pl[3] = m->mission_type;
	le_put32(pl + 4, m->opaque_id);
	return 8;
}

void
mavlink_unpack_mission_ack(const uint8_t *pl, struct mavlink_mission_ack *m)
{
	memset(m, 0, sizeof(*m));
	m->target_system = pl[0];
	m->target_component = pl[1];
	m->type = pl[2];
	m->mission_type = pl[3];
	m->opaque_id = le_get32(pl + 4);
}

size_t
mavlink_pack_mission_item_reached(const struct mavlink_mission_item_reached *m,
				  uint8_t *pl)
{
	le_put16(pl + 0, m->seq);
	return 2;
}

void
mavlink_unpack_mission_item_reached(const uint8_t *pl,
				    struct mavlink_mission_item_reached *m)
{
	memset(m, 0, sizeof(*m));
	m->seq = le_get16(pl + 0);
}

size_t
mavlink_pack_statustext(const struct mavlink_statustext *m, uint8_t *pl)
{
	pl[0] = m->severity;
	put_chars(pl + 1, m->text, 50);
	le_put16(pl + 51, m->id);
	pl[53] = m->chunk_seq;
	return 54;
}

void
mavlink_unpack_statustext(const uint8_t *pl, struct mavlink_statustext *m)
{
	memset(m, 0, sizeof(*m));
	m->severity = pl[0];
	get_chars(pl + 1, 50, m->text);
	m->id = le_get16(pl + 51);
	m->chunk_seq = pl[53];
}

/* The *_extended extensions (offsets 31..42) are written as zeros. */
size_t
mavlink_pack_sys_status(const struct mavlink_sys_status *m, uint8_t *pl)
{
	memset(pl, 0, 43);
	le_put32(pl + 0, m->sensors_present);
	le_put32(pl + 4, m->sensors_enabled);
	le_put32(pl + 8, m->sensors_health);
	le_put16(pl + 12, m->load);
	le_put16(pl + 14, m->voltage_battery);
	le_put16(pl + 16, (uint16_t)m->current_battery);
	le_put16(pl + 18, m->drop_rate_comm);
	le_put16(pl + 20, m->errors_comm);
	for (int i = 0; i < 4; i++)
		le_put16(pl + 22 + 2 * i, m->errors_count[i]);
	pl[30] = (uint8_t)m->battery_remaining;
	return 43;
}

void
mavlink_unpack_sys_status(const uint8_t *pl, struct mavlink_sys_status *m)
{
	memset(m, 0, sizeof(*m));
	m->sensors_present = le_get32(pl + 0);
	m->sensors_enabled = le_get32(pl + 4);
	m->sensors_health = le_get32(pl + 8);
	m->load = le_get16(pl + 12);
	m->voltage_battery = le_get16(pl + 14);
	m->current_battery = le_get_i16(pl + 16);
	m->drop_rate_comm = le_get16(pl + 18);
	m->errors_comm = le_get16(pl + 20);
	for (int i = 0; i < 4; i++)
		m->errors_count[i] = le_get16(pl + 22 + 2 * i);
	m->battery_remaining = (int8_t)pl[30];
}

size_t
mavlink_pack_set_mode(const struct mavlink_set_mode *m, uint8_t *pl)
{
	le_put32(pl + 0, m->custom_mode);
	pl[4] = m->target_system;
	pl[5] = m->base_mode;
	return 6;
}

void
mavlink_unpack_set_mode(const uint8_t *pl, struct mavlink_set_mode *m)
{
	memset(m, 0, sizeof(*m));
	m->custom_mode = le_get32(pl + 0);
	m->target_system = pl[4];
	m->base_mode = pl[5];
}

size_t
mavlink_pack_ekf_status_report(const struct mavlink_ekf_status_report *m,
			       uint8_t *pl)
{
	le_put_f32(pl + 0, m->velocity_variance);
	le_put_f32(pl + 4, m->pos_horiz_variance);
	le_put_f32(pl + 8, m->pos_vert_variance);
	le_put_f32(pl + 12, m->compass_variance);
	le_put_f32(pl + 16, m->terrain_alt_variance);
	le_put16(pl + 20, m->flags);
	le_put_f32(pl + 22, m->airspeed_variance);
	return 26;
}

void
mavlink_unpack_ekf_status_report(const uint8_t *pl,
				 struct mavlink_ekf_status_report *m)
{
	memset(m, 0, sizeof(*m));
	m->velocity_variance = le_get_f32(pl + 0);
	m->pos_horiz_variance = le_get_f32(pl + 4);
	m->pos_vert_variance = le_get_f32(pl + 8);
	m->compass_variance = le_get_f32(pl + 12);
	m->terrain_alt_variance = le_get_f32(pl + 16);
	m->flags = le_get16(pl + 20);
	m->airspeed_variance = le_get_f32(pl + 22);
}

size_t
mavlink_pack_estimator_status(const struct mavlink_estimator_status *m,
			      uint8_t *pl)
{
	le_put64(pl + 0, m->time_usec);
	le_put_f32(pl + 8, m->vel_ratio);
	le_put_f32(pl + 12, m->pos_horiz_ratio);
	le_put_f32(pl + 16, m->pos_vert_ratio);
	le_put_f32(pl + 20, m->mag_ratio);
	le_put_f32(pl + 24, m->hagl_ratio);
	le_put_f32(pl + 28, m->tas_ratio);
	le_put_f32(pl + 32, m->pos_horiz_accuracy);
	le_put_f32(pl + 36, m->pos_vert_accuracy);
	le_put16(pl + 40, m->flags);
	return 42;
}

void
mavlink_unpack_estimator_status(const uint8_t *pl,
				struct mavlink_estimator_status *m)
{
	memset(m, 0, sizeof(*m));
	m->time_usec = le_get64(pl + 0);
	m->vel_ratio = le_get_f32(pl + 8);
	m->pos_horiz_ratio = le_get_f32(pl + 12);
	m->pos_vert_ratio = le_get_f32(pl + 16);
	m->mag_ratio = le_get_f32(pl + 20);
	m->hagl_ratio = le_get_f32(pl + 24);
	m->tas_ratio = le_get_f32(pl + 28);
	m->pos_horiz_accuracy = le_get_f32(pl + 32);
	m->pos_vert_accuracy = le_get_f32(pl + 36);
	m->flags = le_get16(pl + 40);
}

size_t
mavlink_pack_extended_sys_state(const struct mavlink_extended_sys_state *m,
				uint8_t *pl)
{
	pl[0] = m->vtol_state;
	pl[1] = m->landed_state;
	return 2;
}

void
mavlink_unpack_extended_sys_state(const uint8_t *pl,
				  struct mavlink_extended_sys_state *m)
{
	memset(m, 0, sizeof(*m));
	m->vtol_state = pl[0];
	m->landed_state = pl[1];
}

size_t
mavlink_pack_msg(uint32_t msgid, const union mavlink_msg *m, uint8_t *pl)
{
	switch (msgid) {
	case MAVLINK_MSG_HEARTBEAT:
		return mavlink_pack_heartbeat(&m->hb, pl);
	case MAVLINK_MSG_SYSTEM_TIME:
		return mavlink_pack_system_time(&m->stime, pl);
	case MAVLINK_MSG_GLOBAL_POSITION_INT:
		return mavlink_pack_global_position_int(&m->gpi, pl);
	case MAVLINK_MSG_AUTOPILOT_VERSION:
		return mavlink_pack_autopilot_version(&m->av, pl);
	case MAVLINK_MSG_SCALED_PRESSURE:
	case MAVLINK_MSG_SCALED_PRESSURE2:
	case MAVLINK_MSG_SCALED_PRESSURE3:
		return mavlink_pack_scaled_pressure(&m->sp, pl);
	case MAVLINK_MSG_HIL_SENSOR:
		return mavlink_pack_hil_sensor(&m->hil, pl);
	case MAVLINK_MSG_HIL_ACTUATOR_CONTROLS:
		return mavlink_pack_hil_actuator_controls(&m->hac, pl);
	case MAVLINK_MSG_HIL_GPS:
		return mavlink_pack_hil_gps(&m->gps, pl);
	case MAVLINK_MSG_HIL_STATE_QUATERNION:
		return mavlink_pack_hil_state_quaternion(&m->hsq, pl);
	case MAVLINK_MSG_PARAM_REQUEST_READ:
		return mavlink_pack_param_request_read(&m->prr, pl);
	case MAVLINK_MSG_PARAM_REQUEST_LIST:
		return mavlink_pack_param_request_list(&m->prl, pl);
	case MAVLINK_MSG_PARAM_VALUE:
		return mavlink_pack_param_value(&m->pv, pl);
	case MAVLINK_MSG_PARAM_SET:
		return mavlink_pack_param_set(&m->ps, pl);
	case MAVLINK_MSG_COMMAND_INT:
		return mavlink_pack_command_int(&m->ci, pl);
	case MAVLINK_MSG_COMMAND_LONG:
		return mavlink_pack_command_long(&m->cl, pl);
	case MAVLINK_MSG_COMMAND_ACK:
		return mavlink_pack_command_ack(&m->ca, pl);
	case MAVLINK_MSG_STATUSTEXT:
		return mavlink_pack_statustext(&m->st, pl);
	case MAVLINK_MSG_MISSION_COUNT:
		return mavlink_pack_mission_count(&m->mc, pl);
	case MAVLINK_MSG_MISSION_REQUEST:
	case MAVLINK_MSG_MISSION_REQUEST_INT:
		return mavlink_pack_mission_request(&m->mr, pl);
	case MAVLINK_MSG_MISSION_ITEM_INT:
		return mavlink_pack_mission_item_int(&m->mi, pl);
	case MAVLINK_MSG_MISSION_ACK:
		return mavlink_pack_mission_ack(&m->ma, pl);
	case MAVLINK_MSG_MISSION_ITEM_REACHED:
		return mavlink_pack_mission_item_reached(&m->mir, pl);
	case MAVLINK_MSG_SYS_STATUS:
		return mavlink_pack_sys_status(&m->ss, pl);
	case MAVLINK_MSG_SET_MODE:
		return mavlink_pack_set_mode(&m->sm, pl);
	case MAVLINK_MSG_EKF_STATUS_REPORT:
		return mavlink_pack_ekf_status_report(&m->ekf, pl);
	case MAVLINK_MSG_ESTIMATOR_STATUS:
		return mavlink_pack_estimator_status(&m->es, pl);
	case MAVLINK_MSG_EXTENDED_SYS_STATE:
		return mavlink_pack_extended_sys_state(&m->ess, pl);
	}
	return 0;
}

int
mavlink_unpack_msg(uint32_t msgid, const uint8_t *pl, union mavlink_msg *m)
{
	switch (msgid) {
	case MAVLINK_MSG_HEARTBEAT:
		mavlink_unpack_heartbeat(pl, &m->hb);
		return 0;
	case MAVLINK_MSG_SYSTEM_TIME:
		mavlink_unpack_system_time(pl, &m->stime);
		return 0;
	case MAVLINK_MSG_GLOBAL_POSITION_INT:
		mavlink_unpack_global_position_int(pl, &m->gpi);
		return 0;
	case MAVLINK_MSG_AUTOPILOT_VERSION:
		mavlink_unpack_autopilot_version(pl, &m->av);
		return 0;
	case MAVLINK_MSG_SCALED_PRESSURE:
	case MAVLINK_MSG_SCALED_PRESSURE2:
	case MAVLINK_MSG_SCALED_PRESSURE3:
		mavlink_unpack_scaled_pressure(pl, &m->sp);
		return 0;
	case MAVLINK_MSG_HIL_SENSOR:
		mavlink_unpack_hil_sensor(pl, &m->hil);
		return 0;
	case MAVLINK_MSG_HIL_ACTUATOR_CONTROLS:
		mavlink_unpack_hil_actuator_controls(pl, &m->hac);
		return 0;
	case MAVLINK_MSG_HIL_GPS:
		mavlink_unpack_hil_gps(pl, &m->gps);
		return 0;
	case MAVLINK_MSG_HIL_STATE_QUATERNION:
		mavlink_unpack_hil_state_quaternion(pl, &m->hsq);
		return 0;
	case MAVLINK_MSG_PARAM_REQUEST_READ:
		mavlink_unpack_param_request_read(pl, &m->prr);
		return 0;
	case MAVLINK_MSG_PARAM_REQUEST_LIST:
		mavlink_unpack_param_request_list(pl, &m->prl);
		return 0;
	case MAVLINK_MSG_PARAM_VALUE:
		mavlink_unpack_param_value(pl, &m->pv);
		return 0;
	case MAVLINK_MSG_PARAM_SET:
		mavlink_unpack_param_set(pl, &m->ps);
		return 0;
	case MAVLINK_MSG_COMMAND_INT:
		mavlink_unpack_command_int(pl, &m->ci);
		return 0;
	case MAVLINK_MSG_COMMAND_LONG:
		mavlink_unpack_command_long(pl, &m->cl);
		return 0;
	case MAVLINK_MSG_COMMAND_ACK:
		mavlink_unpack_command_ack(pl, &m->ca);
		return 0;
	case MAVLINK_MSG_STATUSTEXT:
		mavlink_unpack_statustext(pl, &m->st);
		return 0;
	case MAVLINK_MSG_MISSION_COUNT:
		mavlink_unpack_mission_count(pl, &m->mc);
		return 0;
	case MAVLINK_MSG_MISSION_REQUEST:
	case MAVLINK_MSG_MISSION_REQUEST_INT:
		mavlink_unpack_mission_request(pl, &m->mr);
		return 0;
	case MAVLINK_MSG_MISSION_ITEM_INT:
		mavlink_unpack_mission_item_int(pl, &m->mi);
		return 0;
	case MAVLINK_MSG_MISSION_ACK:
		mavlink_unpack_mission_ack(pl, &m->ma);
		return 0;
	case MAVLINK_MSG_MISSION_ITEM_REACHED:
		mavlink_unpack_mission_item_reached(pl, &m->mir);
		return 0;
	case MAVLINK_MSG_SYS_STATUS:
		mavlink_unpack_sys_status(pl, &m->ss);
		return 0;
	case MAVLINK_MSG_SET_MODE:
		mavlink_unpack_set_mode(pl, &m->sm);
		return 0;
	case MAVLINK_MSG_EKF_STATUS_REPORT:
		mavlink_unpack_ekf_status_report(pl, &m->ekf);
		return 0;
	case MAVLINK_MSG_ESTIMATOR_STATUS:
		mavlink_unpack_estimator_status(pl, &m->es);
		return 0;
	case MAVLINK_MSG_EXTENDED_SYS_STATE:
		mavlink_unpack_extended_sys_state(pl, &m->ess);
		return 0;
	}
	return -ENOENT;
}

bool
mavlink_param_type_integer(uint8_t type)
{
	return type >= MAV_PARAM_TYPE_UINT8 && type <= MAV_PARAM_TYPE_INT32;
}

/* Byte-wise: the integer's own bytes (little-endian, as on the wire) at
 * the start of the float's four, the rest zero, as MAVLink's
 * param_union lays them out. */
float
mavlink_param_to_wire(uint8_t type, bool bytewise, double value)
{
	if (!bytewise || !mavlink_param_type_integer(type))
		return (float)value;
	uint8_t b[4] = { 0 };
	const long long v = llround(value);
	switch (type) {
	case MAV_PARAM_TYPE_UINT8:
	case MAV_PARAM_TYPE_INT8:
		b[0] = (uint8_t)v;
		break;
	case MAV_PARAM_TYPE_UINT16:
	case MAV_PARAM_TYPE_INT16:
		le_put16(b, (uint16_t)v);
		break;
	default:
		le_put32(b, (uint32_t)v);
		break;
	}
	return le_get_f32(b);
}

double
mavlink_param_from_wire(uint8_t type, bool bytewise, float wire)
{
	if (!bytewise || !mavlink_param_type_integer(type))
		return (double)wire;
	uint8_t b[4];
	le_put_f32(b, wire);
	switch (type) {
	case MAV_PARAM_TYPE_UINT8:
		return b[0];
	case MAV_PARAM_TYPE_INT8:
		return (int8_t)b[0];
	case MAV_PARAM_TYPE_UINT16:
		return le_get16(b);
	case MAV_PARAM_TYPE_INT16:
		return le_get_i16(b);
	case MAV_PARAM_TYPE_UINT32:
		return le_get32(b);
	default:
		return le_get_i32(b);
	}
}
