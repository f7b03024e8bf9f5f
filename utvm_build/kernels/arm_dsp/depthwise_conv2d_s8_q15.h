/* utvm-build kernels, DSP extension: DEPTHWISE_CONV_2D, int8 (TFLite DepthwiseConvPerChannel),
 * depth multiplier 1, channels a multiple of 4, any filter, strides, dilations and padding. A
 * kernel only the DSP targets have: the generator calls it instead of utvm_depthwise_conv2d_s8
 * when the target's kernel table provides it (ops/conv.py), with its data prepared at compile
 * time.
 *
 * Blocks of 4 channels. For a band of output rows, the input rows they read are copied once into
 * the operator's scratch memory as int16 lanes with the input offset added (per position two
 * words: channels 0 and 2, channels 1 and 3), the padding around the image as 0 -- exactly the
 * reference's sum, which skips those taps -- so every pixel, at the border or not, is the same
 * code: per tap one LDRD of input, one LDRD of weights and SMLABB / SMLATT per channel, from the
 * model's own bias.
 *
 * Data the generator prepares (ops/conv.py, depthwise_q15_call):
 * - w: per block of 4 channels, per tap (ky, kx), two int32 words: the weights of channels 0 and
 *   2 as int16 lanes, then those of channels 1 and 3 (2x the weight bytes);
 * - bias: the model's bias (zeros without one);
 * - rq: per channel (m, khi, sh) with rq_fast = 1 (every shift -e in -31..-2: dsp_s8.h's SMLAL form
 *   with init = 2^30 + 2^(30+e) = (khi = 2^(e-2), 2^30), sh = e - 1), else (m, 0, shift) for
 *   common.h's arithmetic;
 * - band_rows: output rows per band; scratch: the band, ((band_rows - 1) * stride_h + (filter_h - 1)
 *   * dilation_h + 1) * cols * 8 bytes with cols = (out_w - 1) * stride_w + (filter_w - 1) *
 *   dilation_w + 1, and 4 to align (kernel_table.py rule).
 */
#ifndef UTVM_KERNELS_ARM_DSP_DEPTHWISE_CONV2D_S8_Q15_H_
#define UTVM_KERNELS_ARM_DSP_DEPTHWISE_CONV2D_S8_Q15_H_

#if !defined(__ARM_FEATURE_DSP) || (__ARM_FEATURE_DSP != 1)
#error "utvm-build: these kernels were generated for a DSP target (--target cortex-m4/m7/m33/m55) but compiled without the DSP extension; use --target generic"
#endif

#include "conv.h"
#include "dsp_s8.h"

typedef struct {
  utvm_conv_geom g;
  int32_t input_offset;  /* -input zero point */
  int32_t output_offset; /* output zero point */
  int32_t act_min;
  int32_t act_max;
  int32_t band_rows; /* output rows per band, >= 1 */
  int32_t cols;      /* input columns a row of output pixels reads, the padding included */
  int32_t rq_mode;   /* UTVM_DSP_RQ_ANY / _FAST / _FULL (dsp_s8.h utvm_dsp_rq3) */
} utvm_dw_q15_params;

/* Input rows iy0 .. iy0 + rows - 1, columns ix0 .. ix0 + cols - 1 of channels c..c+3 into s as
 * q15 lane pairs (0 outside the image). */
static void utvm_dw_q15_fill(const utvm_dw_q15_params* p, const int8_t* in_b, int32_t c, int32_t iy0,
                             int32_t rows, int32_t ix0, int32_t* s) {
  const utvm_conv_geom* g = &p->g;
  const uint32_t off16 = (uint32_t)p->input_offset & 0xFFFFu;
  const int32_t offs = (int32_t)((off16 << 16u) | off16);
  const int32_t cols = p->cols;
  /* columns inside the image: [x0, x1) of 0..cols-1 */
  const int32_t x0 = utvm_min_i32(utvm_max_i32(-ix0, 0), cols);
  const int32_t x1 = utvm_max_i32(utvm_min_i32(g->in_w - ix0, cols), x0);
  int32_t* d = s;
  int32_t r;
  int32_t x;
  for (r = 0; r < rows; ++r) {
    const int32_t iy = iy0 + r;
    if ((iy < 0) || (iy >= g->in_h)) {
      for (x = 0; x < cols; ++x) {
        d[0] = 0;
        d[1] = 0;
        d = &d[2];
      }
    } else {
      const int8_t* src = &in_b[(((iy * g->in_w) + ix0 + x0) * g->in_c) + c];
      for (x = 0; x < x0; ++x) {
        d[0] = 0;
        d[1] = 0;
        d = &d[2];
      }
      for (x = x0; x < x1; ++x) {
        const int32_t v = utvm_dsp_ld4(src);
        d[0] = __sxtab16(offs, v);
        d[1] = utvm_dsp_odd_add(offs, v);
        d = &d[2];
        src = &src[g->in_c];
      }
      for (x = x1; x < cols; ++x) {
        d[0] = 0;
        d[1] = 0;
        d = &d[2];
      }
    }
  }
}

