//===- Error.h - Runtime error categories and exit codes ------------------===//
#ifndef ARGUS_RUNTIME_ERROR_H
#define ARGUS_RUNTIME_ERROR_H

#include <stdexcept>
#include <string>

namespace argus {
namespace rt {

/// Error categories; the numeric value is the argus-run exit code.
enum class ErrorKind : int {
  Runtime = 1,  ///< driver call failed, I/O error, anything else
  Spec = 2,     ///< bad launch spec (path names the field)
  NoDriver = 3, ///< no GPU driver library or no device
  Module = 4,   ///< module could not be loaded (JIT log attached)
  Launch = 5,   ///< bad launch dimensions / resources
  Check = 6,    ///< result check against the reference failed
};

const char *errorKindName(ErrorKind k);

class RuntimeError : public std::runtime_error {
public:
  RuntimeError(ErrorKind kind, const std::string &msg, std::string path = "",
               std::string log = "")
      : std::runtime_error(msg), kind(kind), path(std::move(path)),
        log(std::move(log)) {}
  ErrorKind kind;
  std::string path;    ///< JSON path of the offending spec field, if any
  std::string pointer; ///< the same place as an RFC 6901 JSON pointer
  std::string log;     ///< JIT / driver log, if any
};

} // namespace rt
} // namespace argus

#endif // ARGUS_RUNTIME_ERROR_H
