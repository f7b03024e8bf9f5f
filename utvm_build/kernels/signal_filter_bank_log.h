/* utvm-build kernels: TFLM SignalFilterBankLog (signal/src/filter_bank_log.cc, log.cc):
 * fixed-point natural log (Q16 log2 from a 128-segment table, times ln 2), scaled, saturated to 32767. */
#ifndef UTVM_KERNELS_SIGNAL_FILTER_BANK_LOG_H_
#define UTVM_KERNELS_SIGNAL_FILTER_BANK_LOG_H_

#include "signal_common.h"

typedef struct {
  int32_t size;
  uint32_t correction_bits; /* 0..31 */
  uint32_t output_scale;
} utvm_signal_log_params;

/* log2(x) in Q16 (x > 1), as Log2FractionPart32 + Log32 */
static uint32_t utvm_sigfb_log32(uint32_t x, uint32_t out_scale) {
  static const uint16_t lut[130] = {
      0,    224,  442,  654,  861,  1063, 1259, 1450, 1636, 1817, 1992, 2163, 2329, 2490, 2646, 2797, 2944,
      3087, 3224, 3358, 3487, 3611, 3732, 3848, 3960, 4068, 4172, 4272, 4368, 4460, 4549, 4633, 4714, 4791,
      4864, 4934, 5001, 5063, 5123, 5178, 5231, 5280, 5326, 5368, 5408, 5444, 5477, 5507, 5533, 5557, 5578,
      5595, 5610, 5622, 5631, 5637, 5640, 5641, 5638, 5633, 5626, 5615, 5602, 5586, 5568, 5547, 5524, 5498,
      5470, 5439, 5406, 5370, 5332, 5291, 5249, 5203, 5156, 5106, 5054, 5000, 4944, 4885, 4825, 4762, 4697,
      4630, 4561, 4490, 4416, 4341, 4264, 4184, 4103, 4020, 3935, 3848, 3759, 3668, 3575, 3481, 3384, 3286,
      3186, 3084, 2981, 2875, 2768, 2659, 2549, 2437, 2323, 2207, 2090, 1971, 1851, 1729, 1605, 1480, 1353,
      1224, 1094, 963,  830,  695,  559,  421,  282,  142,  0,    0};
  const uint32_t integer = utvm_signal_msb32(x) - 1u;
  /* frac = x - 2^integer < 2^31 */
  const uint32_t frac_u = x - (1u << integer);
  int32_t frac = (int32_t)frac_u;
  uint32_t base_seg;
  int32_t c0;
  int32_t c1;
  int32_t rel;
  uint32_t fraction;
  uint32_t log2v;
  uint32_t loge;
  if (integer < 16u) {
    const uint32_t up = frac_u << (16u - integer);
    frac = (int32_t)up;
  } else {
    frac = utvm_signal_asr(frac, integer - 16u);
  }
  base_seg = ((uint32_t)frac) >> 9u;
  c0 = (int32_t)lut[base_seg];
  c1 = (int32_t)lut[base_seg + 1u];
  rel = utvm_signal_asr((c1 - c0) * (frac - ((int32_t)base_seg * 512)), 16u);
  rel += frac + c0;
  fraction = (uint32_t)rel;
  log2v = (integer << 16u) + fraction;
  {
    const uint64_t wide = ((((uint64_t)45426u) * log2v) + 32768u) >> 16u;
    loge = (uint32_t)wide;
  }
  return ((out_scale * loge) + 32768u) >> 16u;
}

static void utvm_signal_filter_bank_log(const utvm_signal_log_params* p, const uint32_t* input, int16_t* output) {
  int32_t i;
  for (i = 0; i < p->size; ++i) {
    const uint32_t scaled = input[i] << p->correction_bits;
    int16_t o = 0;
    if (scaled > 1u) {
      const uint32_t v = utvm_sigfb_log32(scaled, p->output_scale);
      o = (int16_t)((v < 32767u) ? v : 32767u);
    }
    output[i] = o;
  }
}

#endif /* UTVM_KERNELS_SIGNAL_FILTER_BANK_LOG_H_ */
