/* Untrusted text from files (names, keys, patterns): UTF-8 validation, a plain-name test, and
 * safe display in error messages, so a hostile file cannot put terminal control sequences or
 * broken UTF-8 into what infer8 prints. */
#ifndef I8_CORE_TEXT_H
#define I8_CORE_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "core/i8.h"

struct cJSON;

/* Index of the first byte of s[0..n) that is not part of well-formed UTF-8 (overlong forms,
 * surrogates and code points above U+10FFFF refused), or SIZE_MAX if all of it is valid. */
size_t i8_utf8_check(const char *s, size_t n);

/* 1 when s is valid UTF-8 without control bytes (below 0x20, or 0x7f): printable as it is. */
int i8_text_plain(const char *s);

/* Copies s into out (size bytes) for an error message: control bytes, and every byte >= 0x80
 * when s is not valid UTF-8, become \xNN; long strings end in "...". Returns out. */
const char *i8_text_show(const char *s, char *out, size_t size);

/* Checks that s[0..n) can be a JSON text (RFC 8259): well-formed UTF-8 and no control byte
 * except JSON whitespace (tab, newline, carriage return); control characters inside strings
 * must be escaped. cJSON accepts both, so every reader checks first: a raw escape sequence in
 * a string would otherwise reach the terminal when the text is shown. On failure the message
 * names `name` and the byte offset (plus `offset_base`, the text's offset in its file). */
infer8_status i8_json_text_require(const char *s, size_t n, const char *name, size_t offset_base, i8_err *err);

/* A malloc'ed copy of s in which each byte that is not part of well-formed UTF-8 becomes
 * U+FFFD. NULL when out of memory. */
char *i8_utf8_repair(const char *s);

/* cJSON's text of item (formatted or not), malloc'ed (free()), with i8_utf8_repair applied:
 * every document infer8 writes is valid UTF-8 even when it carries a path or a command line
 * (bytes, not necessarily UTF-8). NULL when out of memory. */
char *i8_json_print(const struct cJSON *item, int formatted);

#endif
