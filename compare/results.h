/*
 * results.h: one side of a comparison, and the one loader that builds it.
 *
 * A side is every result.json found below a directory (any depth: a whole
 * RESULTS_DIR, one kernel, one variant or one boot), or the boots of one
 * kernel in the history database (db.h), all boots pooled. Either source
 * gives one boot record per boot (struct boot_record, below: what a boot
 * contributes), and side_add_boot() (side.c) alone turns records into the
 * side, so a side reads the same from the files and from the database. Each
 * boot that PASSed contributes one observation per metric: that boot's
 * median of the metric's samples (so n is the number of boots, as in "five
 * boots a side"). Boots that did not PASS are kept in the boot list, with
 * their verdict and reason, but give no observation; except on a side
 * loaded with include_fail (compare --include-fail): there a FAIL boot that
 * failed for something other than its metrics (boot_fail_cause()) gives
 * its own as a PASS boot does, counted apart (nfail_included, metric_series
 * .nfail).
 */
#ifndef BOOTRIG_RESULTS_H
#define BOOTRIG_RESULTS_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;

enum { RESULT_STAGES = 6 };     /* firmware kernel init results end poweroff */
extern const char *const result_stage_names[RESULT_STAGES];

struct boot_info {
	char *dir;              /* the directory holding result.json */
	char *kernel_id, *variant, *verdict, *reason;
	char *append, *image, *target;  /* how it was run: command line, initramfs
					 * sha256 (or path), target ("" if absent) */
	char *host;             /* the libvirt host that ran it: result.json
				 * host.name ("" if absent: one host) */
	char *started;          /* result.json "started" (RFC 3339), or NULL */
	char *seed;             /* an icount boot's seed (result.json seed, clock icount), or
				 * NULL: unknown (wall clock, --seed random, the database) */
	double duration;        /* result.json "duration" (s), NAN: unknown */
	int boot;
	bool passed;            /* verdict PASS */
	const char *fail_cause; /* a FAIL that is not its metrics' own: boot_fail_cause()'s
				 * words ("KTAP case failed"); NULL: PASS, another verdict,
				 * or a FAIL of the metrics' own */
	bool counted;           /* its observations count: PASS, or a FAIL with a
				 * fail_cause on a side loaded with include_fail */
	size_t nmetrics;        /* the observations its record had, counted or not */
};

struct event_info {
	char *kind, *title;
	size_t boot;            /* index into side.boots */
};

/* A KTAP (KUnit) case of one boot: result.json's ktap.cases. */
struct ktap_case_info {
	char *suite, *name, *status;    /* status "ok", "fail" or "skip" */
	size_t boot;                    /* index into side.boots */
};

struct metric_series {
	char *abi, *test, *name, *unit;
	bool higher_better;     /* the metric's "better" field */
	double *obs;            /* one per counted boot (boot_info .counted): its median */
	size_t n, alloc;
	size_t nfail;           /* of obs, those of FAIL boots (side .include_fail) */
	/* The boots' own sampling (result.json's n, ci, ci_target, stop; absent
	 * in logs of guests before adaptive sampling): */
	size_t samples;         /* the samples behind obs, pooled over the boots */
	double ci_max;          /* the widest interval a boot reached (%), NAN: none */
	double ci_target;       /* the target the boots sampled for (%), NAN: none */
	size_t unmet;           /* boots that stopped at the most samples (stop=max) */
	double test_s;          /* the time (s) of the guest test that measured it
				 * (result.json tests[].ms), summed over the PASS
				 * boots that report it; NAN: none does */
};

struct abi_count {
	char *abi;
	unsigned ok, unsupported, error;
	char *reason;           /* the first non-ok reason seen, or NULL */
};

/*
 * A hash index of (abi, test, name) triples held in the caller's array:
 * the slots keep array indices; get(ctx, i, key) fills the triple of entry
 * i. Look-ups and additions in constant time on average, so a result.json
 * with 40,000 metrics costs no more per metric than one with 4. Zeroed is
 * empty; triple_index_free() frees it.
 */
