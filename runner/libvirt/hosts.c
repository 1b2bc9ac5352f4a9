/*
 * hosts.c: the libvirt backend's hosts (lv.h): what each can boot (its
 * capabilities), choosing one for a boot, and the accelerator rule: KVM
 * only once a real boot proved it, per host.
 *
 * The file is divided into: hosts; the accelerator; the retry policy.
 */
#include "lv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/utsname.h>
#include <unistd.h>

/* ---------------------------------------------------------------- hosts */

/*
 * caps_guest: the <guest> of h's capabilities for arch (libvirt's
 * qemu_arch: aarch64, x86_64, armv7l): its start, and *end at its
 * </guest>; NULL when the host has no emulator for that arch.
 */
static const char *caps_guest(const struct lv_host *h, const char *arch, const char **end)
{
	char needle[80];
	snprintf(needle, sizeof(needle), "<arch name='%.60s'>", arch);
	const char *a = h->caps ? strstr(h->caps, needle) : NULL;
	if (!a)
		return NULL;
	const char *e = strstr(a, "</guest>");
	*end = e ? e : a + strlen(a);
	return a;
}

/* Does [s, end) hold needle? */
static bool span_has(const char *s, const char *end, const char *needle)
{
	const char *p = strstr(s, needle);
	return p && p < end;
}

/*
 * host_can_boot: h's capabilities have an emulator for t's arch and t's
 * machine type among its machines (by name or canonical name); else why
 * (if not NULL) says what is missing.
 */
bool host_can_boot(const struct lv_host *h, const struct target *t, char *why, size_t len)
{
	if (h->embed) {     /* this machine: the target's own emulator (no caps: see connect_host()) */
		bool ok = access(t->emulator, X_OK) == 0;
		if (!ok && why)
			snprintf(why, len, "no emulator %s", t->emulator);
		return ok;
	}
	const char *end, *g = caps_guest(h, t->qemu_arch, &end);
	if (!g) {
		if (why)
			snprintf(why, len, "no %s emulator", t->qemu_arch);
		return false;
	}
	char *machine, dummy[8];
	int gic;
	if (split_machine(t->machine, &machine, &gic, dummy, sizeof(dummy)) < 0)
		return true;    /* domain_xml() refuses it, with the reason */
	char *by_name = xasprintf(">%s</machine>", machine);
	char *by_canon = xasprintf("canonical='%s'", machine);
	bool ok = span_has(g, end, by_name) || span_has(g, end, by_canon);
	if (!ok && why)
		snprintf(why, len, "no machine '%s' for %s", machine, t->qemu_arch);
	free(by_name), free(by_canon), free(machine);
	return ok;
}

/* The emulator h's capabilities name for t's arch (malloc'd), or NULL. */
char *host_emulator(const struct lv_host *h, const struct target *t)
{
	const char *end, *g = caps_guest(h, t->qemu_arch, &end);
	const char *e = g ? strstr(g, "<emulator>") : NULL;
	if (!e || e > end)
		return NULL;
	e += strlen("<emulator>");
	const char *close_tag = strstr(e, "</emulator>");
	return close_tag && close_tag < end ? xasprintf("%.*s", (int)(close_tag - e), e) : NULL;
}

/* libvirt's version number (major * 1000000 + minor * 1000 + release) as text. */
void format_version(unsigned long v, char *buf, size_t len)
{
	snprintf(buf, len, "%lu.%lu.%lu", v / 1000000, v / 1000 % 1000, v % 1000);
}

/* Is a host with a free slot (free), holding `holds` of the boot's files,
 * at `load` (running / slots), a better place than the best so far? A free
 * slot first; among free hosts the one that already has the most of the
 * files (no upload: a second run of the same kernels goes where they are),
 * then the least loaded; when every host is full (-j past the slots), the
 * least loaded, then the files. Ties keep the host listed first. */
static bool better_place(bool free, int holds, double load, bool best_free, int best_holds,
			 double best_load)
{
	if (free != best_free)
		return free;
	if (free && holds != best_holds)
		return holds > best_holds;
	if (load != best_load)
		return load < best_load;
	return holds > best_holds;
}

/*
 * choose_host: the host for spec's boot: of the hosts still in the run,
 * reachable, not in spec->avoid_hosts and able to boot its target, the
 * best place (better_place()) for a boot whose files have the volume
 * names names[0..2] (NULL: none); its running count is taken. NULL when
 * none can (why says so, with each host's reason).
 */
