/* utvm-build kernels: TFLM signal library, the filter bank and what follows it (uint32 / uint64
 * spectra): SignalFilterBank (signal/src/filter_bank.cc), SignalFilterBankSquareRoot
 * (filter_bank_square_root.cc, square_root_32/64.cc), SignalFilterBankSpectralSubtraction
 * (filter_bank_spectral_subtraction.cc; its noise estimate lives in the model's state region),
 * SignalPCAN (pcan_argc_fixed.cc) and SignalFilterBankLog (filter_bank_log.cc, log.cc).
 * Unsigned arithmetic wraps as the reference's does; the compiler checks every index and shift. */
#ifndef UTVM_KERNELS_SIGNAL_FILTERBANK_H_
#define UTVM_KERNELS_SIGNAL_FILTERBANK_H_

#include "common.h"

/* The number of significant bits of x (0 for 0). */
static inline uint32_t utvm_sigfb_msb32(uint32_t x) {
  uint32_t n = 0u;
  uint32_t v = x;
  while (v != 0u) {
    v >>= 1u;
    ++n;
  }
  return n;
}

static inline uint32_t utvm_sigfb_msb64(uint64_t x) {
  uint32_t n = 0u;
  uint64_t v = x;
  while (v != 0u) {
    v >>= 1u;
    ++n;
  }
  return n;
}

typedef struct {
  int32_t num_channels;
} utvm_signal_filter_bank_params;

/* weights, unweights: int16; starts, weight_starts, widths: num_channels + 1 int16 each (checked
 * at compile time). Channel 0 of the reference's work area is dropped, as its memcpy does. */
static void utvm_signal_filter_bank(const utvm_signal_filter_bank_params* p, const uint32_t* input,
                                    const int16_t* weights, const int16_t* unweights, const int16_t* starts,
                                    const int16_t* weight_starts, const int16_t* widths, uint64_t* output) {
  uint64_t weighted = 0u;
  uint64_t unweighted = 0u;
  int32_t i;
  for (i = 0; i <= p->num_channels; ++i) {
    const int32_t fs = (int32_t)starts[i];
    const int32_t ws = (int32_t)weight_starts[i];
    int32_t j;
    for (j = 0; j < (int32_t)widths[i]; ++j) {
      const uint64_t x = (uint64_t)input[fs + j];
      /* int16 weight converted to uint64 (modulo 2^64), as the reference's mixed product */
      weighted += ((uint64_t)(int64_t)weights[ws + j]) * x;
      unweighted += ((uint64_t)(int64_t)unweights[ws + j]) * x;
    }
    if (i > 0) {
      output[i - 1] = weighted;
    }
    weighted = unweighted;
    unweighted = 0u;
  }
}

static uint32_t utvm_sigfb_sqrt32(uint32_t num_in) {
  uint32_t res = 0u;
  if (num_in != 0u) {
    uint32_t num = num_in;
    uint32_t max_bit = (32u - utvm_sigfb_msb32(num)) | 1u;
    uint32_t bit = 1u << (31u - max_bit);
    uint32_t iterations = ((31u - max_bit) / 2u) + 1u;
    while (iterations > 0u) {
      if (num >= (res + bit)) {
        num -= res + bit;
        res = (res >> 1u) + bit;
      } else {
        res >>= 1u;
      }
      bit >>= 2u;
      --iterations;
    }
    if ((num > res) && (res != 0xFFFFu)) {
      ++res;
    }
  }
  return res & 0xFFFFu; /* the reference returns uint16_t */
}

static uint32_t utvm_sigfb_sqrt64(uint64_t num_in) {
  uint32_t out;
  if ((num_in >> 32u) == 0u) {
    out = utvm_sigfb_sqrt32((uint32_t)num_in);
  } else {
    uint64_t num = num_in;
    uint64_t res = 0u;
    uint32_t max_bit = (64u - utvm_sigfb_msb64(num)) | 1u;
    uint64_t bit = ((uint64_t)1u) << (63u - max_bit);
    uint32_t iterations = ((63u - max_bit) / 2u) + 1u;
    while (iterations > 0u) {
      if (num >= (res + bit)) {
        num -= res + bit;
        res = (res >> 1u) + bit;
      } else {
        res >>= 1u;
      }
      bit >>= 2u;
      --iterations;
    }
    if ((num > res) && (res != 0xFFFFFFFFu)) {
      ++res;
    }
    out = (uint32_t)res;
  }
  return out;
}

