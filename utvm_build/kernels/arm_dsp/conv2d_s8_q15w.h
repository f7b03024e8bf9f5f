/* utvm-build kernels, DSP extension: CONV_2D, int8 (TFLite ConvPerChannel), one group, with the
 * weights pre-widened to int16 at compile time (--optimize speed, and balanced for the layers
 * where it pays: ops/conv.py). The same windows and requantization as conv2d_s8_q15.h
 * (conv2d_q15_window.h); the inner loop loads weight lanes instead of extending weight bytes:
 * per 4 window bytes, two output channels and two pixels, 4 LDRD and 8 SMLAD (conv2d_s8_q15.h:
 * 3 LDRD, 4 SXTB16, 8 SMLAD), with post-indexed loads (inline assembly under GCC and Clang: GCC
 * adds the pointers separately; other compilers get the C loop).
 *
 * Data the generator prepares (ops/conv.py, conv_q15_call):
 * - w: int32 words; per pair of output channels (c, c + 1), per 4 window bytes k..k+3: channel c's
 *   (w[k], w[k+2]) and (w[k+1], w[k+3]) as int16 lanes (low lane first), then channel c + 1's; the
 *   window zero-padded to depth4 bytes, an odd last channel paired with a copy of itself;
 * - bias, rq: as conv2d_s8_q15.h.
 * Scratch (kernel_table.py rule): as conv2d_s8_q15.h.
 */
#ifndef UTVM_KERNELS_ARM_DSP_CONV2D_S8_Q15W_H_
#define UTVM_KERNELS_ARM_DSP_CONV2D_S8_Q15W_H_

#if !defined(__ARM_FEATURE_DSP) || (__ARM_FEATURE_DSP != 1)
#error "utvm-build: these kernels were generated for a DSP target (--target cortex-m4/m7/m33/m55) but compiled without the DSP extension; use --target generic"
#endif

#include "conv2d_q15_window.h"

#if defined(__GNUC__) || defined(__clang__)
/* One step: 4 window bytes of both pixels (px: a's two words, b's two words) and both channels
 * (pw: channel 0's two lane words, channel 1's), 16 multiply-accumulates. */
#define UTVM_CONV2D_Q15W_STEP                      \
  "ldrd %[x0], %[x1], [%[px]], #8\n\t"             \
  "ldrd %[t0], %[t1], [%[pw]], #8\n\t"             \
  "smlad %[a0], %[x0], %[t0], %[a0]\n\t"           \
  "smlad %[a0], %[x1], %[t1], %[a0]\n\t"           \
  "ldrd %[x2], %[x3], [%[px]], #8\n\t"             \
  "smlad %[b0], %[x2], %[t0], %[b0]\n\t"           \
  "smlad %[b0], %[x3], %[t1], %[b0]\n\t"           \
  "ldrd %[t0], %[t1], [%[pw]], #8\n\t"             \
  "smlad %[a1], %[x0], %[t0], %[a1]\n\t"           \
  "smlad %[a1], %[x1], %[t1], %[a1]\n\t"           \
  "smlad %[b1], %[x2], %[t0], %[b1]\n\t"           \
  "smlad %[b1], %[x3], %[t1], %[b1]\n\t"
#define UTVM_CONV2D_Q15W_OPERANDS                                                                   \
  [a0] "+r"(a0), [a1] "+r"(a1), [b0] "+r"(b0), [b1] "+r"(b1), [px] "+r"(px), [pw] "+r"(pw),          \
      [x0] "=&r"(x0), [x1] "=&r"(x1), [x2] "=&r"(x2), [x3] "=&r"(x3), [t0] "=&r"(t0), [t1] "=&r"(t1)
#endif

/* Every output channel of the pixel pair in the q15 scratch q: the sums into acc (as
 * conv2d_s8_q15.h), then requantized into ya and yb. */
