"""The CUDA driver through ctypes: the few entry points that loading PTX,
encoding TMA tensor maps and launching a kernel (with dynamic shared memory
and thread-block clusters) need. No CUDA toolkit, MLIR or argus extension:
a GPU host with only the driver (and PyTorch for the tensors) uses it to run
kernels compiled elsewhere (argus.aot; the bench scripts of bench/).
"""

import ctypes

# --------------------------------------------------------------------------
# CUDA driver constants (values from cuda.h, CUDA 13.0)
# --------------------------------------------------------------------------
CUDA_SUCCESS = 0

CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97

CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0
CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3
CU_FUNC_ATTRIBUTE_NUM_REGS = 4
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4

CU_JIT_INFO_LOG_BUFFER = 3
CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4
CU_JIT_ERROR_LOG_BUFFER = 5
CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
CU_JIT_LOG_VERBOSE = 12

# CUtensorMapDataType
CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0
CU_TENSOR_MAP_DATA_TYPE_UINT16 = 1
CU_TENSOR_MAP_DATA_TYPE_UINT32 = 2
CU_TENSOR_MAP_DATA_TYPE_INT32 = 3
CU_TENSOR_MAP_DATA_TYPE_UINT64 = 4
CU_TENSOR_MAP_DATA_TYPE_INT64 = 5
CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6
CU_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7
CU_TENSOR_MAP_DATA_TYPE_FLOAT64 = 8
CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9
# CUtensorMapInterleave
CU_TENSOR_MAP_INTERLEAVE_NONE = 0
# CUtensorMapSwizzle
CU_TENSOR_MAP_SWIZZLE_NONE = 0
CU_TENSOR_MAP_SWIZZLE_32B = 1
CU_TENSOR_MAP_SWIZZLE_64B = 2
CU_TENSOR_MAP_SWIZZLE_128B = 3
# CUtensorMapL2promotion
CU_TENSOR_MAP_L2_PROMOTION_NONE = 0
CU_TENSOR_MAP_L2_PROMOTION_L2_64B = 1
CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2
CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3
# CUtensorMapFloatOOBfill
CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0  # out-of-bounds elements read as zero
CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA = 1

CU_TENSOR_MAP_BYTES = 128  # CU_TENSOR_MAP_NUM_QWORDS * 8
# The PTX parameter is `.align 64`; cuda.h (13.0) declares CUtensorMap
# alignas(128). Align the host copy to the stricter of the two.
CU_TENSOR_MAP_HOST_ALIGN = 128

# element name (JSON / --dtypes) -> (CUtensorMapDataType, bytes, torch dtype name)
ELEMENTS = {
    "bf16": (CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, "bfloat16"),
    "f16": (CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, "float16"),
    "fp16": (CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, "float16"),
    "f32": (CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, "float32"),
}
SWIZZLES = {
    0: CU_TENSOR_MAP_SWIZZLE_NONE,
    32: CU_TENSOR_MAP_SWIZZLE_32B,
    64: CU_TENSOR_MAP_SWIZZLE_64B,
    128: CU_TENSOR_MAP_SWIZZLE_128B,
}
OOB_FILLS = {
    "zero": CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
    "none": CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
    "nan": CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA,
}
L2_PROMOTIONS = {
    "none": CU_TENSOR_MAP_L2_PROMOTION_NONE,
    "64": CU_TENSOR_MAP_L2_PROMOTION_L2_64B,
    "128": CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
    "256": CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
}

class CudaError(RuntimeError):
    def __init__(self, code, name, what, log=""):
        self.code = code
        self.name = name
        self.what = what
        self.log = log
        msg = "%s failed: %s (%d)" % (what, name, code)
        if log:
            msg += "\n" + log
        super().__init__(msg)


# --------------------------------------------------------------------------
# ctypes binding of the few driver entry points used
# --------------------------------------------------------------------------
c_void_p = ctypes.c_void_p
c_int = ctypes.c_int
c_uint = ctypes.c_uint
c_u32 = ctypes.c_uint32
c_u64 = ctypes.c_uint64
P = ctypes.POINTER


class CUlaunchAttribute(ctypes.Structure):
    """CUlaunchAttribute: an id, padding to 8 bytes, a 64-byte value union
    (here its clusterDim member: x, y, z)."""
    _fields_ = [("id", c_int), ("pad", ctypes.c_char * 4),
                ("x", c_uint), ("y", c_uint), ("z", c_uint), ("rest", ctypes.c_char * 52)]


class CUlaunchConfig(ctypes.Structure):
    _fields_ = [("gridDimX", c_uint), ("gridDimY", c_uint), ("gridDimZ", c_uint),
                ("blockDimX", c_uint), ("blockDimY", c_uint), ("blockDimZ", c_uint),
                ("sharedMemBytes", c_uint), ("hStream", c_void_p),
                ("attrs", P(CUlaunchAttribute)), ("numAttrs", c_uint)]


