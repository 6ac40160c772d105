/* libFuzzer target: the FMU modelDescription.xml reader (core/fmu/model.c)
 * on arbitrary bytes. Any input must end in a description or an error
 * message, never a crash, leak or undefined behaviour. */
#include "fuzz_common.h"
#include "fuzz_file.h"

#include "common/error.h"
#include "fmu/fmu_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!fuzz_write_file("modelDescription.xml", data, size))
		return 0;
	vs_error err = {{0}};
	fmu_md md;
	/* Freed whatever the outcome: a failed read keeps what it had
	 * read so far (core/fmu/fmu.c frees it through vs_fmu_close). */
	(void)vs_fmu_md_read("fuzz.fmu", fuzz_dir(), &md, &err);
	vs_fmu_md_free(&md);
	return 0;
}
