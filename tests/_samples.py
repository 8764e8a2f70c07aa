"""The sample folders, and which of them are cluster samples.

A cluster sample's AUTO kernel has code for both core types (a `__DAV_CUBE__` and a `__DAV_VEC__`
guard) and moves tiles between them. `auto2manual`, `verify` and the rewrite's own tests take one
core type, so the per-sample tests that rewrite or verify run over the single-core samples; the
cluster samples are tested by `check` on their hand-written twin (tests/test_sample_flash_attention.py).
"""

from __future__ import annotations

from pathlib import Path

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def is_cluster_sample(folder: Path) -> bool:
    text = (folder / "auto.cpp").read_text()
    return "__DAV_CUBE__" in text and "__DAV_VEC__" in text


def sample_folders(form: str = "auto.cpp", cluster: bool = False) -> list[Path]:
    """The sample folders holding `form`: the single-core ones, or with `cluster` the cluster ones."""
    return sorted(p for p in SAMPLES.iterdir()
                  if (p / form).is_file() and (p / "auto.cpp").is_file() and is_cluster_sample(p) == cluster)


def sample_names(form: str = "auto.cpp", cluster: bool = False) -> list[str]:
    return [p.name for p in sample_folders(form, cluster)]
