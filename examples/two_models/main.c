/*
 * Two models in one firmware: a wake word model, then a command model.
 *
 * The wake word model (examples/models/streaming_kws, a stateful streaming keyword model) runs on
 * every feature slice. When it detects the wake word, the command model (examples/models/digits,
 * standing in for a command classifier) runs once on the next "utterance", then the wake word
 * model goes on. The two never run at the same time, so the group declares them EXCLUSIVE: they
 * share one workspace pool, sized for the larger of them (tvmgen_voice.h); the wake word model
 * keeps its own state between runs, which the command model never touches. Kernels both models
 * call (the int8 softmax here) are compiled once for the group.
 *
 * Built with -DTWO_MODELS_SEPARATE=ON, each model is compiled alone instead (utvm_add_model):
 * the printed scores are the same, only the RAM line differs.
 *
 * Prints one line per run: "wake <t>: <4 scores>" and "command after <t>: <10 scores> -> <digit>".
 */
#include <stdint.h>

#include "tvmgen_cmd.h"
#include "tvmgen_wake.h"
#include "samples.h"   /* examples/models/digits: four 8x8 digits, quantized */
#if defined(TWO_MODELS_GROUP)
#include "tvmgen_voice.h"
#endif

#define SLICE_BYTES TVMGEN_WAKE_INPUT_0_SIZE   /* int8 [1, 1, 10] */
#define WAKE_SCORES TVMGEN_WAKE_OUTPUT_0_SIZE  /* int8 [1, 4] */
#define CMD_SCORES TVMGEN_CMD_OUTPUT_0_SIZE    /* int8 [1, 10] */
#define WAKE_CLASS 1                           /* the class that counts as the wake word */
#define STEPS 24

#if defined(UTVM_SEMIHOSTING)
#include "semihosting.h"
static void write_text(const char* s) { semihosting_write0(s); }
#else
#include <stdio.h>
static void write_text(const char* s) { (void)fputs(s, stdout); }
#endif

static char line[160];
static unsigned line_len;

static void put_str(const char* s) {
  while (*s != '\0' && line_len < sizeof line - 1u) {
    line[line_len++] = *s++;
  }
}

static void put_int(long v) {
  char digits[24];
  int n = 0;
  unsigned long u = v < 0 ? 0ul - (unsigned long)v : (unsigned long)v;
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

static void end_line(void) {
  put_str("\n");
  line[line_len] = '\0';
  write_text(line);
  line_len = 0;
}

/* Stand-in feature source (replace with an audio front end): a linear congruential generator. */
static uint32_t seed = 7u;
static void next_slice(int8_t slice[SLICE_BYTES]) {
  for (int k = 0; k < SLICE_BYTES; ++k) {
    seed = (seed * 1103515245u + 12345u) & 0x7fffffffu;
    slice[k] = (int8_t)((int)((seed >> 16) & 0xffu) - 128);
  }
}

static int argmax(const int8_t* v, int n) {
  int best = 0;
  for (int k = 1; k < n; ++k) {
    if (v[k] > v[best]) {
      best = k;
    }
  }
  return best;
}

static int command(int t, int sample) {
  int8_t scores[CMD_SCORES];
  struct tvmgen_cmd_inputs in = {(void*)utvm_digit_samples[sample]};
  struct tvmgen_cmd_outputs out = {scores};
  if (tvmgen_cmd_run(&in, &out) != 0) {
    write_text("tvmgen_cmd_run failed\n");
    return -1;
  }
  put_str("command after ");
  put_int(t);
  put_str(":");
  for (int k = 0; k < CMD_SCORES; ++k) {
    put_str(" ");
    put_int(scores[k]);
  }
  put_str(" -> ");
  put_int(argmax(scores, CMD_SCORES));
  end_line();
  return 0;
}

int main(void) {
  int commands = 0;
#if defined(TWO_MODELS_GROUP)
  put_str("group voice: workspace ");
  put_int(TVMGEN_VOICE_WORKSPACE_SIZE);
  put_str(" B (each model alone: ");
  put_int(TVMGEN_VOICE_SEPARATE_WORKSPACE_SIZE);
  put_str(" B), state ");
  put_int(TVMGEN_VOICE_STATE_SIZE);
  put_str(" B, RAM ");
  put_int(TVMGEN_VOICE_RAM_SIZE);
  put_str(" B");
  end_line();
#endif
  for (int t = 0; t < STEPS; ++t) {
    int8_t slice[SLICE_BYTES];
    int8_t scores[WAKE_SCORES];
    struct tvmgen_wake_inputs in = {slice};
    struct tvmgen_wake_outputs out = {scores};
    next_slice(slice);
    if (tvmgen_wake_run(&in, &out) != 0) {
      write_text("tvmgen_wake_run failed\n");
      return 1;
    }
    put_str("wake ");
    put_int(t);
    put_str(":");
    for (int k = 0; k < WAKE_SCORES; ++k) {
      put_str(" ");
      put_int(scores[k]);
    }
    end_line();
    if (argmax(scores, WAKE_SCORES) == WAKE_CLASS) {   /* wake word: listen for a command */
      if (command(t, commands % UTVM_DIGIT_NUM_SAMPLES) != 0) {
        return 1;
      }
      ++commands;
    }
  }
  return commands > 0 ? 0 : 2;   /* 2: the wake word never came (a changed model?) */
}
