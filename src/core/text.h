/* Untrusted text from files (names, keys, patterns): UTF-8 validation, a plain-name test, and
 * safe display in error messages, so a hostile file cannot put terminal control sequences or
 * broken UTF-8 into what infer8 prints. */
#ifndef I8_CORE_TEXT_H
#define I8_CORE_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Index of the first byte of s[0..n) that is not part of well-formed UTF-8 (overlong forms,
 * surrogates and code points above U+10FFFF refused), or SIZE_MAX if all of it is valid. */
size_t i8_utf8_check(const char *s, size_t n);

/* 1 when s is valid UTF-8 without control bytes (below 0x20, or 0x7f): printable as it is. */
int i8_text_plain(const char *s);

/* Copies s into out (size bytes) for an error message: control bytes, and every byte >= 0x80
 * when s is not valid UTF-8, become \xNN; long strings end in "...". Returns out. */
const char *i8_text_show(const char *s, char *out, size_t size);

#endif
