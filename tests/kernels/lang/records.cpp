// User structs in a hand-written kernel: a problem description passed by value (its fields are
// run-time values), a progress record the host lays out in GM and the kernel reads and updates
// through a pointer (scalar-unit accesses at the members' offsets), and a small plan a helper
// fills at compile time, with one member chosen by a run-time test.
#include <pto/pto-inst.hpp>

using namespace pto;

struct Problem {
    uint32_t rows;
    uint32_t skip;
    __gm__ float *scratch;
};

struct alignas(64) Progress {
    int32_t first;
    int32_t done;
    int32_t reserved[14];
    int32_t start[4];
};

struct Plan {
    int32_t base;
    int32_t step;
};

using Row = Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor>;
using RowGm = GlobalTensor<float, Shape<1, 1, 1, 1, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline Plan MakePlan(const Problem &p, int32_t lane)
{
    Plan plan{};
    plan.base = lane * 64;
    plan.step = 64;
    if (p.skip > 0) {
        plan.step = 128;
    }
    return plan;
}

AICORE inline void CopyRow(__gm__ float *out, __gm__ float *in, Row &row, int32_t at)
{
    RowGm src(in + at);
    RowGm dst(out + at);
    TLOAD(row, src);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, row);
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
}

// Rows [0, problem.rows) from a lane-dependent start, in steps the plan picks; the progress
// record says where this core starts and is told when it is done.
__global__ AICORE void copy_planned(__gm__ float *out, __gm__ float *in, Problem problem, __gm__ uint8_t *progress)
{
    __gm__ Progress *prog = reinterpret_cast<__gm__ Progress *>(progress);
    Plan plan = MakePlan(problem, 1);
    int32_t lane = prog->start[1] + static_cast<int32_t>(offsetof(Progress, start) / sizeof(int32_t));
    Row row;
    TASSIGN(row, 0x0);
    for (uint32_t r = 0; r < problem.rows; ++r) {
        CopyRow(out, in, row, plan.base + plan.step * r + lane);
    }
    __gm__ Progress *next = prog + 1;  // the next core's record, sizeof(Progress) bytes on
    next->first = 0;
    prog->done = static_cast<int32_t>(sizeof(Progress));
}

// A pointer member of a by-value struct: where it points is not known.
__global__ AICORE void copy_to_scratch(__gm__ float *in, Problem problem)
{
    Row row;
    TASSIGN(row, 0x0);
    CopyRow(problem.scratch, in, row, 0);
}

// Another rank's copy of a buffer, addressed through the window bases a context struct in GM
// lists: the address is computed from values read from GM, so the copy is a region of its own.
struct Windows {
    uint32_t rank;
    uint32_t ranks;
    uint64_t base[4];
};

template <typename T>
AICORE inline __gm__ T *PeerCopy(__gm__ Windows *w, __gm__ T *mine, uint32_t peer)
{
    uint64_t delta = (uint64_t)mine - w->base[w->rank];
    return (__gm__ T *)(w->base[peer] + delta);
}

__global__ AICORE void push_to_peer(__gm__ float *buf, __gm__ uint8_t *windows)
{
    __gm__ Windows *w = reinterpret_cast<__gm__ Windows *>(windows);
    uint32_t peer = (w->rank + 1) % w->ranks;
    Row row;
    TASSIGN(row, 0x0);
    RowGm local(buf);
    RowGm remote(PeerCopy(w, buf + 64, peer));
    TLOAD(row, local);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    if ((reinterpret_cast<uint64_t>(buf) & 31) == 0) {  // the address itself: a run-time value
        TSTORE(remote, row);
    }
}

// A helper that fills a struct through a pointer and returns early when a count read from GM
// says there is nothing to do, evaluated at compile time over that run-time value.
struct Segment {
    int32_t rows;
    int32_t start;
};

AICORE inline bool LoadSegment(__gm__ int32_t *counts, int32_t index, Segment *out)
{
    out->start = index * 64;
    out->rows = counts[index];
    if (out->rows <= 0) {
        return false;
    }
    if (out->rows > 4) {
        out->rows = 4;
    }
    return true;
}

__global__ AICORE void copy_segment(__gm__ float *out, __gm__ float *in, __gm__ int32_t *counts)
{
    Row row;
    TASSIGN(row, 0x0);
    Segment seg{};
    if (!LoadSegment(counts, 1, &seg)) {
        return;
    }
    for (int32_t r = 0; r < seg.rows; ++r) {
        CopyRow(out, in, row, seg.start + r * 64);
    }
}

// Structs copied by value are copies: a helper that changes its by-value parameter, and a copy
// changed after it was made, leave the original as it was.
AICORE inline int32_t Widened(Plan plan)
{
    plan.step = plan.step * 2;
    return plan.step;
}

AICORE inline int32_t StepOfCopy(const Plan &original)
{
    Plan copy = original;
    copy.step = 1;
    return original.step + copy.step;
}

__global__ AICORE void copy_by_value(__gm__ float *out, __gm__ float *in)
{
    Plan plan{0, 64};
    Row row;
    TASSIGN(row, 0x0);
    CopyRow(out, in, row, Widened(plan) + plan.step + StepOfCopy(plan));
}
