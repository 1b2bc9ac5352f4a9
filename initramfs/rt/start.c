/*
 * start.c: process start-up. The arch file's _start (emitted here, with
 * its clone trampoline and signal restorer, by defining RT_ARCH_IMPL)
 * hands the initial stack pointer to rt_start_c(), which finds argc, argv
 * and envp and calls the program's main().
 */
#define RT_ARCH_IMPL 1
#include "rt.h"

char **rt_environ;

int main(int argc, char **argv, char **envp);

/* rt_start_c: sp[0] is argc, then argc pointers, NULL, the environment,
 * NULL (slots are pointer-sized, which is sizeof(long) on every ABI). */
void rt_start_c(long *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1);
	char **envp = argv + argc + 1;

	rt_environ = envp;
	rt_exit(main(argc, argv, envp));
}
