/* Untrusted text: UTF-8 validation, a plain-name test, and message-safe display. */
#include "core/text.h"

#include <stdio.h>
#include <string.h>

size_t i8_utf8_check(const char *str, size_t n) {
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        unsigned cp, min;
        if (c >= 0xc2 && c <= 0xdf) len = 2, cp = c & 0x1f, min = 0x80;
        else if (c >= 0xe0 && c <= 0xef) len = 3, cp = c & 0x0f, min = 0x800;
        else if (c >= 0xf0 && c <= 0xf4) len = 4, cp = c & 0x07, min = 0x10000;
        else return i;
        if (n - i < len) return i;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80) return i;
            cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
        i += len;
    }
    return SIZE_MAX;
}

int i8_text_plain(const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f) return 0;
    return i8_utf8_check(s, strlen(s)) == SIZE_MAX;
}

const char *i8_text_show(const char *s, char *out, size_t size) {
    if (size == 0) return out;
    int valid = i8_utf8_check(s, strlen(s)) == SIZE_MAX;
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        int escape = *p < 0x20 || *p == 0x7f || (!valid && *p >= 0x80);
        size_t need = escape ? 4 : 1;
        if (k + need + 4 > size) { /* room for "..." and the NUL */
            memcpy(out + k, "...", 3);
            k += 3;
            break;
        }
        if (escape) k += (size_t)snprintf(out + k, size - k, "\\x%02x", *p);
        else out[k++] = (char)*p;
    }
    out[k < size ? k : size - 1] = 0;
    return out;
}
