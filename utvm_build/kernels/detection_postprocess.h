/* utvm-build kernels: the TFLite_Detection_PostProcess custom operator (TFLite's
 * kernels/detection_postprocess.cc): center-size box decoding against constant anchors, then
 * fast (max_classes_per_detection classes of each anchor's best) or regular (per-class)
 * non-max suppression. Box encodings and class scores are float32 or uint8 (dequantized as the
 * reference does); anchors come already dequantized (float32 constants, ops/detection.py).
 *
 * Orderings reproduce the reference exactly, ties included:
 * - the score-sorted candidates of one NMS pass: a stable sort by decreasing score (std::stable_sort;
 *   here a bottom-up merge sort, stable, so the same permutation);
 * - the top classes of an anchor (fast NMS): std::partial_sort as libstdc++ implements it (heap
 *   select, then sort_heap), step by step, or the first maximum (ArgMaxVector) for one class;
 * - the detections kept across classes (regular NMS): 2.14 merges each class's detections into
 *   the sorted ones (std::inplace_merge with `a.score >= b.score`: a new detection goes before
 *   an old one of equal score) and keeps the first max_detections.
 * Scratch (ops/detection.py sizes it, in this order): decoded boxes 4N floats, dequantized scores
 * N*CB floats (uint8 scores only), candidate scores N, kept scores N, kept indices N, order N,
 * merge buffer N, selected N, top classes N*K, one class row C, per-class candidates 3(N+M),
 * sorted values M (4-byte words), then N active flags (bytes).
 */
#ifndef UTVM_KERNELS_DETECTION_POSTPROCESS_H_
#define UTVM_KERNELS_DETECTION_POSTPROCESS_H_

#include <float.h>
#include <math.h>
#include <stdint.h>

typedef struct {
  int32_t num_boxes;        /* N: anchors */
  int32_t box_len;          /* length of one box encoding (>= 4) */
  int32_t num_classes;      /* C */
  int32_t classes_bg;       /* CB: classes in the score tensor (C or C + 1) */
  int32_t max_detections;   /* M */
  int32_t max_classes;      /* max_classes_per_detection */
  int32_t per_class;        /* detections_per_class (regular NMS) */
  int32_t regular;          /* use_regular_nms */
  int32_t box_u8;           /* box encodings are uint8 */
  int32_t score_u8;         /* scores are uint8 */
  int32_t box_zp;
  int32_t score_zp;
  float box_scale;
  float score_scale;
  float score_threshold;
  float iou_threshold;
  float y_scale;
  float x_scale;
  float h_scale;
  float w_scale;
} utvm_detection_params;

/* Work arrays carved from the scratch region. */
typedef struct {
  float* boxes;
  float* deq;
  float* cand;
  float* keep_scores;
  int32_t* keep_idx;
  int32_t* order;
  int32_t* merge;
  int32_t* selected;
  int32_t* top;
  int32_t* row;
  int32_t* after_idx;
  float* after_scores;
  int32_t* sorted_idx;
  float* sorted_vals;
  uint8_t* active;
} utvm_detection_work;

/* (float)d with IEEE round-to-nearest, without the undefined behaviour C gives a finite double
 * outside float's range: beyond FLT_MAX + half an ulp it is infinity, below that FLT_MAX. */
static float utvm_det_narrow(double d) {
  const double limit = (double)FLT_MAX + 10141204801825835211973625643008.0;   /* + 2^103 */
  float r;
  if (d >= limit) {
    r = HUGE_VALF;
  } else if (d <= -limit) {
    r = -HUGE_VALF;
  } else if (d > (double)FLT_MAX) {
    r = FLT_MAX;
  } else if (d < -(double)FLT_MAX) {
    r = -FLT_MAX;
  } else {
    r = (float)d;
  }
  return r;
}

/* libstdc++'s comparison of the reference's lambda: values[a] > values[b] */
static int utvm_det_greater(const float* v, int32_t a, int32_t b) { return (v[a] > v[b]) ? 1 : 0; }

