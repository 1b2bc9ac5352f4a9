/*
 * lava.c: the LAVA backend (backend.h): boots are LAVA jobs on a lab's
 * server, submitted and followed through its REST API v0.2 with libcurl.
 * Built as the "lava" module (lib/module.h), so that the executable does
 * not link libcurl; runner/backend.c loads it.
 *
 *   open()        GET /api/v0.2/system/version/ (the server answers),
 *                 /system/whoami/ (the token is good), /devicetypes/T/ and
 *                 /devices/?device_type=T (the type exists and has a device
 *                 that is not retired: else every job would wait forever)
 *   prepare()     writes <boot dir>/job.yaml (lava-job.c)
 *   power_on()    POST /api/v0.2/jobs/ {"definition": ...}: the job id; a
 *                 job LAVA refuses is the boot's INFRA_ERROR with LAVA's
 *                 message. Then a follower thread (one per boot) polls
 *                 GET /jobs/ID/ (state, health, failure_comment) and
 *                 GET /jobs/ID/logs/?start=N (the new log lines), and queues
 *                 the target's lines, each with its time, in the machine's
 *                 console queue (console-queue.h) for console_read() and
 *                 console_fd().
 *   stop()        GET /jobs/ID/cancel/ (LAVA 2023.01 routes cancel as GET),
 *                 waits for the job to finish (CANCEL_WAIT), reads the log's
 *                 end.
 *
 * Time: the judge's times are the log's: a console line's stamp is its
 * "dt" minus the dt of the dispatcher's "Boot command:" line (QEMU's
 * start; on boards, the first target line), so console.tlog and the stage
 * times measure the boot, not LAVA's queue and deploy (result.json "lava"
 * has those). While the job runs, the boot's clock (ops->clock) is the
 * later of the last line's time and the wall clock minus LOG_LAG, so that
 * the judge's silence and stage timers run on the machine's time but
 * never ahead of the log LAVA has not yet published.
 *
 * Verdicts: a job that LAVA ends Incomplete, or that someone else
 * canceled, is MACHINE_FAILED with LAVA's message; the runner judges it
 * from the console when the kernel printed (BACKEND_CAP_JUDGE_FAILURE_AFTER_KERNEL).
 */
#include "backend-impl.h"
#include "config.h"
#include "console-queue.h"
#include "lava.h"
#include "textsafe.h"
#include "util.h"

#include <curl/curl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* Most boots submitted at once when -j is not given. */
#define LAVA_MAX_PARALLEL 256
/* How far behind the wall clock LAVA may publish a line of the log. */
#define LOG_LAG 10.0
/* How long a canceled job may take to finish. */
#define CANCEL_WAIT 60.0
/* How long the server may fail to answer before the boot is lost. */
#define SERVER_LOST 60.0
/* How long a job may wait in LAVA's queue. */
#define QUEUE_LIMIT (6 * 3600.0)
/* The largest answer read (a job's log included). */
#define MAX_ANSWER (256u << 20)

/* Jobs emergency_stop() may cancel: at most this many at once (more are
 * canceled by stop() only), and how long it may take for all of them. */
#define LIVE_MAX 1024
#define EMERGENCY_WAIT 10.0

struct lava_be {
	struct lava_options o;       /* strings owned */
	char *api;                   /* "<url>/api/v0.2" */
	char server_version[64];
	/* For emergency_stop() (async-signal-safe: no libcurl, no malloc):
	 * the server's address (http:// only; have_addr false: https or not
	 * resolved) and the cancel request around a job's number, made by
	 * open(); the ids of the jobs submitted and not finished (0: a free
	 * slot). */
	bool have_addr;
	struct sockaddr_storage addr;
	socklen_t addr_len;
	char cancel_head[256];       /* "GET /api/v0.2/jobs/" */
	char cancel_tail[512];       /* "/cancel/ HTTP/1.0\r\nHost: ...\r\n\r\n" */
	atomic_long live[LIVE_MAX];
};

struct lava_machine {
	struct lava_be *lb;
	struct machine *m;
	char *yaml;                  /* the job definition */
	char *dir;
	const char *device_type;
	long job_id;
	pthread_t thread;
	bool thread_started, joined;
	pthread_mutex_t lock;
	pthread_cond_t wake;         /* stop asked */
	/* The console lines, each stamped with its time since the boot's
	 * zero (no limit: the log is in memory anyway); closed when the
	 * follower ends. */
	struct console_queue *queue;
	double cur_stamp;            /* the stamp of the bytes read last (runner's thread) */
	/* Under lock. */
	bool stop_requested, canceled_by_us, finished;
	double zero_dt;              /* the log's dt of the boot's t = 0, or -1 */
	double last_t;               /* the last line's time since zero */
	double zero_mono;            /* now_monotonic() - (wall - zero_dt) at zero */
	char state[32], health[32];
	char failure[512];           /* failure_comment, or the last error line */
	char lost[512];              /* the server went away: why */
	double submitted_mono, started_mono;   /* monotonic times, or 0 */
	double queued;               /* LAVA's start_time - submit_time, or -1 */
	size_t log_lines, bad_lines;
	struct lava_console console;   /* which log lines are the console */
	struct strbuf log;           /* the log as fetched (lava-log.yaml) */
};

