/*
 * storage.c: a daemon's host gets the boot's files through libvirt (lv.h):
 * a directory storage pool of ours, one volume per file content, uploaded
 * once and pruned least-recently-used under a size cap; and the serial
 * console's log volume, fetched after the domain.
 *
 * The file is divided into: the pool and what it holds; its use record
 * and pruning; uploads; the console's log volume; a boot's files.
 */
#include "lv.h"
#include "sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- pool */

/* Marks volume name as in h's pool or not (what choose_host() knows). */
static void set_present(struct lv_host *h, const char *name, bool there)
{
	pthread_mutex_lock(&h->lv->lock);
	size_t i = 0;
	while (i < h->n_present && strcmp(h->present[i], name))
		i++;
	if (there && i == h->n_present) {
		h->present = xrealloc(h->present, (h->n_present + 1) * sizeof(*h->present));
		h->present[h->n_present++] = xstrdup(name);
	} else if (!there && i < h->n_present) {
		free(h->present[i]);
		h->present[i] = h->present[--h->n_present];
	}
	pthread_mutex_unlock(&h->lv->lock);
}

/* How many of names[0..n-1] (NULL ones skipped) h's pool holds, as far as
 * we know. Under lv->lock. */
int host_holds(const struct lv_host *h, char *const *names, int n)
{
	int holds = 0;
	for (int k = 0; k < n; k++)
		for (size_t i = 0; names[k] && i < h->n_present; i++)
			if (!strcmp(h->present[i], names[k])) {
				holds++;
				break;
			}
	return holds;
}

/*
 * ensure_pool: h's storage pool "bootrig" (a directory, h->pool_path on
 * that host), found, or defined, built (mkdir) and started on first use;
 * autostarted, so it outlives the daemon's restarts. Called under
 * h->pool_lock. 0, or -1 (why set).
 */
int ensure_pool(struct lv_host *h, char *why, size_t len)
{
	if (h->pool)
		return 0;
	virStoragePoolPtr p = virStoragePoolLookupByName(h->conn, POOL_NAME);
	if (!p) {
		struct strbuf xml = STRBUF_INIT;
		strbuf_addstr(&xml, "<pool type='dir'><name>" POOL_NAME "</name><target><path>");
		add_xml_text(&xml, h->pool_path);
		strbuf_addstr(&xml, "</path></target></pool>\n");
		p = virStoragePoolDefineXML(h->conn, xml.buf, 0);
		strbuf_release(&xml);
		if (!p || virStoragePoolBuild(p, 0) < 0) {
			snprintf(why, len, "host %s: cannot make the storage pool %s at %s: %s", h->name,
				 POOL_NAME, h->pool_path, lv_error());
			if (p)
				virStoragePoolUndefine(p), virStoragePoolFree(p);
			return -1;
		}
		virStoragePoolSetAutostart(p, 1);
	}
	if (virStoragePoolIsActive(p) != 1 && virStoragePoolCreate(p, 0) < 0) {
		snprintf(why, len, "host %s: cannot start the storage pool %s: %s", h->name, POOL_NAME,
			 lv_error());
		virStoragePoolFree(p);
		return -1;
	}
	virStoragePoolRefresh(p, 0);
	h->pool = p;
	virStorageVolPtr *vols = NULL;
	int n = virStoragePoolListAllVolumes(p, &vols, 0);
	for (int i = 0; i < n; i++) {
		set_present(h, virStorageVolGetName(vols[i]), true);
		virStorageVolFree(vols[i]);
	}
	free(vols);
	return 0;
}

/*
 * The pool's use record, in the cache: which volume of h this machine's
 * runs used last, "NAME\tUNIX_TIME" per line (cache/hosts/<uri>.used):
 * least-recently-used pruning goes by it (a volume no run of ours
 * recorded counts as the oldest).
 */
