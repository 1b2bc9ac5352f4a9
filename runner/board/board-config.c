/*
 * board-config.c: reading a board's libconfig setting into struct board
 * (the shape is in board.h), with every error at its file:line, and the
 * ${...} expansion of its strings.
 *
 * Divided into: the typed readers only boards have (an argv, a group; the
 * others and the file:line error printer are lib/config.h's), the four
 * groups (serial, power, boot, top level), and expansion.
 */
#include "board.h"
#include "config.h"
#include "exitcodes.h"
#include "util.h"

#include <libconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- typed readers (the common ones are lib/config.h's) ---------------- */

/* A non-empty list of strings into a NULL-terminated argv. */
static int get_argv(const struct board *b, const config_setting_t *g, const char *key,
		    char ***out)
{
	config_setting_t *s = config_setting_get_member(g, key);
	if (!s)
		return 0;
	int t = config_setting_type(s);
	int n = config_setting_length(s);
	if ((t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) || n == 0)
		return config_fail(&b->where, s, "'%s' must be a non-empty list of strings "
				  "(an argv: [ \"program\", \"arg\", ... ])", key);
	char **v = xcalloc((size_t)n + 1, sizeof(*v));
	for (int i = 0; i < n; i++) {
		config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		if (config_setting_type(e) != CONFIG_TYPE_STRING) {
			for (int k = 0; k < i; k++)
				free(v[k]);
			free(v);
			return config_fail(&b->where, e, "'%s' must hold strings only", key);
		}
		v[i] = xstrdup(config_setting_get_string(e));
	}
	*out = v;
	return 0;
}

/* g's member key as a group (NULL when absent); a non-group is an error. */
static int get_group(const struct board *b, const config_setting_t *g, const char *key,
		     config_setting_t **out, bool required)
{
	*out = config_setting_get_member(g, key);
	if (!*out)
		return required ? config_fail(&b->where, g, "'%s = { ... };' is missing", key) : 0;
	if (config_setting_type(*out) != CONFIG_TYPE_GROUP)
		return config_fail(&b->where, *out, "'%s' must be a group { ... }", key);
	return 0;
}

/* ---- the groups --------------------------------------------------------- */

static int read_serial(struct board *b, const config_setting_t *top)
{
	static const char *const keys[] = { "uri", "baud", "appear_timeout", "lost_timeout", NULL };
	config_setting_t *g;
	int rc = get_group(b, top, "serial", &g, true);
	if (!rc)
		rc = config_check_keys(&b->where, g, keys, ARRAY_SIZE(keys), "serial");
	if (!rc)
		rc = config_get_string(&b->where, g, "uri", &b->serial_uri);
	if (!rc && !b->serial_uri)
		rc = config_fail(&b->where, g, "serial: 'uri' is missing (/dev/ttyUSB0, tcp:HOST:PORT, "
				"telnet:HOST:PORT or unix:PATH)");
	if (!rc)
		rc = config_get_int(&b->where, g, "baud", 50, 4000000, &b->baud);
	if (!rc)
		rc = config_get_seconds(&b->where, g, "appear_timeout", &b->appear_timeout);
	if (!rc)
		rc = config_get_seconds(&b->where, g, "lost_timeout", &b->lost_timeout);
	if (!rc) {
		struct serial probe;
		char err[300];
		if (serial_parse(b->serial_uri, b->baud, &probe, err, sizeof(err)) < 0)
			rc = config_fail(&b->where, config_setting_get_member(g, "uri"), "serial: %s", err);
		else
			serial_release(&probe);
	}
	return rc;
}

static int read_power(struct board *b, const config_setting_t *top)
{
	static const char *const keys[] = { "pre_power", "on", "off", "reset", "timeout", NULL };
	static const char *const argv_keys[POWER_NACTIONS] = { "pre_power", "on", "off", "reset" };
	config_setting_t *g;
	int rc = get_group(b, top, "power", &g, true);
	if (!rc)
		rc = config_check_keys(&b->where, g, keys, ARRAY_SIZE(keys), "power");
	for (int a = 0; a < POWER_NACTIONS && !rc; a++)
		rc = get_argv(b, g, argv_keys[a], &b->power.argv[a]);
	if (!rc)
		rc = config_get_seconds(&b->where, g, "timeout", &b->power.timeout);
	if (!rc && (!b->power.argv[POWER_ON] || !b->power.argv[POWER_OFF]))
		rc = config_fail(&b->where, g, "power: 'on' and 'off' are required");
	return rc;
}

