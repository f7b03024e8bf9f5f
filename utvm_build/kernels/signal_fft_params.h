/* utvm-build kernels: the parameters of TFLM SignalRfft / SignalIrfft (KISS FFT v130, every type):
 * the real FFT length and the stages of the complex FFT of half that length (kf_factor's radixes,
 * outermost first), made by the compiler. */
#ifndef UTVM_KERNELS_SIGNAL_FFT_PARAMS_H_
#define UTVM_KERNELS_SIGNAL_FFT_PARAMS_H_

#include <stdint.h>

/* The FFT butterflies are kept out of line: inlined into one stage loop, their locals (radix 5: 13
 * complex values) add up in one frame (the int16 RFFT operator: 504 B of stack at -Os on a
 * Cortex-M4, against 96 B plus the deepest butterfly called, 176 B for radix 4). */
#if defined(__GNUC__) || defined(__clang__)
#define UTVM_SIGNAL_NOINLINE __attribute__((noinline))
#else
#define UTVM_SIGNAL_NOINLINE
#endif

#define UTVM_SIGNAL_FFT_MAX_STAGES 32

typedef struct {
  int32_t fft_length;   /* real FFT length n (even) */
  int32_t input_length; /* input elements per frame (rfft: <= n samples, the rest is zero;
                         * irfft: >= n / 2 + 1 complex bins) */
  int32_t frames;       /* frames (outer elements) */
  int32_t n_stages;
  int32_t radix[UTVM_SIGNAL_FFT_MAX_STAGES];  /* p of each stage, outermost first */
  int32_t span[UTVM_SIGNAL_FFT_MAX_STAGES];   /* m of each stage */
  int32_t stride[UTVM_SIGNAL_FFT_MAX_STAGES]; /* twiddle stride (product of the outer radixes) */
} utvm_signal_rfft_params;

/* The stage loop of the complex FFT, written once for every type (signal_kissfft_{s16,s32,f32}.h
 * give the butterflies): `work` holds the inputs in kf_work's leaf order; each stage, deepest
 * first, runs its butterfly over every block (radix 4 takes the direction). */
#define UTVM_SIGNAL_FFT_STAGES(p, tw, work, inverse, T, BFLY2, BFLY3, BFLY4, BFLY5)  \
  do {                                                                               \
    int32_t s_;                                                                      \
    for (s_ = (p)->n_stages - 1; s_ >= 0; --s_) {                                    \
      const int32_t radix_ = (p)->radix[s_];                                         \
      const int32_t m_ = (p)->span[s_];                                              \
      const int32_t fstride_ = (p)->stride[s_];                                      \
      int32_t b_;                                                                    \
      for (b_ = 0; b_ < fstride_; ++b_) {                                            \
        T* blk_ = &(work)[2 * b_ * radix_ * m_];                                     \
        if (radix_ == 2) {                                                           \
          BFLY2(blk_, (tw), fstride_, m_);                                           \
        } else if (radix_ == 3) {                                                    \
          BFLY3(blk_, (tw), fstride_, m_);                                           \
        } else if (radix_ == 4) {                                                    \
          BFLY4(blk_, (tw), fstride_, m_, (inverse));                                \
        } else {                                                                     \
          BFLY5(blk_, (tw), fstride_, m_);                                           \
        }                                                                            \
      }                                                                              \
    }                                                                                \
  } while (0)

/* The complex FFT function of one type, defined once: NAME(p, tw, work, inverse) runs
 * UTVM_SIGNAL_FFT_STAGES with the type's butterflies (the function each signal_kissfft_<type>.h
 * used to spell out, so the same machine code). Invoked at file scope without a semicolon. */
#define UTVM_SIGNAL_FFT_STAGES_FUNCTION(NAME, T, BFLY2, BFLY3, BFLY4, BFLY5)                     \
  static void NAME(const utvm_signal_rfft_params* p, const T* tw, T* work, int32_t inverse) { \
    UTVM_SIGNAL_FFT_STAGES(p, tw, work, inverse, T, BFLY2, BFLY3, BFLY4, BFLY5);              \
  }

/* LOAD(f, k) / STORE(f, k, c): complex element k of an interleaved (re, im) array of T, as the
 * complex type C (float32 and int32, whose complex types hold T; int16 widens to int32 and keeps
 * its own). Defined once at file scope, without a semicolon; the functions are static inline. */
