/* Test plugins that die while vsweep loads them, before any variant:
 * load_abort.so aborts and load_exit.so calls exit(0) in the entry
 * point (meson.build: -DLOAD_ABORT or -DLOAD_EXIT); load_print.so prints
 * a line on stdout and returns no descriptor (-DLOAD_PRINT). The loader must name
 * the file (tests/e2e/test_messages.py). In a folder of their own: any
 * listing of a folder holding them ends there. */
#include <stdio.h>
#include <stdlib.h>

#include <vsweep/plugin.h>

VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *h)
{
	(void)h;
#if defined(LOAD_ABORT)
	abort();
#elif defined(LOAD_PRINT)
	printf("printed while loading\n");
	return NULL;
#else
	exit(0);
#endif
}
