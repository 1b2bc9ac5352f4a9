/*
 * builtin.h: the subcommands of bootrig, one file each, dispatched from the
 * table in lib/bootrig.c.
 *
 * To add a command:
 *   1. write cmd_<name>(int argc, char **argv) in its own file, in the folder
 *      of the stage it belongs to (builder/, runner/, compare/);
 *      argv[0] is the subcommand's name; it returns the process exit status;
 *   2. declare it below;
 *   3. add a line to commands[] in lib/bootrig.c, with its one-line summary;
 *   4. declare its options in one table (lib/options.h) and parse them with
 *      options_parse(): -h/--help, printed from that table, comes with it,
 *      and tests/t-options.sh checks the new command's help too.
 */
#ifndef BOOTRIG_BUILTIN_H
#define BOOTRIG_BUILTIN_H

int cmd_build(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_judge(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_logdiff(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_export(int argc, char **argv);

#endif
