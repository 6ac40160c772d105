// The SDK header from C++ (a plugin author's C++ file): extern "C" linkage,
// no C-only constructs.
#include <vsweep/plugin.h>

#include <cstddef>

static_assert(offsetof(vs_plugin, struct_size) == 8, "struct_size third");

extern "C" VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *host)
{
	(void)host;
	return nullptr;
}

int main()
{
	return vsweep_plugin_entry(nullptr) == nullptr ? 0 : 1;
}