/* ---------------------------------------------------------------- HTTP */

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
	struct strbuf *sb = arg;
	if (sb->len + size * n > MAX_ANSWER)
		return 0;
	strbuf_add(sb, p, size * n);
	return size * n;
}

/*
 * http: one request to the API (path after /api/v0.2), with the token; a
 * JSON body when body is not NULL (POST), else GET. The answer's status
 * into *status, its body into resp (emptied first). 0, or -1 when no
 * answer came (err: curl's reason).
 */
static int http(const struct lava_be *lb, const char *path, const char *body, long *status,
		struct strbuf *resp, char *err, size_t errlen)
{
	CURL *h = curl_easy_init();
	if (!h) {
		snprintf(err, errlen, "cannot make a libcurl handle");
		return -1;
	}
	char *url = xasprintf("%s%s", lb->api, path);
	struct curl_slist *hdr = curl_slist_append(NULL, "Accept: application/json");
	char *auth = lb->o.token ? xasprintf("Authorization: Token %s", lb->o.token) : NULL;
	if (auth)
		hdr = curl_slist_append(hdr, auth);
	if (body)
		hdr = curl_slist_append(hdr, "Content-Type: application/json");
	char curl_err[CURL_ERROR_SIZE] = "";
	resp->len = 0;
	strbuf_add(resp, "", 0);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 60L);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, curl_err);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, resp);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "bootrig/" BOOTRIG_VERSION);
	if (body)
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
	CURLcode rc = curl_easy_perform(h);
	if (rc == CURLE_OK)
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
	else
		snprintf(err, errlen, "%s: %s", term_str(url), *curl_err ? curl_err : curl_easy_strerror(rc));
	curl_easy_cleanup(h);
	curl_slist_free_all(hdr);
	free(auth), free(url);
	return rc == CURLE_OK ? 0 : -1;
}

/* The answer as JSON, or NULL. */
static struct json_object *answer_json(const struct strbuf *resp)
{
	return resp->len ? json_tokener_parse(resp->buf) : NULL;
}

