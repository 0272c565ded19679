#include "motion_kernels.h"

#include <math.h>
#include <string.h>

/* `magnitude * 1e9 + 0.5` rounded as Swift rounds it: two operations, never one fused multiply-add. */
#pragma STDC FP_CONTRACT OFF

/* The frame encoder's inner loop (MotionEngine's FrameEncoder keeps the headers and the rare numbers).
 * In C for the same reason as the other kernels: at 40,000 springs a frame is 40,000 updates and ~6 MB,
 * 120 times a second, and this loop is most of the daemon's time with a JSON subscriber (BENCHMARKS.md). */

/* The eight decimal digits of `v` < 100,000,000 as ASCII in one word, first digit in the lowest byte
 * (so a store writes them in order). Divisions by 10,000, 100 and 10 happen in all lanes at once, by
 * multiply and shift, exact in these ranges: no chain of eight dependent divisions per number. */
static inline __attribute__((always_inline)) uint64_t eight_digits(uint32_t v) {
    const uint64_t halves = (uint64_t)(v / 10000) | ((uint64_t)(v % 10000) << 32);
    const uint64_t hundreds = ((halves * 10486) >> 20) & 0x0000007F0000007FULL;
    const uint64_t quads = hundreds | ((halves - hundreds * 100) << 16);
    const uint64_t tens = ((quads * 103) >> 10) & 0x000F000F000F000FULL;
    return (tens | ((quads - tens * 10) << 8)) + 0x3030303030303030ULL;
}

static inline __attribute__((always_inline)) void store_word(uint8_t *out, uint64_t word) {
    memcpy(out, &word, 8);
}

/* FrameEncoder.writeFixed, for magnitudes below 999,999,999 (the caller checks): the integer part, then
 * up to nine decimals without trailing zeros. Writes up to 8 bytes past the number's end (the caller
 * leaves room; what follows overwrites them). */
static inline __attribute__((always_inline)) uint8_t *write_fixed(uint8_t *out, double number) {
    const uint64_t fixed = (uint64_t)(fabs(number) * 1e9 + 0.5);
    if (fixed == 0) {
        *out = '0';
        return out + 1;
    }
    if (number < 0) *out++ = '-';
    const uint32_t integer = (uint32_t)(fixed / 1000000000u);
    const uint32_t fraction = (uint32_t)(fixed % 1000000000u);
    if (integer >= 100000000u) {
        *out++ = (uint8_t)('0' + integer / 100000000u);
        store_word(out, eight_digits(integer % 100000000u));
        out += 8;
    } else {
        /* Leading zeros are the low bytes equal to '0'; at least the last digit is kept. */
        const uint64_t digits = eight_digits(integer);
        const uint64_t zeros = digits ^ 0x3030303030303030ULL;
        const int skipped = zeros ? __builtin_ctzll(zeros) / 8 : 7;
        store_word(out, digits >> (8 * skipped));
        out += 8 - skipped;
    }
    if (fraction == 0) return out;
    /* Nine decimals: the first, then eight; trailing zeros are the high bytes equal to '0'. */
    out[0] = '.';
    out[1] = (uint8_t)('0' + fraction / 100000000u);
    const uint64_t rest = eight_digits(fraction % 100000000u);
    store_word(out + 2, rest);
    const uint64_t zeros = rest ^ 0x3030303030303030ULL;
    if (zeros) return out + 2 + 8 - __builtin_clzll(zeros) / 8;
    return out + 2; /* the first decimal is not 0: fraction != 0 and the other eight are */
}

static inline __attribute__((always_inline)) uint8_t *write_vector(uint8_t *out, const double *vector, unsigned count) {
    *out++ = '[';
    for (unsigned c = 0; c < count; c++) {
        if (c) *out++ = ',';
        out = write_fixed(out, vector[c]);
    }
    *out++ = ']';
    return out;
}

static uint8_t *write_uint(uint8_t *out, uint32_t value) {
    int digits = 1;
    for (uint32_t rest = value / 10; rest; rest /= 10) digits++;
    out += digits;
    for (uint8_t *p = out; digits--; value /= 10) *--p = (uint8_t)('0' + value % 10);
    return out;
}

static const char velocity_key[] = ",\"velocity\":";

size_t motion_frame_write_updates(const motion_frame_source *source, const uint32_t *handles, size_t n,
                                  uint8_t *out, size_t capacity, size_t *used, int *first) {
    uint8_t *cursor = out + *used;
    const uint8_t *limit = out + capacity;
    size_t index = 0;
    for (; index < n; index++) {
        const uint32_t handle = handles[index];
        const unsigned count = source->counts[handle];
        if (count == 0) continue;
        const size_t prefix_length = (size_t)source->prefix_lengths[handle];
        if ((size_t)(limit - cursor) < prefix_length + MOTION_FRAME_UPDATE_ROOM) break;
        const double *slot = source->slots + (size_t)handle * 8;
        int plain = 1;
        for (unsigned c = 0; c < count; c++) plain &= (fabs(slot[c]) < 999999999.0) & (fabs(slot[4 + c]) < 999999999.0);
        if (!plain) break;
        if (!*first) *cursor++ = ',';
        *first = 0;
        const uint8_t *prefix = source->prefixes + source->prefix_starts[handle];
        const uint32_t owner = source->owners[handle];
        if (source->names_others && owner != source->viewer && owner != source->daemon) {
            const size_t opening = source->runtime_opening;
            memcpy(cursor, prefix, opening);
            cursor = write_uint(cursor + opening, owner);
            *cursor++ = '/';
            memcpy(cursor, prefix + opening, prefix_length - opening);
            cursor += prefix_length - opening;
        } else {
            memcpy(cursor, prefix, prefix_length);
            cursor += prefix_length;
        }
        cursor = write_vector(cursor, slot, count);
        memcpy(cursor, velocity_key, sizeof velocity_key - 1);
        cursor += sizeof velocity_key - 1;
        cursor = write_vector(cursor, slot + 4, count);
        *cursor++ = '}';
    }
    *used = (size_t)(cursor - out);
    return index;
}
