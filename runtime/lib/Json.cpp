//===- Json.cpp - Minimal JSON value, parser and writer -------------------===//
#include "argus/runtime/Json.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace argus {
namespace rt {

const Json *Json::find(const std::string &key) const {
  if (kind_ != Kind::Object)
    return nullptr;
  for (const auto &kv : o_)
    if (kv.first == key)
      return &kv.second;
  return nullptr;
}

Json &Json::set(const std::string &key, Json value) {
  if (kind_ == Kind::Null)
    kind_ = Kind::Object;
  for (auto &kv : o_)
    if (kv.first == key) {
      kv.second = std::move(value);
      return kv.second;
    }
  o_.emplace_back(key, std::move(value));
  return o_.back().second;
}

Json &Json::operator[](const std::string &key) {
  if (kind_ == Kind::Null)
    kind_ = Kind::Object;
  for (auto &kv : o_)
    if (kv.first == key)
      return kv.second;
  o_.emplace_back(key, Json());
  return o_.back().second;
}

void Json::push(Json value) {
  if (kind_ == Kind::Null)
    kind_ = Kind::Array;
  a_.push_back(std::move(value));
}

size_t Json::size() const {
  if (kind_ == Kind::Array)
    return a_.size();
  if (kind_ == Kind::Object)
    return o_.size();
  return 0;
}

std::string jsonQuote(const std::string &s) {
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  for (unsigned char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\b':
      out += "\\b";
      break;
    case '\f':
      out += "\\f";
      break;
    default:
      if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\u%04x", c);
        out += buf;
      } else {
        out.push_back(static_cast<char>(c));
      }
    }
  }
  out.push_back('"');
  return out;
}

std::string jsonNumber(double d) {
  if (!std::isfinite(d))
    return "null";
  if (d == std::floor(d) && std::fabs(d) < 9.007199254740992e15) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.0f", d);
    if (std::strcmp(buf, "-0") == 0)
      return "0";
    return buf;
  }
  char buf[40];
  for (int prec = 15; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof(buf), "%.*g", prec, d);
    if (std::strtod(buf, nullptr) == d)
      break;
  }
  return buf;
}

static void newline(std::string &out, int indent, int depth) {
  if (indent < 0)
    return;
  out.push_back('\n');
  out.append(static_cast<size_t>(indent * depth), ' ');
}

void Json::dumpTo(std::string &out, int indent, int depth) const {
  switch (kind_) {
  case Kind::Null:
    out += "null";
    return;
  case Kind::Bool:
    out += b_ ? "true" : "false";
    return;
  case Kind::Int:
    out += std::to_string(i_);
    return;
  case Kind::Double:
    out += jsonNumber(d_);
    return;
  case Kind::String:
    out += jsonQuote(s_);
    return;
  case Kind::Array: {
    if (a_.empty()) {
      out += "[]";
      return;
    }
    // Arrays of scalars stay on one line to keep reports readable.
    bool flat = true;
    for (const auto &v : a_)
      if (v.isArray() || v.isObject()) {
        flat = false;
        break;
      }
    out.push_back('[');
    for (size_t i = 0; i < a_.size(); ++i) {
      if (i)
        out += indent >= 0 && flat ? ", " : ",";
      if (!flat)
        newline(out, indent, depth + 1);
      a_[i].dumpTo(out, indent, depth + 1);
    }
    if (!flat)
      newline(out, indent, depth);
    out.push_back(']');
    return;
  }
  case Kind::Object: {
    if (o_.empty()) {
      out += "{}";
      return;
    }
    out.push_back('{');
    for (size_t i = 0; i < o_.size(); ++i) {
      if (i)
        out.push_back(',');
      newline(out, indent, depth + 1);
      out += jsonQuote(o_[i].first);
      out += indent >= 0 ? ": " : ":";
      o_[i].second.dumpTo(out, indent, depth + 1);
    }
    newline(out, indent, depth);
    out.push_back('}');
    return;
  }
  }
}

std::string Json::dump(int indent) const {
  std::string out;
  dumpTo(out, indent, 0);
  return out;
}

namespace {
class Parser {
public:
  explicit Parser(const std::string &t) : t_(t) {}

  Json parseDocument() {
    skipWs();
    Json v = parseValue(0);
    skipWs();
    if (p_ != t_.size())
      fail("unexpected trailing characters");
    return v;
  }

private:
  [[noreturn]] void fail(const std::string &msg) {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < p_ && i < t_.size(); ++i) {
      if (t_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw JsonParseError("JSON parse error at line " + std::to_string(line) +
                             ", column " + std::to_string(col) + ": " + msg,
                         line, col);
  }

  void skipWs() {
    while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\t' ||
                              t_[p_] == '\n' || t_[p_] == '\r'))
      ++p_;
  }

  bool consume(const char *lit) {
    size_t n = std::strlen(lit);
    if (t_.compare(p_, n, lit) == 0) {
      p_ += n;
      return true;
    }
    return false;
  }

