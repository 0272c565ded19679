/* The little JSON libmotion-client needs: find members and elements as spans of the line, read numbers
 * and strings. Spans point into the caller's text; nothing is allocated except by json_copy. */
#ifndef MOTION_CLIENT_JSON_SCAN_H
#define MOTION_CLIENT_JSON_SCAN_H

#include <stddef.h>

/* Internal to the library: prefixed names (a program linking it, shared or static, may have its own
 * json_member), and hidden from the shared library's exports. */
#define json_member motion_client_internal_json_member
#define json_next_element motion_client_internal_json_next_element
#define json_number motion_client_internal_json_number
#define json_int motion_client_internal_json_int
#define json_string_is motion_client_internal_json_string_is
#define json_decode_string motion_client_internal_json_decode_string
#define json_copy motion_client_internal_json_copy
#define json_write_string motion_client_internal_json_write_string
#pragma GCC visibility push(hidden)

typedef struct json_span {
    const char *start; /* first byte of the value */
    const char *end;   /* one past its last byte */
} json_span;

/* The value of `key` in the object starting at `object` (leading spaces allowed); 0 if absent. */
int json_member(const char *object, const char *end, const char *key, json_span *value);
/* The next element of an array: `*cursor` starts just after '[' and moves past each element. */
int json_next_element(const char **cursor, const char *end, json_span *element);
double json_number(json_span span);
/* The number as an int, clamped to the int range (0 for NaN). */
int json_int(json_span span);
/* 1 if the span is the JSON string `literal` (no escapes in it). */
int json_string_is(json_span span, const char *literal);
/* Decodes the string span (with its quotes) into `out` (room for its length); returns the bytes written. */
size_t json_decode_string(json_span span, char *out);
/* A malloc'd, NUL-terminated copy of the span's text. */
char *json_copy(json_span span);
/* Writes `text` as a JSON string literal into `out` (room for 6·strlen + 3); returns the bytes written. */
int json_write_string(char *out, const char *text);

#pragma GCC visibility pop

#endif