/* std::__push_heap */
static void utvm_det_push_heap(int32_t* first, int32_t hole, int32_t top, int32_t value, const float* v) {
  int32_t h = hole;
  int32_t parent = (h - 1) / 2;
  while ((h > top) && (utvm_det_greater(v, first[parent], value) != 0)) {
    first[h] = first[parent];
    h = parent;
    parent = (h - 1) / 2;
  }
  first[h] = value;
}

/* std::__adjust_heap */
static void utvm_det_adjust_heap(int32_t* first, int32_t hole, int32_t len, int32_t value, const float* v) {
  const int32_t top = hole;
  int32_t h = hole;
  int32_t child = hole;
  while (child < ((len - 1) / 2)) {
    child = 2 * (child + 1);
    if (utvm_det_greater(v, first[child], first[child - 1]) != 0) {
      child--;
    }
    first[h] = first[child];
    h = child;
  }
  if (((len & 1) == 0) && (child == ((len - 2) / 2))) {
    child = 2 * (child + 1);
    first[h] = first[child - 1];
    h = child - 1;
  }
  utvm_det_push_heap(first, h, top, value, v);
}

/* std::__pop_heap(first, last, result) */
static void utvm_det_pop_heap(int32_t* first, int32_t len, int32_t* result, const float* v) {
  const int32_t value = *result;
  *result = first[0];
  utvm_det_adjust_heap(first, 0, len, value, v);
}

/* DecreasingPartialArgSort: indices[0..n) = 0..n-1 ordered so that the first k are the k largest
 * values in std::partial_sort's order (k == 1: the first maximum, as ArgMaxVector). */
static void utvm_det_partial_argsort(const float* v, int32_t n, int32_t k, int32_t* idx) {
  int32_t i;
  if (k == 1) {
    float best = v[0];
    int32_t at = 0;
    for (i = 1; i < n; ++i) {
      if (v[i] > best) {
        best = v[i];
        at = i;
      }
    }
    idx[0] = at;
  } else {
    for (i = 0; i < n; ++i) {
      idx[i] = i;
    }
    if (k >= 2) {   /* std::__make_heap over [0, k) */
      int32_t parent = (k - 2) / 2;
      for (;;) {
        utvm_det_adjust_heap(idx, parent, k, idx[parent], v);
        if (parent == 0) {
          break;
        }
        parent--;
      }
    }
    for (i = k; i < n; ++i) {   /* std::__heap_select */
      if (utvm_det_greater(v, idx[i], idx[0]) != 0) {
        utvm_det_pop_heap(idx, k, &idx[i], v);
      }
    }
    for (i = k; i > 1; --i) {   /* std::__sort_heap */
      utvm_det_pop_heap(idx, i - 1, &idx[i - 1], v);
    }
  }
}

/* DecreasingArgSort: a stable sort of 0..n-1 by decreasing v (bottom-up merge sort). */
static void utvm_det_stable_argsort(const float* v, int32_t n, int32_t* idx, int32_t* tmp) {
  int32_t i;
  int32_t width;
  int32_t* src = idx;
  int32_t* dst = tmp;
  for (i = 0; i < n; ++i) {
    idx[i] = i;
  }
  for (width = 1; width < n; width *= 2) {
    int32_t lo;
    int32_t* t;
    for (lo = 0; lo < n; lo += 2 * width) {
      /* min(lo + width, n), min(lo + 2 width, n) (with `if`: cppcheck drops the parentheses of
       * `c ? (a + b) : n` and reports rule 12.1) */
      int32_t mid = n;
      int32_t hi = n;
      if ((lo + width) < n) {
        mid = lo + width;
      }
      if ((lo + (2 * width)) < n) {
        hi = lo + (2 * width);
      }
      int32_t a = lo;
      int32_t b = mid;
      int32_t o = lo;
      while (o < hi) {
        /* take from the right run only if strictly greater: equal values keep their order */
        if ((b < hi) && ((a >= mid) || (v[src[b]] > v[src[a]]))) {
          dst[o] = src[b];
          b++;
        } else {
          dst[o] = src[a];
          a++;
        }
        o++;
      }
    }
    t = src;
    src = dst;
    dst = t;
  }
  if (src != idx) {
    for (i = 0; i < n; ++i) {
      idx[i] = src[i];
    }
  }
}