  Json parseValue(int depth) {
    if (depth > 256)
      fail("nesting too deep");
    if (p_ >= t_.size())
      fail("unexpected end of input");
    char c = t_[p_];
    if (c == '{')
      return parseObject(depth);
    if (c == '[')
      return parseArray(depth);
    if (c == '"')
      return Json(parseString());
    if (c == '-' || (c >= '0' && c <= '9'))
      return parseNumber();
    if (consume("true"))
      return Json(true);
    if (consume("false"))
      return Json(false);
    if (consume("null"))
      return Json();
    fail(std::string("unexpected character '") + c + "'");
  }

  Json parseObject(int depth) {
    ++p_; // {
    Json obj = Json::object();
    skipWs();
    if (p_ < t_.size() && t_[p_] == '}') {
      ++p_;
      return obj;
    }
    while (true) {
      skipWs();
      if (p_ >= t_.size() || t_[p_] != '"')
        fail("expected string key");
      std::string key = parseString();
      skipWs();
      if (p_ >= t_.size() || t_[p_] != ':')
        fail("expected ':'");
      ++p_;
      skipWs();
      Json v = parseValue(depth + 1);
      if (obj.find(key))
        fail("duplicate key '" + key + "'");
      obj.asObject().emplace_back(std::move(key), std::move(v));
      skipWs();
      if (p_ < t_.size() && t_[p_] == ',') {
        ++p_;
        continue;
      }
      if (p_ < t_.size() && t_[p_] == '}') {
        ++p_;
        return obj;
      }
      fail("expected ',' or '}'");
    }
  }

  Json parseArray(int depth) {
    ++p_; // [
    Json arr = Json::array();
    skipWs();
    if (p_ < t_.size() && t_[p_] == ']') {
      ++p_;
      return arr;
    }
    while (true) {
      skipWs();
      arr.push(parseValue(depth + 1));
      skipWs();
      if (p_ < t_.size() && t_[p_] == ',') {
        ++p_;
        continue;
      }
      if (p_ < t_.size() && t_[p_] == ']') {
        ++p_;
        return arr;
      }
      fail("expected ',' or ']'");
    }
  }

  static void appendUtf8(std::string &out, uint32_t cp) {
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  uint32_t parseHex4() {
    if (p_ + 4 > t_.size())
      fail("truncated \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = t_[p_++];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= static_cast<uint32_t>(c - 'A' + 10);
      else
        fail("bad hex digit in \\u escape");
    }
    return v;
  }

  std::string parseString() {
    ++p_; // opening quote
    std::string out;
    while (true) {
      if (p_ >= t_.size())
        fail("unterminated string");
      char c = t_[p_++];
      if (c == '"')
        return out;
      if (static_cast<unsigned char>(c) < 0x20)
        fail("control character in string");
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (p_ >= t_.size())
        fail("unterminated escape");
      char e = t_[p_++];
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out.push_back(e);
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'u': {
        uint32_t cp = parseHex4();
        if (cp >= 0xD800 && cp < 0xDC00 && p_ + 1 < t_.size() &&
            t_[p_] == '\\' && t_[p_ + 1] == 'u') {
          p_ += 2;
          uint32_t lo = parseHex4();
          if (lo >= 0xDC00 && lo < 0xE000)
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        appendUtf8(out, cp);
        break;
      }
      default:
        fail(std::string("bad escape '\\") + e + "'");
      }
    }
  }

  Json parseNumber() {
    size_t start = p_;
    bool isInt = true;
    if (t_[p_] == '-')
      ++p_;
    if (p_ >= t_.size() || !(t_[p_] >= '0' && t_[p_] <= '9'))
      fail("bad number");
    while (p_ < t_.size() && t_[p_] >= '0' && t_[p_] <= '9')
      ++p_;
    if (p_ < t_.size() && t_[p_] == '.') {
      isInt = false;
      ++p_;
      if (p_ >= t_.size() || !(t_[p_] >= '0' && t_[p_] <= '9'))
        fail("bad number: digit expected after '.'");
      while (p_ < t_.size() && t_[p_] >= '0' && t_[p_] <= '9')
        ++p_;
    }
    if (p_ < t_.size() && (t_[p_] == 'e' || t_[p_] == 'E')) {
      isInt = false;
      ++p_;
      if (p_ < t_.size() && (t_[p_] == '+' || t_[p_] == '-'))
        ++p_;
      if (p_ >= t_.size() || !(t_[p_] >= '0' && t_[p_] <= '9'))
        fail("bad number: digit expected in exponent");
      while (p_ < t_.size() && t_[p_] >= '0' && t_[p_] <= '9')
        ++p_;
    }
    std::string s = t_.substr(start, p_ - start);
    if (isInt) {
      errno = 0;
      char *end = nullptr;
      long long v = std::strtoll(s.c_str(), &end, 10);
      if (errno == 0)
        return Json(static_cast<int64_t>(v));
    }
    return Json(std::strtod(s.c_str(), nullptr));
  }

  const std::string &t_;
  size_t p_ = 0;
};
} // namespace

Json Json::parse(const std::string &text) {
  Parser p(text);
  return p.parseDocument();
}

} // namespace rt
} // namespace argus
