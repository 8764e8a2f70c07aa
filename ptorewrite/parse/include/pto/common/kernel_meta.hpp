// ptorewrite parse-only headers: the kernel-metadata macros a SYNCALL kernel places at file
// scope to tell the launcher which cores it runs on. They only fill an ELF section, so here
// they expand to a declaration with no effect (the kernel name is still checked to be a name).
#ifndef PTOREWRITE_KERNEL_META_HPP
#define PTOREWRITE_KERNEL_META_HPP

#define PTO_SYNCALL_AIV_KERNEL_META(kernelName) static_assert(sizeof(#kernelName) > 1, "kernel name")
#define PTO_SYNCALL_AIC_KERNEL_META(kernelName) static_assert(sizeof(#kernelName) > 1, "kernel name")
#define PTO_SYNCALL_MIX_AIC_KERNEL_META(kernelName, aicRatio, aivRatio) \
    static_assert((aicRatio) >= 0 && (aivRatio) >= 0, #kernelName)

#endif // PTOREWRITE_KERNEL_META_HPP
