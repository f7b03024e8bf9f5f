#include <stdbool.h>
#include <stdint.h>
#include "add_s8_lut.h"
void f(const utvm_add_q_params* p, const utvm_ew_shape* sh, const int32_t* u, const int8_t* a, const int8_t* b, int8_t* o);
void f(const utvm_add_q_params* p, const utvm_ew_shape* sh, const int32_t* u, const int8_t* a, const int8_t* b, int8_t* o) { utvm_add_s8_lin(p, u, 5, 4, a, b, o); utvm_add_s8_lin_bc(p, sh, u, 5, a, b, o); utvm_add_s8_lut(p, u, u, 4, a, b, o); }
