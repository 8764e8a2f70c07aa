// ptorewrite parse-only declarations: the host-side owner of the SDMA engine's workspace, as
// pto-isa's communication tests and kernels name it. Host code only; no semantics.
#pragma once

#include <acl/acl.h>  // as pto-isa's own: host code beside it uses the runtime's calls

namespace pto {
namespace comm {
namespace sdma {
class SdmaWorkspaceManager {
public:
    bool Init();                     // set up the SDMA streams and their device workspace
    void Finalize();                 // release them
    void *GetWorkspaceAddr() const;  // the device workspace a kernel's SDMA calls use
};
} // namespace sdma
} // namespace comm
} // namespace pto
