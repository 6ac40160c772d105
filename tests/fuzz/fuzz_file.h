/* The readers fuzzed through a file (OpenDRIVE, FMU model descriptions)
 * take a path: the input is written to a private file first. */
#ifndef VS_FUZZ_FILE_H
#define VS_FUZZ_FILE_H

#include <stddef.h>
#include <stdint.h>

/* A private directory (made on first use, removed at exit) and, in it,
 * the file name with data as its whole contents; returns the file's path
 * (static storage), or NULL when it cannot be written. */
const char *fuzz_write_file(const char *name, const uint8_t *data,
                            size_t size);

/* The private directory fuzz_write_file writes into. */
const char *fuzz_dir(void);

#endif
