// A SIMT vector function launched on the vector core's lanes: refused, naming the launch.
#include <pto/pto-inst.hpp>

using namespace pto;

template <int kLen>
AICORE void double_each(__gm__ float *data)
{
    (void)data;
}

__global__ AICORE void simt_launch(__gm__ float *data)
{
    cce::async_invoke<double_each<64>>(cce::dim3{32, 2}, data);
}