static UTVM_DSP_INLINE void utvm_conv2d_q15w_pair(const utvm_conv2d_q15_params* p, const int32_t* q,
                                                  const int32_t* w, const int32_t* bias, const int32_t* rq,
                                                  int32_t* acc, int8_t* ya, int8_t* yb, int32_t mode) {
  const int32_t out_c = p->g.out_c;
  const int32_t steps = p->depth4 >> 2;
  const int32_t* pw = w;
  const int32_t* pb = bias;
  int32_t* pacc = acc;
  int32_t c0;
  for (c0 = 0; c0 < out_c; c0 += 2) {
    int32_t a0 = pb[0];
    int32_t a1 = pb[1];
    int32_t b0 = a0;
    int32_t b1 = a1;
    const int32_t* px = q;
#if defined(__GNUC__) || defined(__clang__)
    int32_t n = steps >> 1;
    int32_t x0;
    int32_t x1;
    int32_t x2;
    int32_t x3;
    int32_t t0;
    int32_t t1;
    if ((steps & 1) != 0) {
      __asm__(UTVM_CONV2D_Q15W_STEP : UTVM_CONV2D_Q15W_OPERANDS : : "memory");
    }
    if (n != 0) {
      __asm__("1:\n\t" UTVM_CONV2D_Q15W_STEP UTVM_CONV2D_Q15W_STEP
              "subs %[n], %[n], #1\n\t"
              "bne 1b"
              : UTVM_CONV2D_Q15W_OPERANDS, [n] "+r"(n)
              :
              : "cc", "memory");
    }
#else
    int32_t k;
    for (k = 0; k < steps; ++k) {
      a0 = __smlad(px[0], pw[0], a0);
      a0 = __smlad(px[1], pw[1], a0);
      b0 = __smlad(px[2], pw[0], b0);
      b0 = __smlad(px[3], pw[1], b0);
      a1 = __smlad(px[0], pw[2], a1);
      a1 = __smlad(px[1], pw[3], a1);
      b1 = __smlad(px[2], pw[2], b1);
      b1 = __smlad(px[3], pw[3], b1);
      px = &px[4];
      pw = &pw[4];
    }
#endif
    /* an odd last channel: its pair's second channel is a copy, whose sums are not read */
    pacc[0] = a0;
    pacc[1] = b0;
    pacc[2] = a1;
    pacc[3] = b1;
    pacc = &pacc[4];
    pb = &pb[2];
  }
  utvm_conv2d_q15_out(p, acc, rq, ya, yb, mode);
}

/* The loop specialized for each requantization mode (GCC: -O2 for the fast ones). */
static UTVM_DSP_HOT void utvm_conv2d_q15w_pair_full(const utvm_conv2d_q15_params* p, const int32_t* q,
    const int32_t* w, const int32_t* bias, const int32_t* rq, int32_t* acc, int8_t* ya, int8_t* yb) {
  utvm_conv2d_q15w_pair(p, q, w, bias, rq, acc, ya, yb, UTVM_DSP_RQ_FULL);
}

static UTVM_DSP_HOT void utvm_conv2d_q15w_pair_fast(const utvm_conv2d_q15_params* p, const int32_t* q,
    const int32_t* w, const int32_t* bias, const int32_t* rq, int32_t* acc, int8_t* ya, int8_t* yb) {
  utvm_conv2d_q15w_pair(p, q, w, bias, rq, acc, ya, yb, UTVM_DSP_RQ_FAST);
}

static UTVM_DSP_NOINLINE void utvm_conv2d_q15w_pair_any(const utvm_conv2d_q15_params* p, const int32_t* q,
    const int32_t* w, const int32_t* bias, const int32_t* rq, int32_t* acc, int8_t* ya, int8_t* yb) {
  utvm_conv2d_q15w_pair(p, q, w, bias, rq, acc, ya, yb, UTVM_DSP_RQ_ANY);
}

/* scratch and rq: as utvm_conv2d_s8_q15. */
static void utvm_conv2d_s8_q15w(const utvm_conv2d_q15_params* p, const int8_t* in, const int32_t* w,
                                const int32_t* bias, const int32_t* rq, void* scratch, int8_t* out) {
  const utvm_conv_geom* g = &p->g;
  const int32_t total = g->batches * g->out_h * g->out_w;
  /* the q15 windows: 4-byte aligned in the scratch memory */
  uint8_t* const raw = (uint8_t*)scratch;
  int32_t* const q = (int32_t*)(void*)&raw[(4u - ((uintptr_t)raw & 3u)) & 3u];
  int32_t* const acc = &q[p->depth4];
  int8_t* const stage = (int8_t*)(void*)&acc[2 * (g->out_c + 1)];
  int32_t pix = 0;
  while (pix < total) {
    pix = utvm_conv2d_q15_windows(p, in, pix, total, q, stage);
    {
      int8_t* const ya = &out[pix * g->out_c];
      int8_t* const yb = &out[utvm_min_i32(pix + 1, total - 1) * g->out_c];
      if (p->rq_mode == UTVM_DSP_RQ_FULL) {
        utvm_conv2d_q15w_pair_full(p, q, w, bias, rq, acc, ya, yb);
      } else if (p->rq_mode == UTVM_DSP_RQ_FAST) {
        utvm_conv2d_q15w_pair_fast(p, q, w, bias, rq, acc, ya, yb);
      } else {
        utvm_conv2d_q15w_pair_any(p, q, w, bias, rq, acc, ya, yb);
      }
    }
    pix += 2;
  }
}

#endif /* UTVM_KERNELS_ARM_DSP_CONV2D_S8_Q15W_H_ */
