/* infer8_list_images / infer8_free_paths (the listing classify uses for folders): a flat folder's
 * image files in byte order of their names (any case of .jpg/.jpeg/.png/.webp; hidden files,
 * other files and sub-folders skipped), a class tree class by class, a list file's lines in
 * order; tar shards, a missing source and NULL arguments refused with a message naming them.
 * Oracle: the expected paths written out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sys/stat.h>

#include "infer8.h"
#include "test_work.h"

static int setup_work(void **state) {
    (void)state;
    return i8_test_work_init("test_list_images");
}

static void touch(const char *rel, const char *text) {
    FILE *f = fopen(i8_test_work_path(rel), "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* the listing of src must be exactly want[0..n-1], each "<work>/<rel>" */
static void expect_listing(infer8_context *ctx, const char *src, const char *const *want, size_t n) {
    char **paths = NULL;
    size_t count = 0;
    infer8_status s = infer8_list_images(ctx, i8_test_work_path(src), &paths, &count);
    if (s) fail_msg("%s: %s", src, infer8_errmsg(ctx));
    assert_int_equal(count, n);
    for (size_t i = 0; i < n; i++) assert_string_equal(paths[i], i8_test_work_path(want[i]));
    infer8_free_paths(paths, count);
}

static void test_folders_and_lists(void **state) {
    (void)state;
    infer8_context *ctx = infer8_context_new();
    assert_non_null(ctx);
    mkdir(i8_test_work_path("flat"), 0755);
    mkdir(i8_test_work_path("flat/sub"), 0755);
    touch("flat/b.png", "x"); /* contents are not read: a listing, not a decode */
    touch("flat/Z.JPEG", "x");
    touch("flat/a.webp", "x");
    touch("flat/.hidden.png", "x");
    touch("flat/notes.txt", "x");
    touch("flat/sub/c.png", "x");
    const char *const flat[] = {"flat/Z.JPEG", "flat/a.webp", "flat/b.png"};
    expect_listing(ctx, "flat", flat, 3);

    mkdir(i8_test_work_path("tree"), 0755);
    mkdir(i8_test_work_path("tree/dog"), 0755);
    mkdir(i8_test_work_path("tree/cat"), 0755);
    touch("tree/dog/1.jpg", "x");
    touch("tree/cat/2.jpg", "x");
    touch("tree/cat/10.jpg", "x");
    const char *const tree[] = {"tree/cat/10.jpg", "tree/cat/2.jpg", "tree/dog/1.jpg"};
    expect_listing(ctx, "tree", tree, 3);

    touch("list.txt", "# a comment\nflat/b.png\n\ntree/dog/1.jpg 3\n");
    const char *const list[] = {"flat/b.png", "tree/dog/1.jpg"};
    expect_listing(ctx, "list.txt", list, 2);
    infer8_context_free(ctx);
}

static void test_refusals(void **state) {
    (void)state;
    infer8_context *ctx = infer8_context_new();
    assert_non_null(ctx);
    char **paths = (char **)&paths; /* must be reset on failure */
    size_t count = 7;
    assert_int_equal(infer8_list_images(ctx, NULL, &paths, &count), INFER8_E_INVALID_ARGUMENT);
    assert_non_null(strstr(infer8_errmsg(ctx), "NULL argument"));
    touch("shard-0.tar", "not a tar, but named like one");
    assert_int_equal(infer8_list_images(ctx, i8_test_work_path("shard-0.tar"), &paths, &count), INFER8_E_INVALID_ARGUMENT);
    assert_non_null(strstr(infer8_errmsg(ctx), "shard-0.tar: webdataset tar shards hold members"));
    assert_null(paths);
    assert_int_equal(count, 0);
    assert_int_not_equal(infer8_list_images(ctx, i8_test_work_path("missing"), &paths, &count), INFER8_OK);
    assert_non_null(strstr(infer8_errmsg(ctx), "missing"));
    mkdir(i8_test_work_path("empty"), 0755);
    assert_int_equal(infer8_list_images(ctx, i8_test_work_path("empty"), &paths, &count), INFER8_E_FORMAT);
    assert_non_null(strstr(infer8_errmsg(ctx), "empty"));
    /* class folders, none holding an image; a list of comments: the dataset opens, the listing refuses */
    mkdir(i8_test_work_path("hollow"), 0755);
    mkdir(i8_test_work_path("hollow/a"), 0755);
    assert_int_equal(infer8_list_images(ctx, i8_test_work_path("hollow"), &paths, &count), INFER8_E_FORMAT);
    assert_non_null(strstr(infer8_errmsg(ctx), "hollow: no .jpg, .jpeg, .png or .webp images"));
    touch("comments.txt", "# nothing\n\n");
    assert_int_equal(infer8_list_images(ctx, i8_test_work_path("comments.txt"), &paths, &count), INFER8_E_FORMAT);
    assert_null(paths);
    assert_int_equal(count, 0);
    infer8_free_paths(NULL, 0);
    infer8_context_free(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_folders_and_lists),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, setup_work, NULL);
}