static float utvm_det_iou(const float* boxes, int32_t i, int32_t j) {
  const float* a = &boxes[4 * i];
  const float* b = &boxes[4 * j];
  const float area_a = (a[2] - a[0]) * (a[3] - a[1]);
  const float area_b = (b[2] - b[0]) * (b[3] - b[1]);
  float r = 0.0f;
  if ((area_a > 0.0f) && (area_b > 0.0f)) {
    const float ymin = (a[0] > b[0]) ? a[0] : b[0];
    const float xmin = (a[1] > b[1]) ? a[1] : b[1];
    const float ymax = (a[2] < b[2]) ? a[2] : b[2];
    const float xmax = (a[3] < b[3]) ? a[3] : b[3];
    const float h = ymax - ymin;
    const float wd = xmax - xmin;
    const float dy = (h > 0.0f) ? h : 0.0f;
    const float dx = (wd > 0.0f) ? wd : 0.0f;
    const float inter = dy * dx;
    r = inter / ((area_a + area_b) - inter);
  }
  return r;
}

/* NonMaxSuppressionSingleClassHelper: indices (anchors) of the selected boxes; returns their count. */
static int32_t utvm_det_nms_single(const utvm_detection_params* p, utvm_detection_work* w,
                                   const float* scores, int32_t max_out) {
  int32_t i;
  int32_t kept = 0;
  int32_t n_sel = 0;
  int32_t n_active;
  int32_t out_size;
  for (i = 0; i < p->num_boxes; ++i) {
    if (scores[i] >= p->score_threshold) {
      w->keep_scores[kept] = scores[i];
      w->keep_idx[kept] = i;
      kept++;
    }
  }
  utvm_det_stable_argsort(w->keep_scores, kept, w->order, w->merge);
  out_size = (kept < max_out) ? kept : max_out;
  for (i = 0; i < kept; ++i) {
    w->active[i] = 1u;
  }
  n_active = kept;
  for (i = 0; (i < kept) && (n_active != 0) && (n_sel < out_size); ++i) {
    if (w->active[i] == 1u) {
      int32_t j;
      const int32_t bi = w->keep_idx[w->order[i]];
      w->selected[n_sel] = bi;
      n_sel++;
      w->active[i] = 0u;
      n_active--;
      for (j = i + 1; j < kept; ++j) {
        if (w->active[j] == 1u) {
          if (utvm_det_iou(w->boxes, bi, w->keep_idx[w->order[j]]) > p->iou_threshold) {
            w->active[j] = 0u;
            n_active--;
          }
        }
      }
    }
  }
  return n_sel;
}

static void utvm_det_write(float* out_boxes, const float* boxes, int32_t slot, int32_t anchor) {
  int32_t c;
  for (c = 0; c < 4; ++c) {
    out_boxes[(4 * slot) + c] = boxes[(4 * anchor) + c];
  }
}

static void utvm_det_clear(float* out_boxes, float* out_classes, float* out_scores, int32_t slots) {
  int32_t i;
  for (i = 0; i < slots; ++i) {
    int32_t c;
    for (c = 0; c < 4; ++c) {
      out_boxes[(4 * i) + c] = 0.0f;
    }
    out_classes[i] = 0.0f;
    out_scores[i] = 0.0f;
  }
}