struct triple_index {
	size_t *slot;           /* index + 1; 0: empty */
	size_t cap, n;          /* cap a power of two, n < cap / 2 */
};
typedef void (*triple_get)(const void *ctx, size_t i, const char *key[3]);
/* The index of the entry with key (abi, test, name), or SIZE_MAX. */
size_t triple_index_find(const struct triple_index *x, const char *const key[3], triple_get get,
			 const void *ctx);
/* Adds entry i (not already in it); get and ctx as for the look-ups. */
void triple_index_add(struct triple_index *x, size_t i, triple_get get, const void *ctx);
void triple_index_free(struct triple_index *x);

/*
 * A metric's profile on a side (result.json metrics[].profile, status ok,
 * of the PASS boots): per function, its share (percent of the pass's
 * samples) in each boot that has this profile, in boot order, self and
 * children: one observation per boot; and the folded stacks pooled over
 * those boots. A boot lists at most 80 functions: one it does not list is
 * below that boot's cut (struct boot_profile .cut_self, .cut_children),
 * anywhere from 0 to the cut, never simply 0 (profile_fn_values()).
 */
struct profile_fn_series {
	char *name;
	double *self, *children;        /* [n]: NAN where a boot does not list it,
					 * and so are the boots after the n-th
					 * (profile_fn_values() fills them in) */
	size_t n, alloc;
};

struct profile_stack_sum {
	char *stack;                    /* folded: root;...;leaf */
	double samples;                 /* summed over the boots */
};

struct profile_series {
	char *abi, *test, *name;        /* the metric's identity */
	char *event;                    /* the first boot's ("cpu-clock") */
	size_t nboots;                  /* PASS boots with this profile */
	double *cut[2];                 /* [nboots]: each boot's cut (%), self and
					 * children (boot_profile_cut()) */
	double samples, lost, stacks_other;     /* summed over those boots */
	struct profile_fn_series *fns;  /* in order of first appearance */
	size_t nfns;
	struct triple_index fn_index;   /* of fns[], by (name, "", "") */
	struct profile_stack_sum *stacks;       /* in order of first appearance */
	size_t nstacks;
	struct triple_index stack_index;        /* of stacks[], by (stack, "", "") */
};

struct side {
	char *label;            /* the path as given */
	const char *only_host;  /* set by side_load_how(): only that host's boots */
	bool include_fail;      /* set by the loaders (struct side_how): a FAIL boot
				 * whose cause is not its metrics (boot_fail_cause())
				 * is counted as a PASS boot is */
	struct boot_info *boots;
	size_t nboots, npass, ninfra;
	size_t nfail_included;  /* FAIL boots counted (include_fail) */
	size_t nfail_left;      /* FAIL boots with metrics (boot_info .nmetrics) and a
				 * fail_cause left out: include_fail was not set */
	size_t ncopies;         /* result.json files left out as byte-identical
				 * copies of a boot counted (results_list()) */
	struct metric_series *metrics;  /* in order of first appearance */
	size_t nmetrics;
	struct triple_index metric_index;       /* of metrics[], by identity */
	struct abi_count *abis;
	size_t nabis;
	struct event_info *events;
	size_t nevents;
	struct ktap_case_info *cases;   /* every boot's, in order */
	size_t ncases;
	double *stages[RESULT_STAGES];  /* per PASS boot that reached it */
	size_t nstages[RESULT_STAGES];
	struct profile_series *profiles;        /* in order of first appearance */
	size_t nprofiles;
	struct triple_index profile_index;      /* of profiles[], by identity */
	struct side_uncounted {         /* perf stat's events a counted boot could not count */
		char *abi, *event, *reason;     /* the first boot's reason */
	} *uncounted;                   /* in order of first appearance */
	size_t nuncounted;
};

/*
 * Loads every result.json below path (or path itself, if it is a file).
 * Returns 0; or -1 after an error message when path cannot be read or a
 * result.json is not valid (not JSON, wrong "format", fields of the wrong
 * type). A directory without any result.json loads as a side with no boots.
 * Boots of one kernel and variant must have been run alike (the same
 * command line, initramfs and target): else -1 after a message naming
 * what differs, unless mixed.
 */