#define UTVM_SIGNAL_COMPLEX_LOAD_STORE(C, T, LOAD, STORE) \
  static inline C LOAD(const T* f, int32_t k) {           \
    C c_;                                                 \
    c_.r = f[2 * k];                                      \
    c_.i = f[(2 * k) + 1];                                \
    return c_;                                            \
  }                                                       \
  static inline void STORE(T* f, int32_t k, C c) {        \
    f[2 * k] = c.r;                                       \
    f[(2 * k) + 1] = c.i;                                 \
  }

/* KISS FFT's butterflies kf_bfly2 .. kf_bfly5 for the types whose complex values hold the element
 * type (float32 and int32; int16 narrows between operations and keeps its own), defined once at
 * file scope (no semicolon after the invocation). Each is a static out-of-line function
 * BFLYr(f, tw, fstride, m[, inverse]) over the m blocks of radix r. The type gives the operations:
 * IN(c, radix) the stage's input from the loaded element c (int32: C_FIXDIV by the radix; float: c),
 * LOAD / STORE, the complex CMUL / CADD / CSUB, the real ADD / SUB / NEG / SMUL (S_MUL) / HALF
 * (HALF_OF) and MAC2(a, b, x, c, y) = a + b x + c y. The operations run in the reference's order,
 * as the per-type functions did (the same machine code, M4 and M55, -Os and -O2). */
