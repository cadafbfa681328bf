/* Helpers shared by the libFuzzer targets in fuzz/: readers that take a path get the input
 * through a per-process scratch file (in /dev/shm when present, so it stays in memory). */
#ifndef I8_FUZZ_UTIL_H
#define I8_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/i8.h"

/* The checkpoint readers' limits in the fuzzers: 1 MiB of JSON, 4096 tensors (small enough that
 * a hostile count is refused fast, large enough for every seed). */
static i8_limits fuzz_checkpoint_limits(void) {
    i8_limits l;
    i8_limits_default(&l);
    l.max_json_bytes = 1 << 20;
    l.max_tensors = 4096;
    return l;
}

/* Where scratch files go: /dev/shm when writable (in memory), else /tmp. */
static const char *fuzz_scratch_base(void) { return access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"; }

/* Writes size bytes to path; 1 on success. */
static int fuzz_write_file(const char *path, const void *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    int ok = size == 0 || fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok;
}

/* Scratch files made by this process (one per suffix), removed at exit. */
static char fuzz_scratch_paths[8][256];

static void fuzz_scratch_remove(void) {
    for (int i = 0; i < 8; i++)
        if (fuzz_scratch_paths[i][0]) unlink(fuzz_scratch_paths[i]);
}

/* Writes data to the scratch file named with `suffix` and returns its path (static buffer);
 * NULL if it could not be written (the target then skips the input). */
static const char *fuzz_scratch_file(const uint8_t *data, size_t size, const char *suffix) {
    static char path[256];
    snprintf(path, sizeof path, "%s/infer8-fuzz-%ld%s", fuzz_scratch_base(), (long)getpid(), suffix);
    int slot = 0;
    while (slot < 8 && fuzz_scratch_paths[slot][0] && strcmp(fuzz_scratch_paths[slot], path) != 0) slot++;
    if (slot < 8 && !fuzz_scratch_paths[slot][0]) {
        if (slot == 0) atexit(fuzz_scratch_remove);
        memcpy(fuzz_scratch_paths[slot], path, sizeof path);
    }
    return fuzz_write_file(path, data, size) ? path : NULL;
}

#endif
