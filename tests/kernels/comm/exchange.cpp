// A vector kernel that sends its block to a peer card and reads the peer's back, in the shape
// of pto-isa's communication kernels: staging tiles in UB, a signal raised on the peer and
// waited on here, a file-scope kernel-metadata macro, and PIPE_FIX defined by the kernel for
// toolchains that lack it.
#ifndef PIPE_FIX
#define PIPE_FIX static_cast<pipe_t>(10)
#endif
#include <pto/pto-inst.hpp>
#include <pto/comm/pto_comm_inst.hpp>

using namespace pto;

constexpr int kRows = 16;
constexpr int kCols = 128;
using Block = Tile<TileType::Vec, float, kRows, kCols, BLayout::RowMajor, kRows, kCols>;
using BlockGm = GlobalTensor<float, Shape<1, 1, 1, kRows, kCols>, Stride<1, 1, 1, kCols, 1>>;

PTO_SYNCALL_AIV_KERNEL_META(exchange_blocks);

extern "C" __global__ AICORE void exchange_blocks(__gm__ float *peerIn, __gm__ float *myOut, __gm__ float *peerOut,
                                                  __gm__ float *back, __gm__ int32_t *peerFlag, __gm__ int32_t *myFlag)
{
    Block ping, pong, sum;
    TASSIGN(ping, 0x0);
    TASSIGN(pong, 0x2000);
    TASSIGN(sum, 0x4000);
    BlockGm mine(myOut), theirs(peerIn), remoteOut(peerOut), local(back);

    comm::TPUT(theirs, mine, ping);
    comm::TPUT<AtomicType::AtomicAdd>(theirs, mine, ping, pong);
    comm::Signal raised(peerFlag);
    comm::TNOTIFY(raised, 1, comm::NotifyOp::AtomicAdd);
    comm::Signal mineRaised(myFlag);
    comm::TWAIT(mineRaised, 1, comm::WaitCmp::GE);

    comm::TGET(local, remoteOut, ping);
    pipe_barrier(PIPE_ALL);  // TGET orders its load of ping before MTE3 and MTE2 only; the add reads it on V
    TADD(sum, ping, pong);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(local, sum);
    SYNCALL();
}