#define UTVM_SIGNAL_FFT_BUTTERFLIES(C, T, BFLY2, BFLY3, BFLY4, BFLY5, IN, LOAD, STORE, CMUL, CADD, CSUB, ADD, \
                                    SUB, NEG, SMUL, HALF, MAC2)                                               \
  static UTVM_SIGNAL_NOINLINE void BFLY2(T* f, const T* tw, int32_t fstride, int32_t m) {                     \
    int32_t k_;                                                                                               \
    for (k_ = 0; k_ < m; ++k_) {                                                                              \
      const C a_ = IN(LOAD(f, k_), 2);                                                                        \
      const C t_ = CMUL(IN(LOAD(f, k_ + m), 2), LOAD(tw, k_ * fstride));                                      \
      STORE(f, k_ + m, CSUB(a_, t_));                                                                         \
      STORE(f, k_, CADD(a_, t_));                                                                             \
    }                                                                                                         \
  }                                                                                                           \
  static UTVM_SIGNAL_NOINLINE void BFLY3(T* f, const T* tw, int32_t fstride, int32_t m) {                     \
    int32_t k_;                                                                                               \
    const C epi3_ = LOAD(tw, fstride * m);                                                                    \
    for (k_ = 0; k_ < m; ++k_) {                                                                              \
      const C f0_ = IN(LOAD(f, k_), 3);                                                                       \
      const C s1_ = CMUL(IN(LOAD(f, k_ + m), 3), LOAD(tw, k_ * fstride));                                     \
      const C s2_ = CMUL(IN(LOAD(f, k_ + (2 * m)), 3), LOAD(tw, 2 * k_ * fstride));                           \
      const C s3_ = CADD(s1_, s2_);                                                                           \
      C s0_ = CSUB(s1_, s2_);                                                                                 \
      C f1_;                                                                                                  \
      C out_;                                                                                                 \
      f1_.r = SUB(f0_.r, HALF(s3_.r));                                                                        \
      f1_.i = SUB(f0_.i, HALF(s3_.i));                                                                        \
      s0_.r = SMUL(s0_.r, epi3_.i);                                                                           \
      s0_.i = SMUL(s0_.i, epi3_.i);                                                                           \
      STORE(f, k_, CADD(f0_, s3_));                                                                           \
      out_.r = ADD(f1_.r, s0_.i);                                                                             \
      out_.i = SUB(f1_.i, s0_.r);                                                                             \
      STORE(f, k_ + (2 * m), out_);                                                                           \
      out_.r = SUB(f1_.r, s0_.i);                                                                             \
      out_.i = ADD(f1_.i, s0_.r);                                                                             \
      STORE(f, k_ + m, out_);                                                                                 \
    }                                                                                                         \
  }                                                                                                           \
  static UTVM_SIGNAL_NOINLINE void BFLY4(T* f, const T* tw, int32_t fstride, int32_t m, int32_t inverse) {    \
    int32_t k_;                                                                                               \
    for (k_ = 0; k_ < m; ++k_) {                                                                              \
      const C f0_ = IN(LOAD(f, k_), 4);                                                                       \
      const C s0_ = CMUL(IN(LOAD(f, k_ + m), 4), LOAD(tw, k_ * fstride));                                     \
      const C s1_ = CMUL(IN(LOAD(f, k_ + (2 * m)), 4), LOAD(tw, 2 * k_ * fstride));                           \
      const C s2_ = CMUL(IN(LOAD(f, k_ + (3 * m)), 4), LOAD(tw, 3 * k_ * fstride));                           \
      const C s5_ = CSUB(f0_, s1_);                                                                           \
      const C f1_ = CADD(f0_, s1_);                                                                           \
      const C s3_ = CADD(s0_, s2_);                                                                           \
      const C s4_ = CSUB(s0_, s2_);                                                                           \
      C a_;                                                                                                   \
      C b_;                                                                                                   \
      STORE(f, k_ + (2 * m), CSUB(f1_, s3_));                                                                 \
      STORE(f, k_, CADD(f1_, s3_));                                                                           \
      if (inverse != 0) {                                                                                     \
        a_.r = SUB(s5_.r, s4_.i);                                                                             \
        a_.i = ADD(s5_.i, s4_.r);                                                                             \
        b_.r = ADD(s5_.r, s4_.i);                                                                             \
        b_.i = SUB(s5_.i, s4_.r);                                                                             \
      } else {                                                                                                \
        a_.r = ADD(s5_.r, s4_.i);                                                                             \
        a_.i = SUB(s5_.i, s4_.r);                                                                             \
        b_.r = SUB(s5_.r, s4_.i);                                                                             \
        b_.i = ADD(s5_.i, s4_.r);                                                                             \
      }                                                                                                       \
      STORE(f, k_ + m, a_);                                                                                   \
      STORE(f, k_ + (3 * m), b_);                                                                             \
    }                                                                                                         \
  }                                                                                                           \
  static UTVM_SIGNAL_NOINLINE void BFLY5(T* f, const T* tw, int32_t fstride, int32_t m) {                     \
    int32_t u_;                                                                                               \
    const C ya_ = LOAD(tw, fstride * m);                                                                      \
    const C yb_ = LOAD(tw, 2 * fstride * m);                                                                  \
    for (u_ = 0; u_ < m; ++u_) {                                                                              \
      C s_[13];                                                                                               \
      int32_t q_;                                                                                             \
      s_[0] = IN(LOAD(f, u_), 5);                                                                             \
      for (q_ = 1; q_ < 5; ++q_) {                                                                            \
        s_[q_] = CMUL(IN(LOAD(f, u_ + (q_ * m)), 5), LOAD(tw, q_ * u_ * fstride));                            \
      }                                                                                                       \
      s_[7] = CADD(s_[1], s_[4]);                                                                             \
      s_[10] = CSUB(s_[1], s_[4]);                                                                            \
      s_[8] = CADD(s_[2], s_[3]);                                                                             \
      s_[9] = CSUB(s_[2], s_[3]);                                                                             \
      STORE(f, u_, CADD(s_[0], CADD(s_[7], s_[8])));                                                          \
      s_[5].r = MAC2(s_[0].r, s_[7].r, ya_.r, s_[8].r, yb_.r);                                                \
      s_[5].i = MAC2(s_[0].i, s_[7].i, ya_.r, s_[8].i, yb_.r);                                                \
      s_[6].r = ADD(SMUL(s_[10].i, ya_.i), SMUL(s_[9].i, yb_.i));                                             \
      s_[6].i = SUB(NEG(SMUL(s_[10].r, ya_.i)), SMUL(s_[9].r, yb_.i));                                        \
      STORE(f, u_ + m, CSUB(s_[5], s_[6]));                                                                   \
      STORE(f, u_ + (4 * m), CADD(s_[5], s_[6]));                                                             \
      s_[11].r = MAC2(s_[0].r, s_[7].r, yb_.r, s_[8].r, ya_.r);                                               \
      s_[11].i = MAC2(s_[0].i, s_[7].i, yb_.r, s_[8].i, ya_.r);                                               \
      s_[12].r = ADD(NEG(SMUL(s_[10].i, yb_.i)), SMUL(s_[9].i, ya_.i));                                       \
      s_[12].i = SUB(SMUL(s_[10].r, yb_.i), SMUL(s_[9].r, ya_.i));                                            \
      STORE(f, u_ + (2 * m), CADD(s_[11], s_[12]));                                                           \
      STORE(f, u_ + (3 * m), CSUB(s_[11], s_[12]));                                                           \
    }                                                                                                         \
  }

