/*
 * Size-report firmware: runs the demo model through its typed "c" interface only.
 * Links no registry, module or packed-call code.
 */
#include <stdint.h>

#include "../demo_model/tvmgen_demo.h"

static int8_t g_input_a[TVMGEN_DEMO_INPUT_A_SIZE];
static int8_t g_input_b[TVMGEN_DEMO_INPUT_B_SIZE];
volatile int8_t g_output[TVMGEN_DEMO_OUTPUT_SIZE];

int main(void) {
  struct tvmgen_demo_inputs inputs;
  struct tvmgen_demo_outputs outputs;
  inputs.input_a = g_input_a;
  inputs.input_b = g_input_b;
  outputs.output = (void*)(uintptr_t)g_output;
  return (int)tvmgen_demo_run(&inputs, &outputs);
}
