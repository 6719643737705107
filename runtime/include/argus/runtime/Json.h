//===- Json.h - Minimal JSON value, parser and writer ---------------------===//
//
// A small self-contained JSON library for the argus runtime: objects keep
// insertion order, integers are kept exact (int64), parse errors carry
// line:column.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_RUNTIME_JSON_H
#define ARGUS_RUNTIME_JSON_H

#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace argus {
namespace rt {

class Json;
using JsonObject = std::vector<std::pair<std::string, Json>>;
using JsonArray = std::vector<Json>;

class JsonParseError : public std::runtime_error {
public:
  JsonParseError(const std::string &msg, size_t line, size_t col)
      : std::runtime_error(msg), line(line), col(col) {}
  size_t line, col;
};

class Json {
public:
  enum class Kind { Null, Bool, Int, Double, String, Array, Object };

  Json() = default;
  Json(std::nullptr_t) {}
  Json(bool b) : kind_(Kind::Bool), b_(b) {}
  Json(int v) : kind_(Kind::Int), i_(v) {}
  Json(unsigned v) : kind_(Kind::Int), i_(v) {}
  Json(long v) : kind_(Kind::Int), i_(v) {}
  Json(unsigned long v) : kind_(Kind::Int), i_(static_cast<int64_t>(v)) {}
  Json(long long v) : kind_(Kind::Int), i_(v) {}
  Json(unsigned long long v) : kind_(Kind::Int), i_(static_cast<int64_t>(v)) {}
  Json(double d) : kind_(Kind::Double), d_(d) {}
  Json(const char *s) : kind_(Kind::String), s_(s) {}
  Json(std::string s) : kind_(Kind::String), s_(std::move(s)) {}
  Json(JsonArray a) : kind_(Kind::Array), a_(std::move(a)) {}
  Json(JsonObject o) : kind_(Kind::Object), o_(std::move(o)) {}

  static Json object() { return Json(JsonObject{}); }
  static Json array() { return Json(JsonArray{}); }

  Kind kind() const { return kind_; }
  bool isNull() const { return kind_ == Kind::Null; }
  bool isBool() const { return kind_ == Kind::Bool; }
  bool isInt() const { return kind_ == Kind::Int; }
  bool isNumber() const { return kind_ == Kind::Int || kind_ == Kind::Double; }
  bool isString() const { return kind_ == Kind::String; }
  bool isArray() const { return kind_ == Kind::Array; }
  bool isObject() const { return kind_ == Kind::Object; }

  bool asBool() const { return b_; }
  int64_t asInt() const {
    return kind_ == Kind::Int ? i_ : static_cast<int64_t>(d_);
  }
  double asDouble() const {
    return kind_ == Kind::Int ? static_cast<double>(i_) : d_;
  }
  const std::string &asString() const { return s_; }
  const JsonArray &asArray() const { return a_; }
  JsonArray &asArray() { return a_; }
  const JsonObject &asObject() const { return o_; }
  JsonObject &asObject() { return o_; }

  /// Object lookup; nullptr when absent or not an object.
  const Json *find(const std::string &key) const;
  /// Object insert-or-assign (keeps position of an existing key).
  Json &set(const std::string &key, Json value);
  /// Object access, inserting null when absent (turns null into an object).
  Json &operator[](const std::string &key);
  /// Array append (turns null into an array).
  void push(Json value);
  size_t size() const;

  /// Serialise. indent < 0: compact single line.
  std::string dump(int indent = -1) const;

  static Json parse(const std::string &text);

private:
  void dumpTo(std::string &out, int indent, int depth) const;

  Kind kind_ = Kind::Null;
  bool b_ = false;
  int64_t i_ = 0;
  double d_ = 0;
  std::string s_;
  JsonArray a_;
  JsonObject o_;
};

/// Quote and escape a string as a JSON string literal.
std::string jsonQuote(const std::string &s);
/// Shortest decimal form that round-trips a double ("null" for NaN/inf).
std::string jsonNumber(double d);

} // namespace rt
} // namespace argus

#endif // ARGUS_RUNTIME_JSON_H