/* The entry points of SignalRfft and SignalIrfft, every type (signal_rfft_<t>.h,
 * signal_irfft_<t>.h: one instance each, with the type's functions; the kernel table reads an
 * instance's parameter types through these definitions, kernel_table.py).
 *
 * SignalRfft (kiss_fftr): input [frames, input_length] T; output [frames, fft_length + 2] T (complex
 * bins 0..n/2); twiddles: 2 * (n/2) T; super_twiddles: 2 * (n/4) T; order: n/2 leaf positions ->
 * complex input index; scratch: fft_length T (the complex FFT's output). Each frame zero-padded to
 * fft_length in leaf order into scratch, the complex FFT of half the length (FFT(p, tw, scratch,
 * 0)), then the type's split of the complex bins into the real FFT's bins 0 .. n/2 (SPLIT(scratch,
 * super_tw, out, nc), a static inline function with its own loop over k: as a call per k GCC laid
 * the loop out differently, +85 instructions for audio_preprocessor_int8's int16 RFFT at M4 -Os). */
#define UTVM_SIGNAL_RFFT_KERNEL(NAME, T, FFT, SPLIT)                                                            \
  static void NAME(const utvm_signal_rfft_params* p, const T* tw, const T* super_tw, const uint16_t* order,     \
                   const T* input, T* output, T* scratch) {                                                     \
    const int32_t nc = p->fft_length / 2;                                                                       \
    int32_t fr;                                                                                                 \
    for (fr = 0; fr < p->frames; ++fr) {                                                                        \
      const T* x = &input[fr * p->input_length];                                                                \
      T* out = &output[fr * (p->fft_length + 2)];                                                               \
      int32_t k;                                                                                                \
      for (k = 0; k < nc; ++k) {                                                                                \
        const int32_t src = 2 * (int32_t)order[k];                                                              \
        scratch[2 * k] = (src < p->input_length) ? x[src] : (T)0;                                               \
        scratch[(2 * k) + 1] = ((src + 1) < p->input_length) ? x[src + 1] : (T)0;                               \
      }                                                                                                         \
      FFT(p, tw, scratch, 0);                                                                                   \
      SPLIT(scratch, super_tw, out, nc);                                                                        \
    }                                                                                                           \
  }

/* SignalIrfft (kiss_fftri): input [frames, input_length] T (complex bins; 0..n/2 are read); output
 * [frames, fft_length] T; twiddles, super_twiddles: the inverse ones (phase * -1); position: n/2
 * complex index -> leaf position (the inverse of rfft's order table). Per frame the type's fold of
 * the spectrum into the complex spectrum of half the length, written in leaf order into the output
 * frame (FOLD(x, super_tw, out, position, nc), with its own loop over k), then the inverse complex
 * FFT in place (IFFT(p, tw, out, 1): the stage loop, for float32 also the division by fft_length). */
#define UTVM_SIGNAL_IRFFT_KERNEL(NAME, T, FOLD, IFFT)                                                           \
  static void NAME(const utvm_signal_rfft_params* p, const T* tw, const T* super_tw, const uint16_t* position,  \
                   const T* input, T* output) {                                                                 \
    const int32_t nc = p->fft_length / 2;                                                                       \
    int32_t fr;                                                                                                 \
    for (fr = 0; fr < p->frames; ++fr) {                                                                        \
      const T* x = &input[fr * p->input_length];                                                                \
      T* out = &output[fr * p->fft_length];                                                                     \
      FOLD(x, super_tw, out, position, nc);                                                                     \
      IFFT(p, tw, out, 1);                                                                                      \
    }                                                                                                           \
  }

#endif /* UTVM_KERNELS_SIGNAL_FFT_PARAMS_H_ */