int side_load(struct side *side, const char *path, bool mixed);

/* How a side is loaded: side_load()'s mixed; host set: only the boots that
 * host ran (boot_info .host); include_fail: compare --include-fail (struct
 * side .include_fail). */
struct side_how {
	bool mixed, include_fail;
	const char *host;
};
/* As side_load(), as how says. */
int side_load_how(struct side *side, const char *path, const struct side_how *how);

/* The boots whose observations count on side (boot_info .counted): the
 * PASS boots and the FAIL boots included. */
static inline size_t side_counted(const struct side *side)
{
	return side->npass + side->nfail_included;
}

/*
 * side_seeds: how many distinct seeds side's counted boots (the ones that
 * give observations: side_counted()) ran, and into *unknown how many of
 * them have no known seed (each of those its own randomness). Under icount one seed is one
 * boot: boots of one seed are copies, and a p over them weighs nothing.
 */
size_t side_seeds(const struct side *side, size_t *unknown);

/* The hosts side's boots came from, distinct, in order of first boot
 * (pointers into side->boots): how many, into hosts[max]. */
size_t side_hosts(const struct side *side, const char **hosts, size_t max);
void side_free(struct side *side);

/*
 * Every result.json at or below path (path itself when it is a file), in
 * natural order (boot 10 after boot 9), malloc'd, into *files and *n (the
 * ones found before an error too). Each boot once, by the one identity a
 * boot has: its result.json's bytes (the history database's key, their
 * sha256). Symlinks are followed, but one back to a directory being
 * walked (`ln -s .. R/k/x`) is not; a file reached by two paths
 * (`R/latest -> run1`) and a byte-identical copy of it (`cp -r 1 9`) are
 * listed by the first in natural order only. Boots repeated on purpose
 * differ in their bytes (boot number, start time) and are each listed.
 * When copies is not NULL, *copies (malloc'd, *n of them; NULL when none
 * found) counts for each file the copies of it left out (a second path to
 * one file is none). 0, or -1 after a message when path or a directory
 * below it cannot be read.
 */
int results_list(const char *path, char ***files, size_t **copies, size_t *n);

/* The largest result.json read (a boot with every metric's samples is
 * under a megabyte): past it, the file is refused, never read whole. */
#define RESULT_JSON_MAX_BYTES (64u << 20)

/*
 * The one reader of results files (compare, import, export): reads path,
 * at most RESULT_JSON_MAX_BYTES (read_file_max: /dev/zero is refused), and
 * parses it as a result.json: one JSON document (nothing but blanks after
 * it), no NaN or Infinity anywhere (json-c accepts them; they are not
 * JSON, and nothing downstream can keep them), every metric's "profile"
 * (when present) of the right types (an object; "status" and "event"
 * strings; numbers; "functions" and "stacks" arrays of objects with a
 * string "name" / "stack" and numbers), "format":
 * "bootrig-result-1" and a "verdict". 0 with *root (json_object_put() it),
 * or -1 after a message naming the file and what is wrong (for a number
 * that is not finite or a profile field of the wrong type, its field:
 * "metrics[2].median", "metrics[2].profile.functions[3].self").
 */
int result_json_read(const char *path, struct json_object **root);

/*
 * result_json_parse: the same over text[0..len) already read (len at most
 * RESULT_JSON_MAX_BYTES), path only naming it in messages.
 */
int result_json_parse(const char *path, const char *text, size_t len, struct json_object **root);

/* Members of a result.json object: a string (dflt when absent or not a
 * string), a number (NAN when absent or not a number), an array (or NULL). */
const char *result_get_str(struct json_object *obj, const char *key, const char *dflt);
double result_get_num(struct json_object *obj, const char *key);
struct json_object *result_get_array(struct json_object *obj, const char *key);

/* A boot's observation of a metric entry of result.json: its "median",
 * else its samples' median; NAN when it has neither. */
double result_metric_observation(struct json_object *m);