static int read_method(struct board *b, const config_setting_t *g)
{
	char *method = NULL;
	int rc = config_get_string(&b->where, g, "method", &method);
	if (rc)
		return rc;
	if (!method || !strcmp(method, "u-boot-tftp"))
		b->method = BOOT_UBOOT_TFTP;
	else if (!strcmp(method, "u-boot-extlinux"))
		b->method = BOOT_UBOOT_EXTLINUX;
	else if (!strcmp(method, "self"))
		b->method = BOOT_SELF;
	else
		rc = config_fail(&b->where, config_setting_get_member(g, "method"),
				"boot: unknown method '%s' (u-boot-tftp, u-boot-extlinux, self)",
				method);
	free(method);
	return rc;
}

static int read_boot(struct board *b, const config_setting_t *top)
{
	static const char *const keys[] = {
		"method", "tftp_root", "tftp_dir", "stage", "ipaddr", "serverip",
		"kernel_addr", "initrd_addr", "fdt_addr", "dtb", "command", "extlinux",
		"scan", "commands", "autoboot_prompt", "interrupt", "prompt", "char_delay",
		"echo_timeout", "command_timeout", "autoboot_timeout", "boot_timeout", NULL,
	};
	struct { const char *key; char **field; } strings[] = {
		{ "tftp_root", &b->tftp_root }, { "tftp_dir", &b->tftp_dir },
		{ "ipaddr", &b->ipaddr }, { "serverip", &b->serverip },
		{ "kernel_addr", &b->kernel_addr }, { "initrd_addr", &b->initrd_addr },
		{ "fdt_addr", &b->fdt_addr }, { "dtb", &b->dtb }, { "command", &b->command },
		{ "extlinux", &b->extlinux }, { "scan", &b->scan },
		{ "autoboot_prompt", &b->autoboot_prompt }, { "interrupt", &b->interrupt },
		{ "prompt", &b->prompt },
	};
	struct { const char *key; double *field; } seconds[] = {
		{ "char_delay", &b->uboot.char_delay }, { "echo_timeout", &b->uboot.echo_timeout },
		{ "command_timeout", &b->uboot.command_timeout },
		{ "autoboot_timeout", &b->uboot.autoboot_timeout },
		{ "boot_timeout", &b->uboot.boot_timeout },
	};
	config_setting_t *g;
	int rc = get_group(b, top, "boot", &g, true);
	if (!rc)
		rc = config_check_keys(&b->where, g, keys, ARRAY_SIZE(keys), "boot");
	if (!rc)
		rc = read_method(b, g);
	for (size_t i = 0; i < ARRAY_SIZE(strings) && !rc; i++)
		rc = config_get_string(&b->where, g, strings[i].key, strings[i].field);
	for (size_t i = 0; i < ARRAY_SIZE(seconds) && !rc; i++)
		rc = config_get_seconds(&b->where, g, seconds[i].key, seconds[i].field);
	if (!rc)
		rc = config_get_bool(&b->where, g, "stage", &b->stage);
	if (!rc)
		rc = get_argv(b, g, "commands", &b->commands);
	if (!rc && b->method == BOOT_UBOOT_TFTP && !b->tftp_root)
		rc = config_fail(&b->where, g, "boot: u-boot-tftp needs 'tftp_root' (the TFTP server's directory)");
	if (!rc && b->method == BOOT_UBOOT_TFTP && (!b->serverip || !*b->serverip))
		rc = config_fail(&b->where, g, "boot: u-boot-tftp needs 'serverip' (the TFTP server's address)");
	if (!rc && b->interrupt && !*b->interrupt)
		rc = config_fail(&b->where, config_setting_get_member(g, "interrupt"),
				"boot: 'interrupt' must not be empty");
	return rc;
}

/*
 * read_lava: backend = "board" (the default: bootrig drives the board) or
 * "lava" (a board of a LAVA lab: device_type required; serial, power and
 * boot are LAVA's and refused; dtb, lava_url, lava_token_file). The keys
 * of one backend are refused on the other, at their line.
 */
