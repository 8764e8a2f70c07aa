// ptorewrite: forced in (-include) with --pto-isa-root only (see README.md).
//
// pto-isa's CPU-simulator configuration defines __CPU_SIM and none of the NPU compiler's
// macros; its stubs (pto/common/cpu_stub.hpp) implement set_flag, wait_flag, pipe_barrier,
// get_block_idx, get_block_num, get_subblockid and a few more. Kernels written for the NPU
// also call builtins the stubs do not have. They are declared here, before anything else, with
// the fixed-width types of the forced stdint.h only, so that the simulator's own later
// definitions of the same names (macros or inline functions) take precedence over nothing
// here. Declarations only: the front end gives these names their meaning.
#ifndef PTOREWRITE_NPU_BUILTINS_H
#define PTOREWRITE_NPU_BUILTINS_H

extern int64_t block_idx;
extern int64_t block_num;
void set_ffts_base_addr(uint64_t addr);
void ffts_cross_core_sync(int64_t pipe, uint64_t config);
void wait_flag_dev(int64_t flagId);
void set_intra_block(int64_t pipe, int64_t syncId);
void wait_intra_block(int64_t pipe, int64_t syncId);
void set_atomic_add();
void set_atomic_none();
void set_atomic_f32();
void set_atomic_f16();
void set_atomic_s32();
void set_atomic_bf16();
void set_mask_count();
uint64_t get_sys_cnt();

#endif // PTOREWRITE_NPU_BUILTINS_H
