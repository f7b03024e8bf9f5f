/*
 * Keyword spotting from raw audio, both stages compiled by utvm-build (TFLM's micro_speech).
 *
 * Stage 1, the audio front end (tvmgen_frontend): one call per 30 ms window (480 samples at
 * 16 kHz), windows 20 ms (320 samples) apart, as TFLM's micro_speech example frames audio. It
 * keeps a noise estimate across calls (its state region), so the windows of one utterance go
 * through one instance in order, and tvmgen_frontend_reset() starts the next utterance.
 * Stage 2, the keyword model (tvmgen_micro_speech): the 49 feature rows of 1 s, [49][40] int8 as
 * one [1, 1960] input, give 4 int8 scores (silence, unknown, yes, no).
 *
 * Prints "features <t>: <40 values>" per window, then "scores: <4 values>" and "label: <name>".
 * Host build: stdout (and an optional audio file). Cortex-M build (UTVM_SEMIHOSTING, no C
 * library beyond memcpy/memset): the built-in audio, output through semihosting.
 */
#include <stdint.h>

#include "tvmgen_frontend.h"
#include "tvmgen_micro_speech.h"

#if defined(UTVM_SEMIHOSTING)
#include "semihosting.h"
static void write_text(const char* s) { semihosting_write0(s); }
#else
#include <stdio.h>
static void write_text(const char* s) { (void)fputs(s, stdout); }
#endif

#define SAMPLES 16000   /* 1 s at 16 kHz */
#define WINDOW 480      /* 30 ms */
#define STRIDE 320      /* 20 ms */
#define FRAMES 49       /* (16000 - 480) / 320 + 1 */
#define FEATURES 40

static int16_t audio[SAMPLES];
static int8_t features[FRAMES][FEATURES];   /* the keyword model's input, row by row */
static const char* const labels[4] = {"silence", "unknown", "yes", "no"};

/* Stand-in audio: 200 ms of silence, then a triangle tone sweeping up (about 240 Hz to 1.2 kHz)
 * plus LCG noise. Integer-only, so every platform makes the same samples. */
static void synthesize(void) {
  uint32_t seed = 1u;
  uint32_t phase = 0u;
  for (uint32_t n = 0u; n < SAMPLES; ++n) {
    seed = seed * 1103515245u + 12345u;
    int32_t noise = (int32_t)((seed >> 16) & 0x7ffu) - 1024;
    phase = (phase + 1000u + n / 4u) & 0xffffu;
    int32_t tri = phase < 32768u ? (int32_t)phase - 16384 : 49151 - (int32_t)phase;
    audio[n] = (int16_t)(n < 3200u ? 0 : tri + noise);
  }
}

#if !defined(UTVM_SEMIHOSTING)
/* 16000 int16 samples, little-endian (the host's order), from a file. */
static int load(const char* path) {
  FILE* f = fopen(path, "rb");
  size_t got = 0u;
  if (f != NULL) {
    got = fread(audio, sizeof audio[0], SAMPLES, f);
    (void)fclose(f);
  }
  return got == SAMPLES ? 0 : -1;
}
#endif

/* A line buffer and integer formatting: no printf needed on the target. */
static char line[256];
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

static void flush_line(void) {
  line[line_len] = '\0';
  write_text(line);
  line_len = 0u;
}

int main(int argc, char** argv) {
#if defined(UTVM_SEMIHOSTING)
  (void)argc;
  (void)argv;
  synthesize();
#else
  if (argc > 1) {
    if (load(argv[1]) != 0) {
      fprintf(stderr, "%s: expected %d int16 samples\n", argv[1], SAMPLES);
      return 1;
    }
  } else {
    synthesize();
  }
#endif
  tvmgen_frontend_reset();   /* a new utterance: the noise estimate starts over */
  for (int t = 0; t < FRAMES; ++t) {
    struct tvmgen_frontend_inputs in = {&audio[t * STRIDE]};
    struct tvmgen_frontend_outputs out = {features[t]};
    if (tvmgen_frontend_run(&in, &out) != 0) {
      write_text("tvmgen_frontend_run failed\n");
      return 1;
    }
    put_str("features ");
    put_int(t);
    put_str(":");
    for (int k = 0; k < FEATURES; ++k) {
      put_str(" ");
      put_int(features[t][k]);
    }
    put_str("\n");
    flush_line();
  }
  int8_t scores[4];
  struct tvmgen_micro_speech_inputs kin = {&features[0][0]};
  struct tvmgen_micro_speech_outputs kout = {scores};
  if (tvmgen_micro_speech_run(&kin, &kout) != 0) {
    write_text("tvmgen_micro_speech_run failed\n");
    return 1;
  }
  int best = 0;
  put_str("scores:");
  for (int k = 0; k < 4; ++k) {
    put_str(" ");
    put_int(scores[k]);
    best = scores[k] > scores[best] ? k : best;
  }
  put_str("\nlabel: ");
  put_str(labels[best]);
  put_str("\n");
  flush_line();
  return 0;
}
