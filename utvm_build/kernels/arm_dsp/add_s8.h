/* utvm-build kernels, DSP targets: ADD / SUB, int8; replaces kernels/add_s8.h (same function, same
 * arguments, same results). The arithmetic and the loop nest are the generic file's (add_s8_q.h);
 * operands of the same shape (no broadcast, the residual additions of ResNet-like models) take
 * utvm_add_s8_flat, one loop with every constant in a local (the generic single loop nest reloads
 * them from the parameter structs after every int8 store, which may alias them).
 */
#ifndef UTVM_KERNELS_ADD_S8_H_
#define UTVM_KERNELS_ADD_S8_H_

#if !defined(__ARM_FEATURE_DSP) || (__ARM_FEATURE_DSP != 1)
#error "utvm-build: these kernels were generated for a DSP target (--target cortex-m4/m7/m33/m55) but compiled without the DSP extension; use --target generic"
#endif

#include "add_s8_q.h"

/* Same-shape operands: n >= 0 elements, the arithmetic of utvm_add_s8 below with every constant
 * in a local. Inlined into utvm_add_s8, so that a model with a single ADD still gets it with its
 * parameters as constants (kernel guide); an out-of-line -O2 copy was 3 % faster on ResNet-8's
 * three ADDs but 5 % slower on a model with one. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline void utvm_add_s8_flat(const utvm_add_q_params* p, const utvm_add_s8_input* pr1,
                             const utvm_add_s8_input* pr2, const utvm_add_s8_rescale* pro, const int8_t* in1,
                             const int8_t* in2, int8_t* out, int32_t n) {
  const int32_t off1 = p->input1_offset;
  const int32_t off2 = p->input2_offset;
  const int32_t lo = p->act_min;
  const int32_t hi = p->act_max;
  const int32_t mh1 = pr1->mh;
  const int32_t ml1 = pr1->ml;
  const uint32_t an1 = pr1->add_neg;
  const uint32_t ap1 = pr1->add_pos;
  const uint32_t e1 = pr1->exponent;
  const int32_t mh2 = pr2->mh;
  const int32_t ml2 = pr2->ml;
  const uint32_t an2 = pr2->add_neg;
  const uint32_t ap2 = pr2->add_pos;
  const uint32_t e2 = pr2->exponent;
  const uint32_t in_offset = pr1->offset + pr2->offset;
  const int32_t om = pro->multiplier;
  const int32_t oin = pro->init_neg;
  const int32_t oip = pro->init_pos;
  const uint32_t oround = pro->round;
  const uint32_t oe = pro->exponent;
  const uint32_t ooff = pro->offset;
  int32_t k;
  for (k = 0; k < n; ++k) {
    const int32_t v1 = off1 + (int32_t)in1[k];
    const int32_t v2 = off2 + (int32_t)in2[k];
    const uint32_t h1 = ((uint32_t)(v1 * mh1) + ((uint32_t)((v1 * ml1) + 525312) >> 11u)) + ((v1 < 0) ? an1 : ap1);
    const uint32_t h2 = ((uint32_t)(v2 * mh2) + ((uint32_t)((v2 * ml2) + 525312) >> 11u)) + ((v2 < 0) ? an2 : ap2);
    const int32_t x = (int32_t)(((h1 >> e1) + (h2 >> e2)) - in_offset);
    const int64_t t = ((int64_t)x * (int64_t)om) + (int64_t)((x < 0) ? oin : oip);
    const uint32_t v = (uint32_t)((uint64_t)t >> 31u);
    int32_t r = (int32_t)(((v + oround) >> oe) - ooff);
    r = (r < lo) ? lo : r;
    r = (r > hi) ? hi : r;
    out[k] = (int8_t)r;
  }
}

/* Same-shape operands: utvm_add_s8_flat, nothing left for the loop nest. */
static inline int32_t utvm_add_s8_flat_rows(const utvm_add_q_params* p, const utvm_add_s8_input* r1,
                                            const utvm_add_s8_input* r2, const utvm_add_s8_rescale* ro,
                                            const int8_t* in1, const int8_t* in2, int8_t* out, int32_t n) {
  utvm_add_s8_flat(p, r1, r2, ro, in1, in2, out, n);
  return 0;
}

static void utvm_add_s8(const utvm_add_q_params* p, const utvm_ew_shape* sh, const int8_t* in1,
                        const int8_t* in2, int8_t* out) {
  UTVM_ADD_S8_WALK(p, sh, in1, in2, out, utvm_add_s8_flat_rows);
}

#endif /* UTVM_KERNELS_ADD_S8_H_ */