struct lv_host *choose_host(struct lv_backend *lv, const struct machine_spec *spec,
				   char *const names[3], char *why, size_t len)
{
	struct lv_host *best = NULL;
	double best_load = 0;
	bool best_free = false;
	int best_holds = 0;
	struct strbuf no = STRBUF_INIT;
	strbuf_add(&no, "", 0);
	pthread_mutex_lock(&lv->lock);
	for (size_t i = 0; i < lv->n_hosts; i++) {
		struct lv_host *h = &lv->hosts[i];
		char cant[160] = "";
		if (!h->conn)
			snprintf(cant, sizeof(cant), "unreachable");
		else if (h->out)
			snprintf(cant, sizeof(cant), "taken out of the run");
		else if (spec->avoid_hosts && spec->avoid_hosts[i])
			snprintf(cant, sizeof(cant), "failed this boot before");
		if (*cant || !host_can_boot(h, spec->target, cant, sizeof(cant))) {
			strbuf_addf(&no, "%s%s: %s", no.len ? "; " : "", h->name, cant);
			continue;
		}
		double load = (double)h->running / h->slots;
		bool free = h->running < h->slots;
		int holds = h->embed ? 0 : host_holds(h, names, 3);
		if (!best || better_place(free, holds, load, best_free, best_holds, best_load))
			best = h, best_load = load, best_free = free, best_holds = holds;
	}
	if (best)
		best->running++;
	pthread_mutex_unlock(&lv->lock);
	if (!best)
		snprintf(why, len, "no host can boot target %s (%s)", spec->target->name, no.buf);
	strbuf_release(&no);
	return best;
}

/* ---------------------------------------------------------------- accelerator */

/*
 * The accelerator rule: chosen by proof, not by hope. On some hosts
 * /dev/kvm opens and a trivial guest runs under it, and then every real
 * kernel hangs right after the BIOS; so KVM counts as working on a host
 * only once a real boot under it has printed kernel output, and nothing
 * short of a real boot decides it. cache/accel keeps what boots showed,
 * one line per host boot, emulator, machine and CPU model:
 *
 *   "<boot_id>\t<emulator>\t<machine>\t<cpu>\tyes|no\t<why>\n"
 *
 * With accel "auto": "yes" is KVM (proven); "no" is TCG; no line is KVM
 * *unproven* (m->unproven): the runner asks our retry policy (lv_retry())
 * at each step of the boot, and if it prints no kernel output within the
 * target's kvm_proof seconds (or ends or fails before any), we have it
 * stopped and booted again under TCG, the attempt kept in attempt-kvm/ and
 * the fallback recorded; what the boots showed goes into the cache. "kvm"
 * forces KVM (a KVM boot that shows nothing is then INFRA_ERROR, never
 * the kernel's fault); "tcg" forces TCG. Lines of an earlier host boot
 * are dropped: a reboot may change what KVM does.
 *
 * The rule holds per host: a daemon's host keys its lines
 * "<boot_id>@<uri>" (this machine's boot id: what we cannot see of a
 * remote host's reboots, our own reboot at least forgets), and whether it
 * has KVM at all is what its capabilities say (<domain type='kvm'>).
 */

/* The host's boot id (a new one each host boot), malloc'd. */
static char *host_boot_id(void)
{
	char *id = NULL;
	if (read_file("/proc/sys/kernel/random/boot_id", &id, NULL) < 0)
		id = xstrdup("unknown");
	id[strcspn(id, "\n")] = '\0';
	return id;
}

/* "<boot_id>[@<uri>]\t<emulator>\t<machine>\t<cpu>\t": the cache key of t
 * on h (the embedded driver's lines carry no URI). */
static char *accel_key(const struct lv_host *h, const struct target *t)
{
	char *id = host_boot_id();
	char *key = xasprintf("%s%s%s\t%s\t%s\t%s\t", id, h->embed ? "" : "@", h->embed ? "" : h->uri,
			      t->emulator, t->machine, t->cpu ? t->cpu : "");
	free(id);
	for (char *p = key; *p; p++)    /* a key is one line */
		if (*p == '\n')
			*p = ' ';
	return key;
}