/* A string member of o, or NULL. */
static const char *json_str(struct json_object *o, const char *key)
{
	struct json_object *v;
	if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* LAVA's own words on a refused request: its "message" or "detail", else
 * the start of the body; terminal-safe, one line. */
static void answer_reason(const struct strbuf *resp, long status, char *out, size_t len)
{
	struct json_object *j = answer_json(resp);
	const char *msg = json_str(j, "message");
	if (!msg)
		msg = json_str(j, "detail");
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_term(&sb, msg ? msg : resp->buf ? resp->buf : "", msg ? strlen(msg)
			: resp->len > 200 ? 200 : resp->len, 0);
	snprintf(out, len, "HTTP %ld: %s", status, sb.buf ? sb.buf : "");
	strbuf_release(&sb);
	json_object_put(j);
}

/* ---------------------------------------------------------------- open */

/* curl_global_init(), once per process (it is not thread-safe). */
static void curl_init_once(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

/*
 * open_get: GET path for open(): 0 on HTTP 200 (the body in resp), 1 on
 * HTTP 404, else -1 with be->error set: the server unreachable, the token
 * refused (401, 403), or what (a phrase) failed with LAVA's answer.
 */
static int open_get(struct backend *be, const char *path, const char *what, struct strbuf *resp)
{
	struct lava_be *lb = be->priv;
	long status = 0;
	char err[400];
	if (http(lb, path, NULL, &status, resp, err, sizeof(err)) < 0) {
		snprintf(be->error, sizeof(be->error), "cannot reach the LAVA server: %s", err);
		return -1;
	}
	if (status == 200 || status == 404)
		return status == 404;
	answer_reason(resp, status, err, sizeof(err));
	if (status == 401 || status == 403)
		snprintf(be->error, sizeof(be->error), "the LAVA server refused the token (%s)", err);
	else
		snprintf(be->error, sizeof(be->error), "%s: %s", what, err);
	return -1;
}

/* How many devices listed in a /devices/ answer are not retired. */
static size_t usable_devices(const struct strbuf *resp)
{
	struct json_object *j = answer_json(resp), *res;
	size_t usable = 0;
	if (j && json_object_object_get_ex(j, "results", &res) && json_object_is_type(res, json_type_array))
		for (size_t i = 0; i < json_object_array_length(res); i++) {
			const char *h = json_str(json_object_array_get_idx(res, i), "health");
			usable += !h || strcasecmp(h, "Retired");
		}
	json_object_put(j);
	return usable;
}

/*
 * plan_emergency: what emergency_stop() needs, made while we may still
 * allocate: the server's address and the cancel request's text, for an
 * http:// server (an https:// one: nothing; a killed bootrig leaves its
 * jobs to LAVA's own timeouts, with a warning now).
 */
static void plan_emergency(struct lava_be *lb)
{
	const char *u = lb->o.url;
	if (strncmp(u, "http://", 7)) {
		warning("lava: %s is https: if bootrig is killed (not interrupted), its jobs run to "
			"LAVA's own timeouts", term_str(u));
		return;
	}
	const char *host = u + 7, *path = host + strcspn(host, "/");
	char hostport[256], name[256], port[16] = "80";
	snprintf(hostport, sizeof(hostport), "%.*s", (int)(path - host), host);
	const char *at = strrchr(hostport, '@');
	const char *hp = at ? at + 1 : hostport;
	const char *colon = hp[0] == '[' ? strstr(hp, "]:") : strrchr(hp, ':');
	if (hp[0] == '[') {
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(hp + 1, "]"), hp + 1);
		if (colon)
			snprintf(port, sizeof(port), "%s", colon + 2);
	} else {
		snprintf(name, sizeof(name), "%.*s", (int)(colon ? colon - hp : (long)strlen(hp)), hp);
		if (colon)
			snprintf(port, sizeof(port), "%s", colon + 1);
	}
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	if (getaddrinfo(name, port, &hints, &ai) || !ai || ai->ai_addrlen > sizeof(lb->addr)) {
		if (ai)
			freeaddrinfo(ai);
		return;
	}
	memcpy(&lb->addr, ai->ai_addr, ai->ai_addrlen);
	lb->addr_len = ai->ai_addrlen;
	freeaddrinfo(ai);
	snprintf(lb->cancel_head, sizeof(lb->cancel_head), "GET %s/api/v0.2/jobs/", path);
	int n = snprintf(lb->cancel_tail, sizeof(lb->cancel_tail), "/cancel/ HTTP/1.0\r\nHost: %s\r\n"
			 "Accept: application/json\r\n%s%s%s\r\n", hp, lb->o.token ? "Authorization: Token " : "",
			 lb->o.token ? lb->o.token : "", lb->o.token ? "\r\n" : "");
	lb->have_addr = n > 0 && (size_t)n < sizeof(lb->cancel_tail);
}

/* Notes job id as submitted and not finished (for emergency_stop()). */
static void live_add(struct lava_be *lb, long id)
{
	for (size_t i = 0; i < LIVE_MAX; i++) {
		long free_slot = 0;
		if (atomic_compare_exchange_strong(&lb->live[i], &free_slot, id))
			return;
	}
}

/* Job id is finished (or canceled by stop()): emergency_stop() leaves it. */
static void live_remove(struct lava_be *lb, long id)
{
	for (size_t i = 0; i < LIVE_MAX; i++) {
		long want = id;
		if (atomic_compare_exchange_strong(&lb->live[i], &want, 0))
			return;
	}
}

static int lava_open(struct backend *be, const char *where)
{
	struct lava_be *lb = be->priv;
	(void)where;
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, curl_init_once);
	struct strbuf resp = STRBUF_INIT;
	const char *type = term_str(lb->o.device_type);
	char *dt_path = xasprintf("/devicetypes/%s/", lb->o.device_type);
	char *dev_path = xasprintf("/devices/?device_type=%s&limit=1000", lb->o.device_type);
	int rc = open_get(be, "/system/version/", "not a LAVA server's REST API v0.2", &resp);
	if (rc > 0)
		snprintf(be->error, sizeof(be->error), "%s is not a LAVA server's REST API v0.2 (no "
			 "/system/version/)", term_str(lb->api));
	if (!rc) {
		struct json_object *j = answer_json(&resp);
		snprintf(lb->server_version, sizeof(lb->server_version), "%s",
			 json_str(j, "version") ? json_str(j, "version") : "");
		json_object_put(j);
	}
	if (!rc && lb->o.token)
		rc = open_get(be, "/system/whoami/", "LAVA whoami", &resp);
	if (!rc && (rc = open_get(be, dt_path, "LAVA device type", &resp)) > 0)
		snprintf(be->error, sizeof(be->error), "the LAVA server has no device type '%s'", type);
	if (!rc && !(rc = open_get(be, dev_path, "LAVA's device list", &resp)) && !usable_devices(&resp)) {
		snprintf(be->error, sizeof(be->error), "the LAVA server has no device of type '%s' that "
			 "is not retired: its jobs would wait forever", type);
		rc = -1;
	}
	free(dt_path), free(dev_path);
	strbuf_release(&resp);
	if (rc)
		error("%s", be->error);
	else
		plan_emergency(lb);
	return rc ? -1 : 0;
}