class CudaDriver:
    """Thin ctypes wrapper over libcuda; every call's CUresult is checked."""

    _SIGS = {
        "cuInit": [c_uint],
        "cuDriverGetVersion": [P(c_int)],
        "cuGetErrorName": [c_int, P(ctypes.c_char_p)],
        "cuDeviceGet": [P(c_int), c_int],
        "cuDeviceGetAttribute": [P(c_int), c_int, c_int],
        "cuCtxGetCurrent": [P(c_void_p)],
        "cuCtxSetCurrent": [c_void_p],
        "cuDevicePrimaryCtxRetain": [P(c_void_p), c_int],
        "cuModuleLoadData": [P(c_void_p), c_void_p],
        "cuModuleLoadDataEx": [P(c_void_p), c_void_p, c_uint, P(c_int), P(c_void_p)],
        "cuModuleGetFunction": [P(c_void_p), c_void_p, ctypes.c_char_p],
        "cuFuncSetAttribute": [c_void_p, c_int, c_int],
        "cuFuncGetAttribute": [P(c_int), c_int, c_void_p],
        "cuLaunchKernel": [c_void_p, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint,
                           c_uint, c_void_p, P(c_void_p), P(c_void_p)],
        "cuLaunchKernelEx": [P(CUlaunchConfig), c_void_p, P(c_void_p), P(c_void_p)],
        "cuOccupancyMaxActiveClusters": [P(c_int), c_void_p, P(CUlaunchConfig)],
        "cuStreamSynchronize": [c_void_p],
        "cuTensorMapEncodeTiled": [c_void_p, c_int, c_u32, c_void_p, P(c_u64), P(c_u64),
                                   P(c_u32), P(c_u32), c_int, c_int, c_int, c_int],
    }

    def __init__(self, libname="libcuda.so.1"):
        self.lib = ctypes.CDLL(libname)
        for name, argtypes in self._SIGS.items():
            f = getattr(self.lib, name)
            f.argtypes = argtypes
            f.restype = c_int
            setattr(self, name, f)

    def error_name(self, code):
        s = ctypes.c_char_p()
        if self.lib.cuGetErrorName(code, ctypes.byref(s)) != CUDA_SUCCESS or not s.value:
            return "CUresult %d" % code
        return s.value.decode()

    def check(self, code, what):
        if code != CUDA_SUCCESS:
            raise CudaError(code, self.error_name(code), what)

    # -- conveniences -------------------------------------------------------
    def driver_version(self):
        v = c_int()
        self.check(self.cuDriverGetVersion(ctypes.byref(v)), "cuDriverGetVersion")
        return v.value

    def device(self, ordinal):
        d = c_int()
        self.check(self.cuDeviceGet(ctypes.byref(d), ordinal), "cuDeviceGet")
        return d.value

    def device_attr(self, attr, dev):
        v = c_int()
        self.check(self.cuDeviceGetAttribute(ctypes.byref(v), attr, dev),
                   "cuDeviceGetAttribute(%d)" % attr)
        return v.value

    def current_context(self, dev):
        ctx = c_void_p()
        self.check(self.cuCtxGetCurrent(ctypes.byref(ctx)), "cuCtxGetCurrent")
        if not ctx.value:  # torch did not make one current on this thread
            self.check(self.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev),
                       "cuDevicePrimaryCtxRetain")
            self.check(self.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
        return ctx.value

    def load_module(self, image_bytes):
        """cuModuleLoadData on NUL-terminated PTX; on failure, redo it with
        cuModuleLoadDataEx to get the JIT error log into the exception."""
        if not image_bytes.endswith(b"\0"):
            image_bytes = image_bytes + b"\0"
        img = ctypes.create_string_buffer(image_bytes, len(image_bytes))
        mod = c_void_p()
        rc = self.cuModuleLoadData(ctypes.byref(mod), img)
        if rc == CUDA_SUCCESS:
            return mod.value
        log = self.jit_logs(img)[1]
        raise CudaError(rc, self.error_name(rc), "cuModuleLoadData", log)

    def jit_logs(self, img, size=1 << 16):
        """(info_log, error_log, rc) of a verbose cuModuleLoadDataEx."""
        if isinstance(img, bytes):
            if not img.endswith(b"\0"):
                img += b"\0"
            img = ctypes.create_string_buffer(img, len(img))
        info = ctypes.create_string_buffer(size)
        err = ctypes.create_string_buffer(size)
        opts = (c_int * 5)(CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                           CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                           CU_JIT_LOG_VERBOSE)
        vals = (c_void_p * 5)(ctypes.cast(info, c_void_p).value, size,
                              ctypes.cast(err, c_void_p).value, size, 1)
        mod = c_void_p()
        rc = self.cuModuleLoadDataEx(ctypes.byref(mod), img, 5, opts, vals)
        return (info.value.decode(errors="replace"), err.value.decode(errors="replace"), rc)

    def get_function(self, module, name):
        f = c_void_p()
        self.check(self.cuModuleGetFunction(ctypes.byref(f), module, name.encode()),
                   "cuModuleGetFunction(%s)" % name)
        return f.value

    def func_attr(self, func, attr):
        v = c_int()
        self.check(self.cuFuncGetAttribute(ctypes.byref(v), attr, func),
                   "cuFuncGetAttribute(%d)" % attr)
        return v.value


# --------------------------------------------------------------------------
# Tensor maps and kernel parameters
# --------------------------------------------------------------------------
class AlignedBytes:
    """`size` bytes at an address aligned to `align`, kept alive by this object."""

    def __init__(self, size, align):
        self._raw = (ctypes.c_ubyte * (size + align))()
        base = ctypes.addressof(self._raw)
        self.address = (base + align - 1) & ~(align - 1)
        self.size = size

    def tobytes(self):
        return ctypes.string_at(self.address, self.size)


def tensor_map_args(tm, shape, strides_elems, elem_bytes):
    """Innermost-first encode arguments for a row-major (dense inner dim)
    tensor of `shape` (outermost first) with element strides `strides_elems`.

    Returns (rank, globalDim, globalStrides[rank-1] in bytes, boxDim, elementStrides).
    """
    rank = len(shape)
    box = list(tm["box"])
    if len(box) != rank:
        raise ValueError("tensor map %s: box %s has rank %d, tensor rank %d"
                         % (tm.get("name"), box, len(box), rank))
    if strides_elems[-1] != 1:
        raise ValueError("tensor map %s: innermost stride must be 1" % tm.get("name"))
    gdim = [int(s) for s in reversed(shape)]
    gstride = [int(s) * elem_bytes for s in reversed(strides_elems[:-1])]
    for s in gstride:
        if s % 16:
            raise ValueError("tensor map %s: global stride %d bytes not a multiple of 16"
                             % (tm.get("name"), s))
    boxdim = [int(b) for b in reversed(box)]
    estr = [1] * rank
    sw = int(tm.get("swizzle", 0))
    if sw and boxdim[0] * elem_bytes > sw:
        raise ValueError("tensor map %s: inner box %d B exceeds swizzle span %d B"
                         % (tm.get("name"), boxdim[0] * elem_bytes, sw))
    return rank, gdim, gstride, boxdim, estr


def encode_tensor_map(drv, tm, data_ptr, shape, strides_elems, l2promo):
    """cuTensorMapEncodeTiled into a fresh 128-byte, 128-aligned host buffer."""
    elem = tm.get("element", "bf16")
    if elem not in ELEMENTS:
        raise ValueError("tensor map %s: unknown element %r" % (tm.get("name"), elem))
    dtype_enum, elem_bytes, _ = ELEMENTS[elem]
    sw = int(tm.get("swizzle", 0))
    if sw not in SWIZZLES:
        raise ValueError("tensor map %s: unknown swizzle %r" % (tm.get("name"), sw))
    oob = str(tm.get("oob_fill", "zero"))
    if oob not in OOB_FILLS:
        raise ValueError("tensor map %s: unknown oob_fill %r" % (tm.get("name"), oob))
    if tm.get("pass", "value") != "value":
        raise ValueError("tensor map %s: only pass=value is supported" % tm.get("name"))
    if data_ptr % 16:
        raise ValueError("tensor map %s: global address not 16-byte aligned" % tm.get("name"))
    rank, gdim, gstride, boxdim, estr = tensor_map_args(tm, shape, strides_elems, elem_bytes)
    out = AlignedBytes(CU_TENSOR_MAP_BYTES, CU_TENSOR_MAP_HOST_ALIGN)
    rc = drv.cuTensorMapEncodeTiled(
        c_void_p(out.address), dtype_enum, rank, c_void_p(data_ptr),
        (c_u64 * rank)(*gdim),
        (c_u64 * max(rank - 1, 1))(*(gstride or [0])),
        (c_u32 * rank)(*boxdim),
        (c_u32 * rank)(*estr),
        CU_TENSOR_MAP_INTERLEAVE_NONE, SWIZZLES[sw], l2promo, OOB_FILLS[oob])
    if rc != CUDA_SUCCESS:
        raise CudaError(rc, drv.error_name(rc),
                        "cuTensorMapEncodeTiled(%s: dim %s stride %s box %s swizzle %d)"
                        % (tm.get("name"), gdim, gstride, boxdim, sw))
    return out


class KernelParams:
    """kernelParams for cuLaunchKernel: a void*[] whose i-th entry points at the
    bytes of parameter i. ints are u64 (pointers, sizes, indices), ctypes
    scalars (c_float, c_int32, ...) their own type; by-value tensor maps are
    128-byte aligned buffers. Everything is kept alive by this object."""

    def __init__(self, values):
        self._keep = []
        addrs = []
        for v in values:
            if isinstance(v, AlignedBytes):
                self._keep.append(v)
                addrs.append(v.address)
            elif isinstance(v, (int, ctypes._SimpleCData)) and not isinstance(v, bool):
                cv = c_u64(v) if isinstance(v, int) else v
                self._keep.append(cv)
                addrs.append(ctypes.addressof(cv))
            else:
                raise TypeError("unsupported kernel parameter %r" % (v,))
        self.array = (c_void_p * len(addrs))(*addrs)
        self.count = len(addrs)
