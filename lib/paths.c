/*
 * paths.c: where bootrig finds its data. In a build tree the executable is
 * build/bootrig, the guest binaries build/guest/ and the configs ../configs;
 * installed, they are PREFIX/lib/bootrig/{guest,configs}. $BOOTRIG_DATADIR
 * overrides both: DATADIR/guest and DATADIR/configs.
 */
#include "util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

/* The directory of the running executable (malloc'd; "." if unknown). */
char *bootrig_exe_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0)
		return xstrdup(".");
	buf[n] = '\0';
	char *slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
	return xstrdup(buf);
}

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The first of the candidates that is a directory, or the first one. */
static const char *find_dir(const char *what)
{
	const char *datadir = getenv("BOOTRIG_DATADIR");
	if (datadir && *datadir)
		return xasprintf("%s/%s", datadir, what);
	char *dir = bootrig_exe_dir();
	char *cands[] = {
		xasprintf("%s/%s", dir, what),                 /* build/guest */
		xasprintf("%s/../%s", dir, what),              /* ../configs */
		xasprintf("%s/../lib/bootrig/%s", dir, what),  /* installed */
	};
	const char *found = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(cands); i++) {
		if (!found && is_dir(cands[i]))
			found = cands[i];
		else
			free(cands[i]);
	}
	free(dir);
	return found ? found : xasprintf("%s/%s", ".", what);
}

const char *bootrig_guest_dir(void)
{
	static const char *dir;
	if (!dir)
		dir = find_dir("guest");
	return dir;
}

const char *bootrig_configs_dir(void)
{
	static const char *dir;
	if (!dir)
		dir = find_dir("configs");
	return dir;
}

const char *bootrig_cache_dir(void)
{
	static const char *dir;
	if (dir)
		return dir;
	const char *env = getenv("BOOTRIG_CACHE");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	if (env && *env)
		dir = xstrdup(env);
	else if (xdg && *xdg)
		dir = xasprintf("%s/bootrig", xdg);
	else
		dir = xasprintf("%s/.cache/bootrig", home && *home ? home : "/tmp");
	return dir;
}
