/*
 * insn_count: a QEMU TCG plugin counting the guest instructions executed between two markers.
 *
 *   qemu-system-arm -M mps2-an386 -nographic -semihosting -kernel fw.elf \
 *       -plugin ./libinsn_count.so,start=0x1a4,end=0x1a8[,out=result.txt][,verbose=on]
 *
 * start/end: addresses (hex, "0x" optional) of the first instruction of the two marker functions,
 * bench_marker_start() and bench_marker_end(). Bit 0 (the Thumb bit that `nm` shows in function
 * symbol values) is ignored. out: file for the result line, written when QEMU exits; without it
 * the line goes to qemu_plugin_outs() (QEMU's log, stderr by default).
 *
 * Result, one line:
 *   insn_count <N> start_hits <k> end_hits <k> pairs <p>
 *
 * Semantics. Let C(x) be the number of guest instructions executed before instruction
 * execution x. For each pair of executions (S, E), S the first instruction of the start marker and
 * E the next execution of the first instruction of the end marker, the region count is
 * C(E) - C(S): every instruction executed from the start marker's entry (included) up to the end
 * marker's entry (excluded). That includes the start marker's own body (its `bx lr`) and whatever
 * leads from its return to the end marker (e.g. the `bl bench_marker_end`), and excludes the end
 * marker's body. With both calls adjacent, `bl bench_marker_start; bl bench_marker_end`, and the
 * markers compiled to a lone `bx lr`, an empty region counts 2 (`bx lr` + `bl`).
 * N is the sum over all pairs, p the number of pairs; start_hits/end_hits count every execution
 * of each marker's entry. A valid single measurement has start_hits == end_hits == pairs == 1. A
 * start hit inside an open region is counted in start_hits but does not restart the region; an
 * end hit outside a region only counts in end_hits.
 *
 * "Executed" means what TCG executes: every instruction is counted once when it starts, including
 * conditional instructions whose condition fails (inside IT blocks), instructions that raise an
 * exception (BKPT for semihosting, SVC, a faulting load) and the instructions of any exception
 * handler that runs inside the region.
 *
 * Method: every instruction gets an inline "add 1 to a 64-bit counter" op, emitted by TCG in front
 * of the instruction's own code, so the count is exact even when a translation block is left early
 * (an exception in the middle of a block): TB-level counting would charge the whole block. The
 * two marker entry instructions get a callback instead of the inline op: it reads the counter
 * before counting its own instruction, so the result does not depend on the order in which QEMU
 * runs inline ops and callbacks for one instruction. The counter is a plain global: right for the
 * single-vCPU Cortex-M boards, not for SMP guests.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu_plugin_api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static uint64_t start_addr, end_addr;
static const char *out_path; /* argv stays valid for the plugin's lifetime */

static uint64_t executed;     /* all instructions executed so far (inline ops + marker callbacks) */
static uint64_t region_begin; /* `executed` at the open region's start marker */
static bool in_region;
static uint64_t total, pairs, start_hits, end_hits;

static void on_start(unsigned int vcpu_index, void *userdata) {
  (void)vcpu_index;
  (void)userdata;
  start_hits++;
  if (!in_region) {
    in_region = true;
    region_begin = executed;
  }
  executed++; /* the marker's first instruction itself */
}

static void on_end(unsigned int vcpu_index, void *userdata) {
  (void)vcpu_index;
  (void)userdata;
  end_hits++;
  if (in_region) {
    in_region = false;
    total += executed - region_begin;
    pairs++;
  }
  executed++;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
  (void)id;
  size_t n = qemu_plugin_tb_n_insns(tb);
  for (size_t i = 0; i < n; i++) {
    struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
    uint64_t pc = qemu_plugin_insn_vaddr(insn);
    if (pc == start_addr) {
      qemu_plugin_register_vcpu_insn_exec_cb(insn, on_start, QEMU_PLUGIN_CB_NO_REGS, NULL);
    } else if (pc == end_addr) {
      qemu_plugin_register_vcpu_insn_exec_cb(insn, on_end, QEMU_PLUGIN_CB_NO_REGS, NULL);
    } else {
      qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &executed, 1);
    }
  }
}

