/* utvm-build kernels: FULLY_CONNECTED, float32. */
#ifndef UTVM_KERNELS_FULLY_CONNECTED_F32_H_
#define UTVM_KERNELS_FULLY_CONNECTED_F32_H_

#include "fully_connected.h"

typedef struct {
  int32_t batches;
  int32_t accum_depth;
  int32_t out_depth;
  float act_min;
  float act_max;
} utvm_fc_f32_params;

static inline float utvm_fully_connected_f32_mac(float total, float w, float x) {
  return total + (x * w);
}

/* bias may be NULL. */
static inline float utvm_fully_connected_f32_finish(const utvm_fc_f32_params* p, const float* bias,
                                                    const int32_t* mult, const int32_t* shift, int32_t c,
                                                    float total) {
  (void)mult;
  (void)shift;
  return utvm_clamp_f32(total + ((bias != NULL) ? bias[c] : 0.0f), p->act_min, p->act_max);
}

static void utvm_fully_connected_f32(const utvm_fc_f32_params* p, const float* in, const float* w,
                                     const float* bias, float* out) {
  UTVM_FC_WALK(p, in, w, bias, (const int32_t*)NULL, (const int32_t*)NULL, out, float, float, float, 0.0f,
               utvm_fully_connected_f32_mac, utvm_fully_connected_f32_finish);
}

#endif /* UTVM_KERNELS_FULLY_CONNECTED_F32_H_ */
