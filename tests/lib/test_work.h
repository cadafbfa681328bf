/* Scratch files of the unit tests: under $INFER8_WORK (set per test by tests/CMakeLists.txt),
 * else under /tmp/infer8_<tag>_<pid>. */
#ifndef I8_TEST_WORK_H
#define I8_TEST_WORK_H

/* Picks and creates the folder; 0, or -1 when it cannot be made (a cmocka group setup fails). */
int i8_test_work_init(const char *tag);
/* Folder chosen by i8_test_work_init. */
const char *i8_test_work_dir(void);
/* "<folder>/<name>" in one of 4 rotating static buffers, so up to 4 can be in use at once. */
const char *i8_test_work_path(const char *name);

#endif
