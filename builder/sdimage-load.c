/*
 * sdimage-load.c: the executable's build_sd_image() (build.h). The SD
 * image is written by builder/sdimage.c, built as the "guestfs" module
 * (lib/module.h; its function there is module_build_sd_image), since
 * libguestfs costs every other command its start-up time: this loads the
 * module the first time and calls it.
 */
#include "build.h"
#include "exitcodes.h"
#include "module.h"
#include "util.h"

/* 125 (with the reason printed) when the module cannot be loaded. */
int build_sd_image(const struct kernel *k, const char *initramfs, const char *dtb,
		   const char *console, const char *append, const char *output)
{
	int (*write_image)(const struct kernel *, const char *, const char *, const char *,
			   const char *, const char *) =
		(int (*)(const struct kernel *, const char *, const char *, const char *,
			 const char *, const char *))module_symbol("guestfs", "module_build_sd_image");
	if (!write_image)
		return error("cannot write the SD image %s: %s", output, module_error()), EXIT_INFRA;
	return write_image(k, initramfs, dtb, console, append, output);
}
