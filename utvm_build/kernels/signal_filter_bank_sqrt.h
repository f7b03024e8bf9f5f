/* utvm-build kernels: TFLM SignalFilterBankSquareRoot (signal/src/filter_bank_square_root.cc,
 * square_root_32.cc, square_root_64.cc): bitwise integer square root, rounded up when the
 * remainder exceeds the root, then >> scale_bits. */
#ifndef UTVM_KERNELS_SIGNAL_FILTER_BANK_SQRT_H_
#define UTVM_KERNELS_SIGNAL_FILTER_BANK_SQRT_H_

#include "signal_common.h"

static uint32_t utvm_sigfb_sqrt32(uint32_t num_in) {
  uint32_t res = 0u;
  if (num_in != 0u) {
    uint32_t num = num_in;
    uint32_t max_bit = (32u - utvm_signal_msb32(num)) | 1u;
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
    uint32_t max_bit = (64u - utvm_signal_msb64(num)) | 1u;
    uint32_t top = 63u - max_bit;
    uint64_t bit = ((uint64_t)1u) << top;
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

#endif /* UTVM_KERNELS_SIGNAL_FILTER_BANK_SQRT_H_ */
