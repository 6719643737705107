/*===- CApi.h - The runtime as a C library (in-process launches) ----------===*
 *
 * Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
 *
 * What `argus-run` does for one spec, callable from another process's
 * address space: Python (`argus.runtime`, through ctypes) runs a kernel that
 * was just lowered without writing the module, the inputs or the outputs to
 * files. The spec is the argus-run launch spec (docs/Runtime.md); the
 * module and the buffers travel in memory. The library opens the driver
 * once per (backend, device, library list) and keeps it for later calls.
 *
 *===----------------------------------------------------------------------===*/
#ifndef ARGUS_RUNTIME_CAPI_H
#define ARGUS_RUNTIME_CAPI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version of this header; argus_rt_abi_version() returns it. */
#define ARGUS_RT_ABI_VERSION 1

/* An in-memory buffer argument: `arg` is its index in the spec's "args".
 * `in` (in_bytes, exactly the buffer's size) replaces the spec's "init";
 * when `out` is set the checked run's contents are copied there
 * (out_bytes, exactly the buffer's size; not for "input" buffers). */
typedef struct argus_rt_buffer {
  int arg;
  const void *in;
  size_t in_bytes;
  void *out;
  size_t out_bytes;
} argus_rt_buffer;

int argus_rt_abi_version(void);

/* Run `spec_json` (a launch spec object; "module" names the module in
 * reports) with the module image `module` (PTX text, cubin or hsaco bytes;
 * the spec's "format" says which, or "auto"). `cuda_lib` / `hip_lib`, when
 * not NULL, replace the driver libraries tried (tests use a stand-in).
 * Returns the argus-run exit code: 0 ok, 6 result check failed (the run
 * happened), else the error kind (1 runtime, 2 spec, 3 no driver, 4 module,
 * 5 launch). `*report_json` receives the run report (code 0 or 6) or an
 * error object {"kind","message","path","pointer","log"}; free it with
 * argus_rt_free. */
int argus_rt_run(const char *spec_json, const void *module,
                 size_t module_bytes, const argus_rt_buffer *buffers,
                 size_t num_buffers, const char *cuda_lib, const char *hip_lib,
                 char **report_json);

void argus_rt_free(char *p);

#ifdef __cplusplus
}
#endif

#endif /* ARGUS_RUNTIME_CAPI_H */
