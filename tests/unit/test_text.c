/* Untrusted text (core/text.c): the UTF-8 check on the forms RFC 3629 refuses, the JSON-text
 * check every JSON reader runs before cJSON (which accepts raw control bytes and broken UTF-8),
 * the repair every JSON writer applies to paths and command lines, and the public length
 * helper the CLI's JSON strings use. Expected values are written out by hand from RFC 3629's
 * table of well-formed byte sequences. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "core/text.h"
#include "infer8.h"

#define CHECK(lit) i8_utf8_check(lit, sizeof lit - 1)

static void test_utf8_check(void **state) {
    (void)state;
    assert_true(CHECK("") == SIZE_MAX);
    assert_true(CHECK("plain ascii") == SIZE_MAX);
    assert_true(CHECK("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x8d") == SIZE_MAX); /* 2, 3, 4 bytes */
    assert_true(CHECK("\xf4\x8f\xbf\xbf") == SIZE_MAX);                          /* U+10FFFF */
    assert_true(CHECK("\xed\x9f\xbf") == SIZE_MAX);                              /* U+D7FF */
    assert_int_equal(CHECK("ab\xff"), 2);                                        /* never in UTF-8 */
    assert_int_equal(CHECK("a\xc0\x80"), 1);                                     /* overlong NUL */
    assert_int_equal(CHECK("\xe0\x80\xaf"), 0);                                  /* overlong '/' */
    assert_int_equal(CHECK("x\xed\xa0\x80"), 1);                                 /* surrogate U+D800 */
    assert_int_equal(CHECK("\xf4\x90\x80\x80"), 0);                              /* above U+10FFFF */
    assert_int_equal(CHECK("ok\xe2\x82"), 2);                                    /* truncated */
    assert_int_equal(CHECK("\x80"), 0);                                          /* lone continuation */
    assert_int_equal(CHECK("\xc3("), 0);                                         /* bad continuation */
}

static void test_plain_and_show(void **state) {
    (void)state;
    assert_true(i8_text_plain("Mixed_7a.branch0"));
    assert_true(i8_text_plain("caf\xc3\xa9"));
    assert_false(i8_text_plain("a\x1b[31m"));
    assert_false(i8_text_plain("tab\there"));
    assert_false(i8_text_plain("del\x7f"));
    assert_false(i8_text_plain("bad\xff"));
    char out[64];
    assert_string_equal(i8_text_show("a\x1b[31mb", out, sizeof out), "a\\x1b[31mb");
    assert_string_equal(i8_text_show("x\xff", out, sizeof out), "x\\xff");
    assert_string_equal(i8_text_show("caf\xc3\xa9", out, sizeof out), "caf\xc3\xa9"); /* valid: kept */
    assert_string_equal(i8_text_show("abcdefghijkl", out, 8), "abcd..."); /* 7 bytes and the NUL */
}

static void require_fails(const char *text, size_t n, size_t base, const char *want) {
    i8_err err;
    i8_err_clear(&err);
    assert_int_equal(i8_json_text_require(text, n, "f.json", base, &err), INFER8_E_FORMAT);
    if (!strstr(err.msg, want)) fail_msg("message '%s' lacks '%s'", err.msg, want);
}

static void test_json_text_require(void **state) {
    (void)state;
    i8_err err;
    i8_err_clear(&err);
    const char ok[] = "{\r\n\t\"k\": \"caf\xc3\xa9 \\u001b\"\n}";
    assert_int_equal(i8_json_text_require(ok, sizeof ok - 1, "f.json", 0, &err), INFER8_OK);
    const char esc[] = "{\"k\": \"a\x1b[2Jb\"}";
    require_fails(esc, sizeof esc - 1, 0, "f.json: not JSON text: control byte 0x1b at byte offset 8");
    require_fails(esc, sizeof esc - 1, 8, "control byte 0x1b at byte offset 16"); /* offsets in the file */
    const char nul[] = "{\"k\": 1}\0";
    require_fails(nul, sizeof nul - 1, 0, "control byte 0x00 at byte offset 8");
    const char del[] = "[\"\x7f\"]";
    require_fails(del, sizeof del - 1, 0, "control byte 0x7f at byte offset 2");
    const char latin1[] = "{\"k\": \"caf\xe9\"}";
    require_fails(latin1, sizeof latin1 - 1, 0, "invalid UTF-8 (byte 0xe9) at byte offset 10");
    /* only the n bytes given are checked: a bad byte past them is not the text's */
    assert_int_equal(i8_json_text_require(latin1, 10, "f.json", 0, &err), INFER8_OK);
}

static void test_utf8_repair(void **state) {
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"", ""},
        {"caf\xc3\xa9", "caf\xc3\xa9"},
        {"a\xffz", "a\xef\xbf\xbdz"},
        {"\xff\xfe", "\xef\xbf\xbd\xef\xbf\xbd"},
        {"x\xe2\x82", "x\xef\xbf\xbd\xef\xbf\xbd"}, /* a truncated sequence: each byte replaced */
        {"\xc0\x80!", "\xef\xbf\xbd\xef\xbf\xbd!"}, /* overlong */
        {"/tmp/v3\nx", "/tmp/v3\nx"},               /* control bytes are JSON's to escape */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *r = i8_utf8_repair(cases[i].in);
        assert_non_null(r);
        assert_string_equal(r, cases[i].out);
        assert_true(i8_utf8_check(r, strlen(r)) == SIZE_MAX);
        free(r);
    }
}

/* cJSON prints a string's bytes as they are; i8_json_print's text is valid UTF-8 and escapes
 * control characters, so it parses back under the strict check */
static void test_json_print(void **state) {
    (void)state;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "path", "/data/caf\xe9\n\x1b");
    char *raw = cJSON_PrintUnformatted(o);
    assert_true(i8_utf8_check(raw, strlen(raw)) != SIZE_MAX); /* what the fix is for */
    cJSON_free(raw);
    for (int formatted = 0; formatted <= 1; formatted++) {
        char *text = i8_json_print(o, formatted);
        assert_non_null(text);
        i8_err err;
        i8_err_clear(&err);
        assert_int_equal(i8_json_text_require(text, strlen(text), "out", 0, &err), INFER8_OK);
        cJSON *back = cJSON_Parse(text);
        assert_string_equal(cJSON_GetObjectItem(back, "path")->valuestring, "/data/caf\xef\xbf\xbd\n\x1b");
        cJSON_Delete(back);
        free(text);
    }
    cJSON_Delete(o);
}

static void test_public_length(void **state) {
    (void)state;
    assert_int_equal(infer8_utf8_valid_length("abc", 3), 3);
    assert_int_equal(infer8_utf8_valid_length("ab\xff", 3), 2);
    assert_int_equal(infer8_utf8_valid_length("\xe2\x82\xac", 2), 0); /* cut inside a sequence */
    assert_int_equal(infer8_utf8_valid_length("\xe2\x82\xac", 3), 3);
    assert_int_equal(infer8_utf8_valid_length(NULL, 4), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_utf8_check),       cmocka_unit_test(test_plain_and_show),
        cmocka_unit_test(test_json_text_require), cmocka_unit_test(test_utf8_repair),
        cmocka_unit_test(test_json_print),       cmocka_unit_test(test_public_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
