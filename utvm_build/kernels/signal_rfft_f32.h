/* utvm-build kernels: TFLM SignalRfft, float32 (signal/src/rfft_float.cc: KISS FFT v130 in float,
 * kiss_fftr over a complex FFT of half the length, signal_kissfft_f32.h).
 * Scratch: fft_length floats (the complex FFT's output). */
#ifndef UTVM_KERNELS_SIGNAL_RFFT_F32_H_
#define UTVM_KERNELS_SIGNAL_RFFT_F32_H_

#include "signal_kissfft_f32.h"

/* input [frames, input_length] float; output [frames, fft_length + 2] float (complex bins 0..n/2).
 * twiddles: 2 * (n/2) floats; super_twiddles: 2 * (n/4) floats; order: n/2 leaf positions ->
 * complex input index. */
static void utvm_signal_rfft_f32(const utvm_signal_rfft_params* p, const float* twiddles,
                                 const float* super_twiddles, const uint16_t* order, const float* input,
                                 float* output, float* scratch) {
  const int32_t nc = p->fft_length / 2;
  int32_t fr;
  for (fr = 0; fr < p->frames; ++fr) {
    const float* x = &input[fr * p->input_length];
    float* out = &output[fr * (p->fft_length + 2)];
    utvm_sfftf_c tdc;
    int32_t k;
    for (k = 0; k < nc; ++k) {   /* the frame, zero-padded to fft_length, in leaf order */
      const int32_t src = 2 * (int32_t)order[k];
      scratch[2 * k] = (src < p->input_length) ? x[src] : 0.0f;
      scratch[(2 * k) + 1] = ((src + 1) < p->input_length) ? x[src + 1] : 0.0f;
    }
    utvm_sfftf_stages(p, twiddles, scratch, 0);
    tdc = utvm_sfftf_load(scratch, 0);
    out[0] = tdc.r + tdc.i;
    out[1] = 0.0f;
    out[2 * nc] = tdc.r - tdc.i;
    out[(2 * nc) + 1] = 0.0f;
    for (k = 1; k <= (nc / 2); ++k) {
      const utvm_sfftf_c fpk = utvm_sfftf_load(scratch, k);
      utvm_sfftf_c fpnk = utvm_sfftf_load(scratch, nc - k);
      utvm_sfftf_c f1k;
      utvm_sfftf_c t;
      utvm_sfftf_c v;
      float s;
      fpnk.i = -fpnk.i;
      f1k = utvm_sfftf_cadd(fpk, fpnk);
      t = utvm_sfftf_cmul(utvm_sfftf_csub(fpk, fpnk), utvm_sfftf_load(super_twiddles, k - 1));
      s = f1k.r + t.r;
      v.r = s * 0.5f;
      s = f1k.i + t.i;
      v.i = s * 0.5f;
      utvm_sfftf_store(out, k, v);
      s = f1k.r - t.r;
      v.r = s * 0.5f;
      s = t.i - f1k.i;
      v.i = s * 0.5f;
      utvm_sfftf_store(out, nc - k, v);
    }
  }
}

#endif /* UTVM_KERNELS_SIGNAL_RFFT_F32_H_ */
