#include "motion_kernels.h"

#include <math.h>
#include <string.h>

/* `magnitude * 1e9 + 0.5` rounded as Swift rounds it: two operations, never one fused multiply-add. */
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

/* The frame encoder's inner loop (MotionEngine's FrameEncoder keeps the headers and the rare numbers).
 * In C for the same reason as the other kernels: at 40,000 springs a frame is 40,000 updates and ~6 MB,
 * 120 times a second, and this loop is most of the daemon's time with a JSON subscriber (BENCHMARKS.md). */

/* MOTION_KERNELS_ONE_TARGET: compiled for the -march given only (the tests build each target's loop
 * that way and compare its text with Swift's). */
#if defined(__x86_64__) && defined(__clang__) && defined(__linux__) && !defined(MOTION_KERNELS_ONE_TARGET)
/* x86-64-v2 (SSE4.2) too, here only: this loop compiled for it takes 29 ns an update where SSE2's takes 43
 * (Benchmarks/kernels/targets, AMD EPYC family 26); the spring loops gain nothing from it. */
#define MULTIVERSION                                                                                             \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "arch=x86-64-v2", "default")))
#else
#define MULTIVERSION
#endif

/* Updates whose numbers are converted together: their values and velocities, packed (2 × the width
 * each), go through loops over up to 128 numbers that the compiler vectorises; writing the text out stays
 * a scalar pass over the digits. */
enum { BATCH = 16, BATCH_NUMBERS = BATCH * 8 };

typedef struct number_digits {
    /* Room for the four components copied whole after the last update's (only `count` of them kept). */
    double numbers[BATCH_NUMBERS + 4];
    uint32_t integer[BATCH_NUMBERS], fraction[BATCH_NUMBERS];
    /* The integer part's first digit (of nine), the fraction's first decimal (of nine). */
    uint32_t integer_top[BATCH_NUMBERS], fraction_top[BATCH_NUMBERS];
    /* The other eight of each as ASCII, four digits per word, first digit in the lowest byte:
     * the integer part's high and low four, then the fraction's. */
    uint32_t words[4][BATCH_NUMBERS];
} number_digits;

/* The four decimal digits of `v` < 10,000 as ASCII in one word, first digit in the lowest byte (so a
 * store writes them in order). The divisions by 100 and 10 are multiplies and shifts, exact in these
 * ranges, the second for both halves at once; 32-bit lanes only (eight or sixteen to a vector). */
static inline __attribute__((always_inline)) uint32_t four_digits(uint32_t v) {
    const uint32_t hundreds = (v * 5243) >> 19;
    const uint32_t pairs = hundreds | ((v - hundreds * 100) << 16);
    const uint32_t tens = ((pairs * 103) >> 10) & 0x000F000Fu;
    return (tens | ((pairs - tens * 10) << 8)) + 0x30303030u;
}

/* FrameEncoder.writeFixed's arithmetic for `count` numbers: fixed = ⌊|x|·1e9 + 0.5⌋ (the two operations
 * rounded apart, as Swift does them), split into ⌊fixed / 1e9⌋ and fixed mod 1e9, for magnitudes below
 * 999,999,999 (others come out as 0: the caller writes them). Without 64-bit integers, which vectors of
 * AVX2 and SSE2 cannot divide or convert: with d = |x|·1e9 + 0.5 (below 1e18), q = ⌊d·1e-9⌋ converted is
 * the quotient or one above (fl(1e-9) > 1e-9; one below would be corrected too), and d − q·1e9 is exact
 * (q·1e9 has at most 51 significant bits; for d ≥ 2^30 the difference is below 2^31 and has no bit below
 * d's last; below, q is 0 or 1 and Sterbenz's lemma applies), as is the corrected remainder (the same
 * difference for the true quotient), whose truncation is fixed mod 1e9 (q·1e9 is an integer). */
static inline __attribute__((always_inline)) void split_fixed(number_digits *restrict digits, size_t count) {
    for (size_t i = 0; i < count; i++) {
        double magnitude = fabs(digits->numbers[i]);
        magnitude = magnitude < 999999999.0 ? magnitude : 0.0;
        const double scaled = magnitude * 1e9 + 0.5;
        double quotient = (double)(int32_t)(scaled * 1e-9);
        double remainder = scaled - quotient * 1e9;
        quotient = remainder < 0 ? quotient - 1 : (remainder >= 1e9 ? quotient + 1 : quotient);
        remainder = remainder < 0 ? remainder + 1e9 : (remainder >= 1e9 ? remainder - 1e9 : remainder);
        digits->integer[i] = (uint32_t)(int32_t)quotient;
        digits->fraction[i] = (uint32_t)(int32_t)remainder;
    }
}

/* Both parts below 1e9: the first digit, then two words of four. */
static inline __attribute__((always_inline)) void spell_digits(number_digits *restrict digits, size_t count) {
    for (size_t i = 0; i < count; i++) {
        const uint32_t integer = digits->integer[i], fraction = digits->fraction[i];
        const uint32_t integer_top = integer / 100000000u, fraction_top = fraction / 100000000u;
        const uint32_t integer_rest = integer - integer_top * 100000000u;
        const uint32_t fraction_rest = fraction - fraction_top * 100000000u;
        const uint32_t integer_high = integer_rest / 10000u, fraction_high = fraction_rest / 10000u;
        digits->integer_top[i] = integer_top;
        digits->fraction_top[i] = fraction_top;
        digits->words[0][i] = four_digits(integer_high);
        digits->words[1][i] = four_digits(integer_rest - integer_high * 10000u);
        digits->words[2][i] = four_digits(fraction_high);
        digits->words[3][i] = four_digits(fraction_rest - fraction_high * 10000u);
    }
}

