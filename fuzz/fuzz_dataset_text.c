/* libFuzzer target: the dataset readers' text files (src/eval/dataset.c): the fuzzed bytes are
 * either a list file (lines "path [label]", even sizes) or the labels.txt of a flat image folder
 * (lines "file label", odd sizes). A fixed folder is made once per process: a.png (a PNG
 * signature), b.jpg (a JPEG one), c.webp (not an image), sub/d.png. Every sample is iterated
 * twice (rewind between); unreadable or unknown entries and bad labels must be issues, never
 * errors or crashes, and a yielded label must be -1 or within the bound. (A list may name any
 * absolute path, as a user's list may; members are capped at 4 KiB and must be regular files.) */
#include "fuzz_util.h"
#include "fuzz_dataset.h"

#include <sys/stat.h>

static char text_dir[200];

static void text_path(char *out, size_t size, const char *name) { snprintf(out, size, "%s/%s", text_dir, name); }

static void remove_text_dir(void) {
    static const char *const names[] = {"flat/a.png", "flat/b.jpg", "flat/c.webp", "flat/sub/d.png", "flat/labels.txt",
                                        "list.txt"};
    char path[300];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        text_path(path, sizeof path, names[i]);
        unlink(path);
    }
    text_path(path, sizeof path, "flat/sub");
    rmdir(path);
    text_path(path, sizeof path, "flat");
    rmdir(path);
    rmdir(text_dir);
}

static int put_file(const char *name, const void *data, size_t size) {
    char path[300];
    text_path(path, sizeof path, name);
    return fuzz_write_file(path, data, size);
}

static int make_folder(void) {
    if (text_dir[0]) return 1;
    snprintf(text_dir, sizeof text_dir, "%s/infer8-fuzz-text-XXXXXX", fuzz_scratch_base());
    if (!mkdtemp(text_dir)) return 0;
    atexit(remove_text_dir);
    char path[300];
    text_path(path, sizeof path, "flat");
    if (mkdir(path, 0700) != 0) return 0;
    text_path(path, sizeof path, "flat/sub");
    if (mkdir(path, 0700) != 0) return 0;
    static const uint8_t png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13};
    static const uint8_t jpg[] = {0xff, 0xd8, 0xff, 0xe0, 0, 16, 'J', 'F', 'I', 'F', 0};
    return put_file("flat/a.png", png, sizeof png) && put_file("flat/b.jpg", jpg, sizeof jpg) &&
           put_file("flat/c.webp", "not an image", 12) && put_file("flat/sub/d.png", png, sizeof png);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!make_folder()) return 0;
    const int list = (size & 1) == 0;
    if (!put_file(list ? "list.txt" : "flat/labels.txt", data, size)) return 0;
    char src[300];
    text_path(src, sizeof src, list ? "list.txt" : "flat");
    i8_dataset_options o;
    memset(&o, 0, sizeof o);
    o.layout = list ? I8_DATASET_LIST : I8_DATASET_FLAT;
    o.max_member_bytes = 4096;
    o.num_classes = (size & 2) ? 10 : 0;
    o.every = (size & 4) ? 2 : 1;
    fuzz_dataset_iterate(src, &o);
    return 0;
}