/* output[i] = sqrt(input[i]) >> scale_bits; a shift outside 0..31 (undefined in the reference, whose
 * scale comes from SignalFftAutoScale: 0..15) gives 0. */
static void utvm_signal_filter_bank_sqrt(int32_t size, const uint64_t* input, const int32_t* scale_bits,
                                         uint32_t* output) {
  const int32_t s = *scale_bits;
  int32_t i;
  for (i = 0; i < size; ++i) {
    const uint32_t r = utvm_sigfb_sqrt64(input[i]);
    output[i] = ((s >= 0) && (s < 32)) ? (r >> (uint32_t)s) : 0u;
  }
}

typedef struct {
  int32_t num_channels;
  uint32_t smoothing;
  uint32_t one_minus_smoothing;
  uint32_t min_signal_remaining;
  uint32_t alternate_smoothing;
  uint32_t alternate_one_minus_smoothing;
  uint32_t smoothing_bits;            /* 0..31 */
  uint32_t spectral_subtraction_bits; /* 0..63 */
  int32_t clamping;
} utvm_signal_spectral_subtraction_params;

/* noise_state: num_channels uint32 in the state region (0 after reset, as TFLM's Reset);
 * noise_out: a copy of it after the update (the operator's second output). */
static void utvm_signal_spectral_subtraction(const utvm_signal_spectral_subtraction_params* p,
                                             const uint32_t* input, uint32_t* output, uint32_t* noise_out,
                                             uint32_t* noise_state) {
  int32_t i;
  for (i = 0; i < p->num_channels; ++i) {
    const uint32_t even = ((((uint32_t)i) & 1u) == 0u) ? 1u : 0u;
    const uint32_t sm = (even != 0u) ? p->smoothing : p->alternate_smoothing;
    const uint32_t oms = (even != 0u) ? p->one_minus_smoothing : p->alternate_one_minus_smoothing;
    const uint32_t up = input[i] << p->smoothing_bits;
    uint32_t est;
    uint32_t floor_v;
    uint32_t sub;
    noise_state[i] = (uint32_t)((((uint64_t)up * sm) + ((uint64_t)noise_state[i] * oms)) >>
                                p->spectral_subtraction_bits);
    est = noise_state[i];
    if (est > up) {
      est = up;
      if (p->clamping != 0) {
        noise_state[i] = est;
      }
    }
    floor_v = (uint32_t)(((uint64_t)input[i] * p->min_signal_remaining) >> p->spectral_subtraction_bits);
    sub = (up - est) >> p->smoothing_bits;
    output[i] = (sub > floor_v) ? sub : floor_v;
  }
  for (i = 0; i < p->num_channels; ++i) {
    noise_out[i] = noise_state[i];
  }
}

typedef struct {
  int32_t size;
  uint32_t snr_shift; /* 0..63 */
} utvm_signal_pcan_params;

/* WideDynamicFunction: lut has at least 125 entries (checked at compile time). */
static int32_t utvm_sigfb_wdf(uint32_t x, const int16_t* lut) {
  int32_t out;
  if (x <= 2u) {
    out = (int32_t)lut[x];
  } else {
    const uint32_t interval = utvm_sigfb_msb32(x);
    const int16_t* l = &lut[(4u * interval) - 6u];
    const uint32_t fr = ((interval < 11u) ? (x << (11u - interval)) : (x >> (interval - 11u))) & 0x3FFu;
    const int32_t frac = (int32_t)fr;
    int32_t result = (((int32_t)l[2]) * frac) >> 5; /* arithmetic, as the reference */
    result += ((int32_t)l[1]) * 32; /* ((uint32_t)l[1] << 5) read back as int32: |l[1] * 32| < 2^21 */
    result *= frac;                  /* |result| < 2^21 * 2^10: no overflow */
    result = (result + 16384) >> 15;
    result += (int32_t)l[0];
    {
      /* narrowed to int16 as the reference's (int16_t) cast (two's complement) */
      const uint32_t u = ((uint32_t)result) & 0xFFFFu;
      out = (u >= 0x8000u) ? ((int32_t)u - 65536) : (int32_t)u;
    }
  }
  return out;
}

