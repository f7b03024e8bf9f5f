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
 * Instruction mix (mix=on): every Thumb instruction is classified when it is translated
 * (classify(), classes below) and gets a second inline op adding 1 (LDM/STM/PUSH/POP: also the
 * number of registers) to its class's counter; every branch-like instruction (B, BL, BX, BLX,
 * CBZ/CBNZ, TBB/TBH, POP/LDM/LDR/MOV/ADD to PC) records its fall-through address, and a callback
 * on every executed TB tells taken (the next TB starts elsewhere) from not taken. The region's
 * mix is written as one more line, "mix <class> <count> ...". With marks=<file> (one hex address
 * per line, e.g. the entries of a model's operator functions, at most 512) the region is cut into
 * segments at every execution of a marked address; each mark's segments are summed and written as
 * "segment <address> entries <k> insns <n> <class> <count> ..." (address 0: from the start marker
 * to the first mark).
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

/* Instruction classes of the mix (the order of the counters and of the output). */
enum {
  C_ALU,      /* data processing, moves, compares, extends, bit fields, IT, hints */
  C_LD,       /* single load (LDR/LDRB/LDRH/LDRSB/LDRSH/LDREX, literal) */
  C_LD_NEXT,  /* single load or store right after a single load or store in the same TB */
  C_ST,       /* single store */
  C_LDRD,     /* LDRD */
  C_STRD,     /* STRD */
  C_LDM,      /* LDM / POP (instructions) */
  C_LDM_REGS, /* registers they load */
  C_STM,      /* STM / PUSH */
  C_STM_REGS,
  C_MUL,      /* MUL, MLA, MLS, SMMUL, SMMLA, SMMLS (32-bit results) */
  C_MULL,     /* SMULL, UMULL, SMLAL, UMLAL, UMAAL */
  C_DSP_MAC,  /* DSP multiplies: SMLAD/SMUAD/SMLSD, SMLAxy/SMULxy, SMLAWx, SMLALxy/SMLALD, USADA8 */
  C_DSP,      /* other DSP SIMD / saturating: SXTB16, SXTAB16, UXTB16, SADD16, QADD, SSAT16, SEL, PKH, USAT/SSAT */
  C_DIV,      /* SDIV, UDIV */
  C_BRANCH,   /* branch-like instructions that are not loads (their outcome: C_TAKEN) */
  C_FP,       /* floating point and coprocessor */
  C_OTHER,    /* SVC, BKPT, UDF, barriers, system */
  C_TAKEN,    /* branch-like instructions (also POP/LDM/LDR to PC) that were taken */
  C_NOT_TAKEN,
  N_CLASSES
};
static const char *const class_names[N_CLASSES] = {
    "alu", "ld", "ld_st_next", "st", "ldrd", "strd", "ldm", "ldm_regs", "stm", "stm_regs", "mul",
    "mull", "dsp_mac", "dsp", "div", "branch", "fp", "other", "taken", "not_taken"};

static bool mix;                   /* mix=on */
static uint64_t counts[N_CLASSES]; /* since QEMU started */
static uint64_t counts_begin[N_CLASSES];
static uint64_t mix_total[N_CLASSES];
static uint64_t pending_fallthrough; /* address after the last branch-like instruction, 0: none */

#define MAX_MARKS 512
static uint64_t marks[MAX_MARKS];
static size_t n_marks;
struct segment {
  uint64_t entries; /* how many times the segment was opened */
  uint64_t insns;
  uint64_t counts[N_CLASSES];
};
static struct segment segments[MAX_MARKS + 1]; /* per mark, summed; [n_marks]: from the start marker */
static bool any_segment;
static size_t seg_index;
static uint64_t seg_begin, seg_counts_begin[N_CLASSES];

static uint64_t executed;     /* all instructions executed so far (inline ops + marker callbacks) */
static uint64_t region_begin; /* `executed` at the open region's start marker */
static bool in_region;
static uint64_t total, pairs, start_hits, end_hits;

/* The marker and mark instructions get a callback instead of inline ops: their own instruction
 * (one `bx lr` or a function's first instruction) is counted here, in class `cls`. */
static int mark_class[MAX_MARKS];
static int start_class = C_BRANCH, end_class = C_BRANCH;

static void close_segment(void) {
  struct segment *sg = &segments[seg_index];
  sg->entries++;
  sg->insns += executed - seg_begin;
  for (int c = 0; c < N_CLASSES; c++) sg->counts[c] += counts[c] - seg_counts_begin[c];
  any_segment = true;
}

static void open_segment(size_t index) {
  seg_index = index;
  seg_begin = executed;
  memcpy(seg_counts_begin, counts, sizeof counts);
}

static void on_start(unsigned int vcpu_index, void *userdata) {
  (void)vcpu_index;
  (void)userdata;
  start_hits++;
  if (!in_region) {
    in_region = true;
    region_begin = executed;
    memcpy(counts_begin, counts, sizeof counts);
    open_segment(n_marks);
  }
  executed++; /* the marker's first instruction itself */
  counts[start_class]++;
}

static void on_end(unsigned int vcpu_index, void *userdata) {
  (void)vcpu_index;
  (void)userdata;
  end_hits++;
  if (in_region) {
    in_region = false;
    total += executed - region_begin;
    for (int c = 0; c < N_CLASSES; c++) mix_total[c] += counts[c] - counts_begin[c];
    if (n_marks > 0) close_segment();
    pairs++;
  }
  executed++;
  counts[end_class]++;
}

static void on_mark(unsigned int vcpu_index, void *userdata) {
  (void)vcpu_index;
  size_t i = (size_t)(uintptr_t)userdata;
  if (in_region) {
    close_segment();
    open_segment(i);
  }
  executed++;
  counts[mark_class[i]]++;
}

/* A branch-like instruction executed: remember where it falls through to. */
static void on_branch(unsigned int vcpu_index, void *userdata) {
  (void)vcpu_index;
  pending_fallthrough = (uint64_t)(uintptr_t)userdata;
}

/* Every executed TB: was the last branch-like instruction taken? */
static void on_tb(unsigned int vcpu_index, void *userdata) {
  (void)vcpu_index;
  if (pending_fallthrough != 0) {
    counts[((uint64_t)(uintptr_t)userdata == pending_fallthrough) ? C_NOT_TAKEN : C_TAKEN]++;
    pending_fallthrough = 0;
  }
}

static int popcount16(uint32_t v) {
  int n = 0;
  for (v &= 0xFFFFu; v != 0; v &= v - 1u) n++;
  return n;
}

/* Class of one Thumb instruction (hw1: first halfword, hw2: second of a 32-bit one); *regs: the
 * registers an LDM/STM/PUSH/POP transfers; *branch: whether it is branch-like (may change the PC). */
static int classify(uint32_t hw1, uint32_t hw2, bool wide, int *regs, bool *branch) {
  *regs = 0;
  *branch = false;
  if (!wide) {
    uint32_t top = hw1 >> 10;
    if ((hw1 >> 14) == 0) return C_ALU;                              /* shifts, add/sub, mov/cmp imm */
    if (top == 0x10) return ((hw1 & 0xFFC0u) == 0x4340u) ? C_MUL : C_ALU; /* data processing, MULS */
    if (top == 0x11) {                                               /* special data, BX, BLX */
      if ((hw1 & 0xFF00u) == 0x4700u) { *branch = true; return C_BRANCH; }
      if (((hw1 & 0xFC00u) == 0x4400u) && (((hw1 >> 8) & 3u) != 1u) && ((((hw1 >> 4) & 8u) | (hw1 & 7u)) == 15u)) {
        *branch = true; /* ADD/MOV PC, Rm */
        return C_BRANCH;
      }
      return C_ALU;
    }
    if ((hw1 >> 11) == 0x09) return C_LD;                            /* LDR literal */
    if ((hw1 >> 12) == 0x5) return (((hw1 >> 9) & 7u) <= 2u) ? C_ST : C_LD; /* register offset */
    if ((hw1 >> 13) == 0x3 || (hw1 >> 12) == 0x8 || (hw1 >> 12) == 0x9)
      return ((hw1 >> 11) & 1u) ? C_LD : C_ST;                       /* immediate offset, SP-relative */
    if ((hw1 >> 12) == 0xA) return C_ALU;                            /* ADR, ADD SP */
    if ((hw1 >> 12) == 0xB) {                                        /* miscellaneous */
      if ((hw1 & 0xFE00u) == 0xB400u) { *regs = popcount16(hw1 & 0x1FFu); return C_STM; } /* PUSH */
      if ((hw1 & 0xFE00u) == 0xBC00u) {                              /* POP */
        *regs = popcount16(hw1 & 0x1FFu);
        *branch = (hw1 & 0x100u) != 0;
        return C_LDM;
      }
      if ((hw1 & 0xF500u) == 0xB100u) { *branch = true; return C_BRANCH; } /* CBZ/CBNZ */
      if ((hw1 & 0xFF00u) == 0xBE00u) return C_OTHER;                /* BKPT */
      if ((hw1 & 0xFFE0u) == 0xB660u) return C_OTHER;                /* CPS */
      return C_ALU;                                                  /* IT, hints, extend, REV, SP adjust */
    }
    if ((hw1 >> 11) == 0x18) { *regs = popcount16(hw1 & 0xFFu); return C_STM; }
    if ((hw1 >> 11) == 0x19) { *regs = popcount16(hw1 & 0xFFu); return C_LDM; }
    if ((hw1 >> 12) == 0xD) {
      if (((hw1 >> 8) & 0xEu) == 0xEu) return C_OTHER;               /* UDF, SVC */
      *branch = true;
      return C_BRANCH;                                               /* B<cond> */
    }
    if ((hw1 >> 11) == 0x1C) { *branch = true; return C_BRANCH; }    /* B */
    return C_OTHER;
  }
  uint32_t op1 = (hw1 >> 11) & 3u;
  if (op1 == 1u) {
    if ((hw1 & 0xFE40u) == 0xE800u) {                                /* LDM/STM (incl. PUSH.W/POP.W) */
      *regs = popcount16(hw2);
      if (hw1 & 0x10u) {
        *branch = (hw2 & 0x8000u) != 0;
        return C_LDM;
      }
      return C_STM;
    }
    if ((hw1 & 0xFE40u) == 0xE840u) {                                /* dual, exclusive, table branch */
      if ((hw1 & 0xFFF0u) == 0xE8D0u && (hw2 & 0xFFE0u) == 0xF000u) { *branch = true; return C_BRANCH; }
      if ((hw1 & 0xFFF0u) == 0xE850u || (hw1 & 0xFFF0u) == 0xE8D0u) return C_LD; /* LDREX(B/H) */
      if ((hw1 & 0xFFF0u) == 0xE840u || (hw1 & 0xFFF0u) == 0xE8C0u) return C_ST; /* STREX(B/H) */
      return (hw1 & 0x10u) ? C_LDRD : C_STRD;
    }
    if ((hw1 & 0xFE00u) == 0xEA00u) {                                /* data processing, shifted register */
      if ((hw1 & 0xFFF0u) == 0xEAC0u) return C_DSP;                  /* PKHBT/PKHTB */
      return C_ALU;
    }
    return C_FP;                                                     /* coprocessor, FP */
  }
  if (op1 == 2u) {
    if (hw2 & 0x8000u) {                                             /* branches, misc control */
      if ((hw2 & 0x5000u) != 0u) { *branch = true; return C_BRANCH; } /* B.W, BL */
      if (((hw1 >> 7) & 7u) != 7u) { *branch = true; return C_BRANCH; } /* B<cond>.W */
      return C_OTHER;                                                /* MSR, MRS, hints, barriers */
    }
    if ((hw1 & 0xFB10u) == 0xF300u && (hw1 & 0x00E0u) != 0x0040u && (hw1 & 0x00E0u) != 0x00C0u &&
        ((hw1 >> 4) & 0xEu) != 0x4u)
      return C_DSP;                                                  /* SSAT/USAT (and SSAT16/USAT16) */
    return C_ALU;                                                    /* immediates, bit fields */
  }
  /* op1 == 3 */
  if ((hw1 & 0xFF10u) == 0xF800u) return C_ST;                       /* STR, STRB, STRH */
  if ((hw1 & 0xFE10u) == 0xF810u) {                                  /* loads (and PLD) */
    if (((hw2 >> 12) & 0xFu) == 0xFu && ((hw1 >> 5) & 3u) == 2u) *branch = true; /* LDR PC */
    return C_LD;
  }
  if ((hw1 & 0xFF00u) == 0xFA00u) {                                  /* data processing, register */
    if ((hw1 & 0x80u) == 0u && (hw2 & 0xF080u) == 0xF080u) {        /* extends */
      uint32_t op = (hw1 >> 4) & 7u;
      return (op == 2u || op == 3u) ? C_DSP : C_ALU;                 /* SXT(A)B16, UXT(A)B16 */
    }
    if ((hw1 & 0x80u) != 0u && (hw2 & 0xF000u) == 0xF000u) {
      if ((hw1 & 0xF0u) == 0xB0u && (hw2 & 0xF0u) == 0x80u) return C_ALU; /* CLZ */
      if ((hw1 & 0xF0u) == 0x90u && (hw2 & 0xF0u) >= 0x80u) return C_ALU; /* REV, RBIT */
      return C_DSP;                                                  /* parallel add/sub, QADD, SEL */
    }
    return C_ALU;                                                    /* register shifts */
  }
  if ((hw1 & 0xFF80u) == 0xFB00u) {                                  /* multiply, MAC, absolute difference */
    uint32_t op = (hw1 >> 4) & 7u;
    if (op == 0u || op == 5u || op == 6u) return C_MUL;
    return C_DSP_MAC;
  }
  if ((hw1 & 0xFF80u) == 0xFB80u) {                                  /* long multiply, divide */
    uint32_t op = (hw1 >> 4) & 7u;
    uint32_t op2 = (hw2 >> 4) & 0xFu;
    if ((op == 1u || op == 3u) && op2 == 0xFu) return C_DIV;
    if ((op == 4u && op2 != 0u) || op == 5u) return C_DSP_MAC;       /* SMLALxy, SMLALD, SMLSLD */
    return C_MULL;
  }
  return C_FP;                                                       /* coprocessor, FP */
}

/* Class of a translated instruction (and what the callbacks need), from its bytes. */
static int insn_class(struct qemu_plugin_insn *insn, bool prev_ls, int *regs, bool *branch) {
  const uint8_t *b = qemu_plugin_insn_data(insn);
  size_t size = qemu_plugin_insn_size(insn);
  uint32_t hw1 = (uint32_t)b[0] | ((uint32_t)b[1] << 8);
  uint32_t hw2 = (size >= 4) ? ((uint32_t)b[2] | ((uint32_t)b[3] << 8)) : 0u;
  int c = classify(hw1, hw2, size >= 4, regs, branch);
  if ((c == C_LD || c == C_ST) && prev_ls && !*branch) c = C_LD_NEXT;
  return c;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
  (void)id;
  size_t n = qemu_plugin_tb_n_insns(tb);
  bool prev_ls = false;
  if (mix) {
    qemu_plugin_register_vcpu_tb_exec_cb(tb, on_tb, QEMU_PLUGIN_CB_NO_REGS,
                                         (void *)(uintptr_t)qemu_plugin_tb_vaddr(tb));
  }
  for (size_t i = 0; i < n; i++) {
    struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
    uint64_t pc = qemu_plugin_insn_vaddr(insn);
    int cls = C_ALU, regs = 0;
    bool branch = false;
    if (mix) {
      cls = insn_class(insn, prev_ls, &regs, &branch);
      prev_ls = (cls == C_LD || cls == C_ST || cls == C_LD_NEXT) && !branch;
      if (branch) {
        uint64_t next = pc + qemu_plugin_insn_size(insn);
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_branch, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)next);
      }
      if (regs > 0) {
        qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
                                                   &counts[cls == C_LDM ? C_LDM_REGS : C_STM_REGS], (uint64_t)regs);
      }
    }
    size_t mark = n_marks;
    for (size_t k = 0; k < n_marks; k++) {
      if (marks[k] == pc) mark = k;
    }
    if (pc == start_addr) {
      start_class = cls;
      qemu_plugin_register_vcpu_insn_exec_cb(insn, on_start, QEMU_PLUGIN_CB_NO_REGS, NULL);
    } else if (pc == end_addr) {
      end_class = cls;
      qemu_plugin_register_vcpu_insn_exec_cb(insn, on_end, QEMU_PLUGIN_CB_NO_REGS, NULL);
    } else if (mark < n_marks) {
      mark_class[mark] = cls;
      qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)mark);
    } else {
      qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &executed, 1);
      if (mix) qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &counts[cls], 1);
    }
  }
}

