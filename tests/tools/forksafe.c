/*
 * forksafe: is the allocator of this build safe to use between fork() and
 * exec() in a multithreaded process? libvirt's embedded driver forks
 * QEMU's launcher from whatever thread starts a domain and mallocs in the
 * child before exec (vircommand.c says it relies on glibc's malloc being
 * safe there). A sanitizer runtime that does not lock its allocator
 * across fork leaves the child blocked for good on a lock that another
 * thread held at the fork (gcc 12's libasan; clang 19's locks it).
 *
 *   forksafe [N]   N forks (default 40) while two threads allocate and
 *                  free; each child allocates 2,000 blocks and exits. A
 *                  child not done in 3 s is counted as hung and killed.
 *
 * Prints "hung H of N"; exits 0 when H is 0, 1 otherwise. Built like the
 * other test tools, with the sanitized flavour's compiler and flags, so it
 * measures the runtime that bootrig-asan runs on (tests/t-forksafe.sh).
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static atomic_bool done;

static void *worker(void *arg)
{
	void *v[256];
	unsigned r = (unsigned)(size_t)arg * 7 + 1;
	while (!atomic_load(&done)) {
		for (int i = 0; i < 256; i++) {
			r = r * 1103515245 + 12345;
			v[i] = malloc(16 + (r >> 16) % 2000);
		}
		for (int i = 0; i < 256; i++)
			free(v[i]);
	}
	return NULL;
}

static void child(void)
{
	static void *v[2000];
	for (int i = 0; i < 2000; i++)
		v[i] = malloc(16 + (size_t)(i * 37) % 2000);
	for (int i = 0; i < 2000; i++)
		free(v[i]);
	_exit(0);
}

/* Waits up to 3 s for pid; kills it after. true: it ended by itself. */
static int reaped(pid_t pid)
{
	int st;
	for (int ms = 0; ms < 3000; ms++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return 1;
		struct timespec ts = { 0, 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 40;
	pthread_t t[2];
	for (size_t i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i)) {
			fprintf(stderr, "forksafe: cannot start a thread\n");
			return 2;
		}
	struct timespec settle = { 0, 100 * 1000 * 1000 };
	nanosleep(&settle, NULL);
	int hung = 0;
	for (int k = 0; k < n; k++) {
		pid_t pid = fork();
		if (pid == 0)
			child();
		if (pid < 0) {
			perror("forksafe: fork");
			return 2;
		}
		hung += !reaped(pid);
	}
	atomic_store(&done, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("hung %d of %d\n", hung, n);
	return hung != 0;
}
