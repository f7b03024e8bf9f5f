/* utvm-build kernels: one-element-at-a-time walk over a utvm_ew_shape (elementwise.h), for the
 * binary operators whose per-element work dominates the index arithmetic (comparisons, MAXIMUM,
 * DIV, PRELU, ...). o1 / o2 are the element offsets of both inputs for output element i. */
#ifndef UTVM_KERNELS_EW_WALK_H_
#define UTVM_KERNELS_EW_WALK_H_

#include "elementwise.h"

typedef struct {
  utvm_ew_iter it;
  int32_t col;
  int32_t o1;
  int32_t o2;
} utvm_ew_walk;

static inline void utvm_ew_walk_init(utvm_ew_walk* w) {
  utvm_ew_iter_init(&w->it);
  w->col = 0;
  w->o1 = 0;
  w->o2 = 0;
}

static inline void utvm_ew_walk_step(const utvm_ew_shape* sh, utvm_ew_walk* w) {
  if (sh->broadcast == 0) {
    w->o1 += 1;
    w->o2 += 1;
  } else {
    w->col += 1;
    if (w->col < sh->dims[UTVM_EW_MAX_DIMS - 1]) {
      w->o1 += sh->stride1[UTVM_EW_MAX_DIMS - 1];
      w->o2 += sh->stride2[UTVM_EW_MAX_DIMS - 1];
    } else {
      w->col = 0;
      utvm_ew_iter_next(sh, &w->it);
      w->o1 = w->it.o1;
      w->o2 = w->it.o2;
    }
  }
}

/* The loop of the one-element-at-a-time kernels, written once: out[i] = VALUE for every output
 * element i, VALUE an expression of the two input elements that broadcast to it, in1[UTVM_EW_I1]
 * and in2[UTVM_EW_I2] (their offsets in the walk); in the kernels VALUE is a call of the kernel's
 * element operation, a static inline function. The expansion is the loop the kernels used to spell
 * out, so nothing changes at run time (the same machine code at -Os and -O2, M4 and M55). */
#define UTVM_EW_I1 w_.o1
#define UTVM_EW_I2 w_.o2
#define UTVM_EW_EACH(sh, out, VALUE)                                    \
  do {                                                                  \
    utvm_ew_walk w_;                                                    \
    int32_t i_;                                                         \
    utvm_ew_walk_init(&w_);                                             \
    for (i_ = 0; i_ < (sh)->size; ++i_) {                               \
      (out)[i_] = (VALUE);                                              \
      utvm_ew_walk_step((sh), &w_);                                     \
    }                                                                   \
  } while (0)

#endif /* UTVM_KERNELS_EW_WALK_H_ */