static void utvm_det_fast(const utvm_detection_params* p, utvm_detection_work* w, const float* scores,
                          float* out_boxes, float* out_classes, float* out_scores, float* out_num) {
  const int32_t off = p->classes_bg - p->num_classes;
  const int32_t k = (p->max_classes < p->num_classes) ? p->max_classes : p->num_classes;
  int32_t row;
  int32_t n_sel;
  int32_t s;
  for (row = 0; row < p->num_boxes; ++row) {
    const float* bs = &scores[(row * p->classes_bg) + off];
    int32_t c;
    utvm_det_partial_argsort(bs, p->num_classes, k, w->row);
    for (c = 0; c < k; ++c) {
      w->top[(row * k) + c] = w->row[c];
    }
    w->cand[row] = bs[w->row[0]];
  }
  n_sel = utvm_det_nms_single(p, w, w->cand, p->max_detections);
  for (s = 0; s < n_sel; ++s) {
    const int32_t a = w->selected[s];
    const float* bs = &scores[(a * p->classes_bg) + off];
    int32_t c;
    for (c = 0; c < k; ++c) {
      const int32_t slot = (p->max_classes * s) + c;
      const int32_t cls = w->top[(a * k) + c];
      utvm_det_write(out_boxes, w->boxes, slot, a);
      out_classes[slot] = (float)cls;
      out_scores[slot] = bs[cls];
    }
  }
  *out_num = (float)n_sel;
}

/* InplaceMergeBoxInfo: std::inplace_merge of the sorted detections [0, mid) with this class's
 * new ones [mid, end) (both by decreasing score) under the reference's comparator a.score >=
 * b.score: on equal scores the new detection comes first. Done backwards from a copy of the new
 * ones (keep_scores and sorted_idx are free between NMS passes). */
static void utvm_det_merge(utvm_detection_work* w, int32_t mid, int32_t end) {
  int32_t i = mid - 1;
  int32_t j = (end - mid) - 1;
  int32_t o = end - 1;
  int32_t t;
  for (t = 0; t < (end - mid); ++t) {
    w->sorted_idx[t] = w->after_idx[mid + t];
    w->keep_scores[t] = w->after_scores[mid + t];
  }
  while (j >= 0) {
    if ((i >= 0) && (w->keep_scores[j] >= w->after_scores[i])) {
      w->after_idx[o] = w->after_idx[i];
      w->after_scores[o] = w->after_scores[i];
      i--;
    } else {
      w->after_idx[o] = w->sorted_idx[j];
      w->after_scores[o] = w->keep_scores[j];
      j--;
    }
    o--;
  }
}

static void utvm_det_regular(const utvm_detection_params* p, utvm_detection_work* w, const float* scores,
                             float* out_boxes, float* out_classes, float* out_scores, float* out_num) {
  const int32_t off = p->classes_bg - p->num_classes;
  int32_t n_sorted = 0;
  int32_t col;
  int32_t o;
  for (col = 0; col < p->num_classes; ++col) {
    int32_t row;
    int32_t n_sel;
    int32_t s;
    int32_t out_index = n_sorted;
    int32_t n_sort;
    for (row = 0; row < p->num_boxes; ++row) {
      w->cand[row] = scores[(row * p->classes_bg) + col + off];
    }
    n_sel = utvm_det_nms_single(p, w, w->cand, p->per_class);
    for (s = 0; s < n_sel; ++s) {
      const int32_t a = w->selected[s];
      w->after_idx[out_index] = (a * p->classes_bg) + col + off;
      w->after_scores[out_index] = w->cand[a];
      out_index++;
    }
    utvm_det_merge(w, n_sorted, out_index);
    n_sort = (out_index < p->max_detections) ? out_index : p->max_detections;
    n_sorted = n_sort;
  }
  for (o = 0; o < p->max_detections; ++o) {
    if (o < n_sorted) {
      const int32_t anchor = w->after_idx[o] / p->classes_bg;
      const int32_t cls = (w->after_idx[o] - (anchor * p->classes_bg)) - off;
      utvm_det_write(out_boxes, w->boxes, o, anchor);
      out_classes[o] = (float)cls;
      out_scores[o] = w->after_scores[o];
    } else {
      int32_t c;
      for (c = 0; c < 4; ++c) {
        out_boxes[(4 * o) + c] = 0.0f;
      }
      out_classes[o] = 0.0f;
      out_scores[o] = 0.0f;
    }
  }
  *out_num = (float)n_sorted;
}