/*
 * A boot record: what one boot contributes to a side, whatever it was read
 * from: its result.json (result_boot_record()) or its rows in the history
 * database (compare/db.c). side_add_boot() is the one step that turns
 * records into a side, so the two sources cannot read a boot differently:
 * a field a side needs is a field of the record, and both sources fill it.
 *
 * The strings are borrowed (from the parsed JSON, or copies the database
 * reader keeps until the side is built); the arrays are the record's own:
 * boot_record_init() starts one empty, the boot_record_add_*() append,
 * boot_record_release() frees the arrays, not the strings.
 */
struct side_observation {
	const char *abi, *test, *name, *unit;
	bool higher_better;
	double obs;             /* the boot's median */
	size_t samples;         /* the samples behind it (result.json n) */
	double ci, ci_target;   /* NAN: not reported */
	bool stop_max;          /* stopped at the most samples */
};

struct boot_test {              /* result.json tests[]: the time a guest test took */
	const char *abi, *test;
	const char *status;     /* "PASS", "FAIL", "TIMEOUT"; NULL: not reported */
	double ms;              /* NAN: not reported */
};

struct boot_abi {               /* result.json abis: one ABI's status */
	const char *name, *status, *reason;     /* reason NULL: none */
};

struct boot_event {             /* result.json events[] */
	const char *kind, *title;
};

struct boot_case {              /* result.json ktap.cases[] */
	const char *suite, *name, *status;
};

struct boot_uncounted {         /* result.json metrics[].perf_stat.absent: an event */
	const char *abi, *event, *reason;       /* the guest could not count, and why */
};

/* One metric's profile in one boot (result.json metrics[].profile with
 * "status": "ok"): shares in percent of the pass's samples; the arrays and
 * strings are borrowed, as the record's are. */
struct boot_profile_fn {
	const char *name;
	double self, children;          /* percent of samples */
};
struct boot_profile_stack {
	const char *stack;              /* folded: root;...;leaf */
	double samples;
};
struct boot_profile {
	const char *abi, *test, *name;  /* the metric's identity */
	const char *event;              /* "cpu-clock", "cycles" */
	double period_ns;
	double samples, lost, stacks_other;
	double cut_self, cut_children;  /* the most a function not listed has (%), result.json
					 * cut_self and cut_children; NAN: not reported */
	const struct boot_profile_fn *fns;
	size_t nfns;
	const struct boot_profile_stack *stacks;
	size_t nstacks;
};

struct boot_record {
	const char *dir;        /* the directory result.json is (or was) in */
	const char *kernel_id, *variant, *verdict, *reason, *append, *image, *target, *host;
	const char *started;    /* NULL: not reported */
	const char *seed;       /* an icount boot's seed, NULL: unknown (boot_info .seed) */
	double duration;        /* NAN: not reported */
	int boot;
	struct side_observation *metrics;       /* with an identity and a finite median */
	size_t nmetrics;
	struct boot_test *tests;
	size_t ntests;
	struct boot_abi *abis;
	size_t nabis;
	struct boot_event *events;
	size_t nevents;
	struct boot_case *cases;
	size_t ncases;
	struct boot_profile *profiles;  /* the metrics' profiles (status ok) */
	size_t nprofiles;
	struct boot_uncounted *uncounted;       /* once an (abi, event) */
	size_t nuncounted;
	double stages[RESULT_STAGES];   /* each stage's start (s), NAN: not reached */
	char **owned;                   /* strings the record made (the counters' names) */
	size_t nowned;
};

/*
 * A metric's perf stat counters (result.json metrics[].perf_stat) are
 * metrics of their own, one observation a boot: the event per operation
 * as "NAME:perf-stat.EVENT" (unit "/op"; cpu-clock and task-clock "ns"),
 * and where cycles and instructions both counted "NAME:perf-stat.ipc"
 * (instructions per cycle, better higher), beside the metric (ids
 * "abi.test.name:perf-stat.instructions" for --metric, bisect, history).
 */
#define PERF_STAT_MARK ":perf-stat."

void boot_record_init(struct boot_record *r);
/* boot_record_own: s (malloc'd), freed with the record; returns s. */
char *boot_record_own(struct boot_record *r, char *s);
void boot_record_add_metric(struct boot_record *r, const struct side_observation *o);
void boot_record_add_test(struct boot_record *r, const char *abi, const char *test,
			  const char *status, double ms);
