/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The value types of the option table (options.c): opt_parse_* are its
 * rows' opt_parse_fn, opt_fmt_* their opt_format_fn (see options.h for
 * what they are given and return).
 */
#ifndef BAROD_OPTIONS_VALUES_H
#define BAROD_OPTIONS_VALUES_H

#include "options.h"

#define OPT_PARSER(name)                                                   \
	int name(const struct opt_row *r, void *base, const char *key,     \
		 const char *value, char *why, size_t whylen)
#define OPT_PRINTER(name)                                                  \
	void name(const struct opt_row *r, const void *base, FILE *out)

OPT_PARSER(opt_parse_abs_path);
OPT_PARSER(opt_parse_address);
OPT_PARSER(opt_parse_arg);
OPT_PARSER(opt_parse_baud);
OPT_PARSER(opt_parse_bus);
OPT_PARSER(opt_parse_choice);
OPT_PARSER(opt_parse_config_path);
OPT_PARSER(opt_parse_double);
OPT_PARSER(opt_parse_driver);
OPT_PARSER(opt_parse_flag);
OPT_PARSER(opt_parse_gpio_line);
OPT_PARSER(opt_parse_i2c_address);
OPT_PARSER(opt_parse_msp_instances);
OPT_PARSER(opt_parse_octal);
OPT_PARSER(opt_parse_output_spec);
OPT_PARSER(opt_parse_port);
OPT_PARSER(opt_parse_pow2);
OPT_PARSER(opt_parse_probe);
OPT_PARSER(opt_parse_profile);
OPT_PARSER(opt_parse_throttle);
OPT_PARSER(opt_parse_rate);
OPT_PARSER(opt_parse_rng);
OPT_PARSER(opt_parse_sim_param);
OPT_PARSER(opt_parse_source);
OPT_PARSER(opt_parse_source_flag);
OPT_PARSER(opt_parse_speed_factor);
OPT_PARSER(opt_parse_string);
OPT_PARSER(opt_parse_uint);
OPT_PARSER(opt_parse_verbose);

OPT_PRINTER(opt_fmt_baud);
OPT_PRINTER(opt_fmt_choice);
OPT_PRINTER(opt_fmt_double);
OPT_PRINTER(opt_fmt_drdy_choice);
OPT_PRINTER(opt_fmt_i2c_address);
OPT_PRINTER(opt_fmt_mavlink_rate);
OPT_PRINTER(opt_fmt_msp_instances);
OPT_PRINTER(opt_fmt_msp_rate);
OPT_PRINTER(opt_fmt_msp_uint);
OPT_PRINTER(opt_fmt_octal);
OPT_PRINTER(opt_fmt_output_type);
OPT_PRINTER(opt_fmt_profile);
OPT_PRINTER(opt_fmt_rate);
OPT_PRINTER(opt_fmt_rng);
OPT_PRINTER(opt_fmt_sim_params);
OPT_PRINTER(opt_fmt_source);
OPT_PRINTER(opt_fmt_string);
OPT_PRINTER(opt_fmt_transport);
OPT_PRINTER(opt_fmt_uint);
OPT_PRINTER(opt_fmt_uint_set);

#endif