/* anchors: N x 4 floats (y, x, h, w), dequantized at compile time. */
static void utvm_detection_postprocess(const utvm_detection_params* p, const void* box_in, const void* score_in,
                                       const float* anchors, float* out_boxes, float* out_classes,
                                       float* out_scores, float* out_num, void* scratch) {
  const int32_t n = p->num_boxes;
  const int32_t m = p->max_detections;
  const int32_t k = (p->max_classes < p->num_classes) ? p->max_classes : p->num_classes;
  float* f = (float*)scratch;
  utvm_detection_work w;
  const float* scores;
  int32_t i;
  int32_t valid = 1;
  w.boxes = f;
  f = &f[4 * n];
  w.deq = f;
  if (p->score_u8 != 0) {
    f = &f[n * p->classes_bg];
  }
  w.cand = f;
  w.keep_scores = &f[n];
  w.keep_idx = (int32_t*)&f[2 * n];
  w.order = &w.keep_idx[n];
  w.merge = &w.order[n];
  w.selected = &w.merge[n];
  w.top = &w.selected[n];
  w.row = &w.top[n * k];
  w.after_idx = &w.row[p->num_classes];
  w.after_scores = (float*)&w.after_idx[n + m];
  w.sorted_idx = (int32_t*)&w.after_scores[n + m];
  w.sorted_vals = (float*)&w.sorted_idx[n + m];
  w.active = (uint8_t*)&w.sorted_vals[m];

  /* the reference leaves the output slots it does not fill as they were; here they are zero */
  utvm_det_clear(out_boxes, out_classes, out_scores, m * p->max_classes);
  for (i = 0; i < n; ++i) {   /* DecodeCenterSizeBoxes */
    float e[4];
    int32_t c;
    const float* a = &anchors[4 * i];
    double yc;
    double xc;
    double hh;
    double hw;
    for (c = 0; c < 4; ++c) {
      if (p->box_u8 != 0) {
        const uint8_t* q = (const uint8_t*)box_in;
        e[c] = ((float)q[(i * p->box_len) + c] - (float)p->box_zp) * p->box_scale;
      } else {
        e[c] = ((const float*)box_in)[(i * p->box_len) + c];
      }
    }
    yc = (((double)e[0] / (double)p->y_scale) * (double)a[2]) + (double)a[0];
    xc = (((double)e[1] / (double)p->x_scale) * (double)a[3]) + (double)a[1];
    hh = (0.5 * exp((double)e[2] / (double)p->h_scale)) * (double)a[2];
    hw = (0.5 * exp((double)e[3] / (double)p->w_scale)) * (double)a[3];
    w.boxes[4 * i] = utvm_det_narrow(yc) - utvm_det_narrow(hh);
    w.boxes[(4 * i) + 1] = utvm_det_narrow(xc) - utvm_det_narrow(hw);
    w.boxes[(4 * i) + 2] = utvm_det_narrow(yc) + utvm_det_narrow(hh);
    w.boxes[(4 * i) + 3] = utvm_det_narrow(xc) + utvm_det_narrow(hw);
    if ((w.boxes[4 * i] > w.boxes[(4 * i) + 2]) || (w.boxes[(4 * i) + 1] > w.boxes[(4 * i) + 3])) {
      valid = 0;   /* the reference's ValidateBoxes fails the invocation */
    }
  }
  if (p->score_u8 != 0) {   /* optimized_ops::Dequantize: double scale, float result */
    const uint8_t* q = (const uint8_t*)score_in;
    for (i = 0; i < (n * p->classes_bg); ++i) {
      const int32_t centred = (int32_t)q[i] - p->score_zp;
      w.deq[i] = (float)((double)p->score_scale * (double)centred);
    }
    scores = w.deq;
  } else {
    scores = (const float*)score_in;
  }
  if (valid == 0) {
    *out_num = 0.0f;   /* an invalid box (negative size): the reference fails; no detections */
  } else if (p->regular != 0) {
    utvm_det_regular(p, &w, scores, out_boxes, out_classes, out_scores, out_num);
  } else {
    utvm_det_fast(p, &w, scores, out_boxes, out_classes, out_scores, out_num);
  }
}

#endif /* UTVM_KERNELS_DETECTION_POSTPROCESS_H_ */
