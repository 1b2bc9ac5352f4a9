/*
 * probe.c: the smallest program of an ABI. init execs /bench/<abi>/probe
 * to learn whether the kernel runs that ABI: exit 0 means it does; the
 * kernel refusing the ELF (ENOEXEC from execve) means it does not.
 * It makes one system call of the ABI on the way, so a kernel that loads
 * the binary but cannot serve its calls is caught too.
 */
#include "rt.h"

int main(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)argv;
	(void)envp;
	return rt_getppid() > 0 || rt_getpid() == 1 ? 0 : 3;
}
