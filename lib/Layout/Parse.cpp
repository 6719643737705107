//===- Parse.cpp - CuTe notation parser -----------------------------------===//
#include "argus/Layout/Parse.h"

#include "llvm/ADT/Twine.h"

using namespace argus::layout;
using llvm::Expected;

void LayoutParser::skipSpace() {
  while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                               text[pos] == '\n' || text[pos] == '\r'))
    ++pos;
}

bool LayoutParser::consume(char c) {
  if (peek() != c)
    return false;
  ++pos;
  return true;
}

bool LayoutParser::consume(llvm::StringRef kw) {
  skipSpace();
  if (!text.substr(pos).starts_with(kw))
    return false;
  pos += kw.size();
  return true;
}

llvm::Error LayoutParser::errorAt(size_t at, const llvm::Twine &what) {
  std::string msg =
      "column " + std::to_string(at + 1) + ": expected " + what.str();
  if (at < text.size()) {
    unsigned char c = text[at];
    if (c >= 32 && c < 127)
      msg += std::string(", found '") + char(c) + "'";
    else
      msg += ", found a non-ASCII byte";
  } else {
    msg += ", found the end of the input";
  }
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

llvm::Error LayoutParser::messageAt(size_t at, const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "column " + std::to_string(at + 1) + ": " +
                                     msg.str());
}

llvm::Error LayoutParser::error(const llvm::Twine &what) {
  skipSpace();
  return errorAt(pos, what);
}

Expected<int64_t> LayoutParser::parseInt() {
  skipSpace();
  size_t start = pos;
  bool neg = false;
  if (pos < text.size() && text[pos] == '-') {
    neg = true;
    ++pos;
  }
  if (pos >= text.size() || !isdigit((unsigned char)text[pos])) {
    pos = start;
    return error("an integer");
  }
  int64_t v = 0;
  while (pos < text.size() && isdigit((unsigned char)text[pos])) {
    v = v * 10 + (text[pos] - '0');
    if (v > kMaxExtent)
      return errorAt(start, "an integer of magnitude at most 2^48");
    ++pos;
  }
  return neg ? -v : v;
}

namespace {
Expected<IntTuple> parseTupleRec(LayoutParser &p, int depth) {
  if (depth > 32)
    return p.error("at most 32 levels of nesting");
  if (!p.consume('(')) {
    int64_t v = 0;
    if (llvm::Error e = p.parseInt().moveInto(v))
      return std::move(e);
    return IntTuple(v);
  }
  std::vector<IntTuple> elems;
  while (true) {
    auto e = parseTupleRec(p, depth + 1);
    if (!e)
      return e.takeError();
    elems.push_back(std::move(*e));
    if (p.consume(','))
      continue;
    if (p.consume(')'))
      break;
    return p.error("',' or ')' in a tuple");
  }
  return IntTuple::tuple(std::move(elems));
}

bool allPositive(const IntTuple &t) {
  if (t.isInt())
    return t.value() >= 1;
  for (const IntTuple &e : t.elements())
    if (!allPositive(e))
      return false;
  return true;
}
} // namespace

Expected<IntTuple> LayoutParser::parseTuple() {
  return parseTupleRec(*this, 0);
}

Expected<Layout> LayoutParser::parseShapeStride() {
  skipSpace();
  size_t shapeAt = pos;
  if (peek() != '(' && peek() != '-' && !isdigit((unsigned char)peek()))
    return error("a layout SHAPE:STRIDE such as (4,2):(2,1)");
  auto shape = parseTuple();
  if (!shape)
    return shape.takeError();
  if (!allPositive(*shape))
    return errorAt(shapeAt, "a shape of positive integers");
  // Check the size without overflow.
  int64_t size = 1;
  for (int64_t s : shape->flatten())
    if (__builtin_mul_overflow(size, s, &size) || size > kMaxExtent)
      return errorAt(shapeAt, "a shape of size at most 2^48");
  if (!consume(':'))
    return Layout::compact(*shape);
  skipSpace();
  size_t strideAt = pos;
  auto stride = parseTuple();
  if (!stride)
    return stride.takeError();
  if (!shape->congruent(*stride))
    return messageAt(strideAt, "the stride " + stride->str() +
                                   " is not congruent with the shape " +
                                   shape->str());
  Layout l(*shape, *stride);
  int64_t cos = 1;
  for (auto [s, d] : l.flatModes()) {
    int64_t t;
    if (__builtin_mul_overflow(s - 1, d < 0 ? -d : d, &t) ||
        __builtin_add_overflow(cos, t, &cos) || cos > kMaxExtent)
      return errorAt(strideAt, "strides whose extent is at most 2^48");
  }
  return l;
}

Expected<Swizzle> LayoutParser::parseSwizzle() {
  skipSpace();
  size_t at = pos;
  if (!consume("Sw<"))
    return error("'Sw<'");
  int64_t v[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i) {
    if (i && !consume(','))
      return error("',' between swizzle parameters");
    if (llvm::Error e = parseInt().moveInto(v[i]))
      return std::move(e);
    if (v[i] > 64 || v[i] < -64)
      return errorAt(at, "swizzle parameters between -64 and 64");
  }
  if (!consume('>'))
    return error("'>' closing the swizzle");
  auto sw = Swizzle::get(int(v[0]), int(v[1]), int(v[2]));
  if (!sw)
    return messageAt(at, toString(sw.takeError()));
  return *sw;
}

Expected<SwizzledLayout> LayoutParser::parseSwizzled() {
  skipSpace();
  std::optional<Swizzle> sw;
  if (text.substr(pos).starts_with("Sw")) {
    auto s = parseSwizzle();
    if (!s)
      return s.takeError();
    sw = *s;
    if (!consume('o') && !consume("\xE2\x88\x98"))
      return error("'o' (composition) after the swizzle");
  }
  auto l = parseShapeStride();
  if (!l)
    return l.takeError();
  return SwizzledLayout(sw, std::move(*l));
}

Expected<SwizzledLayout> argus::layout::parseLayout(llvm::StringRef text) {
  LayoutParser p(text);
  auto r = p.parseSwizzled();
  if (!r)
    return r.takeError();
  if (!p.atEnd())
    return p.error("the end of the layout");
  return r;
}

Expected<Layout> argus::layout::parsePlainLayout(llvm::StringRef text) {
  LayoutParser p(text);
  auto r = p.parseShapeStride();
  if (!r)
    return r.takeError();
  if (!p.atEnd())
    return p.error("the end of the layout");
  return r;
}

Expected<IntTuple> argus::layout::parseIntTuple(llvm::StringRef text) {
  LayoutParser p(text);
  auto r = p.parseTuple();
  if (!r)
    return r.takeError();
  if (!p.atEnd())
    return p.error("the end of the tuple");
  return r;
}