/* Opens and locks cache/accel.lock (exclusive); -1 when it cannot. */
static int accel_cache_lock(void)
{
	mkdir_p(bootrig_cache_dir(), 0755);
	char *path = xasprintf("%s/accel.lock", bootrig_cache_dir());
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	free(path);
	if (fd >= 0 && flock(fd, LOCK_EX) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* What the cache says of key: 1 yes, 0 no, -1 nothing; the line's why
 * into why[len]. */
static int accel_cache_get(const char *key, char *why, size_t len)
{
	char *path = xasprintf("%s/accel", bootrig_cache_dir());
	char *text = NULL;
	int found = -1;
	size_t klen = strlen(key);
	if (read_file(path, &text, NULL) == 0) {
		for (char *line = text; line && *line;) {
			char *nl = strchr(line, '\n');
			if (nl)
				*nl = '\0';
			if (!strncmp(line, key, klen)) {
				const char *v = line + klen;
				found = !strncmp(v, "yes", 3) ? 1 : 0;
				const char *tab = strchr(v, '\t');
				snprintf(why, len, "%s", tab ? tab + 1 : "");
			}
			line = nl ? nl + 1 : NULL;
		}
	}
	free(text), free(path);
	return found;
}

/* Records what a boot showed of key (under the lock); the lines of other
 * host boots are dropped. */
static void accel_cache_put(const char *key, bool works, const char *why)
{
	int lock = accel_cache_lock();
	char *path = xasprintf("%s/accel", bootrig_cache_dir());
	char *text = NULL, *id = host_boot_id();
	struct strbuf sb = STRBUF_INIT;
	strbuf_add(&sb, "", 0);
	size_t klen = strlen(key), idlen = strlen(id);
	if (read_file(path, &text, NULL) == 0) {
		for (char *line = text; line && *line;) {
			char *nl = strchr(line, '\n');
			if (nl)
				*nl = '\0';
			if (strncmp(line, key, klen) && !strncmp(line, id, idlen) &&
			    (line[idlen] == '\t' || line[idlen] == '@'))
				strbuf_addf(&sb, "%s\n", line);
			line = nl ? nl + 1 : NULL;
		}
	}
	strbuf_addf(&sb, "%s%s\t", key, works ? "yes" : "no");
	for (const char *p = why ? why : ""; *p; p++)
		strbuf_add(&sb, *p == '\n' || *p == '\t' ? " " : p, 1);
	strbuf_addstr(&sb, "\n");
	if (write_file_atomic(path, sb.buf, sb.len) < 0)
		warning("cannot record what KVM did in %s", path);
	strbuf_release(&sb);
	free(text), free(id), free(path);
	if (lock >= 0)
		close(lock);
}

/* Can host h give t's guests KVM at all? Embedded: the guest's arch must
 * be this machine's and /dev/kvm open to us; a daemon's host: its
 * capabilities must offer KVM for the arch. Else why says what is missing. */
static bool host_has_kvm(const struct lv_host *h, const struct target *t, char *why, size_t len)
{
	if (!h->embed) {
		const char *end, *g = caps_guest(h, t->qemu_arch, &end);
		if (g && span_has(g, end, "<domain type='kvm'"))
			return true;
		snprintf(why, len, "host %s offers no KVM for %s guests", h->name, t->qemu_arch);
		return false;
	}
	struct utsname u;
	if (uname(&u) < 0 || strcmp(u.machine, t->qemu_arch)) {
		snprintf(why, len, "%s guests get no KVM on this %s host", t->qemu_arch,
			 uname(&u) < 0 ? "unknown" : u.machine);
		return false;
	}
	if (access("/dev/kvm", R_OK | W_OK) < 0) {
		snprintf(why, len, "/dev/kvm: %s", strerror(errno));
		return false;
	}
	return true;
}

/*
 * choose_accel: the accelerator of one boot, by the rule above: sets
 * mach->accelerator, ->accel_reason and ->unproven. Returns 1 for KVM, 0 for TCG,
 * -1 when a forced KVM cannot be had (mach->infra_reason set).
 */
int choose_accel(const struct lv_host *h, const struct machine_spec *spec,
			struct machine *mach)
{
	const struct target *t = spec->target;
	const char *want = spec->accel && *spec->accel ? spec->accel : "auto";
	char *reason = mach->accel_reason, why[160] = "";
	size_t rlen = sizeof(mach->accel_reason);
	int kvm = 0;
	if (!strcmp(want, "tcg")) {
		snprintf(reason, rlen, "tcg: asked for (accel tcg)");
	} else if (spec->icount_forced && strcmp(want, "kvm")) {
		snprintf(reason, rlen, "tcg: --clock icount needs TCG");
	} else if (!host_has_kvm(h, t, why, sizeof(why))) {
		if (!strcmp(want, "kvm")) {
			snprintf(mach->infra_reason, sizeof(mach->infra_reason),
				 "--accel kvm, but %s", why);
			return -1;
		}
		snprintf(reason, rlen, "tcg: %s", why);
	} else {
		char *key = accel_key(h, t);
		int known = accel_cache_get(key, why, sizeof(why));
		if (!strcmp(want, "kvm")) {
			kvm = 1;
			mach->unproven = known != 1;
			snprintf(reason, rlen, "kvm: asked for (accel kvm)%s",
				 known == 1 ? "; proven on this host" : "; not proven on this host");
		} else if (known == 1) {
			kvm = 1;
			snprintf(reason, rlen, "kvm: a real boot under KVM printed kernel output "
				 "on this host before");
		} else if (known == 0) {
			snprintf(reason, rlen, "tcg: KVM failed on this host before (%s)", why);
		} else {
			kvm = 1;
			mach->unproven = true;
			snprintf(reason, rlen, "kvm: not proven on this host yet; TCG if it prints "
				 "no kernel output in %.0f s", lv_kvm_proof(t));
		}
		free(key);
	}
	snprintf(mach->accelerator, sizeof(mach->accelerator), "%s", kvm ? "kvm" : "tcg");
	return kvm;
}

void accel_record(const struct lv_host *h, const struct target *t, bool works, const char *why)
{
	char *key = accel_key(h, t);
	accel_cache_put(key, works, why);
	free(key);
}

/* ---------------------------------------------------------------- the retry policy */

/*
 * QEMU refuses some broken kernel images before running anything ("could
 * not load kernel"): the kernel is to blame, not the host, so the boot is
 * judged as a machine that stopped at once with no output (BOOT_FAIL).
 */
static bool kernel_refused(const char *reason)
{
	return strstr(reason, "could not load kernel") || strstr(reason, "linux kernel too old") ||
	       strstr(reason, "Invalid kernel") || strstr(reason, "not a Linux kernel");
}

/* What a boot showed of KVM on host (a place index) for t: works, or not
 * (why), into the cache. */
static void accel_learned(struct lv_backend *lv, int host, const struct target *t, bool works,
			  const char *why)
{
	if (host < 0 || (size_t)host >= lv->n_hosts)
		return;
	accel_record(&lv->hosts[host], t, works, why);
}

/* r: boot it again under TCG, the KVM attempt kept in attempt-kvm/, for
 * why (the fallback, result.json "accelerator_fallback"). */
static void again_under_tcg(struct backend_retry *r, const char *why)
{
	r->answer = BACKEND_BOOT_AGAIN;
	snprintf(r->reason, sizeof(r->reason), "%s", why);
	snprintf(r->event, sizeof(r->event), "%s: booting it again under TCG", why);
	snprintf(r->accel_reason, sizeof(r->accel_reason),
		 "tcg: %s (that attempt is in attempt-kvm/)", why);
	r->keep = "attempt-kvm";
	r->suffix = "tcg";
	r->accel = "tcg";
}

double lv_kvm_proof(const struct target *t)
{
	return config_target_timeout(t, "kvm_proof", LV_DEFAULT_KVM_PROOF);
}

/*
 * lv_retry: the libvirt backend's retry policy (backend.h): QEMU's refusal
 * of the image is the kernel's; KVM not proven on a host (m->unproven)
 * falls back to TCG when it fails to start, prints no kernel output in
 * the target's kvm_proof seconds or ends before any (with a forced
 * --accel kvm: INFRA_ERROR, the kernel never blamed); and what the boots
 * showed of KVM is learnt per host. The target's kvm_proof is its
 * timeouts.kvm_proof (lv_kvm_proof()).
 */
void lv_retry(struct backend *be, struct machine *m, const struct machine_spec *spec,
	      const struct backend_event *ev, struct backend_retry *r)
{
	struct lv_backend *lv = be->priv;
	bool forced = !strcmp(spec->accel, "kvm");
	char *why = NULL;
	switch (ev->kind) {
	case BACKEND_START_FAILED:
		if (kernel_refused(ev->why)) {
			r->answer = BACKEND_BLAME_KERNEL;
		} else if (m->unproven && !ev->earlier && !forced) {
			why = xasprintf("kvm: %s", ev->why);
			again_under_tcg(r, why);
		}
		break;
	case BACKEND_UNPROVEN_TICK:
		if (ev->t > lv_kvm_proof(spec->target)) {
			r->answer = BACKEND_END;
			snprintf(r->reason, sizeof(r->reason), "kvm printed no kernel output in %.0f s",
				 lv_kvm_proof(spec->target));
		}
		break;
	case BACKEND_PROVEN:        /* kernel output under KVM: it works on this host */
		accel_learned(lv, m->place.index, spec->target, true, NULL);
		break;
	case BACKEND_UNPROVEN_ENDED:
		why = ev->earlier ? xstrdup(ev->earlier)
			: xasprintf("kvm: the boot ended before any kernel output%s%s",
				    *ev->why ? ": " : "", ev->why);
		if (!forced) {
			again_under_tcg(r, why);
			break;
		}
		r->answer = BACKEND_INFRA_ERROR;
		snprintf(r->reason, sizeof(r->reason),
			 "%s (--accel kvm, not proven on this host: the kernel is not blamed)", why);
		break;
	case BACKEND_WRITING:
		/* KVM fell back and the same kernel printed under TCG: KVM is to
		 * blame on that host, and later boots go straight to TCG. */
		if (ev->kernel_printed)
			accel_learned(lv, ev->earlier_place, spec->target, false, ev->earlier);
		break;
	}
	free(why);
}
