//===- Json.h - The runtime's JSON type and its project helpers -----------===//
//
// JSON is nlohmann::ordered_json: objects keep insertion order (reports read
// in the order they are built) and integers stay exact int64/uint64. The
// helpers below add what argus-run needs on top: strict parsing with
// line:column errors, report-friendly output, member lookup by pointer and
// JSON pointers for spec paths.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_RUNTIME_JSON_H
#define ARGUS_RUNTIME_JSON_H

#include <nlohmann/json.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace argus {
namespace rt {

using Json = nlohmann::ordered_json;

class JsonParseError : public std::runtime_error {
public:
  JsonParseError(const std::string &msg, size_t line, size_t col)
      : std::runtime_error(msg), line(line), col(col) {}
  size_t line, col; ///< 1-based
};

/// Parse a whole document. Stricter than nlohmann's default: a key repeated
/// in one object is an error (a spec that says "warmup" twice is a mistake,
/// not "the last one wins") and nesting is limited to 256 levels. Throws
/// JsonParseError "JSON parse error at line L, column C: ...".
Json parseJson(const std::string &text);

/// Serialise. indent < 0: one line, as Json::dump(). Otherwise like
/// dump(indent), except that arrays of scalars stay on one line (timing
/// samples and timeline triples would otherwise take a line per number).
/// Invalid UTF-8 in strings (file names) becomes U+FFFD instead of throwing.
std::string dumpJson(const Json &j, int indent = -1);

/// The member `key` of an object; nullptr when absent or `obj` is not an
/// object (nlohmann's find returns an iterator, awkward for optional keys).
const Json *findMember(const Json &obj, const std::string &key);

/// The RFC 6901 JSON pointer ("/args/3/value") of a spec path as the runtime
/// writes them ("$.args[3].value", "$.probes.regions[\"a.b\"]"): "$" is the
/// root, ".name" and ["name"] members, [N] array elements.
std::string jsonPointerOf(const std::string &specPath);

/// The spec path of member `key` under `path`: ".key" for plain names,
/// ["key"] (a JSON string) for keys that would be ambiguous after a dot.
std::string memberPath(const std::string &path, const std::string &key);

} // namespace rt
} // namespace argus

#endif // ARGUS_RUNTIME_JSON_H