static void write_counts(FILE *f, const uint64_t *c) {
  for (int k = 0; k < N_CLASSES; k++) fprintf(f, " %s %" PRIu64, class_names[k], c[k]);
  fputc('\n', f);
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
  if (f == NULL || fputs(line, f) == EOF) {
    fprintf(stderr, "insn_count: cannot write %s: %s\n", out_path, strerror(errno));
    return;
  }
  if (mix) {
    fputs("mix", f);
    write_counts(f, mix_total);
  }
  for (size_t i = 0; any_segment && i <= n_marks; i++) {
    fprintf(f, "segment 0x%" PRIx64 " entries %" PRIu64 " insns %" PRIu64, (i < n_marks) ? marks[i] : 0u,
            segments[i].entries, segments[i].insns);
    write_counts(f, segments[i].counts);
  }
  if (fclose(f) != 0) fprintf(stderr, "insn_count: cannot write %s: %s\n", out_path, strerror(errno));
}

static bool read_marks(const char *path) {
  FILE *f = fopen(path, "r");
  char line[64];
  if (f == NULL) {
    fprintf(stderr, "insn_count: cannot read marks=%s: %s\n", path, strerror(errno));
    return false;
  }
  while (fgets(line, sizeof line, f) != NULL) {
    char *end;
    unsigned long long v = strtoull(line, &end, 16);
    if (end == line) continue;
    if (n_marks == MAX_MARKS) {
      fprintf(stderr, "insn_count: more than %d marks in %s\n", MAX_MARKS, path);
      fclose(f);
      return false;
    }
    marks[n_marks++] = (uint64_t)v & ~(uint64_t)1;
  }
  fclose(f);
  return true;
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
    } else if (klen == 3 && strncmp(arg, "mix", 3) == 0) {
      if (!parse_bool("mix", value, &mix)) return -1;
    } else if (klen == 5 && strncmp(arg, "marks", 5) == 0) {
      if (!read_marks(value)) return -1;
    } else {
      fprintf(stderr, "insn_count: unknown option %s (expected start=, end=, out=, verbose=, mix=, marks=)\n",
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