static int read_lava(struct board *b, const config_setting_t *top)
{
	char *backend = NULL;
	int rc = config_get_string(&b->where, top, "backend", &backend);
	config_setting_t *s = config_setting_get_member(top, "backend");
	if (!rc && backend && strcmp(backend, "board") && strcmp(backend, "lava"))
		rc = config_fail(&b->where, s, "'backend' is \"%s\": a board's must be \"board\" (bootrig "
				"drives it) or \"lava\" (a LAVA lab's)", backend);
	b->lava = !rc && backend && !strcmp(backend, "lava");
	free(backend);
	if (rc)
		return rc;
	static const char *const lava_keys[] = { "device_type", "lava_url", "lava_token_file", "dtb" };
	static const char *const board_keys[] = { "serial", "power", "boot", "lock", "retries" };
	const char *const *refused = b->lava ? board_keys : lava_keys;
	size_t n_refused = b->lava ? ARRAY_SIZE(board_keys) : ARRAY_SIZE(lava_keys);
	for (size_t i = 0; i < n_refused; i++) {
		config_setting_t *m = config_setting_get_member(top, refused[i]);
		if (m)
			return config_fail(&b->where, m, b->lava
					   ? "'%s': a LAVA board's serial line, power and bootloader are LAVA's "
					     "(backend = \"lava\")"
					   : "'%s' is for a LAVA board (backend = \"lava\")", refused[i]);
	}
	if (!b->lava)
		return 0;
	char *dtb = NULL;
	if ((rc = config_get_string(&b->where, top, "device_type", &b->device_type)) ||
	    (rc = config_get_string(&b->where, top, "lava_url", &b->lava_url)) ||
	    (rc = config_get_string(&b->where, top, "lava_token_file", &b->lava_token_file)) ||
	    (rc = config_get_string(&b->where, top, "dtb", &dtb)))
		return free(dtb), rc;
	if (!b->device_type || !*b->device_type || !strcmp(b->device_type, "qemu"))
		rc = config_fail(&b->where, top, "a LAVA board (backend = \"lava\") needs 'device_type', "
				"its LAVA device type (not \"qemu\": that is a target's)");
	if (!rc && b->arch && *b->arch && strcmp(b->arch, "arm64") && strcmp(b->arch, "arm") &&
	    strcmp(b->arch, "x86_64"))
		rc = config_fail(&b->where, config_setting_get_member(top, "arch"),
				"'arch' is \"%s\": arm64, arm or x86_64", b->arch);
	if (!rc && dtb) {
		b->lava_dtb = board_expand(b, NULL, dtb);
		if (b->lava_dtb[0] != '/')
			rc = config_fail(&b->where, config_setting_get_member(top, "dtb"),
					"'dtb' must be an absolute path (or start with ${configs} or ${cache})");
	}
	free(dtb);
	return rc;
}

/* Fills what the config left unset. */
static void set_defaults(struct board *b)
{
	struct { char **field; const char *value; } d[] = {
		{ &b->arch, "" }, { &b->tftp_dir, "bootrig" },
		{ &b->kernel_addr, "${kernel_addr_r}" }, { &b->initrd_addr, "${ramdisk_addr_r}" },
		{ &b->fdt_addr, "${fdtcontroladdr}" }, { &b->dtb, "" }, { &b->command, "booti" },
		{ &b->extlinux, "mmc 0:1" }, { &b->scan, "" }, { &b->ipaddr, "" },
		{ &b->serverip, "" }, { &b->lock, "" },
		{ &b->autoboot_prompt, b->uboot.autoboot_prompt },
		{ &b->interrupt, b->uboot.interrupt }, { &b->prompt, b->uboot.prompt },
	};
	for (size_t i = 0; i < ARRAY_SIZE(d); i++)
		if (!*d[i].field)
			*d[i].field = xstrdup(d[i].value);
	b->uboot.autoboot_prompt = b->autoboot_prompt;
	b->uboot.interrupt = b->interrupt;
	b->uboot.prompt = b->prompt;
}

