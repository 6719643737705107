"""The knowledge base of GEMM optimizations, as data.

Each entry is one move the search can make from the current best variant:
``set`` gives absolute knob values, ``scale`` multiplies a knob. ``targets``
restricts an entry to a target; ``implemented: False`` marks optimizations
the generator cannot build yet (kept so that policies can see them)."""

KNOWLEDGE_BASE = [
    {"name": "tile-128x128", "category": "tile sizes",
     "set": {"tile_m": 128, "tile_n": 128, "warps": [2, 4]}},
    {"name": "tile-128x64", "category": "tile sizes", "set": {"tile_m": 128, "tile_n": 64}},
    {"name": "tile-64x128", "category": "tile sizes", "set": {"tile_m": 64, "tile_n": 128}},
    {"name": "tile-64x64", "category": "tile sizes",
     "set": {"tile_m": 64, "tile_n": 64, "warps": [2, 2]}},
    {"name": "k-slab-64", "category": "tile sizes", "set": {"tile_k": 64}},
    {"name": "k-slab-32", "category": "tile sizes", "set": {"tile_k": 32}},
    {"name": "pipeline-2", "category": "pipeline depth", "set": {"stages": 2, "wait": None}},
    {"name": "pipeline-3", "category": "pipeline depth", "set": {"stages": 3, "wait": None}},
    {"name": "pipeline-4", "category": "pipeline depth", "set": {"stages": 4, "wait": None}},
    {"name": "swizzle-on", "category": "swizzle", "set": {"swizzle": True}},
    {"name": "swizzle-off", "category": "swizzle", "set": {"swizzle": False}},
    {"name": "vector-8", "category": "vector width", "set": {"vector": 8}},
    {"name": "vector-4", "category": "vector width", "set": {"vector": 4}},
    {"name": "warps-4x2", "category": "warp grid", "set": {"warps": [4, 2]}},
    {"name": "warps-2x4", "category": "warp grid", "set": {"warps": [2, 4]}},
    {"name": "mfma-32x32x8", "category": "instruction", "targets": ["gfx942"],
     "set": {"instr": "v_mfma_f32_32x32x8_f16"}},
    {"name": "mfma-16x16x16", "category": "instruction", "targets": ["gfx942"],
     "set": {"instr": "v_mfma_f32_16x16x16_f16"}},
    {"name": "wg-swizzle-4", "category": "workgroup swizzle", "set": {"wg_swizzle": 4}},
    {"name": "wg-swizzle-off", "category": "workgroup swizzle", "set": {"wg_swizzle": 1}},
    {"name": "split-k-2", "category": "split-K", "set": {"split_k": 2}, "implemented": False,
     "note": "needs a cross-block reduction (atomics or a second kernel)"},
]


def applicable(entry, target):
    if entry.get("implemented", True) is False:
        return False
    t = entry.get("targets")
    return t is None or target in t


def apply(entry, variant):
    kw = dict(entry.get("set", {}))
    return variant.replace(**kw)