/* ---------------------------------------------------------------- prepare */

/* The device type of a boot: the target's, else the run's. */
static const char *boot_device_type(const struct lava_be *lb, const struct machine_spec *spec)
{
	const char *type = spec->target ? config_target_string(spec->target, "device_type") : NULL;
	return type && *type ? type : lb->o.device_type;
}

static int lava_prepare(struct backend *be, struct machine *m, const struct machine_spec *spec)
{
	struct lava_be *lb = be->priv;
	struct lava_machine *lm = xcalloc(1, sizeof(*lm));
	lm->lb = lb;
	lm->m = m;
	lm->zero_dt = -1;
	lm->queued = -1;
	pthread_mutex_init(&lm->lock, NULL);
	pthread_cond_init(&lm->wake, NULL);
	lm->dir = xstrdup(spec->dir);
	lm->device_type = boot_device_type(lb, spec);
	m->priv = lm;
	m->place.index = -1;
	snprintf(m->accelerator, sizeof(m->accelerator), "tcg");
	snprintf(m->clock, sizeof(m->clock), "%s", spec->icount && *spec->icount ? "icount" : "wall");
	snprintf(m->accel_reason, sizeof(m->accel_reason), "lava: the qemu device type, without KVM");
	char *yaml = NULL;
	struct machine_spec with_dtb = *spec;     /* a LAVA board's DTB */
	if (!with_dtb.dtb && lb->o.dtb && *lb->o.dtb)
		with_dtb.dtb = lb->o.dtb;
	spec = &with_dtb;
	int rc = lava_write_job_file(spec, lm->device_type, lb->o.url_prefix, lb->o.serve, &yaml,
				     m->infra_reason,
				     sizeof(m->infra_reason));
	if (rc)
		return -1;
	lm->yaml = yaml;
	if (!(lm->queue = console_queue_new(0))) {
		snprintf(m->infra_reason, sizeof(m->infra_reason), "pipe: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- the follower */

/* Keeps why as the job's failure (under lock): one line, its newlines
 * and tabs as spaces, no trailing space. */
static void set_failure(struct lava_machine *lm, const char *why)
{
	snprintf(lm->failure, sizeof(lm->failure), "%s", why);
	for (char *p = lm->failure; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	size_t n = strlen(lm->failure);
	while (n && lm->failure[n - 1] == ' ')
		lm->failure[--n] = '\0';
}

/* Queues one console line, with its "\n", stamped t: one chunk, so that
 * the runner reads it with its own time. */
static void queue_line(struct lava_machine *lm, const char *msg, double t)
{
	char *text = xasprintf("%s\n", msg);
	console_queue_append(lm->queue, text, strlen(text), t);
	free(text);
}

/*
 * take_log: the new complete lines of the log (text, n bytes) into the
 * queue; returns how many lines were taken. The boot's zero is the
 * dispatcher's "Boot command:" line (QEMU starts), else the first console
 * line.
 */
static size_t take_log(struct lava_machine *lm, const char *text, size_t n)
{
	size_t lines = 0;
	const char *p = text, *end = text + n;
	pthread_mutex_lock(&lm->lock);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break;    /* a line not yet whole: read again next time */
		strbuf_add(&lm->log, p, (size_t)(nl + 1 - p));
		struct lava_log_line l;
		if (lava_log_parse_line(p, (size_t)(nl - p), &l) < 0) {
			lm->bad_lines++;
		} else {
			bool target = lava_console_line(&lm->console, &l);
			if (lm->zero_dt < 0 && l.dt >= 0 &&
			    (target || (l.msg && !strncmp(l.msg, "Boot command:", 13)))) {
				lm->zero_dt = l.dt;
				struct timespec ts;
				clock_gettime(CLOCK_REALTIME, &ts);
				double wall = (double)ts.tv_sec + ts.tv_nsec / 1e9;
				lm->zero_mono = now_monotonic() - (wall - l.dt);
			}
			double t = lm->zero_dt >= 0 && l.dt >= 0 ? l.dt - lm->zero_dt : lm->last_t;
			if (t < lm->last_t)
				t = lm->last_t;
			if (lm->zero_dt >= 0)
				lm->last_t = t;
			if (target)
				queue_line(lm, l.msg, t);
			const char *why = l.error_msg ? l.error_msg
					  : !strcmp(l.lvl, "error") ? l.msg : NULL;
			if (why && *why)
				set_failure(lm, why);
			lava_log_line_release(&l);
		}
		lines++;
		p = nl + 1;
	}
	pthread_mutex_unlock(&lm->lock);
	if (lines)
		console_queue_wake(lm->queue);    /* the clock moved on */
	return lines;
}

/* Sleeps up to s seconds, or until stop is asked. */
static void nap(struct lava_machine *lm, double s)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	long ns = ts.tv_nsec + (long)((s - (long)s) * 1e9);
	ts.tv_sec += (time_t)s + ns / 1000000000L;
	ts.tv_nsec = ns % 1000000000L;
	pthread_mutex_lock(&lm->lock);
	if (!lm->stop_requested)
		pthread_cond_timedwait(&lm->wake, &lm->lock, &ts);
	pthread_mutex_unlock(&lm->lock);
}

/* One look at the job: its state and the new lines of its log. Returns
 * the phase, or LAVA_UNKNOWN when the server did not answer (err). */
static enum lava_job_phase look(struct lava_machine *lm, struct strbuf *resp, char *err,
				size_t errlen)
{
	long status = 0;
	char *path = xasprintf("/jobs/%ld/", lm->job_id);
	int rc = http(lm->lb, path, NULL, &status, resp, err, errlen);
	free(path);
	if (rc < 0)
		return LAVA_UNKNOWN;
	if (status != 200) {
		answer_reason(resp, status, err, errlen);
		return LAVA_UNKNOWN;
	}
	struct json_object *j = answer_json(resp);
	const char *state = json_str(j, "state"), *health = json_str(j, "health");
	const char *comment = json_str(j, "failure_comment");
	enum lava_job_phase phase = lava_job_phase(state);
	pthread_mutex_lock(&lm->lock);
	snprintf(lm->state, sizeof(lm->state), "%s", state ? state : "");
	snprintf(lm->health, sizeof(lm->health), "%s", health ? health : "");
	if (comment && *comment)
		set_failure(lm, comment);
	if (phase != LAVA_QUEUED && !lm->started_mono)
		lm->started_mono = now_monotonic();
	const char *submit = json_str(j, "submit_time"), *start = json_str(j, "start_time");
	double t_submit = submit ? lava_parse_dt(submit) : -1, t_start = start ? lava_parse_dt(start) : -1;
	if (t_submit >= 0 && t_start >= t_submit)
		lm->queued = t_start - t_submit;     /* LAVA's own times: exact */
	pthread_mutex_unlock(&lm->lock);
	json_object_put(j);
	if (phase == LAVA_QUEUED)
		return phase;
	path = xasprintf("/jobs/%ld/logs/?start=%zu", lm->job_id, lm->log_lines);
	rc = http(lm->lb, path, NULL, &status, resp, err, errlen);
	free(path);
	if (rc < 0)
		return LAVA_UNKNOWN;
	if (status == 200)
		lm->log_lines += take_log(lm, resp->buf, resp->len);
	else if (status != 404)     /* 404: no log yet */
		return answer_reason(resp, status, err, errlen), LAVA_UNKNOWN;
	return phase == LAVA_UNKNOWN ? LAVA_RUNNING : phase;
}

/* Asks LAVA to cancel the job (GET /jobs/ID/cancel/). */
static void cancel_job(struct lava_machine *lm)
{
	struct strbuf resp = STRBUF_INIT;
	long status = 0;
	char err[300];
	char *path = xasprintf("/jobs/%ld/cancel/", lm->job_id);
	if (http(lm->lb, path, NULL, &status, &resp, err, sizeof(err)) < 0)
		warning("lava: cannot cancel job %ld: %s", lm->job_id, err);
	else if (status != 200) {
		answer_reason(&resp, status, err, sizeof(err));
		warning("lava: cannot cancel job %ld: %s", lm->job_id, err);
	}
	free(path);
	strbuf_release(&resp);
}

/* The follower thread: follows the job until it has finished and its log
 * is read, or stop was asked and the cancel took effect (or CANCEL_WAIT). */
static void *follow(void *arg)
{
	struct lava_machine *lm = arg;
	struct strbuf resp = STRBUF_INIT;
	char err[400] = "";
	double last_answer = now_monotonic(), cancel_at = 0;
	bool cancel_sent = false, finished_seen = false;
	for (;;) {
		pthread_mutex_lock(&lm->lock);
		bool stop = lm->stop_requested;
		pthread_mutex_unlock(&lm->lock);
		if (stop && !cancel_sent) {
			cancel_job(lm);
			cancel_sent = true;
			cancel_at = now_monotonic();
			pthread_mutex_lock(&lm->lock);
			lm->canceled_by_us = true;
			pthread_mutex_unlock(&lm->lock);
		}
		size_t before = lm->log_lines;
		enum lava_job_phase phase = look(lm, &resp, err, sizeof(err));
		double now = now_monotonic();
		if (phase != LAVA_UNKNOWN)
			last_answer = now;
		if (phase == LAVA_FINISHED && finished_seen && lm->log_lines == before)
			break;     /* finished, and a look after that found no more lines */
		finished_seen |= phase == LAVA_FINISHED;
		if (phase == LAVA_UNKNOWN && now - last_answer > SERVER_LOST) {
			pthread_mutex_lock(&lm->lock);
			snprintf(lm->lost, sizeof(lm->lost), "lost the LAVA server following job %ld: %s",
				 lm->job_id, err);
			pthread_mutex_unlock(&lm->lock);
			break;
		}
		if (cancel_sent && now - cancel_at > CANCEL_WAIT) {
			warning("lava: job %ld did not end %.0f s after its cancel", lm->job_id, CANCEL_WAIT);
			break;
		}
		if (phase == LAVA_QUEUED && !cancel_sent && now - lm->submitted_mono > QUEUE_LIMIT) {
			pthread_mutex_lock(&lm->lock);
			snprintf(lm->lost, sizeof(lm->lost), "job %ld waited in LAVA's queue for more than "
				 "%.0f s", lm->job_id, QUEUE_LIMIT);
			lm->stop_requested = true;
			pthread_mutex_unlock(&lm->lock);
			continue;
		}
		if (!finished_seen)
			nap(lm, phase == LAVA_QUEUED ? 2.0 : cancel_sent ? 0.5 : 1.0);
	}
	strbuf_release(&resp);
	if (finished_seen)
		live_remove(lm->lb, lm->job_id);
	pthread_mutex_lock(&lm->lock);
	lm->finished = true;
	enum console_end end = *lm->lost ? CONSOLE_ERROR : CONSOLE_EOF;
	pthread_mutex_unlock(&lm->lock);
	console_queue_close(lm->queue, end);
	return NULL;
}

/* ---------------------------------------------------------------- power_on */

static int lava_power_on(struct machine *m)
{
	struct lava_machine *lm = m->priv;
	struct json_object *req = json_object_new_object();
	json_object_object_add(req, "definition", json_object_new_string(lm->yaml));
	struct strbuf resp = STRBUF_INIT;
	long status = 0;
	char err[400];
	int rc = http(lm->lb, "/jobs/", json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN),
		      &status, &resp, err, sizeof(err));
	json_object_put(req);
	if (rc < 0) {
		snprintf(m->infra_reason, sizeof(m->infra_reason), "cannot submit the LAVA job: %s", err);
		strbuf_release(&resp);
		return -1;
	}
	struct json_object *j = answer_json(&resp), *ids;
	if (status == 201 && j && json_object_object_get_ex(j, "job_ids", &ids) &&
	    json_object_is_type(ids, json_type_array) && json_object_array_length(ids) >= 1)
		lm->job_id = (long)json_object_get_int64(json_object_array_get_idx(ids, 0));
	json_object_put(j);
	if (lm->job_id <= 0) {
		answer_reason(&resp, status, err, sizeof(err));
		snprintf(m->infra_reason, sizeof(m->infra_reason), "LAVA refused the job (%s/job.yaml): %s",
			 lm->dir, err);
		strbuf_release(&resp);
		return -1;
	}
	strbuf_release(&resp);
	live_add(lm->lb, lm->job_id);
	lm->submitted_mono = now_monotonic();
	int e = pthread_create(&lm->thread, NULL, follow, lm);
	if (e) {
		snprintf(m->infra_reason, sizeof(m->infra_reason), "cannot start a thread: %s", strerror(e));
		lm->stop_requested = true;
		cancel_job(lm);
		return -1;
	}
	lm->thread_started = true;
	return 0;
}

/* ---------------------------------------------------------------- the console */

static int lava_console_fd(struct machine *m)
{
	struct lava_machine *lm = m->priv;
	return console_queue_fd(lm->queue);
}

static ssize_t lava_console_read(struct machine *m, char *buf, size_t len)
{
	struct lava_machine *lm = m->priv;
	if (!lm->thread_started)
		return -1;       /* no job: no console */
	double t;
	ssize_t n = console_queue_read(lm->queue, buf, len, &t);
	if (n > 0)
		lm->cur_stamp = t;
	return n;
}

static double lava_console_stamp(struct machine *m)
{
	struct lava_machine *lm = m->priv;
	return lm->cur_stamp;
}

static double lava_clock(struct machine *m)
{
	struct lava_machine *lm = m->priv;
	pthread_mutex_lock(&lm->lock);
	double t = 0;
	if (lm->zero_dt >= 0) {
		t = lm->last_t;
		double wall_t = now_monotonic() - lm->zero_mono - LOG_LAG;
		if (!lm->finished && wall_t > t)
			t = wall_t;
	}
	pthread_mutex_unlock(&lm->lock);
	return t;
}

static enum machine_state lava_state(struct machine *m)
{
	struct lava_machine *lm = m->priv;
	pthread_mutex_lock(&lm->lock);
	enum machine_state st = MACHINE_RUNNING;
	if (lm->finished && !console_queue_len(lm->queue)) {
		enum lava_job_health h = lava_job_health(lm->health);
		if (*lm->lost) {
			snprintf(m->infra_reason, sizeof(m->infra_reason), "%s", lm->lost);
			st = MACHINE_FAILED;
		} else if (lava_job_infra_failure(h, lm->canceled_by_us)) {
			snprintf(m->infra_reason, sizeof(m->infra_reason), "LAVA job %ld %s: %.400s",
				 lm->job_id, lm->health, *lm->failure ? lm->failure : "(no reason given)");
			st = MACHINE_FAILED;
		} else {
			st = MACHINE_STOPPED;
		}
	}
	pthread_mutex_unlock(&lm->lock);
	return st;
}

/* ---------------------------------------------------------------- stop */

static int lava_stop(struct machine *m)
{
	struct lava_machine *lm = m->priv;
	if (!lm || !lm->thread_started || lm->joined)
		return 0;
	pthread_mutex_lock(&lm->lock);
	if (!lm->finished)
		lm->stop_requested = true;
	pthread_cond_broadcast(&lm->wake);
	pthread_mutex_unlock(&lm->lock);
	pthread_join(lm->thread, NULL);
	lm->joined = true;
	return 0;
}

static void lava_release(struct machine *m)
{
	struct lava_machine *lm = m->priv;
	if (!lm)
		return;
	lava_stop(m);
	if (lm->job_id > 0)
		live_remove(lm->lb, lm->job_id);   /* stop() canceled it */
	console_queue_free(lm->queue);
	pthread_mutex_destroy(&lm->lock);
	pthread_cond_destroy(&lm->wake);
	strbuf_release(&lm->log);
	free(lm->yaml), free(lm->dir);
	free(lm);
	m->priv = NULL;
}

/* result.json "lava": the server, the job, what LAVA said of it. */
static struct json_object *lava_result_section(struct machine *m)
{
	struct lava_machine *lm = m->priv;
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "server", json_cstring_utf8(lm->lb->o.url));
	json_object_object_add(o, "server_version", json_cstring_utf8(lm->lb->server_version));
	json_object_object_add(o, "device_type", json_cstring_utf8(lm->device_type));
	json_object_object_add(o, "job_id", lm->job_id > 0 ? json_object_new_int64(lm->job_id) : NULL);
	char *url = lm->job_id > 0 ? xasprintf("%s/scheduler/job/%ld", lm->lb->o.url, lm->job_id) : NULL;
	json_object_object_add(o, "job_url", url ? json_cstring_utf8(url) : NULL);
	free(url);
	pthread_mutex_lock(&lm->lock);
	json_object_object_add(o, "state", json_cstring_utf8(lm->state));
	json_object_object_add(o, "health", json_cstring_utf8(lm->health));
	json_object_object_add(o, "failure", *lm->failure ? json_cstring_utf8(lm->failure) : NULL);
	json_object_object_add(o, "canceled_by_bootrig", json_object_new_boolean(lm->canceled_by_us));
	double queued = lm->queued >= 0 ? lm->queued : lm->started_mono && lm->submitted_mono
			? lm->started_mono - lm->submitted_mono : -1;
	json_object_object_add(o, "queued_seconds", queued >= 0 ? json_object_new_double(queued) : NULL);
	json_object_object_add(o, "log_lines", json_object_new_int64((int64_t)lm->log_lines));
	json_object_object_add(o, "log_lines_unread", json_object_new_int64((int64_t)lm->bad_lines));
	pthread_mutex_unlock(&lm->lock);
	return o;
}

