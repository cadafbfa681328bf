/* Helpers shared by the format readers: trailing-text check after a JSON document (UTF-8 and
 * message-safe display of untrusted strings: core/text.h). */
#include "formats/formats_util.h"

size_t i8_fmt_trailing_garbage(const char *text, size_t n, size_t pos) {
    for (size_t i = pos; i < n; i++) {
        char c = text[i];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return i;
    }
    return SIZE_MAX;
}
