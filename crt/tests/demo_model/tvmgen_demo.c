/*
 * Fake generated model "demo": the typed entry point (no runtime dependency).
 */
#include <stddef.h>

#include "tvmgen_demo.h"

int32_t tvmgen_demo_run(struct tvmgen_demo_inputs* inputs, struct tvmgen_demo_outputs* outputs) {
  int32_t status = -1;
  if ((inputs != NULL) && (outputs != NULL) && (inputs->input_a != NULL) &&
      (inputs->input_b != NULL) && (outputs->output != NULL)) {
    const int8_t* a = (const int8_t*)inputs->input_a;
    const int8_t* b = (const int8_t*)inputs->input_b;
    int8_t* out = (int8_t*)outputs->output;
    int32_t i;
    for (i = 0; i < 8; ++i) {
      int32_t sum = (int32_t)a[i] + (int32_t)b[i];
      if (sum > 127) {
        sum = 127;
      }
      if (sum < -128) {
        sum = -128;
      }
      out[i] = (int8_t)sum;
    }
    status = 0;
  }
  return status;
}
