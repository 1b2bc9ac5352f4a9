/*
 * test_module.c: the plugin module loader (lib/module.c) on the real
 * modules this build made: a unit test binary is build/tests/test_module,
 * so it loads build/asan-modules/ (the sanitized flavour, like itself).
 * A missing module or symbol is reported with the module's name and the
 * places looked at; the forwarders reach the modules' real functions.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <string.h>

#include "backend.h"
#include "module.h"

/* The file a loaded symbol comes from. */
static const char *file_of(void *sym)
{
	Dl_info info;
	assert_int_not_equal(dladdr(sym, &info), 0);
	return info.dli_fname;
}

static void test_missing_module(void **state)
{
	(void)state;
	assert_null(module_symbol("nosuchmodule", "anything"));
	const char *why = module_error();
	assert_non_null(strstr(why, "cannot load module nosuchmodule: no nosuchmodule.so in "));
	assert_non_null(strstr(why, "/asan-modules"));
	/* the failure is kept: the same answer again, without a new search */
	assert_null(module_symbol("nosuchmodule", "other"));
	assert_non_null(strstr(module_error(), "no nosuchmodule.so in "));
}

static void test_virt_module(void **state)
{
	(void)state;
	void *sym = module_symbol("virt", "module_backend_libvirt_new");
	assert_non_null(sym);
	assert_string_equal(module_error(), "");
	const char *file = file_of(sym);
	size_t n = strlen(file), tail = strlen("/asan-modules/virt.so");
	assert_true(n > tail);
	assert_string_equal(file + n - tail, "/asan-modules/virt.so");
	/* loaded once: the same handle answers */
	assert_ptr_equal(module_symbol("virt", "module_backend_libvirt_new"), sym);
}

static void test_missing_symbol(void **state)
{
	(void)state;
	assert_null(module_symbol("virt", "no_such_symbol_here"));
	assert_non_null(strstr(module_error(), "module virt: no symbol no_such_symbol_here"));
	/* the executable's names are not the module's: the public name is renamed */
	assert_null(module_symbol("virt", "backend_libvirt_new"));
}

static void test_guestfs_module(void **state)
{
	(void)state;
	void *sym = module_symbol("guestfs", "module_build_sd_image");
	assert_non_null(sym);
	const char *file = file_of(sym);
	assert_non_null(strstr(file, "/asan-modules/guestfs.so"));
}

/* The forwarder hands out the module's real libvirt backend. */
static void test_backend_forwarder(void **state)
{
	(void)state;
	struct backend *be = backend_libvirt_new(NULL);
	assert_non_null(be);
	assert_string_equal(be->ops->name, "libvirt");
	assert_string_equal(be->ops->accelerator, "tcg");    /* result.json's, before prepare() */
	assert_true(backend_can(be, BACKEND_CAP_WHERE_IS_URI));
	assert_non_null(be->ops->prepare);
	assert_non_null(be->ops->power_on);
	assert_non_null(be->ops->console_read);
	assert_non_null(be->ops->retry);
	assert_non_null(strstr(file_of((void *)be->ops->open), "/asan-modules/virt.so"));
	be->ops->close(be);
}

/* The board backend is in the executable: its names for result.json. */
static void test_board_backend_names(void **state)
{
	(void)state;
	struct backend *be = backend_board_new(NULL);
	assert_string_equal(be->ops->name, "board");
	assert_string_equal(be->ops->accelerator, "board");
	assert_false(backend_can(be, BACKEND_CAP_WHERE_IS_URI));
	be->ops->close(be);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_module),
		cmocka_unit_test(test_virt_module),
		cmocka_unit_test(test_missing_symbol),
		cmocka_unit_test(test_guestfs_module),
		cmocka_unit_test(test_backend_forwarder),
		cmocka_unit_test(test_board_backend_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
