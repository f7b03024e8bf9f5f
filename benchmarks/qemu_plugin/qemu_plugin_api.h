/*
 * Our own minimal declarations of the part of QEMU's TCG plugin C API that insn_count.c uses.
 *
 * Written for QEMU 7.2, whose loader accepts plugins declaring API versions 0 to 1
 * (QEMU_PLUGIN_MIN_VERSION 0, QEMU_PLUGIN_VERSION 1; QEMU 8.x still declares 1, version 2 (QEMU
 * 9.0) removed functions and replaced the inline-op calls). Only what we call is declared; the
 * functions are resolved at load time from the qemu-system-* binary, which exports them
 * (`strings /usr/bin/qemu-system-arm` lists every name used here).
 *
 * The layouts and values below must match QEMU's: the struct qemu_info_t prefix we read
 * (target name, version pair, system-emulation flag) and the enum values we pass
 * (QEMU_PLUGIN_CB_NO_REGS = 0, QEMU_PLUGIN_INLINE_ADD_U64 = 0). insn_count.c checks the version
 * pair it receives at install time. No glib: none of these functions takes or returns glib types.
 */
#ifndef INSN_COUNT_QEMU_PLUGIN_API_H
#define INSN_COUNT_QEMU_PLUGIN_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))

/* The API version this plugin is written against. QEMU refuses to load a plugin that does not
 * export `qemu_plugin_version` or whose value lies outside its supported range. */
#define QEMU_PLUGIN_VERSION 1
extern QEMU_PLUGIN_EXPORT int qemu_plugin_version;

typedef uint64_t qemu_plugin_id_t;

/* Passed to qemu_plugin_install(); valid only during that call. */
typedef struct qemu_info_t {
  const char *target_name; /* "arm" for qemu-system-arm */
  struct {
    int min; /* oldest plugin API version this QEMU loads */
    int cur; /* newest */
  } version;
  bool system_emulation;
  union {
    struct {
      int smp_vcpus;
      int max_vcpus;
    } system;
  };
} qemu_info_t;

/* Opaque handles, valid only inside the translation callback. */
struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_cb_flags {
  QEMU_PLUGIN_CB_NO_REGS = 0, /* the callback reads/writes no guest registers */
  QEMU_PLUGIN_CB_R_REGS = 1,
  QEMU_PLUGIN_CB_RW_REGS = 2,
};

enum qemu_plugin_op {
  QEMU_PLUGIN_INLINE_ADD_U64 = 0, /* *(uint64_t *)ptr += imm, emitted as TCG code */
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);

/* Implemented by the plugin; returns 0 on success. argv holds the "key=value" options. */
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                           char **argv);

/* Implemented by QEMU. */
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
                                              void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
                                                enum qemu_plugin_op op, void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
                                            qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);
/* Instruction bytes and size (API v1 since QEMU 4.2), a callback per executed TB: used by the
 * instruction-mix option only. */
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
                                          enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb,
                                    void *userdata);
void qemu_plugin_outs(const char *string);

#endif /* INSN_COUNT_QEMU_PLUGIN_API_H */