/* Requantizes 4 sums into y[0..3] (rq: the 4 channels' constants). */
static UTVM_DSP_INLINE void utvm_dw_q15_out4(int32_t a0, int32_t a1, int32_t a2, int32_t a3, const int32_t* rq,
                                             int8_t* y, int32_t mode, int32_t zp, int32_t lo, int32_t hi) {
  const int8_t v0 = utvm_dsp_rq3(a0, mode, rq[0], rq[1], rq[2], zp, lo, hi);
  const int8_t v1 = utvm_dsp_rq3(a1, mode, rq[3], rq[4], rq[5], zp, lo, hi);
  const int8_t v2 = utvm_dsp_rq3(a2, mode, rq[6], rq[7], rq[8], zp, lo, hi);
  const int8_t v3 = utvm_dsp_rq3(a3, mode, rq[9], rq[10], rq[11], zp, lo, hi);
  y[0] = v0;
  y[1] = v1;
  y[2] = v2;
  y[3] = v3;
}

/* Output rows 0 .. rows - 1 of the band s, channels c..c+3 (w, bias, rq: theirs), into y. */
static UTVM_DSP_INLINE void utvm_dw_q15_band(const utvm_dw_q15_params* p, const int32_t* s, const int32_t* w,
                                             const int32_t* bias, const int32_t* rq, int8_t* y, int32_t rows,
                                             int32_t mode) {
  const utvm_conv_geom* g = &p->g;
  const int32_t row_step = 2 * p->cols * g->dilation_h; /* words between filter rows */
  const int32_t col_step = 2 * g->dilation_w;           /* words between filter columns */
  const int32_t x_step = 2 * g->stride_w;
  const bool f3 = (g->filter_h == 3) && (g->filter_w == 3) && (g->dilation_w == 1);
  const int32_t n = rows * g->out_w;
  /* locals: for the compiler, the int8 stores could alias the parameters */
  const int32_t out_w = g->out_w;
  const int32_t out_c = g->out_c;
  const int32_t row_wrap = (2 * p->cols * g->stride_h) - (x_step * out_w);
  const int32_t zp = p->output_offset;
  const int32_t lo = p->act_min;
  const int32_t hi = p->act_max;
  const int32_t fh = g->filter_h;
  const int32_t fw = g->filter_w;
  const int32_t* px0 = s;
  int8_t* py = y;
  int32_t ox = 0;
  int32_t i;
  for (i = 0; i < n; ++i) {
    int32_t a0 = bias[0];
    int32_t a1 = bias[1];
    int32_t a2 = bias[2];
    int32_t a3 = bias[3];
    const int32_t* pr = px0;
    const int32_t* pw = w;
    int32_t ky;
    int32_t kx;
    if (f3) {
      for (ky = 0; ky < 3; ++ky) {
        int32_t xe = pr[0];
        int32_t xo = pr[1];
        int32_t we = pw[0];
        int32_t wo = pw[1];
        a0 = __smlabb(xe, we, a0);
        a2 = __smlatt(xe, we, a2);
        a1 = __smlabb(xo, wo, a1);
        a3 = __smlatt(xo, wo, a3);
        xe = pr[2];
        xo = pr[3];
        we = pw[2];
        wo = pw[3];
        a0 = __smlabb(xe, we, a0);
        a2 = __smlatt(xe, we, a2);
        a1 = __smlabb(xo, wo, a1);
        a3 = __smlatt(xo, wo, a3);
        xe = pr[4];
        xo = pr[5];
        we = pw[4];
        wo = pw[5];
        a0 = __smlabb(xe, we, a0);
        a2 = __smlatt(xe, we, a2);
        a1 = __smlabb(xo, wo, a1);
        a3 = __smlatt(xo, wo, a3);
        pr = &pr[row_step];
        pw = &pw[6];
      }
    } else {
      for (ky = 0; ky < fh; ++ky) {
        const int32_t* pc = pr;
        for (kx = 0; kx < fw; ++kx) {
          const int32_t xe = pc[0];
          const int32_t xo = pc[1];
          a0 = __smlabb(xe, pw[0], a0);
          a2 = __smlatt(xe, pw[0], a2);
          a1 = __smlabb(xo, pw[1], a1);
          a3 = __smlatt(xo, pw[1], a3);
          pc = &pc[col_step];
          pw = &pw[2];
        }
        pr = &pr[row_step];
      }
    }
    utvm_dw_q15_out4(a0, a1, a2, a3, rq, py, mode, zp, lo, hi);
    py = &py[out_c];
    px0 = &px0[x_step];
    ++ox;
    if (ox == out_w) {
      /* next output row: stride_h input rows down from the row's first pixel */
      ox = 0;
      px0 = &px0[row_wrap];
    }
  }
}