static void on_qemu_exit(qemu_plugin_id_t id, void *userdata) {
  (void)id;
  (void)userdata;
  char line[160];
  snprintf(line, sizeof line,
           "insn_count %" PRIu64 " start_hits %" PRIu64 " end_hits %" PRIu64 " pairs %" PRIu64 "\n",
           total, start_hits, end_hits, pairs);
  if (out_path == NULL) {
    qemu_plugin_outs(line);
    return;
  }
  FILE *f = fopen(out_path, "w");
  if (f == NULL || fputs(line, f) == EOF || fclose(f) != 0) {
    fprintf(stderr, "insn_count: cannot write %s: %s\n", out_path, strerror(errno));
  }
}

static bool parse_addr(const char *key, const char *value, uint64_t *addr) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(value, &end, 16); /* accepts an optional 0x prefix */
  if (*value == '\0' || *value == '-' || *end != '\0' || errno != 0) {
    fprintf(stderr, "insn_count: %s=%s is not a hex address\n", key, value);
    return false;
  }
  *addr = (uint64_t)v & ~(uint64_t)1; /* Thumb bit */
  return true;
}

static bool parse_bool(const char *key, const char *value, bool *flag) {
  static const char *const yes[] = {"on", "yes", "true", "1"};
  static const char *const no[] = {"off", "no", "false", "0"};
  for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
    if (strcmp(value, yes[i]) == 0) {
      *flag = true;
      return true;
    }
    if (strcmp(value, no[i]) == 0) {
      *flag = false;
      return true;
    }
  }
  fprintf(stderr, "insn_count: %s=%s is not on/off\n", key, value);
  return false;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                           char **argv) {
  bool have_start = false, have_end = false, verbose = false;
  for (int i = 0; i < argc; i++) {
    const char *arg = argv[i];
    const char *eq = strchr(arg, '=');
    if (eq == NULL) {
      fprintf(stderr, "insn_count: option %s: expected key=value\n", arg);
      return -1;
    }
    size_t klen = (size_t)(eq - arg);
    const char *value = eq + 1;
    if (klen == 5 && strncmp(arg, "start", 5) == 0) {
      if (!parse_addr("start", value, &start_addr)) return -1;
      have_start = true;
    } else if (klen == 3 && strncmp(arg, "end", 3) == 0) {
      if (!parse_addr("end", value, &end_addr)) return -1;
      have_end = true;
    } else if (klen == 3 && strncmp(arg, "out", 3) == 0) {
      out_path = value;
    } else if (klen == 7 && strncmp(arg, "verbose", 7) == 0) {
      if (!parse_bool("verbose", value, &verbose)) return -1;
    } else {
      fprintf(stderr, "insn_count: unknown option %s (expected start=, end=, out=, verbose=)\n",
              arg);
      return -1;
    }
  }
  if (!have_start || !have_end) {
    fprintf(stderr, "insn_count: start=<hex address> and end=<hex address> are required\n");
    return -1;
  }
  if (start_addr == end_addr) {
    fprintf(stderr, "insn_count: start and end are the same address 0x%" PRIx64 "\n", start_addr);
    return -1;
  }
  if (info->version.min > QEMU_PLUGIN_VERSION || info->version.cur < QEMU_PLUGIN_VERSION) {
    fprintf(stderr, "insn_count: QEMU supports plugin API %d..%d, this plugin needs %d\n",
            info->version.min, info->version.cur, QEMU_PLUGIN_VERSION);
    return -1;
  }
  if (verbose) {
    fprintf(stderr,
            "insn_count: target %s, %s emulation, plugin API %d..%d (ours %d), start 0x%" PRIx64
            ", end 0x%" PRIx64 ", out %s\n",
            info->target_name, info->system_emulation ? "system" : "user", info->version.min,
            info->version.cur, QEMU_PLUGIN_VERSION, start_addr, end_addr,
            out_path != NULL ? out_path : "(qemu log)");
  }
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
  qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
  return 0;
}
