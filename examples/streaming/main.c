/*
 * Streaming keyword spotting with a stateful model: one feature slice per call.
 *
 * The model (examples/models/streaming_kws, made by scripts/make_state_models.py) keeps ring
 * buffers of the last frames in resource variables; utvm-build puts them in the model's state
 * region (docs/state.md). Compiled with STATE user, each instance of the model is one state
 * region owned by the caller: here two microphones run interleaved, each with its own state, and
 * one workspace (the runs never overlap). tvmgen_kws_reset() starts an instance over.
 *
 * Features: a deterministic generator stands in for the audio front end (replace next_slice()
 * with yours: e.g. 10 log-mel bins of a 20 ms frame, quantized as TVMGEN_KWS_INPUT_0_SCALE /
 * _ZERO_POINT in tvmgen_kws_quant.h say).
 *
 * Prints one line per call: "mic <m> step <t>: <scores>" (int8 scores of the 4 classes).
 */
#include <stdint.h>
#include <string.h>

#include "tvmgen_kws.h"

#define SLICE_BYTES TVMGEN_KWS_INPUT_0_SIZE   /* int8 [1, 1, 10] */
#define SCORE_BYTES TVMGEN_KWS_OUTPUT_0_SIZE  /* int8 [1, 4] */
#define MICS 2
#define STEPS 12
#define STEPS_AFTER_RESET 4

#if defined(UTVM_SEMIHOSTING)
#include "semihosting.h"
static void write_text(const char* s) { semihosting_write0(s); }
#else
#include <stdio.h>
static void write_text(const char* s) { (void)fputs(s, stdout); }
#endif

/* One state region per model instance: TVMGEN_KWS_STATE_SIZE bytes, aligned to
 * TVMGEN_KWS_STATE_ALIGNMENT (uint64_t elements: aligned to 8, enough for any model). */
static uint64_t mic_state[MICS][(TVMGEN_KWS_STATE_SIZE + 7u) / 8u];
static uint32_t mic_seed[MICS];

/* Stand-in feature source: a linear congruential generator per microphone. */
static void next_slice(int mic, int8_t slice[SLICE_BYTES]) {
  for (int k = 0; k < SLICE_BYTES; ++k) {
    mic_seed[mic] = (mic_seed[mic] * 1103515245u + 12345u) & 0x7fffffffu;
    slice[k] = (int8_t)((int)((mic_seed[mic] >> 16) & 0xffu) - 128);
  }
}

/* A tiny line buffer: no printf needed on the target. */
static char line[128];
static unsigned line_len;

static void put_str(const char* s) {
  while (*s != '\0' && line_len < sizeof line - 1u) {
    line[line_len++] = *s++;
  }
}

static void put_int(int v) {
  char digits[12];
  int n = 0;
  unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
  do {
    digits[n++] = (char)('0' + u % 10u);
    u /= 10u;
  } while (u != 0u);
  if (v < 0) {
    digits[n++] = '-';
  }
  while (n > 0 && line_len < sizeof line - 1u) {
    line[line_len++] = digits[--n];
  }
}

/* One call of the model on microphone `mic`'s next slice; prints its scores. */
static int step(int mic, const char* what, int t) {
  int8_t slice[SLICE_BYTES];
  int8_t scores[SCORE_BYTES];
  struct tvmgen_kws_inputs inputs = {slice};
  struct tvmgen_kws_outputs outputs = {scores};
  next_slice(mic, slice);
  if (tvmgen_kws_run(&inputs, &outputs, mic_state[mic]) != 0) {
    write_text("tvmgen_kws_run failed\n");
    return -1;
  }
  put_str("mic ");
  put_int(mic);
  put_str(what);
  put_int(t);
  put_str(":");
  for (int k = 0; k < SCORE_BYTES; ++k) {
    put_str(" ");
    put_int(scores[k]);
  }
  put_str("\n");
  line[line_len] = '\0';
  write_text(line);
  line_len = 0;
  return 0;
}

int main(void) {
  for (int mic = 0; mic < MICS; ++mic) {
    mic_seed[mic] = (uint32_t)mic + 1u;
    if (tvmgen_kws_reset(mic_state[mic]) != 0) {   /* before an instance's first run */
      write_text("tvmgen_kws_reset failed\n");
      return 1;
    }
  }
  for (int t = 0; t < STEPS; ++t) {   /* the microphones' slices arrive interleaved */
    for (int mic = 0; mic < MICS; ++mic) {
      if (step(mic, " step ", t) != 0) {
        return 1;
      }
    }
  }
  /* A new utterance on microphone 0: its state starts over, microphone 1 goes on. */
  mic_seed[0] = 1u;
  (void)tvmgen_kws_reset(mic_state[0]);
  for (int t = 0; t < STEPS_AFTER_RESET; ++t) {
    if (step(0, " after reset step ", t) != 0) {
      return 1;
    }
  }
  return 0;
}