/* The loop specialized for each requantization mode (GCC: -O2 for the fast ones). */
static UTVM_DSP_HOT void utvm_dw_q15_band_full(const utvm_dw_q15_params* p, const int32_t* s,
    const int32_t* w, const int32_t* bias, const int32_t* rq, int8_t* y, int32_t rows) {
  utvm_dw_q15_band(p, s, w, bias, rq, y, rows, UTVM_DSP_RQ_FULL);
}

static UTVM_DSP_HOT void utvm_dw_q15_band_fast(const utvm_dw_q15_params* p, const int32_t* s,
    const int32_t* w, const int32_t* bias, const int32_t* rq, int8_t* y, int32_t rows) {
  utvm_dw_q15_band(p, s, w, bias, rq, y, rows, UTVM_DSP_RQ_FAST);
}

static UTVM_DSP_NOINLINE void utvm_dw_q15_band_any(const utvm_dw_q15_params* p, const int32_t* s,
    const int32_t* w, const int32_t* bias, const int32_t* rq, int8_t* y, int32_t rows) {
  utvm_dw_q15_band(p, s, w, bias, rq, y, rows, UTVM_DSP_RQ_ANY);
}

static void utvm_depthwise_conv2d_s8_q15(const utvm_dw_q15_params* p, const int8_t* in, const int32_t* w,
                                         const int32_t* bias, const int32_t* rq, void* scratch, int8_t* out) {
  const utvm_conv_geom* g = &p->g;
  const int32_t taps = g->filter_h * g->filter_w;
  uint8_t* const raw = (uint8_t*)scratch;
  int32_t* const s = (int32_t*)(void*)&raw[(4u - ((uintptr_t)raw & 3u)) & 3u];
  int32_t c;
  int32_t b;
  int32_t oy0;
  for (c = 0; c < g->out_c; c += 4) {
    const int32_t* wc = &w[(c / 4) * taps * 2];
    for (b = 0; b < g->batches; ++b) {
      const int8_t* in_b = &in[b * g->in_h * g->in_w * g->in_c];
      for (oy0 = 0; oy0 < g->out_h; oy0 += p->band_rows) {
        const int32_t rows = utvm_min_i32(p->band_rows, g->out_h - oy0);
        const int32_t rows_in = ((rows - 1) * g->stride_h) + ((g->filter_h - 1) * g->dilation_h) + 1;
        int8_t* y = &out[((((b * g->out_h) + oy0) * g->out_w) * g->out_c) + c];
        utvm_dw_q15_fill(p, in_b, c, (oy0 * g->stride_h) - g->pad_h, rows_in, -g->pad_w, s);
        if (p->rq_mode == UTVM_DSP_RQ_FULL) {
          utvm_dw_q15_band_full(p, s, wc, &bias[c], &rq[3 * c], y, rows);
        } else if (p->rq_mode == UTVM_DSP_RQ_FAST) {
          utvm_dw_q15_band_fast(p, s, wc, &bias[c], &rq[3 * c], y, rows);
        } else {
          utvm_dw_q15_band_any(p, s, wc, &bias[c], &rq[3 * c], y, rows);
        }
      }
    }
  }
}

#endif /* UTVM_KERNELS_ARM_DSP_DEPTHWISE_CONV2D_S8_Q15_H_ */
