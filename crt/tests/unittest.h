/*
 * Minimal unit-test harness for the CRT tests. Portable to a device: output goes through
 * TVMLogf, the host main (test_main_host.c) or the firmware prints the summary.
 */
#ifndef UTVM_CRT_TESTS_UNITTEST_H_
#define UTVM_CRT_TESTS_UNITTEST_H_

#include <stdint.h>

#include <tvm/runtime/crt/platform.h>

/*! \brief Number of failed checks in the running test case. */
extern uint32_t g_utvm_check_failures;

/*! \brief Record a failed check unless cond holds. */
#define UTVM_CHECK(cond)                                                    \
  do {                                                                      \
    if (!(cond)) {                                                          \
      ++g_utvm_check_failures;                                              \
      TVMLogf("  FAIL %s:%d: %s\n", __FILE__, (int)__LINE__, #cond);        \
    }                                                                       \
  } while (0)

/*! \brief One test case. */
typedef void (*utvm_test_fn)(void);

/*! \brief A named test case. */
typedef struct {
  const char* name;
  utvm_test_fn fn;
} utvm_test_case;

/*! \brief Run cases (TVMInitializeRuntime before each); adds to *passed and *failed. */
void utvm_run_cases(const char* suite, const utvm_test_case* cases, uint32_t count,
                    uint32_t* passed, uint32_t* failed);

/*! \brief One entry of a case table: the case NAME runs TestNAME. */
#define UTVM_CASE(NAME) {#NAME, &Test##NAME},

/*!
 * \brief Run the cases a file lists as LIST(X) = X(Name) X(Name) ... (X-macro: each name is written
 *        once, the table and its count come from here).
 */
#define UTVM_RUN_CASES(SUITE, LIST, passed, failed)                                          \
  do {                                                                                      \
    static const utvm_test_case cases_[] = {LIST(UTVM_CASE)};                               \
    utvm_run_cases((SUITE), cases_, (uint32_t)(sizeof(cases_) / sizeof(cases_[0])), (passed), \
                   (failed));                                                               \
  } while (0)

/*! \brief Define utvm_suite_SUITE running the cases of LIST (see UTVM_RUN_CASES). */
#define UTVM_SUITE(SUITE, LIST)                                      \
  void utvm_suite_##SUITE(uint32_t* passed, uint32_t* failed) {      \
    UTVM_RUN_CASES(#SUITE, LIST, passed, failed);                    \
  }

/* Suites (each file exports one). */
void utvm_suite_func_registry(uint32_t* passed, uint32_t* failed);
void utvm_suite_runtime_api(uint32_t* passed, uint32_t* failed);
void utvm_suite_packed_demo(uint32_t* passed, uint32_t* failed);
void utvm_suite_stack_allocator(uint32_t* passed, uint32_t* failed);
void utvm_suite_backend_api(uint32_t* passed, uint32_t* failed);
void utvm_suite_platform(uint32_t* passed, uint32_t* failed);
void utvm_suite_rpc_server(uint32_t* passed, uint32_t* failed);
void utvm_suite_rpc_framing(uint32_t* passed, uint32_t* failed);

/*! \brief Run every suite. The acceptance-test entry point on a device. */
void utvm_crt_run_all_tests(uint32_t* passed, uint32_t* failed);

#endif /* UTVM_CRT_TESTS_UNITTEST_H_ */