/* Keeps LAVA's whole log beside the console: <dir>/lava-log.yaml. */
static int lava_annotate(struct machine *m, const char *dir)
{
	struct lava_machine *lm = m->priv;
	if (!lm->log.len)
		return 0;
	char *path = xasprintf("%s/lava-log.yaml", dir);
	int rc = write_file_atomic(path, lm->log.buf, lm->log.len);
	if (rc < 0)
		error("cannot write %s: %s", path, strerror(errno));
	free(path);
	return rc;
}

/* Seconds on the monotonic clock (async-signal-safe). */
static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Waits for events on fd until deadline: true when they came. */
static bool wait_fd(int fd, short events, double deadline)
{
	for (;;) {
		double left = deadline - mono_now();
		if (left <= 0)
			return false;
		struct pollfd p = { .fd = fd, .events = events };
		int r = poll(&p, 1, (int)(left * 1000) + 1);
		if (r > 0)
			return true;
		if (r == 0 || errno != EINTR)
			return false;
	}
}

/* Writes all of buf to fd before deadline. */
static bool send_all(int fd, const char *buf, size_t len, double deadline)
{
	while (len) {
		if (!wait_fd(fd, POLLOUT, deadline))
			return false;
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return false;
		if (n > 0)
			buf += n, len -= (size_t)n;
	}
	return true;
}

