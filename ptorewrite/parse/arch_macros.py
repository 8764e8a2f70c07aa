"""Macros the device compiler predefines, per architecture and core type."""

ARCH_MACROS = {
    "a2a3": {
        "common": {"__CCE_AICORE__": "220", "__NPU_ARCH__": "2201", "__CCE_KT_TEST__": "0"},
        "vec": {"__DAV_C220_VEC__": "1"},
        "cube": {"__DAV_C220_CUBE__": "1"},
    },
    "a5": {
        "common": {"__CCE_AICORE__": "310", "__NPU_ARCH__": "3101"},
        "vec": {"__DAV_C310_VEC__": "1"},
        "cube": {"__DAV_C310_CUBE__": "1"},
    },
}
