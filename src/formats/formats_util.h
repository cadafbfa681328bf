/* Small helpers shared by the format readers in src/formats (JSON trailing-text check; UTF-8
 * validation and safe display of untrusted strings are in core/text.h). Internal to src/formats. */
#ifndef I8_FORMATS_UTIL_H
#define I8_FORMATS_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "core/text.h"

/* After a JSON value that ended at text+pos: SIZE_MAX if only JSON whitespace follows up to
 * text+n, else the offset of the first other byte. */
size_t i8_fmt_trailing_garbage(const char *text, size_t n, size_t pos);

#endif