/*
 * cancel_now: one GET /jobs/ID/cancel/ on a socket of our own, before
 * deadline (async-signal-safe: socket, connect, poll, send, read, close);
 * waits for the answer's first bytes (the server took the request).
 */
static void cancel_now(const struct lava_be *lb, long id, double deadline)
{
	char num[24];
	size_t n = sizeof(num);
	num[--n] = '\0';
	do {
		num[--n] = (char)('0' + id % 10);
		id /= 10;
	} while (id && n);
	int fd = socket(lb->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if ((connect(fd, (const struct sockaddr *)&lb->addr, lb->addr_len) == 0 || errno == EINPROGRESS) &&
	    send_all(fd, lb->cancel_head, strlen(lb->cancel_head), deadline) &&
	    send_all(fd, num + n, strlen(num + n), deadline) &&
	    send_all(fd, lb->cancel_tail, strlen(lb->cancel_tail), deadline) &&
	    wait_fd(fd, POLLIN, deadline)) {
		char buf[64];
		ssize_t r = read(fd, buf, sizeof(buf));   /* the answer does not matter now */
		(void)r;
	}
	close(fd);
}

/*
 * Async-signal-safe (the runner's atexit() handler, a die() mid-run):
 * cancels every job submitted and not finished, each with a request of
 * its own (cancel_now()), all within EMERGENCY_WAIT seconds; what is not
 * canceled by then runs to LAVA's own timeouts. Ctrl-C and SIGTERM
 * cancel through stop() (matrix.c's abandon_boot()), which also waits
 * for the job to end and reads its log.
 */
static void lava_emergency_stop(struct backend *be)
{
	struct lava_be *lb = be->priv;
	if (!lb || !lb->have_addr)
		return;
	double deadline = mono_now() + EMERGENCY_WAIT;
	for (size_t i = 0; i < LIVE_MAX; i++) {
		long id = atomic_exchange(&lb->live[i], 0);
		if (id > 0)
			cancel_now(lb, id, deadline);
	}
}

static void lava_close(struct backend *be)
{
	struct lava_be *lb = be->priv;
	free((char *)lb->o.url), free((char *)lb->o.token), free((char *)lb->o.url_prefix);
	free((char *)lb->o.device_type), free((char *)lb->o.dtb);
	free(lb->api);
	free(lb);
	free(be->where);
	free(be);
}

static const struct backend_ops lava_ops = {
	.name = "lava", .accelerator = "tcg", .max_parallel = LAVA_MAX_PARALLEL,
	.caps = BACKEND_CAP_WHERE_IS_URI | BACKEND_CAP_THREADED_OPS |
		BACKEND_CAP_JUDGE_FAILURE_AFTER_KERNEL,
	BACKEND_OPS(lava),
	.console_stamp = lava_console_stamp, .clock = lava_clock, .release = lava_release,
	.result_section = lava_result_section, .annotate = lava_annotate,
};

struct backend *backend_lava_new(const struct lava_options *o)
{
	struct lava_be *lb = xcalloc(1, sizeof(*lb));
	size_t n = strlen(o->url);
	while (n && o->url[n - 1] == '/')
		n--;
	lb->o.url = xasprintf("%.*s", (int)n, o->url);
	lb->o.token = o->token ? xstrdup(o->token) : NULL;
	lb->o.url_prefix = o->url_prefix ? xstrdup(o->url_prefix) : NULL;
	lb->o.device_type = xstrdup(o->device_type ? o->device_type : "qemu");
	lb->o.dtb = o->dtb ? xstrdup(o->dtb) : NULL;
	lb->o.serve = o->serve;     /* the run's: started and stopped by cmd-run.c */
	lb->api = xasprintf("%s/api/v0.2", lb->o.url);
	struct backend *be = backend_alloc(&lava_ops, lb);
	be->where = xstrdup(lb->o.url);
	return be;
}
