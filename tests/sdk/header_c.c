/* The SDK header alone, as a plugin author's C11 file includes it: built
 * with -std=c11 -pedantic -Werror by the test build. */
#include <vsweep/plugin.h>

#include <stddef.h>

int main(void);

int main(void)
{
	/* The descriptor starts with the three version fields, in order. */
	_Static_assert(offsetof(vs_plugin, abi_major) == 0, "abi_major first");
	_Static_assert(offsetof(vs_plugin, abi_minor) == 4, "abi_minor second");
	_Static_assert(offsetof(vs_plugin, struct_size) == 8, "struct_size");
	return VS_ABI_MAJOR == 1 ? 0 : 1;
}
