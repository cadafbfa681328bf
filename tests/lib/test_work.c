#include "test_work.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char work_dir[512];

int i8_test_work_init(const char *tag) {
    const char *w = getenv("INFER8_WORK");
    if (w && *w) snprintf(work_dir, sizeof work_dir, "%s", w);
    else snprintf(work_dir, sizeof work_dir, "/tmp/infer8_%s_%ld", tag, (long)getpid());
    char cmd[600];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", work_dir);
    return system(cmd) == 0 ? 0 : -1;
}

const char *i8_test_work_dir(void) { return work_dir; }

const char *i8_test_work_path(const char *name) {
    static char buf[4][768];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", work_dir, name);
    return buf[k];
}
