/* The dataset targets' common harness (fuzz_tar, fuzz_dataset_text): open src with o, iterate
 * every sample twice with a rewind between. Data problems must be issues: only NOMEM may make
 * next or rewind fail. A yielded sample has a key, at most o->max_member_bytes bytes (all read
 * here, so ASan sees them) and a label of -1 or in [0, o->num_classes) (num_classes 0: below
 * I8_DATASET_MAX_LABEL). A refused open must carry a message. */
#ifndef I8_FUZZ_DATASET_H
#define I8_FUZZ_DATASET_H

#include "eval/dataset.h"

static void fuzz_dataset_iterate(const char *src, const i8_dataset_options *o) {
    const int label_bound = o->num_classes > 0 ? o->num_classes : I8_DATASET_MAX_LABEL;
    i8_dataset *ds = NULL;
    i8_err err = {0};
    if (i8_dataset_open(&ds, src, o, &err) != INFER8_OK) {
        if (!err.msg[0]) abort();
        return;
    }
    for (int pass = 0; pass < 2; pass++) {
        int has = 1;
        while (has) {
            i8_sample s;
            if (i8_dataset_next(ds, &s, &has, &err) != INFER8_OK) abort();
            if (!has) break;
            if (!s.key || s.size > o->max_member_bytes || s.label < -1 || s.label >= label_bound) abort();
            volatile uint8_t x = 0;
            for (size_t i = 0; i < s.size; i++) x ^= s.data[i];
            (void)x;
        }
        if (pass == 0 && i8_dataset_rewind(ds, &err) != INFER8_OK) abort();
    }
    i8_dataset_close(ds);
}

#endif
