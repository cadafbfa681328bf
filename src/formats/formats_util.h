/* Small helpers shared by the format readers in src/formats (UTF-8 validation, safe display
 * of untrusted strings in messages, JSON trailing-text check). Internal to src/formats. */
#ifndef I8_FORMATS_UTIL_H
#define I8_FORMATS_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Index of the first byte of s[0..n) that is not part of well-formed UTF-8 (overlong forms,
 * surrogates and code points above U+10FFFF refused), or SIZE_MAX if all of it is valid. */
size_t i8_fmt_utf8_check(const char *s, size_t n);

/* Copies s into out (size bytes) for an error message: control bytes, and every byte >= 0x80
 * when s is not valid UTF-8, become \xNN; long strings end in "...". Returns out. */
const char *i8_fmt_show(const char *s, char *out, size_t size);

/* After a JSON value that ended at text+pos: SIZE_MAX if only JSON whitespace follows up to
 * text+n, else the offset of the first other byte. */
size_t i8_fmt_trailing_garbage(const char *text, size_t n, size_t pos);

#endif
