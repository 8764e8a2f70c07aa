// ptorewrite parse-only headers: the multi-buffered loop helper AUTO-mode kernels use.
//
// pto-isa ships this helper next to its AUTO-mode kernels as "multiBuffer.hpp" (namespace
// pto_auto); kernels write
//
//     MultiBuffered<2> db;
//     db.loop<Range<NumIters>>([&](auto ctx) {
//         int i = ctx.iter;              // run-time iteration index
//         constexpr int b = ctx.bufferId; // compile-time lane, 0..NumBuffs-1
//         ...
//     });
//
// The AUTO compiler gives every lane its own copy of the tiles declared inside the lambda,
// which is how double buffering is expressed without addresses. Here the helper only has
// to type-check: it calls the body once per lane (so each Context<Phase, bufferId> is
// instantiated) inside a loop that walks the iterations lane by lane.
#ifndef PTOREWRITE_MULTI_BUFFER_HPP
#define PTOREWRITE_MULTI_BUFFER_HPP

#include <pto/common/type.hpp>

namespace pto_auto {

namespace mb_detail {
template <int... Is>
struct int_list {};
template <int N>
using make_int_list = __make_integer_seq<pto::detail::integer_sequence, int, N>;
} // namespace mb_detail

// Iteration space of a (possibly nested) multi-buffered loop: Range<outer, inner...>.
template <int Dim0, int... Dims>
struct Range {
    static constexpr int dims[1 + sizeof...(Dims)] = {Dim0, Dims...};
    static constexpr int getDim(int i) { return dims[i]; }
    static constexpr int numDims() { return 1 + sizeof...(Dims); }
    static constexpr bool hasChildDimGTOne() { return ((Dims > 1) || ... || false); }
};

template <typename R>
struct PopFront;
template <int D0, int D1, int... Ds>
struct PopFront<Range<D0, D1, Ds...>> {
    using type = Range<D1, Ds...>;
};
template <typename R>
using PopFront_t = typename PopFront<R>::type;

// Which part of the loop an iteration belongs to: the first FirstK iterations (Prologue),
// the last LastK (Epilogue), the rest (Main).
enum class Phase {
    Prologue,
    Main,
    Epilogue,
};

template <int NumBuffs>
class MultiBuffered {
public:
    // What the loop body receives.
    template <Phase P, int BufferId>
    struct Context {
        static constexpr Phase phase = P;
        static constexpr int bufferId = BufferId;
        int iter;
    };

    // Handed to the body of a nested loop as its second argument: `inner.loop(body)`.
    template <class ChildRange>
    class NestedLoopInvoker {
    public:
        MultiBuffered &parent;

        template <int FirstK = 0, int LastK = 0, class Body>
        AICORE void loop(Body &&body)
        {
            parent.template loop<ChildRange, FirstK, LastK>(body);
        }
    };

    // loop<Range<N>>(body) or loop<Range<N, M...>>(body(ctx, inner)).
    template <class R, int FirstK = 0, int LastK = 0, class Body>
    AICORE void loop(Body &&body)
    {
        if constexpr (R::numDims() == 1) {
            runPhases<R::getDim(0), FirstK, LastK>(body);
        } else {
            NestedLoopInvoker<PopFront_t<R>> inner{*this};
            runPhases<R::getDim(0), FirstK, LastK>([&](auto ctx) { body(ctx, inner); });
        }
    }

private:
    template <int NumIters, int FirstK, int LastK, class Body>
    AICORE void runPhases(Body &&body)
    {
        if constexpr (FirstK > 0) {
            runRange<Phase::Prologue>(0, FirstK, body);
        }
        if constexpr (NumIters - FirstK - LastK > 0) {
            runRange<Phase::Main>(FirstK, NumIters - LastK, body);
        }
        if constexpr (LastK > 0) {
            runRange<Phase::Epilogue>(NumIters - LastK, NumIters, body);
        }
    }

    // Iteration i runs on lane i % NumBuffs.
    template <Phase P, class Body>
    AICORE void runRange(int begin, int end, Body &body)
    {
        for (int base = begin - begin % NumBuffs; base < end; base += NumBuffs) {
            runLanes<P>(base, begin, end, body, mb_detail::make_int_list<NumBuffs>{});
        }
    }

    template <Phase P, class Body, int... Lanes>
    AICORE void runLanes(int base, int begin, int end, Body &body, pto::detail::integer_sequence<int, Lanes...>)
    {
        ((base + Lanes >= begin && base + Lanes < end ? body(Context<P, Lanes>{base + Lanes}) : void()), ...);
    }
};

// Runs the given stage functions in order; the real helper marks stage boundaries for the
// AUTO compiler so consecutive stages may overlap.
template <int NumStages>
class MultiStaged {
public:
    template <class F, class... Fs>
    AICORE void run(F &&f, Fs &&...fs)
    {
        f();
        (fs(), ...);
    }
};

} // namespace pto_auto

#endif // PTOREWRITE_MULTI_BUFFER_HPP
