/*
 * Unit-test harness implementation.
 */
#include "unittest.h"

#include <tvm/runtime/crt/crt.h>

uint32_t g_utvm_check_failures = 0U;

void utvm_run_cases(const char* suite, const utvm_test_case* cases, uint32_t count,
                    uint32_t* passed, uint32_t* failed) {
  uint32_t i;
  for (i = 0U; i < count; ++i) {
    g_utvm_check_failures = 0U;
    if (TVMInitializeRuntime() != 0) {
      ++g_utvm_check_failures;
      TVMLogf("  FAIL: TVMInitializeRuntime\n");
    }
    cases[i].fn();
    if (g_utvm_check_failures == 0U) {
      ++*passed;
    } else {
      ++*failed;
      TVMLogf("FAILED %s.%s (%u checks)\n", suite, cases[i].name,
              (unsigned int)g_utvm_check_failures);
    }
  }
}

void utvm_crt_run_all_tests(uint32_t* passed, uint32_t* failed) {
  utvm_suite_runtime_api(passed, failed); /* first: it checks the uninitialized runtime */
  utvm_suite_func_registry(passed, failed);
  utvm_suite_packed_demo(passed, failed);
  utvm_suite_stack_allocator(passed, failed);
  utvm_suite_backend_api(passed, failed);
  utvm_suite_platform(passed, failed);
  utvm_suite_rpc_server(passed, failed);
  utvm_suite_rpc_framing(passed, failed);
}
