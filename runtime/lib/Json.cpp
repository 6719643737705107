//===- Json.cpp - Project helpers over nlohmann::ordered_json -------------===//
#include "argus/runtime/Json.h"

#include <iterator>
#include <vector>

namespace argus {
namespace rt {

namespace {

constexpr size_t kMaxDepth = 256;

/// A char iterator that publishes how far the lexer has read: nlohmann
/// gives the SAX handler no position, and a duplicate key found there still
/// deserves a line and column.
class CountingIterator {
public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char *;
  using reference = const char &;

  CountingIterator(const char *p, const char **cursor)
      : p_(p), cursor_(cursor) {}
  reference operator*() const { return *p_; }
  CountingIterator &operator++() {
    ++p_;
    if (cursor_)
      *cursor_ = p_;
    return *this;
  }
  bool operator==(const CountingIterator &o) const { return p_ == o.p_; }
  bool operator!=(const CountingIterator &o) const { return p_ != o.p_; }

private:
  const char *p_;
  const char **cursor_;
};

struct ParseFailure {
  size_t offset; ///< index of the offending character
  std::string message;
};

/// Builds the document like nlohmann's own DOM parser, and also rejects
/// duplicate keys and nesting deeper than kMaxDepth.
class StrictDomBuilder : public nlohmann::json_sax<Json> {
public:
  StrictDomBuilder(const char *begin, const char *const *cursor)
      : begin_(begin), cursor_(cursor) {}

  Json root;
  bool failed = false;
  ParseFailure failure{0, ""};

  bool null() override { return put(nullptr); }
  bool boolean(bool v) override { return put(v); }
  bool number_integer(number_integer_t v) override { return put(v); }
  bool number_unsigned(number_unsigned_t v) override { return put(v); }
  bool number_float(number_float_t v, const string_t &) override {
    return put(v);
  }
  bool string(string_t &v) override { return put(std::move(v)); }
  bool binary(binary_t &v) override { return put(Json::binary(std::move(v))); }