static uint32_t utvm_sigfb_shrink(uint32_t x) {
  /* kPcanSnrBits 12, kPcanOutputBits 6 */
  return (x < (2u << 12u)) ? ((x * x) >> 20u) : ((x >> 6u) - 64u);
}

static void utvm_signal_pcan(const utvm_signal_pcan_params* p, const uint32_t* input, const uint32_t* noise,
                             const int16_t* lut, uint32_t* output) {
  int32_t i;
  for (i = 0; i < p->size; ++i) {
    const uint32_t gain = (uint32_t)utvm_sigfb_wdf(noise[i], lut);
    const uint32_t snr = (uint32_t)(((uint64_t)input[i] * gain) >> p->snr_shift);
    output[i] = utvm_sigfb_shrink(snr);
  }
}

typedef struct {
  int32_t size;
  uint32_t correction_bits; /* 0..31 */
  uint32_t output_scale;
} utvm_signal_log_params;

static const uint16_t utvm_sigfb_log_lut[130] = {
    0,    224,  442,  654,  861,  1063, 1259, 1450, 1636, 1817, 1992, 2163, 2329, 2490, 2646, 2797, 2944,
    3087, 3224, 3358, 3487, 3611, 3732, 3848, 3960, 4068, 4172, 4272, 4368, 4460, 4549, 4633, 4714, 4791,
    4864, 4934, 5001, 5063, 5123, 5178, 5231, 5280, 5326, 5368, 5408, 5444, 5477, 5507, 5533, 5557, 5578,
    5595, 5610, 5622, 5631, 5637, 5640, 5641, 5638, 5633, 5626, 5615, 5602, 5586, 5568, 5547, 5524, 5498,
    5470, 5439, 5406, 5370, 5332, 5291, 5249, 5203, 5156, 5106, 5054, 5000, 4944, 4885, 4825, 4762, 4697,
    4630, 4561, 4490, 4416, 4341, 4264, 4184, 4103, 4020, 3935, 3848, 3759, 3668, 3575, 3481, 3384, 3286,
    3186, 3084, 2981, 2875, 2768, 2659, 2549, 2437, 2323, 2207, 2090, 1971, 1851, 1729, 1605, 1480, 1353,
    1224, 1094, 963,  830,  695,  559,  421,  282,  142,  0,    0};

/* log2(x) in Q16 (x > 1), as Log2FractionPart32 + Log32 */
static uint32_t utvm_sigfb_log32(uint32_t x, uint32_t out_scale) {
  const uint32_t integer = utvm_sigfb_msb32(x) - 1u;
  /* frac = x - 2^integer < 2^31 */
  int32_t frac = (int32_t)(x - (1u << integer));
  uint32_t base_seg;
  int32_t c0;
  int32_t c1;
  int32_t rel;
  uint32_t fraction;
  uint32_t log2v;
  uint32_t loge;
  if (integer < 16u) {
    frac = (int32_t)(((uint32_t)frac) << (16u - integer));
  } else {
    frac = frac >> (integer - 16u);
  }
  base_seg = ((uint32_t)frac) >> 9u;
  c0 = (int32_t)utvm_sigfb_log_lut[base_seg];
  c1 = (int32_t)utvm_sigfb_log_lut[base_seg + 1u];
  rel = ((c1 - c0) * (frac - (int32_t)(512u * base_seg))) >> 16;
  fraction = (uint32_t)(frac + c0 + rel);
  log2v = (integer << 16u) + fraction;
  loge = (uint32_t)((((uint64_t)45426u) * log2v + 32768u) >> 16u);
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

#endif /* UTVM_KERNELS_SIGNAL_FILTERBANK_H_ */
