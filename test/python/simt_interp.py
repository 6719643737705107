"""A small SIMT interpreter for the generic-form output of `argus-opt
--argus-to-gpu` on kernels without memref arguments, so that exchange
lowerings (argus.scan) are checked numerically on machines without a GPU.

Every SSA value is a numpy array over the block's threads (one row per
thread; vectors are (threads, slots)), and the ops run in lockstep:
`gpu.shuffle idx` reads the source lane within its warp segment of
`width` lanes, `scf.if` runs its regions under a thread mask, shared-memory
stores land only for the threads of the mask, and `gpu.barrier` needs
nothing (every thread finishes an op before the next starts). Integers are
held exactly in float64 for the small values the tests use. Ops outside the
handled subset raise, so a test never passes by skipping one. `run` returns
the last `vector.insert` of the kernel (the value the test computes last)."""
import re, sys
import numpy as np

PRED = {0: "eq", 1: "ne", 2: "slt", 3: "sle", 4: "sgt", 5: "sge", 6: "ult", 7: "ule", 8: "ugt", 9: "uge"}

def parse_const(attr, T):
    m = re.search(r"value = dense<([^>]*)> : vector<(\d+)x(\w+)>", attr)
    if m:
        v = m.group(1)
        n = int(m.group(2))
        if v.startswith("["):
            vals = [float(x) for x in v.strip("[]").split(",")]
            return np.tile(np.array(vals), (T, 1))
        return np.full((T, n), float(v) if "." in v or "e" in v else int(v, 0), dtype=np.float64)
    m = re.search(r"value = (\S+) : (\w+)", attr)
    v, t = m.group(1), m.group(2)
    if v == "true": val = 1
    elif v == "false": val = 0
    elif v.startswith("0x") and t.startswith("f"):
        import struct
        val = struct.unpack(">f", bytes.fromhex(v[2:].zfill(8)))[0] if t == "f32" else float("nan")
    else:
        val = float(v) if t.startswith(("f", "b")) else int(v)
    return np.full(T, val, dtype=np.float64)

def run(text, T, width):
    lines = text.splitlines()
    env, mems, sizes = {}, {}, {}
    for l in lines:
        m = re.search(r'"memref.global"\(\).*sym_name = "(\w+)".*type = memref<(\d+)x', l)
        if m:
            sizes[m.group(1)] = int(m.group(2))
    start = next(i for i, l in enumerate(lines) if '"gpu.func"' in l)
    last_insert = [None]

    def val(n):
        return env[n]

    def exec_block(i, mask):
        while i < len(lines):
            l = lines[i].strip()
            if l.startswith("}") :
                return i
            m = re.match(r'(?:(%[\w#]+)(?::(\d+))? = )?"([\w.]+)"\((.*?)\)(.*)$', l)
            if not m:
                i += 1
                continue
            res, nres, op, args, rest = m.groups()
            ops = [a.strip() for a in args.split(",") if a.strip()]
            a = [val(o) for o in ops] if op not in ("memref.get_global",) else []
            out = None
            if op == "arith.constant":
                out = parse_const(rest, T)
            elif op == "gpu.thread_id":
                out = np.arange(T, dtype=np.float64)
            elif op in ("arith.addi", "arith.addf"): out = a[0] + a[1]
            elif op in ("arith.subi", "arith.subf"): out = a[0] - a[1]
            elif op in ("arith.muli", "arith.mulf"): out = a[0] * a[1]
            elif op == "arith.divui": out = np.floor_divide(a[0], a[1])
            elif op == "arith.remui": out = np.mod(a[0], a[1])
            elif op == "arith.ori": out = (a[0].astype(np.int64) | a[1].astype(np.int64)).astype(np.float64)
            elif op == "arith.andi": out = (a[0].astype(np.int64) & a[1].astype(np.int64)).astype(np.float64)
            elif op in ("arith.maxsi", "arith.maximumf"): out = np.maximum(a[0], a[1])
            elif op in ("arith.minsi", "arith.minimumf"): out = np.minimum(a[0], a[1])
            elif op == "arith.cmpi":
                p = PRED[int(re.search(r"predicate = (\d+)", rest).group(1))]
                x, y = a
                out = {"eq": x == y, "ne": x != y, "slt": x < y, "sle": x <= y, "sgt": x > y,
                       "sge": x >= y, "ult": x < y, "ule": x <= y, "ugt": x > y, "uge": x >= y}[p].astype(np.float64)
            elif op == "arith.select":
                c = a[0] if a[1].ndim == 1 else a[0][:, None]
                out = np.where(c != 0, a[1], a[2])
            elif op in ("arith.index_cast", "arith.extf", "arith.truncf", "arith.extsi", "arith.trunci", "arith.sitofp"):
                out = a[0]
            elif op == "vector.extract":
                p = int(re.search(r"static_position = array<i64: (\d+)>", rest).group(1))
                out = a[0][:, p]
            elif op == "vector.insert":
                p = int(re.search(r"static_position = array<i64: (\d+)>", rest).group(1))
                out = a[1].copy()
                out[:, p] = a[0]
                last_insert[0] = out
            elif op == "vector.broadcast":
                n = int(re.search(r"-> vector<(\d+)x", rest).group(1))
                out = np.repeat(a[0][:, None], n, axis=1)
            elif op == "gpu.shuffle":
                assert "idx" in rest, rest
                x, off, w = a
                w = int(w[0])
                base = (np.arange(T) // w) * w
                src = base + (off.astype(np.int64) % w)
                out = [x[src], np.ones(T)]
            elif op == "memref.get_global":
                name = re.search(r'name = @(\w+)', rest).group(1)
                mems.setdefault(name, np.full(sizes[name], np.nan))
                out = name
            elif op == "memref.store":
                v, mem, idx = a
                arr = mems[mem]
                for t in np.nonzero(mask)[0]:
                    k = int(idx[t])
                    arr[k] = v[t]
            elif op == "memref.load":
                mem, idx = a
                out = mems[mem][idx.astype(np.int64)]
            elif op == "scf.if":
                c = a[0] != 0
                j = exec_block(i + 1, mask & c)
                if lines[j].strip().startswith("}, {"):
                    j = exec_block(j + 1, mask & ~c)
                i = j + 1
                continue
            elif op in ("gpu.barrier", "scf.yield", "gpu.return"):
                pass
            else:
                raise RuntimeError("op " + op)
            if res is not None:
                if nres:
                    for k, o in enumerate(out):
                        env[f"{res}#{k}"] = o
                else:
                    env[res] = out
            i += 1
        return i
    exec_block(start + 1, np.ones(T, dtype=bool))
    return last_insert[0]