int board_load(const struct config *cfg, const char *name, struct board *b)
{
	static const char *const keys[] = {
		"name", "arch", "serial", "power", "boot", "lock", "retries",
		"backend", "device_type", "lava_url", "lava_token_file", "dtb", NULL,
	};
	memset(b, 0, sizeof(*b));
	const char *file = NULL;
	config_setting_t *top = config_find_group(cfg, BOARD_LIST, name, &file);
	if (!top) {
		struct strbuf known = STRBUF_INIT;
		size_t n_boards;
		config_setting_t *const *boards = config_groups(cfg, BOARD_LIST, &n_boards, NULL);
		for (size_t i = 0; i < n_boards; i++) {
			const char *n = NULL;
			config_setting_lookup_string(boards[i], "name", &n);
			strbuf_addf(&known, "%s%s", i ? ", " : "", n ? n : "?");
		}
		error("no board '%s' in the configuration (known: %s)", name,
		      known.buf ? known.buf : "none");
		strbuf_release(&known);
		return EXIT_USAGE;
	}
	b->name = xstrdup(name);
	b->file = xstrdup(file ? file : "(config)");
	b->where = (struct config_where){ b->file, "board", b->name };
	b->baud = 115200;
	b->appear_timeout = 30.0;
	b->lost_timeout = 30.0;
	b->power.timeout = 60.0;
	b->power.log_fd = -1;
	b->stage = true;
	uboot_default_settings(&b->uboot);
	int rc = config_check_keys(&b->where, top, keys, ARRAY_SIZE(keys), "the board");
	if (!rc)
		rc = config_get_string(&b->where, top, "arch", &b->arch);
	if (!rc)
		rc = config_get_string(&b->where, top, "lock", &b->lock);
	if (!rc)
		rc = config_get_int(&b->where, top, "retries", 0, 100, &b->retries);
	if (!rc)
		rc = read_lava(b, top);
	if (!rc && !b->lava)
		rc = read_serial(b, top);
	if (!rc && !b->lava)
		rc = read_power(b, top);
	if (!rc && !b->lava)
		rc = read_boot(b, top);
	set_defaults(b);
	b->state_dir = xasprintf("%s/boards/%s", bootrig_cache_dir(), b->name);
	if (rc)
		board_release(b);
	return rc;
}

int board_config_check(const struct config *cfg, const char *name)
{
	struct board b;
	int rc = board_load(cfg, name, &b);
	if (!rc)
		board_release(&b);
	return rc;
}

void board_release(struct board *b)
{
	char **strings[] = {
		&b->name, &b->file, &b->arch, &b->serial_uri, &b->tftp_root, &b->tftp_dir,
		&b->ipaddr, &b->serverip, &b->kernel_addr, &b->initrd_addr, &b->fdt_addr,
		&b->dtb, &b->command, &b->extlinux, &b->scan, &b->autoboot_prompt,
		&b->interrupt, &b->prompt, &b->lock, &b->state_dir,
		&b->device_type, &b->lava_url, &b->lava_token_file, &b->lava_dtb,
	};
	for (size_t i = 0; i < ARRAY_SIZE(strings); i++) {
		free(*strings[i]);
		*strings[i] = NULL;
	}
	for (char **c = b->commands; c && *c; c++)
		free(*c);
	free(b->commands);
	b->commands = NULL;
	power_release(&b->power);
}

/* ---- expansion ---------------------------------------------------------- */

char *board_expand(const struct board *b, const struct board_vars *v, const char *s)
{
	struct { const char *name; const char *value; } vars[] = {
		{ "board", b->name }, { "state", b->state_dir }, { "cache", bootrig_cache_dir() },
		{ "configs", bootrig_configs_dir() },
		{ "kernel", v ? v->kernel : NULL }, { "initrd", v ? v->initrd : NULL },
		{ "dtb", v ? v->dtb : NULL }, { "sd_image", v ? v->sd_image : NULL },
	};
	struct strbuf out = STRBUF_INIT;
	strbuf_add(&out, "", 0);
	while (*s) {
		const char *value = NULL;
		size_t skip = 0;
		if (s[0] == '$' && s[1] == '{') {
			for (size_t i = 0; i < ARRAY_SIZE(vars) && !value; i++) {
				size_t n = strlen(vars[i].name);
				if (!strncmp(s + 2, vars[i].name, n) && s[2 + n] == '}') {
					value = vars[i].value ? vars[i].value : "";
					skip = n + 3;
				}
			}
		}
		if (value) {
			strbuf_addstr(&out, value);
			s += skip;
		} else {
			strbuf_add(&out, s, 1);
			s++;
		}
	}
	return out.buf;
}