static char *use_record_path(const struct lv_host *h)
{
	char *uri = xstrdup(h->uri);
	for (char *p = uri; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-", *p))
			*p = '_';
	char *path = xasprintf("%s/hosts/%s.used", bootrig_cache_dir(), uri);
	free(uri);
	return path;
}

/* When this machine last used volume name of h (0: never recorded). */
static long long last_use(const char *record, const char *name)
{
	size_t len = strlen(name);
	for (const char *line = record; line && *line;) {
		if (!strncmp(line, name, len) && line[len] == '\t')
			return atoll(line + len + 1);
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return 0;
}

/* Volume name of h is this run's: never pruned (under h->pool_lock). */
static void keep_for_run(struct lv_host *h, const char *name)
{
	for (size_t i = 0; i < h->n_staged; i++)
		if (!strcmp(h->staged[i], name))
			return;
	h->staged = xrealloc(h->staged, (h->n_staged + 1) * sizeof(*h->staged));
	h->staged[h->n_staged++] = xstrdup(name);
}

/* Records that volume name of h is used now (under h->pool_lock). */
static void note_use(struct lv_host *h, const char *name)
{
	char *path = use_record_path(h);
	char *dir = xasprintf("%s/hosts", bootrig_cache_dir());
	mkdir_p(dir, 0755);
	free(dir);
	char *text = NULL;
	struct strbuf sb = STRBUF_INIT;
	strbuf_add(&sb, "", 0);
	size_t len = strlen(name);
	if (read_file(path, &text, NULL) == 0) {
		for (char *line = text; line && *line;) {
			char *nl = strchr(line, '\n');
			if (nl)
				*nl = '\0';
			if (strncmp(line, name, len) || line[len] != '\t')
				strbuf_addf(&sb, "%s\n", line);
			line = nl ? nl + 1 : NULL;
		}
	}
	strbuf_addf(&sb, "%s\t%lld\n", name, (long long)time(NULL));
	if (write_file_atomic_nosync(path, sb.buf, sb.len) < 0)
		warning("cannot record the use of %s in %s", name, path);
	strbuf_release(&sb);
	free(text), free(path);
	keep_for_run(h, name);
}

/*
 * prune_pool: makes room for `need` more bytes in h's pool under its cap:
 * deletes the volumes least recently used by us first, never one this run
 * uses. Under h->pool_lock.
 */
static void prune_pool(struct lv_host *h, unsigned long long need)
{
	virStorageVolPtr *vols = NULL;
	int n = virStoragePoolListAllVolumes(h->pool, &vols, 0);
	if (n <= 0) {
		free(vols);
		return;
	}
	char *path = use_record_path(h), *record = NULL;
	read_file(path, &record, NULL);
	unsigned long long total = 0, *size = xcalloc((size_t)n, sizeof(*size));
	long long *used = xcalloc((size_t)n, sizeof(*used));
	for (int i = 0; i < n; i++) {
		virStorageVolInfo info;
		if (virStorageVolGetInfo(vols[i], &info) == 0)
			size[i] = info.capacity;
		total += size[i];
		used[i] = last_use(record, virStorageVolGetName(vols[i]));
		for (size_t k = 0; k < h->n_staged; k++)
			if (!strcmp(h->staged[k], virStorageVolGetName(vols[i])))
				used[i] = -1;    /* this run's: kept */
	}
	while (total + need > h->pool_max) {
		int oldest = -1;
		for (int i = 0; i < n; i++)
			if (vols[i] && used[i] >= 0 && (oldest < 0 || used[i] < used[oldest]))
				oldest = i;
		if (oldest < 0)
			break;
		fprintf(stderr, "bootrig: host %s: pruning volume %s (%llu bytes, least recently used)\n",
			h->name, virStorageVolGetName(vols[oldest]), size[oldest]);
		if (virStorageVolDelete(vols[oldest], 0) == 0) {
			total -= size[oldest];
			set_present(h, virStorageVolGetName(vols[oldest]), false);
		}
		virStorageVolFree(vols[oldest]);
		vols[oldest] = NULL;
	}
	for (int i = 0; i < n; i++)
		if (vols[i])
			virStorageVolFree(vols[i]);
	free(vols), free(size), free(used), free(record), free(path);
}

/* virStreamSendAll()'s source: the next bytes of the file (opaque: its fd). */
static int read_for_stream(virStreamPtr st, char *data, size_t nbytes, void *opaque)
{
	(void)st;
	ssize_t n;
	do
		n = read(*(int *)opaque, data, nbytes);
	while (n < 0 && errno == EINTR);
	return (int)n;
}

/* Uploads path (size bytes) into vol over a virStream. 0 or -1. */
static int upload_file(struct lv_host *h, virStorageVolPtr vol, const char *path,
		       unsigned long long size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	virStreamPtr st = virStreamNew(h->conn, 0);
	int rc = -1;
	if (st && virStorageVolUpload(vol, st, 0, size, 0) == 0) {
		if (virStreamSendAll(st, read_for_stream, &fd) == 0 && virStreamFinish(st) == 0)
			rc = 0;
		else
			virStreamAbort(st);
	}
	if (st)
		virStreamFree(st);
	close(fd);
	return rc;
}

/* The sha256 of path into sha[65], hashed once a run while its stat data
 * stay the same. 0, or -1 (errno set). */
static int file_sha256(struct lv_backend *lv, const char *path, const struct stat *st, char sha[65])
{
	char *stamp = stat_stamp(st);
	pthread_mutex_lock(&lv->lock);
	for (size_t i = 0; i < lv->n_shas; i++) {
		if (!strcmp(lv->shas[i].path, path) && !strcmp(lv->shas[i].stamp, stamp)) {
			memcpy(sha, lv->shas[i].sha, 65);
			pthread_mutex_unlock(&lv->lock);
			free(stamp);
			return 0;
		}
	}
	pthread_mutex_unlock(&lv->lock);
	if (sha256_file(path, sha) < 0) {
		free(stamp);
		return -1;
	}
	pthread_mutex_lock(&lv->lock);
	lv->shas = xrealloc(lv->shas, (lv->n_shas + 1) * sizeof(*lv->shas));
	struct file_sha *f = &lv->shas[lv->n_shas++];
	f->path = xstrdup(path);
	f->stamp = stamp;
	memcpy(f->sha, sha, 65);
	pthread_mutex_unlock(&lv->lock);
	return 0;
}

/*
 * stage_file: path's volume on h, "<sha256><suffix>": found (complete:
 * its capacity is the file's size and all of it is written; a volume an
 * interrupted upload left is deleted and made again) or created and
 * uploaded now. Returns the volume's path on that host (malloc'd), or NULL
 * (why set).
 */
static char *stage_file(struct lv_host *h, const char *path, const char *suffix, char *why,
			size_t len)
{
	char sha[65];
	struct stat st;
	if (stat(path, &st) < 0 || file_sha256(h->lv, path, &st, sha) < 0) {
		snprintf(why, len, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	unsigned long long size = (unsigned long long)st.st_size;
	char *name = xasprintf("%s%s", sha, suffix), *vpath = NULL;
	pthread_mutex_lock(&h->pool_lock);
	if (ensure_pool(h, why, len) < 0)
		goto out;
	virStorageVolPtr vol = virStorageVolLookupByName(h->pool, name);
	virStorageVolInfo info;
	if (vol && (virStorageVolGetInfo(vol, &info) < 0 || info.capacity != size ||
		    info.allocation < size)) {
		virStorageVolDelete(vol, 0);     /* an upload that did not finish */
		virStorageVolFree(vol);
		vol = NULL;
		set_present(h, name, false);
	}
	if (!vol) {
		prune_pool(h, size);
		char *xml = xasprintf("<volume><name>%s</name><capacity unit='bytes'>%llu</capacity>"
				      "<allocation unit='bytes'>0</allocation><target>"
				      "<format type='raw'/><permissions><mode>0644</mode>"
				      "</permissions></target></volume>\n", name, size);
		vol = virStorageVolCreateXML(h->pool, xml, 0);
		free(xml);
		double t0 = now_monotonic();
		if (!vol || upload_file(h, vol, path, size) < 0) {
			snprintf(why, len, "host %s: cannot upload %s as volume %s: %s", h->name, path,
				 name, lv_error());
			if (vol)
				virStorageVolDelete(vol, 0), virStorageVolFree(vol);
			goto out;
		}
		double t = now_monotonic() - t0;
		fprintf(stderr, "bootrig: host %s: uploaded %s as %s (%llu bytes, %.1f MB/s)\n",
			h->name, path, name, size, t > 0 ? (double)size / 1e6 / t : 0.0);
	}
	vpath = virStorageVolGetPath(vol);
	if (!vpath)
		snprintf(why, len, "host %s: volume %s has no path: %s", h->name, name, lv_error());
	else
		note_use(h, name), set_present(h, name, true);
	virStorageVolFree(vol);
out:
	pthread_mutex_unlock(&h->pool_lock);
	free(name);
	return vpath;
}

/*
 * The serial log of a daemon's domain: the console stream is live but not
 * the whole truth (under load one was seen to end seconds before its
 * domain, losing the boot's last lines), so the serial port also logs to a
 * file on that host, a volume of our pool, "<domain>.serial", made empty
 * before the domain (mode 0600). After the domain it is fetched through
 * libvirt (virStorageVolDownload), read by capture_reconcile() beside what
 * the stream gave, and deleted. A stale one (a run that died) is never
 * recorded as used, so it is pruned first.
 */

/* Makes m's log volume on h; its path there (malloc'd), or NULL (why set). */
char *make_log_volume(struct lv_host *h, struct lv_machine *m, char *why, size_t len)
{
	char *vpath = NULL;
	char *name = xasprintf("%s.serial", m->name);
	pthread_mutex_lock(&h->pool_lock);
	if (ensure_pool(h, why, len) < 0)
		goto out;
	virStorageVolPtr vol = virStorageVolLookupByName(h->pool, name);
	if (vol)    /* a domain of the same name's, long gone */
		virStorageVolDelete(vol, 0), virStorageVolFree(vol);
	char *xml = xasprintf("<volume><name>%s</name><capacity unit='bytes'>0</capacity><target>"
			      "<format type='raw'/><permissions><mode>0600</mode></permissions>"
			      "</target></volume>\n", name);
	vol = virStorageVolCreateXML(h->pool, xml, 0);
	free(xml);
	vpath = vol ? virStorageVolGetPath(vol) : NULL;
	if (!vpath) {
		snprintf(why, len, "host %s: cannot make the console's log volume %s: %s", h->name,
			 name, lv_error());
		if (vol)
			virStorageVolDelete(vol, 0);
	} else {
		keep_for_run(h, name);
		m->log_volume = name;
		name = NULL;
	}
	if (vol)
		virStorageVolFree(vol);
out:
	pthread_mutex_unlock(&h->pool_lock);
	free(name);
	return vpath;
}

/* virStreamRecvAll()'s sink: appends to the buffer (opaque: a strbuf). */
static int add_from_stream(virStreamPtr st, const char *data, size_t nbytes, void *opaque)
{
	(void)st;
	strbuf_add(opaque, data, nbytes);
	return (int)nbytes;
}

/*
 * fetch_log_volume: m's log volume, downloaded once into a file of ours
 * (m->serial_log, in $TMPDIR), and deleted from the host. Nothing when it
 * cannot be (a lost connection): the stream's bytes are then all there
 * is, with a warning.
 */
void fetch_log_volume(struct lv_machine *m)
{
	if (!m->log_volume || m->log_fetched)
		return;
	m->log_fetched = true;
	struct lv_host *h = m->host;
	struct strbuf log = STRBUF_INIT;
	strbuf_add(&log, "", 0);
	virStorageVolPtr vol = h->pool ? virStorageVolLookupByName(h->pool, m->log_volume) : NULL;
	virStreamPtr st = vol ? virStreamNew(h->conn, 0) : NULL;
	bool ok = false;
	if (st && virStorageVolDownload(vol, st, 0, 0, 0) == 0) {
		if (virStreamRecvAll(st, add_from_stream, &log) == 0 && virStreamFinish(st) == 0)
			ok = true;
		else
			virStreamAbort(st);
	}
	const char *tmp = getenv("TMPDIR");
	char *path = xasprintf("%s/%s.serial", tmp && *tmp ? tmp : "/tmp", m->name);
	if (ok && write_file_atomic_nosync(path, log.buf, log.len) < 0) {
		warning("cannot keep the console's log of %s in %s: %s", m->name, path, strerror(errno));
		ok = false;
	} else if (!ok) {
		warning("host %s: cannot fetch the console's log %s (%s): only the stream's bytes are kept",
			h->name, m->log_volume, lv_error());
	}
	if (st)
		virStreamFree(st);
	if (vol) {
		virStorageVolDelete(vol, 0);
		virStorageVolFree(vol);
	}
	strbuf_release(&log);
	if (ok)
		m->serial_log = path;
	else
		free(path);
}

/* The volume suffix of spec's kernel, initrd and dtb. */
static const char *const volume_suffix[3] = { ".kernel", ".initrd", ".dtb" };

/*
 * volume_names: the volume names spec's kernel, initrd and DTB have on a
 * daemon's host (names[k] malloc'd; NULL without that file, or when it
 * cannot be read: stage_file() says why), for choose_host(). All NULL when
 * every host is the embedded driver.
 */
void volume_names(struct lv_backend *lv, const struct machine_spec *spec, char *names[3])
{
	const char *files[3] = { spec->kernel, spec->initrd, spec->dtb };
	bool daemon = false;
	for (size_t i = 0; i < lv->n_hosts; i++)
		daemon |= !lv->hosts[i].embed;
	for (int k = 0; k < 3; k++) {
		char sha[65];
		struct stat st;
		names[k] = NULL;
		if (daemon && files[k] && stat(files[k], &st) == 0 &&
		    file_sha256(lv, files[k], &st, sha) == 0)
			names[k] = xasprintf("%s%s", sha, volume_suffix[k]);
	}
}

/*
 * stage_files: on a daemon's host, the boot's kernel, initramfs and DTB
 * as volumes of our pool (stage_file()); spec's paths are replaced by
 * theirs on that host (paths[], malloc'd, freed by the caller). The
 * embedded driver reads the local files. 0, or -1 (reason set).
 */
int stage_files(struct lv_host *h, struct machine *mach, struct machine_spec *spec,
		       char *paths[3])
{
	if (h->embed)
		return 0;
	const char **files[3] = { &spec->kernel, &spec->initrd, &spec->dtb };
	for (int i = 0; i < 3; i++) {
		if (!*files[i])
			continue;
		paths[i] = stage_file(h, *files[i], volume_suffix[i], mach->infra_reason,
				      sizeof(mach->infra_reason));
		if (!paths[i])
			return -1;
		*files[i] = paths[i];
	}
	return 0;
}
