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

#endif /* UTVM_KERNELS_SIGNAL_FFT_PARAMS_H_ */
