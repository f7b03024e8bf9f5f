/*
 * Fake generated model "demo" for the CRT tests (stands in for utvm-build output).
 * Typed ("c" interface) API exactly as the code generator emits it.
 *   input_a: int8 [1, 2, 2, 2]   input_b: int8 [8]   output: int8 [1, 8]
 *   output[i] = saturate_int8(input_a[i] + input_b[i])
 */
#ifndef TVMGEN_DEMO_H_
#define TVMGEN_DEMO_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TVMGEN_DEMO_WORKSPACE_SIZE 0
#define TVMGEN_DEMO_INPUT_A_SIZE 8
#define TVMGEN_DEMO_INPUT_B_SIZE 8
#define TVMGEN_DEMO_OUTPUT_SIZE 8

struct tvmgen_demo_inputs {
  void* input_a;
  void* input_b;
};

struct tvmgen_demo_outputs {
  void* output;
};

int32_t tvmgen_demo_run(struct tvmgen_demo_inputs* inputs, struct tvmgen_demo_outputs* outputs);

#ifdef __cplusplus
}
#endif

#endif /* TVMGEN_DEMO_H_ */
