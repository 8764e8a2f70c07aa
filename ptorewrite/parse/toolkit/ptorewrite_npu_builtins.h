// ptorewrite: forced in (-include) with --pto-isa-root only (see README.md).
//
// pto-isa's CPU-simulator configuration defines __CPU_SIM and none of the NPU compiler's
// macros; its stubs (pto/common/cpu_stub.hpp) implement set_flag, wait_flag, pipe_barrier,
// get_block_idx, get_block_num, get_subblockid and a few more. Kernels written for the NPU
// also call builtins the stubs do not have. They are declared here, before anything else, with
// the fixed-width types of the forced stdint.h only; a name the simulator defines as well (as a
// macro or an inline function of the same signature) still means what the simulator says.
// Declarations only: the front end gives these names their meaning.
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
uint64_t get_icache_prl_st();

// Low-level data-movement and vector intrinsics a few kernels call directly, with any
// arguments (their real signatures take address-space pointers the simulator does not have).
template <typename... Args> void copy_gm_to_ubuf(Args...);
template <typename... Args> void copy_ubuf_to_gm(Args...);
template <typename... Args> void copy_gm_to_cbuf(Args...);
template <typename... Args> void copy_cbuf_to_gm(Args...);
template <typename... Args> void copy_gm_to_ubuf_align_b8(Args...);
template <typename... Args> void copy_ubuf_to_gm_align_b8(Args...);
template <typename... Args> void copy_matrix_cc_to_gm(Args...);
template <typename... Args> void create_cbuf_matrix(Args...);
template <typename... Args> void vector_dup(Args...);
template <typename... Args> void set_nd_para(Args...);
template <typename... Args> void preload(Args...);

#endif // PTOREWRITE_NPU_BUILTINS_H
