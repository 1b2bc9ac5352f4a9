# kernel-fragments.sh: the config options bootrig's guest needs of a kernel
# built from tinyconfig, sourced by scripts/build-kunit-kernel.sh and
# scripts/build-opt-kernels.sh: fragment_common on every arch (printk, a
# gzip initramfs, devtmpfs, proc, sysfs, tmpfs, ELF binaries and scripts,
# users, futexes, epoll, timers, AF_UNIX and AF_INET, BUG, kallsyms so that
# an initcall_debug record or a profile names its function, and perf events
# for perf stat's counters), then each arch's: x86_64 (64-bit, the 8250
# serial console, the i386 and x32 ABIs, ACPI to power off) and arm64 (the
# PL011 console of QEMU's virt machine, the arm ABI, the PMU driver, which
# QEMU's PMU counts under TCG). Each build checks every option in its final
# .config. A change here is a change of the kernels' cache keys: they
# rebuild.
fragment_common='CONFIG_PRINTK=y
CONFIG_PRINTK_TIME=y
CONFIG_TTY=y
CONFIG_BLK_DEV_INITRD=y
CONFIG_RD_GZIP=y
CONFIG_DEVTMPFS=y
CONFIG_PROC_FS=y
CONFIG_SYSFS=y
CONFIG_SHMEM=y
CONFIG_TMPFS=y
CONFIG_BINFMT_ELF=y
CONFIG_BINFMT_SCRIPT=y
CONFIG_MULTIUSER=y
CONFIG_FUTEX=y
CONFIG_EPOLL=y
CONFIG_POSIX_TIMERS=y
CONFIG_HIGH_RES_TIMERS=y
CONFIG_NET=y
CONFIG_INET=y
CONFIG_UNIX=y
CONFIG_BUG=y
CONFIG_KALLSYMS=y
CONFIG_PERF_EVENTS=y'
fragment_x86_64='CONFIG_64BIT=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_IA32_EMULATION=y
CONFIG_X86_X32_ABI=y
CONFIG_ACPI=y'
fragment_arm64='CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y
CONFIG_COMPAT=y
CONFIG_ARM_PMU=y
CONFIG_HW_PERF_EVENTS=y'
