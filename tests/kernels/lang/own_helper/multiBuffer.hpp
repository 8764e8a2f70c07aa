// This kernel folder's own multi-buffered loop helper, as AUTO kernels often carry one beside
// them (namespace pto_auto): the loop hands the body each iteration with its lane as a constant.
// ptorewrite models MultiBuffered and Range itself and does not read these bodies.
#pragma once

namespace pto_auto {

template <int Count, int... Inner>
struct Range {
    static constexpr int count = Count;
};

template <int Lanes>
class MultiBuffered {
public:
    template <int Lane>
    struct Step {
        int iter;
        static constexpr int bufferId = Lane;
    };

    template <typename R, typename Body>
    void loop(Body body)
    {
        for (int i = 0; i < R::count; ++i) {
            dispatch<0>(body, i);
        }
    }

private:
    template <int Lane, typename Body>
    static void dispatch(Body &body, int i)
    {
        if constexpr (Lane < Lanes) {
            if (i % Lanes == Lane) {
                body(Step<Lane>{i});
                return;
            }
            dispatch<Lane + 1>(body, i);
        }
    }
};

} // namespace pto_auto