  bool start_object(std::size_t) override {
    return open(Json::value_t::object);
  }
  bool key(string_t &k) override {
    Json &obj = *stack_.back();
    if (obj.contains(k))
      return fail("duplicate key '" + k + "'");
    key_ = std::move(k);
    return true;
  }
  bool end_object() override {
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override { return open(Json::value_t::array); }
  bool end_array() override {
    stack_.pop_back();
    return true;
  }

  bool parse_error(std::size_t byte, const std::string &,
                   const nlohmann::detail::exception &e) override {
    // "[json.exception.parse_error.101] parse error at line 1, column 4:
    // syntax error ..." -> "syntax error ..."; the position is ours.
    std::string what = e.what();
    size_t col = what.find("column ");
    size_t colon = col == std::string::npos ? col : what.find(": ", col);
    failed = true;
    failure.offset = byte > 0 ? byte - 1 : 0;
    failure.message =
        colon == std::string::npos ? what : what.substr(colon + 2);
    return false;
  }

private:
  bool fail(const std::string &msg) {
    failed = true;
    size_t read = static_cast<size_t>(*cursor_ - begin_);
    failure.offset = read > 0 ? read - 1 : 0;
    failure.message = msg;
    return false;
  }

  /// Stores a value where the parser is: the root, the next element of
  /// the innermost array or the member named by the last key.
  template <typename V> Json *place(V &&v) {
    if (stack_.empty()) {
      root = Json(std::forward<V>(v));
      return &root;
    }
    Json &top = *stack_.back();
    if (top.is_array()) {
      top.push_back(Json(std::forward<V>(v)));
      return &top.back();
    }
    Json &slot = top[key_];
    slot = Json(std::forward<V>(v));
    return &slot;
  }
  template <typename V> bool put(V &&v) {
    place(std::forward<V>(v));
    return true;
  }
  bool open(Json::value_t t) {
    if (stack_.size() >= kMaxDepth)
      return fail("nesting too deep");
    stack_.push_back(place(Json(t)));
    return true;
  }

  const char *begin_;
  const char *const *cursor_;
  std::vector<Json *> stack_; ///< open containers, innermost last
  std::string key_;
};

void lineAndColumn(const std::string &text, size_t offset, size_t &line,
                   size_t &col) {
  line = 1;
  col = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
}

bool isScalar(const Json &j) { return !j.is_array() && !j.is_object(); }

std::string dumpScalar(const Json &j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

void newline(std::string &out, int indent, int depth) {
  out.push_back('\n');
  out.append(static_cast<size_t>(indent) * depth, ' ');
}

void dumpIndented(std::string &out, const Json &j, int indent, int depth) {
  if (isScalar(j) || j.empty()) {
    out += dumpScalar(j);
    return;
  }
  if (j.is_array()) {
    bool flat = true;
    for (const Json &e : j)
      flat = flat && isScalar(e);
    out.push_back('[');
    bool first = true;
    for (const Json &e : j) {
      if (!first)
        out += flat ? ", " : ",";
      first = false;
      if (!flat)
        newline(out, indent, depth + 1);
      dumpIndented(out, e, indent, depth + 1);
    }
    if (!flat)
      newline(out, indent, depth);
    out.push_back(']');
    return;
  }
  out.push_back('{');
  bool first = true;
  for (const auto &kv : j.items()) {
    if (!first)
      out.push_back(',');
    first = false;
    newline(out, indent, depth + 1);
    out += dumpScalar(Json(kv.key()));
    out += ": ";
    dumpIndented(out, kv.value(), indent, depth + 1);
  }
  newline(out, indent, depth);
  out.push_back('}');
}

bool isPlainName(const std::string &k) {
  if (k.empty())
    return false;
  for (char c : k)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'))
      return false;
  return true;
}

} // namespace

Json parseJson(const std::string &text) {
  const char *begin = text.data();
  const char *cursor = begin;
  StrictDomBuilder dom(begin, &cursor);
  CountingIterator first(begin, &cursor), last(begin + text.size(), nullptr);
  bool ok = Json::sax_parse(first, last, &dom);
  if (!ok || dom.failed) {
    size_t line, col;
    lineAndColumn(text, dom.failure.offset, line, col);
    throw JsonParseError("JSON parse error at line " + std::to_string(line) +
                             ", column " + std::to_string(col) + ": " +
                             dom.failure.message,
                         line, col);
  }
  return std::move(dom.root);
}

std::string dumpJson(const Json &j, int indent) {
  if (indent < 0)
    return dumpScalar(j);
  std::string out;
  dumpIndented(out, j, indent, 0);
  return out;
}

const Json *findMember(const Json &obj, const std::string &key) {
  if (!obj.is_object())
    return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

std::string memberPath(const std::string &path, const std::string &key) {
  if (isPlainName(key))
    return path + "." + key;
  return path + "[" + dumpScalar(Json(key)) + "]";
}

std::string jsonPointerOf(const std::string &specPath) {
  Json::json_pointer ptr;
  size_t i = specPath.compare(0, 1, "$") == 0 ? 1 : 0;
  while (i < specPath.size()) {
    char c = specPath[i];
    if (c == '.') {
      size_t end = specPath.find_first_of(".[", i + 1);
      if (end == std::string::npos)
        end = specPath.size();
      ptr /= specPath.substr(i + 1, end - i - 1);
      i = end;
    } else if (c == '[' && i + 1 < specPath.size() && specPath[i + 1] == '"') {
      // A quoted member: its JSON string ends at the first unescaped quote.
      size_t end = i + 2;
      while (end < specPath.size() && specPath[end] != '"')
        end += specPath[end] == '\\' ? 2 : 1;
      std::string quoted = specPath.substr(i + 1, end - i);
      try {
        ptr /= Json::parse(quoted).get<std::string>();
      } catch (const Json::exception &) {
        ptr /= quoted;
      }
      i = end + 2; // past `"]`
    } else if (c == '[') {
      size_t end = specPath.find(']', i);
      if (end == std::string::npos)
        end = specPath.size();
      ptr /= specPath.substr(i + 1, end - i - 1);
      i = end + 1;
    } else {
      ++i; // not a spec path; keep what can be read
    }
  }
  return ptr.to_string();
}

} // namespace rt
} // namespace argus
