#include "json_scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_space(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
    return p;
}

static const char *skip_string(const char *p, const char *end) {
    for (p++; p < end; p++) {
        if (*p == '\\') {
            if (p + 1 >= end) return NULL;
            p++;
        } else if (*p == '"') {
            return p + 1;
        }
    }
    return NULL;
}

/* One past the value starting at p, or NULL if it is malformed. */
static const char *skip_value(const char *p, const char *end) {
    if (p >= end) return NULL;
    if (*p == '"') return skip_string(p, end);
    if (*p == '{' || *p == '[') {
        int depth = 0;
        for (; p < end; p++) {
            if (*p == '"') {
                p = skip_string(p, end);
                if (!p) return NULL;
                p--;
            } else if (*p == '{' || *p == '[') {
                depth++;
            } else if (*p == '}' || *p == ']') {
                if (--depth == 0) return p + 1;
            }
        }
        return NULL;
    }
    while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n') p++;
    return p;
}

int json_member(const char *object, const char *end, const char *key, json_span *value) {
    if (!object) return 0;
    const char *p = skip_space(object, end);
    if (p >= end || *p != '{') return 0;
    size_t key_length = strlen(key);
    p++;
    for (;;) {
        p = skip_space(p, end);
        if (p >= end || *p != '"') return 0;
        const char *name = p + 1, *name_end = skip_string(p, end);
        if (!name_end) return 0;
        p = skip_space(name_end, end);
        if (p >= end || *p != ':') return 0;
        p = skip_space(p + 1, end);
        const char *value_end = skip_value(p, end);
        if (!value_end) return 0;
        if ((size_t)(name_end - 1 - name) == key_length && memcmp(name, key, key_length) == 0) {
            value->start = p;
            value->end = value_end;
            return 1;
        }
        p = skip_space(value_end, end);
        if (p >= end || *p != ',') return 0;
        p++;
    }
}

int json_next_element(const char **cursor, const char *end, json_span *element) {
    const char *p = skip_space(*cursor, end);
    if (p < end && *p == ',') p = skip_space(p + 1, end);
    if (p >= end || *p == ']') return 0;
    const char *value_end = skip_value(p, end);
    if (!value_end) return 0;
    element->start = p;
    element->end = value_end;
    *cursor = value_end;
    return 1;
}

double json_number(json_span span) {
    char buffer[64];
    size_t length = (size_t)(span.end - span.start);
    if (length == 0 || length >= sizeof buffer) return 0;
    memcpy(buffer, span.start, length);
    buffer[length] = 0;
    return strtod(buffer, NULL);
}

int json_int(json_span span) {
    double value = json_number(span);
    if (!(value == value)) return 0;
    if (value > 2147483647.0) return 2147483647;
    if (value < -2147483648.0) return -2147483647 - 1;
    return (int)value;
}

int json_string_is(json_span span, const char *literal) {
    size_t length = strlen(literal);
    return (size_t)(span.end - span.start) == length + 2 && span.start[0] == '"' && memcmp(span.start + 1, literal, length) == 0;
}

static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

size_t json_decode_string(json_span span, char *out) {
    const char *p = span.start + 1, *end = span.end - 1;
    char *start = out;
    while (p < end) {
        if (*p != '\\') {
            *out++ = *p++;
            continue;
        }
        if (++p >= end) break;
        char escaped = *p++;
        switch (escaped) {
        case 'n': *out++ = '\n'; break;
        case 't': *out++ = '\t'; break;
        case 'r': *out++ = '\r'; break;
        case 'b': *out++ = '\b'; break;
        case 'f': *out++ = '\f'; break;
        case 'u': {
            unsigned code = 0;
            for (int digit = 0; digit < 4 && p < end; digit++) {
                int value = hex(*p++);
                code = code * 16 + (unsigned)(value < 0 ? 0 : value);
            }
            /* A surrogate pair: the second half follows as \uDC00–\uDFFF. */
            if (code >= 0xD800 && code < 0xDC00 && end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
                unsigned low = 0;
                for (int digit = 2; digit < 6; digit++) {
                    int value = hex(p[digit]);
                    low = low * 16 + (unsigned)(value < 0 ? 0 : value);
                }
                if (low >= 0xDC00 && low < 0xE000) {
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                    p += 6;
                }
            }
            /* UTF-8 is never longer than the escape it came from (6 or 12 bytes). */
            if (code < 0x80) {
                *out++ = (char)code;
            } else if (code < 0x800) {
                *out++ = (char)(0xC0 | (code >> 6));
                *out++ = (char)(0x80 | (code & 0x3F));
            } else if (code < 0x10000) {
                *out++ = (char)(0xE0 | (code >> 12));
                *out++ = (char)(0x80 | ((code >> 6) & 0x3F));
                *out++ = (char)(0x80 | (code & 0x3F));
            } else {
                *out++ = (char)(0xF0 | (code >> 18));
                *out++ = (char)(0x80 | ((code >> 12) & 0x3F));
                *out++ = (char)(0x80 | ((code >> 6) & 0x3F));
                *out++ = (char)(0x80 | (code & 0x3F));
            }
            break;
        }
        default: *out++ = escaped; break;
        }
    }
    return (size_t)(out - start);
}

char *json_copy(json_span span) {
    size_t length = (size_t)(span.end - span.start);
    char *copy = malloc(length + 1);
    if (!copy) return NULL;
    memcpy(copy, span.start, length);
    copy[length] = 0;
    return copy;
}

int json_write_string(char *out, const char *text) {
    char *start = out;
    *out++ = '"';
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '"' || *p == '\\') {
            *out++ = '\\';
            *out++ = (char)*p;
        } else if (*p < 0x20) {
            out += sprintf(out, "\\u%04x", *p);
        } else {
            *out++ = (char)*p;
        }
    }
    *out++ = '"';
    return (int)(out - start);
}
