/*
 * module.h: bootrig's plugin modules, the parts that need a heavy library.
 *
 * libvirt and libguestfs each pull in ~60 shared libraries (glib, gnutls,
 * libxml2...) whose loading alone costs a process 25-40 ms, libcurl a dozen
 * more. Only `run` (and `build --sd-image`) needs them, so they live in
 * shared objects loaded the first time a command calls into them; `build`,
 * `judge` and `compare` start without them.
 *
 *   module    sources             linked with   public function (renamed
 *                                               module_<name> in the .so)
 *   virt      runner/libvirt/     -lvirt        backend_libvirt_new()
 *   guestfs   builder/sdimage.c   -lguestfs     build_sd_image()
 *   lava      runner/lava/lava.c  -lcurl        backend_lava_new()
 *
 * This table is the Makefile's MODULES (tests/t-layers.sh checks that
 * each module built is a row here).
 *
 * The rest of bootrig calls those functions by their usual names
 * (runner/backend.h, runner/lava/lava.h, builder/build.h): runner/backend.c
 * and builder/sdimage-load.c define them as forwarders that load the module
 * and call its module_<name> symbol; this loader knows only "load module
 * X, find symbol Y". A module calls back into bootrig (util, judge,
 * capture...): the executable exports its symbols (linked -rdynamic).
 *
 * Where a module is found, the first file that exists of:
 *   $BOOTRIG_DATADIR/<dir>/<module>.so
 *   <exe dir>/<dir>/<module>.so             build tree: build/modules/
 *   <exe dir>/../<dir>/<module>.so          build/tests/x: build/<dir>/
 *   <exe dir>/../lib/bootrig/<dir>/<module>.so    installed: PREFIX
 * where <dir> is "modules", or "asan-modules" in the AddressSanitizer build
 * (compiled with -DBOOTRIG_MODULE_DIR='"asan-modules"'): an executable
 * loads only modules of its own flavour.
 *
 * When a module cannot be loaded, the forwarders report it as an
 * infrastructure failure: backend_libvirt_new() and backend_lava_new()
 * return a backend whose open() fails (the runner records INFRA_ERROR,
 * exit 125), build_sd_image() prints the reason and returns 125.
 */
#ifndef BOOTRIG_MODULE_H
#define BOOTRIG_MODULE_H

/*
 * module_symbol: the address of symbol in module ("virt", "guestfs", "lava"),
 * loading <module>.so the first time (dlopen, RTLD_NOW | RTLD_LOCAL; a
 * module stays loaded until exit). NULL when the module cannot be found or
 * loaded or lacks the symbol: module_error() then says why, naming the
 * path and dlerror()'s reason. Prints nothing. Thread-safe.
 */
void *module_symbol(const char *module, const char *symbol);

/* Why the last module_symbol() call of this thread returned NULL: one
 * line, "" when it did not fail. */
const char *module_error(void);

#endif
