/*
 * The cost of calling an operator through the packed API (what a graph executor does for every
 * operator) against a direct typed call (what our AOT entry point does): the CRT's demo model
 * (crt/tests/demo_model) called once between the instruction-counting markers, either with
 * tvmgen_demo_run(&in, &out) or with TVMFuncCall and three DLTensors (-DPACKED).
 * Built and counted by benchmarks/dispatch_cost.py.
 */
#include <stdint.h>
#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/crt/crt.h>
#include "tvmgen_demo.h"
void bench_marker_start(void) __attribute__((noinline, used));
void bench_marker_end(void) __attribute__((noinline, used));
void bench_marker_start(void) { __asm__ volatile("" ::: "memory"); }
void bench_marker_end(void) { __asm__ volatile("" ::: "memory"); }
static int8_t a[8], b[8], o[8];
static int64_t sa[4] = {1, 2, 2, 2}, sb[1] = {8}, so[2] = {1, 8};
static void Set(DLTensor* t, void* d, int64_t* s, int32_t n) {
  t->data = d; t->device.device_type = kDLCPU; t->device.device_id = 0; t->ndim = n;
  t->dtype.code = (uint8_t)kDLInt; t->dtype.bits = 8U; t->dtype.lanes = 1U; t->shape = s; t->strides = NULL; t->byte_offset = 0U;
}
/* Semihosting SYS_EXIT (reason ADP_Stopped_ApplicationExit: QEMU exits with 0). */
static void Exit(int code) {
  register uint32_t r0 __asm__("r0") = 0x18U;
  register uint32_t r1 __asm__("r1") = 0x20026U;
  (void)code;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
}
int main(void) {
  TVMFunctionHandle syslib = NULL, run = NULL; TVMValue rv; int rc = 0; int st = -1;
  DLTensor t[3]; TVMValue args[3];
  int codes[3] = {(int)kTVMDLTensorHandle, (int)kTVMDLTensorHandle, (int)kTVMDLTensorHandle};
  struct tvmgen_demo_inputs in; struct tvmgen_demo_outputs out;
  Set(&t[0], a, sa, 4); Set(&t[1], b, sb, 1); Set(&t[2], o, so, 2);
  args[0].v_handle = &t[0]; args[1].v_handle = &t[1]; args[2].v_handle = &t[2];
  in.input_a = a; in.input_b = b; out.output = o;
  if ((TVMInitializeRuntime() == 0) && (TVMFuncGetGlobal("runtime.SystemLib", &syslib) == 0) &&
      (TVMFuncCall(syslib, NULL, NULL, 0, &rv, &rc) == 0) &&
      (TVMModGetFunction(rv.v_handle, "tvmgen_demo_run", 0, &run) == 0)) {
    bench_marker_start();
#ifdef PACKED
    st = TVMFuncCall(run, args, codes, 3, &rv, &rc);
#else
    st = tvmgen_demo_run(&in, &out);
#endif
    bench_marker_end();
  }
  Exit(st);
  return st;
}
