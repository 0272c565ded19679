/* The closed form of a spring or a decay over a time t (docs/vocabulary.md#exact-motion), written so that a
 * loop over lanes vectorises: no branches, no calls (the exponential, sine and cosine are polynomials
 * here, not libm's), every regime computed by one formula with selects.
 *
 * For x″ = −k·x − c·x′ (x the offset from the target; a decay is k = 0, c its drag), with α = c/2 and
 * q = k − α², the state (x, x′) after t is M(t)·(x, x′)(0) where
 *
 *   M = [[C + α·S, S], [−k·S, C − α·S]],
 *   underdamped (q > 0, ω = √q):    C = e^(−αt)·cos ωt,   S = e^(−αt)·sin(ωt)/ω
 *   overdamped  (q < 0, γ = √−q):   C = e^(−αt)·cosh γt,  S = e^(−αt)·sinh(γt)/γ
 *   critical    (q = 0):            C = e^(−αt),          S = t·e^(−αt)
 *
 * The overdamped terms are taken as the two exponentials e^(−s₁t), e^(−s₂t) of the rates s₁ = k/(α + γ)
 * (= α − γ without the cancellation) and s₂ = α + γ, so a heavily damped spring's slow mode does not
 * vanish in e^(−αt)·e^(γt) under- and overflowing. Within 0.01 of the critical case in ωt or γt the series
 * of cos, sin(x)/x, cosh, sinh(x)/x take over (their error is below 1e-15 there). Relative error of every
 * entry: a few units in the last place (tests check 1e-12 against libm). */
#ifndef MOTION_EXACT_MOTION_H
#define MOTION_EXACT_MOTION_H

#include <stdint.h>
#include <string.h>

/* Rounds to the nearest integer (|x| < 2^51) without a call: SSE2 has no vector rounding instruction. */
static inline __attribute__((always_inline)) double motion_round(double x) {
    const double magic = 6755399441055744.0; /* 1.5 · 2^52 */
    return (x + magic) - magic;
}

/* e^x for x <= 0 (0 below −708: what it multiplies is then far below 1e-300 of a travel). */
static inline __attribute__((always_inline)) double motion_exp(double x) {
    const double magic = 6755399441055744.0;
    const double clamped = x < -708 ? -708 : x;
    const double shifted = clamped * 1.4426950408889634 + magic;
    const double n = shifted - magic;
    /* ln 2 in two parts (fdlibm's ln2_hi, ln2_lo): n·ln2_hi is exact. */
    const double r = (clamped - n * 6.93147180369123816490e-01) - n * 1.90821492927058770002e-10;
    /* Taylor to r^13 on |r| <= ln2/2: error below 4e-18. */
    double p = 1.0 / 6227020800.0;
    p = p * r + 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    /* 2^n from the low bits of `shifted` (n in [−1022, 0]). */
    int64_t bits;
    memcpy(&bits, &shifted, sizeof bits);
    const int64_t scaleBits = (int64_t)((uint64_t)(bits + 1023) << 52);
    double scale;
    memcpy(&scale, &scaleBits, sizeof scale);
    return x < -708 ? 0 : p * scale;
}

/* sin x and cos x (|x| < 2^20·π/2 exactly reduced; beyond, to about 1e-10 per 2^10 more). */
static inline __attribute__((always_inline)) void motion_sincos(double x, double *sine, double *cosine) {
    const double n = motion_round(x * 0.63661977236758134308);
    /* π/2 in three parts of 33 bits (fdlibm's pio2_1, pio2_2, pio2_3): n·part is exact for n < 2^20. */
    const double r = ((x - n * 1.57079632673412561417e+00) - n * 6.07710050630396597660e-11) - n * 2.02226624871116645580e-21;
    const double r2 = r * r;
    /* Taylor on |r| <= π/4: sin to r^17, cos to r^18 (errors below 1e-19). */
    double s = -1.0 / 355687428096000.0;
    s = s * r2 + 1.0 / 1307674368000.0;
    s = s * r2 - 1.0 / 6227020800.0;
    s = s * r2 + 1.0 / 39916800.0;
    s = s * r2 - 1.0 / 362880.0;
    s = s * r2 + 1.0 / 5040.0;
    s = s * r2 - 1.0 / 120.0;
    s = s * r2 + 1.0 / 6.0;
    s = r - r * r2 * s;
    double c = 1.0 / 6402373705728000.0;
    c = c * r2 - 1.0 / 20922789888000.0;
    c = c * r2 + 1.0 / 87178291200.0;
    c = c * r2 - 1.0 / 479001600.0;
    c = c * r2 + 1.0 / 3628800.0;
    c = c * r2 - 1.0 / 40320.0;
    c = c * r2 + 1.0 / 720.0;
    c = c * r2 - 1.0 / 24.0;
    c = c * r2 + 0.5;
    c = 1 - r2 * c;
    /* The quadrant, n mod 4, as a double (0, 1, 2 or 3). */
    const double quadrant = n - 4 * motion_round((n - 1.5) * 0.25);
    const double swapS = quadrant == 1 || quadrant == 3 ? c : s, swapC = quadrant == 1 || quadrant == 3 ? s : c;
    *sine = quadrant >= 2 ? -swapS : swapS;
    *cosine = quadrant == 1 || quadrant == 2 ? -swapC : swapC;
}

/* M(t) for tension k >= 0 and damping c >= 0 (per unit of mass), t >= 0: m[0..3] = m11, m12, m21, m22. */
static inline __attribute__((always_inline)) void motion_transition(double k, double c, double t, double *m11,
                                                                     double *m12, double *m21, double *m22) {
    const double alpha = 0.5 * c;
    const double q = k - alpha * alpha;
    const double root = __builtin_elementwise_sqrt(q < 0 ? -q : q);
    const double x = root * t;
    const int under = q > 0;
    /* Exponents: underdamped e^(−αt) (and an unused one); overdamped e^(−s₁t), e^(−s₂t). */
    const double fast = alpha + root;
    const double slow = fast > 0 ? k / fast : 0;
    const double e1 = motion_exp(under ? -alpha * t : -slow * t);
    const double e2 = motion_exp(-fast * t);
    double sine, cosine;
    motion_sincos(under ? x : 0, &sine, &cosine);
    const double safeRoot = root > 0 ? root : 1;
    /* Near critical: e^(−αt) times the series (± for cos/cosh). */
    const double x2 = x * x, sign = under ? -1.0 : 1.0;
    const double decay = under ? e1 : __builtin_elementwise_sqrt(e1 * e2);
    const double seriesC = decay * (1 + sign * x2 * (0.5 + sign * x2 * (1.0 / 24 + sign * x2 * (1.0 / 720))));
    const double seriesS = decay * t * (1 + sign * x2 * (1.0 / 6 + sign * x2 * (1.0 / 120 + sign * x2 * (1.0 / 5040))));
    const int series = x < 0.01;
    const double C = series ? seriesC : under ? e1 * cosine : 0.5 * (e1 + e2);
    const double S = series ? seriesS : under ? e1 * sine / safeRoot : (e1 - e2) / (2 * safeRoot);
    /* Overdamped m11 and m22 from the rates (C ± α·S would cancel): (e1·s₂ − e2·s₁)/2γ, (e2·s₂ − e1·s₁)/2γ. */
    const int plain = series || under;
    *m11 = plain ? C + alpha * S : (e1 * fast - e2 * slow) / (2 * safeRoot);
    *m12 = S;
    *m21 = -k * S;
    *m22 = plain ? C - alpha * S : (e2 * fast - e1 * slow) / (2 * safeRoot);
}

#endif