static inline __attribute__((always_inline)) void store_word(uint8_t *out, uint64_t word) {
    memcpy(out, &word, 8);
}

/* FrameEncoder.writeFixed from the digits of number `i` (plain: the caller checked the magnitude):
 * the integer part, then up to nine decimals without trailing zeros. Writes up to 8 bytes past the
 * number's end (the caller leaves room; what follows overwrites them). */
static inline __attribute__((always_inline)) uint8_t *write_fixed(uint8_t *out, const number_digits *digits, size_t i) {
    const uint32_t integer_top = digits->integer_top[i], fraction_top = digits->fraction_top[i];
    const uint64_t integer_rest = digits->words[0][i] | (uint64_t)digits->words[1][i] << 32;
    const uint64_t fraction_rest = digits->words[2][i] | (uint64_t)digits->words[3][i] << 32;
    const uint64_t integer_zeros = integer_rest ^ 0x3030303030303030ULL;
    const uint64_t fraction_zeros = fraction_rest ^ 0x3030303030303030ULL;
    if ((integer_top | integer_zeros | fraction_top | fraction_zeros) == 0) {
        *out = '0';
        return out + 1;
    }
    if (signbit(digits->numbers[i])) *out++ = '-';
    if (integer_top) {
        *out++ = (uint8_t)('0' + integer_top);
        store_word(out, integer_rest);
        out += 8;
    } else {
        /* Leading zeros are the low bytes equal to '0'; at least the last digit is kept. */
        const int skipped = integer_zeros ? __builtin_ctzll(integer_zeros) / 8 : 7;
        store_word(out, integer_rest >> (8 * skipped));
        out += 8 - skipped;
    }
    if ((fraction_top | fraction_zeros) == 0) return out;
    /* Nine decimals: the first, then eight; trailing zeros are the high bytes equal to '0'. */
    out[0] = '.';
    out[1] = (uint8_t)('0' + fraction_top);
    store_word(out + 2, fraction_rest);
    if (fraction_zeros) return out + 2 + 8 - __builtin_clzll(fraction_zeros) / 8;
    return out + 2; /* the first decimal is not 0: the fraction is not, and the other eight are */
}

static inline __attribute__((always_inline)) uint8_t *write_vector(uint8_t *out, const number_digits *digits, size_t first,
                                                                   unsigned count) {
    *out++ = '[';
    for (unsigned c = 0; c < count; c++) {
        if (c) *out++ = ',';
        out = write_fixed(out, digits, first + c);
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

/* Whether every number of the update is in the fixed format (magnitude below 999,999,999: not NaN). */
static inline __attribute__((always_inline)) int is_plain(const motion_frame_source *source, uint32_t handle) {
    const double *slot = source->slots + (size_t)handle * 8;
    const unsigned count = source->counts[handle];
    int plain = 1;
    for (unsigned c = 0; c < count; c++) plain &= (fabs(slot[c]) < 999999999.0) & (fabs(slot[4 + c]) < 999999999.0);
    return plain;
}

MULTIVERSION
size_t motion_frame_write_updates(const motion_frame_source *source, const uint32_t *handles, size_t n,
                                  uint8_t *out, size_t capacity, size_t *used, int *first) {
    uint8_t *cursor = out + *used;
    const uint8_t *limit = out + capacity;
    number_digits digits;
    size_t index = 0;
    /* Called again after each update the caller wrote (a number outside the fixed format): when the
     * next is one too, it goes back at once, not after a batch's digits. */
    if (n > 0 && !is_plain(source, handles[0])) goto stop;
    const double scale = source->velocity_scale != 0 ? source->velocity_scale : 1;
    while (index < n) {
        const size_t batch = n - index < BATCH ? n - index : BATCH;
        /* Each update's values then its velocities, `count` of each, packed; where they start. */
        size_t starts[BATCH], packed = 0;
        for (size_t u = 0; u < batch; u++) {
            const uint32_t handle = handles[index + u];
            const unsigned count = source->counts[handle];
            const double *slot = source->slots + (size_t)handle * 8;
            starts[u] = packed;
            memcpy(digits.numbers + packed, slot, 32);
            memcpy(digits.numbers + packed + count, slot + 4, 32);
            if (scale != 1)
                for (unsigned c = 0; c < count; c++) digits.numbers[packed + count + c] *= scale;
            packed += 2 * count;
        }
        split_fixed(&digits, packed);
        spell_digits(&digits, packed);
        for (size_t u = 0; u < batch; u++, index++) {
            const uint32_t handle = handles[index];
            const unsigned count = source->counts[handle];
            if (count == 0) continue;
            const size_t prefix_length = (size_t)source->prefix_lengths[handle];
            if ((size_t)(limit - cursor) < prefix_length + MOTION_FRAME_UPDATE_ROOM) goto stop;
            const double *numbers = digits.numbers + starts[u];
            int plain = 1;
            for (unsigned c = 0; c < 2 * count; c++) plain &= fabs(numbers[c]) < 999999999.0;
            if (!plain) goto stop;
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
            cursor = write_vector(cursor, &digits, starts[u], count);
            memcpy(cursor, velocity_key, sizeof velocity_key - 1);
            cursor += sizeof velocity_key - 1;
            cursor = write_vector(cursor, &digits, starts[u] + count, count);
            *cursor++ = '}';
        }
    }
stop:
    *used = (size_t)(cursor - out);
    return index;
}
