"""The PTO instruction table: name -> pipe rule and operand access pattern.

This is the one place that says which pipe runs an instruction and which operands it
reads and writes (spec §2). Tile operands are matched positionally against `tiles`;
GlobalTensor operands against `gm`; every other argument is a scalar.

Access codes: "w" written, "r" read, "rw" read and written (scratch tiles, in-place
accumulators). A trailing "r*" means every further tile is read.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptorewrite.arch import ArchProfile


@dataclass(frozen=True)
class OpInfo:
    name: str
    pipe: str  # a pipe name, or a rule: "store", "move", "insert"
    tiles: tuple[str, ...]
    gm: tuple[str, ...] = ()
    archs: frozenset[str] = frozenset({"a2a3", "a5"})

    def tile_access(self, i: int) -> str:
        if i < len(self.tiles):
            code = self.tiles[i]
            return "r" if code == "r*" else code
        if self.tiles and self.tiles[-1] == "r*":
            return "r"
        raise IndexError(i)

    @property
    def max_tiles(self) -> int | None:
        return None if self.tiles and self.tiles[-1] == "r*" else len(self.tiles)


def _ops(names: str, pipe: str, tiles: str, gm: str = "") -> list[OpInfo]:
    return [OpInfo(n, pipe, tuple(tiles.split()), tuple(gm.split())) for n in names.split()]


_TABLE: list[OpInfo] = [
    # Data movement between GM and on-chip buffers.
    *_ops("TLOAD", "MTE2", "w", gm="r"),
    *_ops("TSTORE", "store", "r", gm="w"),
    *_ops("TPREFETCH", "MTE2", "", gm="r"),
    # On-chip moves: the pipe depends on the source and destination buffers.
    *_ops("TMOV TEXTRACT", "move", "w r"),
    *_ops("TINSERT", "insert", "w r"),
    # Cube.
    *_ops("TMATMUL TMATMUL_BIAS TMATMUL_MX TGEMV TGEMV_BIAS", "M", "w r*"),
    *_ops("TMATMUL_ACC TGEMV_ACC", "M", "w r*"),
    # Vector: elementwise binary and ternary.
    *_ops(
        "TADD TSUB TMUL TDIV TMIN TMAX TAND TOR TXOR TSHL TSHR TCMP TSEL TADDC TSUBC "
        "TFMOD TATAN2 TPOW",
        "V", "w r*",
    ),
    # Binary with scratch tile last.
    *_ops("TREM TPRELU", "V", "w r r rw"),
    # Vector: tile-scalar (the scalar is a non-tile argument).
    *_ops(
        "TADDS TSUBS TMULS TDIVS TMINS TMAXS TANDS TORS TXORS TSHLS TSHRS TREMS TCMPS "
        "TSELS TLRELU TAXPY TADDSC TSUBSC TFMODS",
        "V", "w r*",
    ),
    *_ops("TEXPANDS", "V", "w"),
    # Vector: unary.
    *_ops(
        "TABS TNEG TNOT TRELU TEXP TLOG TSQRT TRSQRT TRECIP TCVT TSIN TCOS TFLOOR TCEIL "
        "TROUND TTRUNC TSIGN TSIGMOID TTANH",
        "V", "w r",
    ),
    # Reductions: destination, source, scratch.
    *_ops(
        "TROWSUM TROWMAX TROWMIN TROWPROD TROWARGMAX TROWARGMIN "
        "TCOLARGMAX TCOLARGMIN",
        "V", "w r rw",
    ),
    *_ops("TCOLSUM TCOLMAX TCOLMIN TCOLPROD", "V", "w r*"),
    # Broadcasts.
    *_ops(
        "TROWEXPAND TCOLEXPAND TROWEXPANDADD TROWEXPANDSUB TROWEXPANDMUL TROWEXPANDDIV "
        "TROWEXPANDMAX TROWEXPANDMIN TCOLEXPANDADD TCOLEXPANDSUB TCOLEXPANDMUL "
        "TCOLEXPANDDIV TCOLEXPANDMAX TCOLEXPANDMIN",
        "V", "w r*",
    ),
    # Layout, gather and sort.
    *_ops("TTRANS", "V", "w r rw"),
    *_ops("TGATHER TGATHERB TSCATTER TCONCAT TFILLPAD TSORT32 TCI TPARTADD TPARTMAX TPARTMIN", "V", "w r*"),
    *_ops("TMRGSORT", "V", "w r*"),
]

INSTRUCTIONS: dict[str, OpInfo] = {op.name: op for op in _TABLE}

# Scalar-unit statements with no tile data access; the front end models them itself.
ALIAS_OPS = frozenset({"TRESHAPE", "TSUBVIEW"})
CONFIG_OPS = frozenset({"SETFMATRIX", "SET_IMG2COL_RPT", "SET_IMG2COL_PADDING", "TSETTF32MODE"})
SYNC_CALLS = frozenset({"set_flag", "wait_flag", "pipe_barrier", "TSYNC"})
# Beyond version 1: cross-core pipes are passed through with a diagnostic.
CROSS_CORE_OPS = frozenset({"TPUSH", "TPOP", "TNOTIFY", "TWAIT", "TGET", "TPUT", "TBROADCAST"})

# Broadcast family and widening vector TEXTRACT use the hidden UB scratch range on a2a3.
UB_SCRATCH_OPS = frozenset(
    n for n in INSTRUCTIONS if n.startswith("TROWEXPAND")
)

MOVE_PIPES = {
    # (dst tile type, src tile type) -> pipe
    ("Left", "Mat"): "MTE1",
    ("Right", "Mat"): "MTE1",
    ("Bias", "Mat"): "MTE1",
    ("Scaling", "Mat"): "FIX",
    ("Mat", "Acc"): "FIX",
    ("Vec", "Acc"): "FIX",
    ("Vec", "Vec"): "V",
}


class PipeRuleError(ValueError):
    pass


def pipe_of(op: OpInfo, tile_types: list[str], arch: ArchProfile) -> str:
    """The pipe an instruction runs on, given its tile operands' TileTypes in argument order."""
    if op.pipe == "store":
        src = tile_types[0] if tile_types else None
        if src == "Vec":
            return "MTE3"
        if src == "Acc":
            return "FIX"
        if src == "Mat":
            if not arch.mat_to_gm_store:
                raise PipeRuleError(f"TSTORE from a Mat (L1) tile is not available on {arch.name}")
            return "MTE3"
        raise PipeRuleError(f"TSTORE from a {src} tile is not supported")
    if op.pipe in ("move", "insert"):
        if len(tile_types) < 2:
            raise PipeRuleError(f"{op.name} needs a destination and a source tile")
        key = (tile_types[0], tile_types[1])
        if op.pipe == "insert" and key == ("Mat", "Acc"):
            return "FIX"
        if key in MOVE_PIPES:
            return MOVE_PIPES[key]
        raise PipeRuleError(f"{op.name} from a {key[1]} tile to a {key[0]} tile is not supported")
    return op.pipe


def lookup(name: str, arch: ArchProfile) -> OpInfo | None:
    op = INSTRUCTIONS.get(name)
    if op is None or arch.name not in op.archs:
        return None
    return op