void boot_record_add_abi(struct boot_record *r, const char *name, const char *status,
			 const char *reason);
void boot_record_add_event(struct boot_record *r, const char *kind, const char *title);
void boot_record_add_case(struct boot_record *r, const char *suite, const char *name,
			  const char *status);
/* Copies *p into r (the arrays p points to stay borrowed). */
void boot_record_add_profile(struct boot_record *r, const struct boot_profile *p);
/* An event the boot's perf stat could not count on abi, and why; one
 * (abi, event) is kept once, with its first reason. */
void boot_record_add_uncounted(struct boot_record *r, const char *abi, const char *event,
			       const char *reason);

/*
 * What a reader of profiles (result.json's, a database's) accepts, whoever
 * wrote them: a share is a number from 0 to 100, a count (samples, lost,
 * stacks_other, period_ns, a stack's samples) one from 0 to 2^63 (result.json's
 * integers), and a profile lists a function once. profile_share_fault,
 * profile_count_fault: NULL when v is one, else why not ("is not a share
 * (0 to 100)"), for a message after the field's name. profile_twice: the
 * name listed twice among names[0..n), or NULL (n log n).
 * boot_profile_fault: the first fault of p as a message (malloc'd), or NULL.
 */
const char *profile_share_fault(double v);
const char *profile_count_fault(double v);
const char *profile_twice(const char *const *names, size_t n);
char *boot_profile_fault(const struct boot_profile *p);
void boot_record_release(struct boot_record *r);

/*
 * result_boot_record: the record of a parsed result.json (root, as
 * result_json_parse() returns it; its strings are borrowed from root), dir
 * the directory it was in. Absent fields read as result.json's reader
 * always has: kernel id "?", variant "default", the rest "" or unknown.
 */
void result_boot_record(struct json_object *root, const char *dir, struct boot_record *r);
/* Releases a record result_boot_record() filled: its profiles' arrays
 * (allocated for it) and then boot_record_release(). */
void result_boot_record_release(struct boot_record *r);

/*
 * boot_fail_cause: why FAIL boot r failed, when that is something other
 * than its metrics, in the words the reports print: "KTAP case failed"
 * (the judge's reason "KUnit case S.C failed", "KUnit suite S failed"),
 * "KTAP problem" ("KTAP: ...": the KTAP output malformed), "kernel
 * report" ("kernel reported: WARNING in f": a report the kernel went on
 * after), "init error" ("init error: no runnable ABI for the plan": a
 * missing ABI). NULL for any other verdict,
 * and for a FAIL of the metrics' own: a guest test (the benchmark that
 * measures them) failed, timed out or never reported ("test ..."), the
 * records that carry them were damaged, lost or not read, END is missing
 * or short, or a reason not known here. The judge gives the first reason
 * only (a kernel report before a KUnit failure before a test's), so a
 * boot any of whose guest tests (r->tests) did not PASS is of the
 * metrics' own too, whatever its reason says.
 */
const char *boot_fail_cause(const struct boot_record *r);

/*
 * side_add_boot: adds boot record r to side s (copying what it keeps):
 * r joins the boot list (npass, ninfra); a counted boot (a PASS one, or
 * with s->include_fail a FAIL one with a boot_fail_cause(): nfail_included)
 * adds each metric's observation, each guest test's time, each stage's
 * start and its profiles; every boot adds its ABI statuses, events and
 * KTAP cases. A boot of another host than s->only_host (when set) is left
 * out.
 */
void side_add_boot(struct side *s, const struct boot_record *r);

/* A metric entry of result.json as an observation (pointers into m):
 * false when it has no identity or no finite observation. */
bool result_metric_entry(struct json_object *m, struct side_observation *o);
/*
 * result_perf_stat: the perf stat counters of metric entry m (o its
 * observation, result_metric_entry()) as observations of their own, each
 * passed to add(ctx, c) in result.json's order of events, then the IPC
 * where cycles and instructions were both counted: named
 * "NAME" PERF_STAT_MARK "EVENT" (c's strings live only for the call),
 * unit "ns" for the clocks, "/op" else, "" for ipc (higher is better), one
 * sample each. An event's value that is not a finite number >= 0 is left
 * out. Returns how many were passed. A side read from result.json
 * (result_boot_record()) and one read from the history database (db.c
 * records these rows) see one set of counters.
 */
