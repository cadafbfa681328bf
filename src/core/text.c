/* Untrusted text: UTF-8 validation, a plain-name test, and message-safe display. */
#include "core/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

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

infer8_status i8_json_text_require(const char *s, size_t n, const char *name, size_t offset_base, i8_err *err) {
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
            return i8_fail(err, INFER8_E_FORMAT,
                           "%s: not JSON text: control byte 0x%02x at byte offset %zu (JSON strings must escape it)",
                           name, c, i + offset_base);
    }
    size_t bad = i8_utf8_check(s, n);
    if (bad != SIZE_MAX)
        return i8_fail(err, INFER8_E_FORMAT, "%s: not JSON text: invalid UTF-8 (byte 0x%02x) at byte offset %zu", name,
                       (unsigned char)s[bad], bad + offset_base);
    return INFER8_OK;
}

char *i8_utf8_repair(const char *s) {
    size_t n = strlen(s), bad_bytes = 0;
    for (size_t i = 0; i < n;) {
        size_t bad = i8_utf8_check(s + i, n - i);
        if (bad == SIZE_MAX) break;
        bad_bytes++;
        i += bad + 1;
    }
    char *out = malloc(n + 2 * bad_bytes + 1); /* each bad byte grows to the 3 bytes of U+FFFD */
    if (!out) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        size_t bad = i8_utf8_check(s + i, n - i);
        size_t good = bad == SIZE_MAX ? n - i : bad;
        memcpy(out + k, s + i, good);
        k += good, i += good;
        if (i < n) {
            memcpy(out + k, "\xef\xbf\xbd", 3);
            k += 3, i++;
        }
    }
    out[k] = 0;
    return out;
}

char *i8_json_print(const struct cJSON *item, int formatted) {
    char *raw = formatted ? cJSON_Print(item) : cJSON_PrintUnformatted(item);
    if (!raw) return NULL;
    char *text = i8_utf8_repair(raw);
    cJSON_free(raw);
    return text;
}