size_t result_perf_stat(struct json_object *m, const struct side_observation *o,
			void (*add)(void *ctx, const struct side_observation *c), void *ctx);
/*
 * result_perf_stat_absent: each event metric entry m's perf stat could not
 * count (perf_stat.absent), passed to add(ctx, o->abi, EVENT, REASON) in
 * result.json's order (REASON NULL when it is not a string). 0, or -1 as
 * soon as add returns -1. The boot record and the history database's
 * uncounted rows read the same events so.
 */
int result_perf_stat_absent(struct json_object *m, const struct side_observation *o,
			    int (*add)(void *ctx, const char *abi, const char *event,
				       const char *reason), void *ctx);

/* The initramfs a boot ran (result.json initramfs): its sha256, else its
 * path, else "". */
const char *result_image(struct json_object *root);

/* The seed a boot's randomness came from (result.json seed when its clock
 * is icount), or NULL: unknown (a wall-clock boot, --seed random). */
const char *result_seed(struct json_object *root);

/* A member object of obj (NULL-safe), or NULL. */
struct json_object *result_get_object(struct json_object *obj, const char *key);

/* The boots of one kernel and variant pooled on a side must have been run
 * alike (command line, initramfs, target): 0, or -1 after a message naming
 * the two boots and what differs. */
int side_check_alike(const struct side *side);

/* The "most common" ABI status of a side: "ok", "unsupported", "error",
 * or "mixed" when boots disagree; "-" when the ABI is absent. */
const char *abi_status(const struct side *side, const char *abi);

/* The series of metric (abi, test, name) on side, or NULL. */
const struct metric_series *side_metric(const struct side *side, const char *abi,
					const char *test, const char *name);

/* The profile of metric (abi, test, name) on side, or NULL. */
const struct profile_series *side_profile(const struct side *side, const char *abi,
					  const char *test, const char *name);
/* Function fn of profile p, or NULL. */
const struct profile_fn_series *profile_fn(const struct profile_series *p, const char *fn);
/*
 * The cut of a boot's profile (%), self or children: a function it does not
 * list has at most this share. Its cut_self / cut_children when reported;
 * else (older guests, the history database) 0 when it lists fewer than
 * PROFILE_LISTED functions (then it lists every one), and when it lists
 * that many, its (PROFILE_LISTED / 2 - 1)-th largest listed share of that
 * kind: the guest takes the top by self and the top by children in turn,
 * so at least that many of each kind's top are listed.
 */
#define PROFILE_LISTED 80       /* initramfs/bench/fold.h FOLD_MAX_FUNCS */
double boot_profile_cut(const struct boot_profile *p, bool children);

/*
 * Function f's share (%) in each of p's boots, self or children, into
 * out[p->nboots]; where a boot does not list it, at times that boot's cut
 * (at 0: as 0, at 1: as the cut, at 0.5: midway); f NULL: in no boot.
 * Returns how many boots have it below a cut above 0 (where its share is
 * not known, only bounded).
 */
size_t profile_fn_values(const struct profile_series *p, const struct profile_fn_series *f,
			 bool children, double at, double *out);

/*
 * A metric id as bisect and compare's --metric name it: "abi.test.name",
 * or a function's share in that metric's profile, "abi.test.name:self.FUNC"
 * or "abi.test.name:children.FUNC" (unit %, lower is better). side_values:
 * the per-boot observations of id on side (a malloc'd copy into *obs and
 * *n, its unit and direction); false, with *obs NULL, when side lacks it.
 */
bool side_values(const struct side *side, const char *id, double **obs, size_t *n,
		 const char **unit, bool *higher_better);

/* Is this event kind a kernel failure (everything but protocol, infra and
 * truncated: a console cut mid-report says so of the capture, and the cut
 * report has an event of its own)? */
bool event_is_kernel_failure(const char *kind);

#endif
