//===- TagPredicate.cpp - the language of tag assertions ------------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Grammar:
//   or     := and ('||' and)*
//   and    := not ('&&' not)*
//   not    := '!' not | cmp
//   cmp    := sum (('=='|'!='|'<'|'<='|'>'|'>=') sum)?
//   sum    := term (('+'|'-') term)*
//   term   := unary (('*'|'/'|'%') unary)*
//   unary  := '-' unary | primary
//   primary:= INT | IDENT ('.' IDENT)+ | '(' or ')'
//
//===----------------------------------------------------------------------===//

#include "argus/Dialect/TagPredicate.h"

#include "llvm/ADT/StringExtras.h"

#include <limits>

using namespace mlir::argus;
using Kind = TagExpr::Kind;

namespace {
class Parser {
public:
  Parser(llvm::StringRef text, std::string &error)
      : text(text), error(error) {}

  std::unique_ptr<TagExpr> parse() {
    auto e = parseOr();
    if (!e)
      return nullptr;
    skipSpace();
    if (pos != text.size())
      return fail("unexpected '" + text.substr(pos, 1).str() +
                  "'; expected an operator or the end of the predicate");
    return e;
  }

private:
  llvm::StringRef text;
  std::string &error;
  size_t pos = 0;
  unsigned depth = 0;

  std::unique_ptr<TagExpr> fail(const std::string &msg) {
    if (error.empty())
      error = "column " + std::to_string(pos + 1) + ": " + msg;
    return nullptr;
  }
  void skipSpace() {
    while (pos < text.size() && llvm::isSpace(text[pos]))
      ++pos;
  }
  bool consume(llvm::StringRef tok) {
    skipSpace();
    if (!text.substr(pos).starts_with(tok))
      return false;
    pos += tok.size();
    return true;
  }
  std::unique_ptr<TagExpr> make(Kind kind, unsigned column) {
    auto e = std::make_unique<TagExpr>();
    e->kind = kind;
    e->column = column;
    return e;
  }
  std::unique_ptr<TagExpr> binary(Kind kind, unsigned column,
                                  std::unique_ptr<TagExpr> l,
                                  std::unique_ptr<TagExpr> r) {
    auto e = make(kind, column);
    e->children.push_back(std::move(l));
    e->children.push_back(std::move(r));
    return e;
  }
  // Type discipline: arithmetic and comparison take integers, logic takes
  // conditions.
  bool expectInt(const TagExpr &e, llvm::StringRef what) {
    if (!e.isBoolean())
      return true;
    fail("the operand of " + what.str() + " at column " +
         std::to_string(e.column) + " is a condition, not an integer");
    return false;
  }
  bool expectBool(const TagExpr &e, llvm::StringRef what) {
    if (e.isBoolean())
      return true;
    fail("the operand of " + what.str() + " at column " +
         std::to_string(e.column) + " is an integer, not a condition");
    return false;
  }

  std::unique_ptr<TagExpr> parseOr() {
    auto l = parseAnd();
    while (l) {
      skipSpace();
      unsigned col = pos + 1;
      if (!consume("||"))
        break;
      auto r = parseAnd();
      if (!r || !expectBool(*l, "'||'") || !expectBool(*r, "'||'"))
        return nullptr;
      l = binary(Kind::Or, col, std::move(l), std::move(r));
    }
    return l;
  }
  std::unique_ptr<TagExpr> parseAnd() {
    auto l = parseNot();
    while (l) {
      skipSpace();
      unsigned col = pos + 1;
      if (!consume("&&"))
        break;
      auto r = parseNot();
      if (!r || !expectBool(*l, "'&&'") || !expectBool(*r, "'&&'"))
        return nullptr;
      l = binary(Kind::And, col, std::move(l), std::move(r));
    }
    return l;
  }
  std::unique_ptr<TagExpr> parseNot() {
    skipSpace();
    unsigned col = pos + 1;
    if (pos + 1 < text.size() && text[pos] == '!' && text[pos + 1] != '=') {
      ++pos;
      if (++depth > 200)
        return fail("predicate nests too deeply");
      auto e = parseNot();
      --depth;
      if (!e || !expectBool(*e, "'!'"))
        return nullptr;
      auto n = make(Kind::Not, col);
      n->children.push_back(std::move(e));
      return n;
    }
    return parseCmp();
  }
  std::unique_ptr<TagExpr> parseCmp() {
    auto l = parseSum();
    if (!l)
      return nullptr;
    skipSpace();
    unsigned col = pos + 1;
    static const std::pair<const char *, Kind> ops[] = {
        {"==", Kind::Eq}, {"!=", Kind::Ne}, {"<=", Kind::Le},
        {">=", Kind::Ge}, {"<", Kind::Lt},  {">", Kind::Gt}};
    for (auto [tok, kind] : ops) {
      if (!consume(tok))
        continue;
      auto r = parseSum();
      if (!r || !expectInt(*l, "a comparison") ||
          !expectInt(*r, "a comparison"))
        return nullptr;
      return binary(kind, col, std::move(l), std::move(r));
    }
    return l;
  }
  std::unique_ptr<TagExpr> parseSum() {
    auto l = parseTerm();
    while (l) {
      skipSpace();
      unsigned col = pos + 1;
      Kind kind;
      if (consume("+"))
        kind = Kind::Add;
      else if (pos < text.size() && text[pos] == '-' && consume("-"))
        kind = Kind::Sub;
      else
        break;
      auto r = parseTerm();
      if (!r || !expectInt(*l, "'+'/'-'") || !expectInt(*r, "'+'/'-'"))
        return nullptr;
      l = binary(kind, col, std::move(l), std::move(r));
    }
    return l;
  }
  std::unique_ptr<TagExpr> parseTerm() {
    auto l = parseUnary();
    while (l) {
      skipSpace();
      unsigned col = pos + 1;
      Kind kind;
      if (consume("*"))
        kind = Kind::Mul;
      else if (consume("/"))
        kind = Kind::Div;
      else if (consume("%"))
        kind = Kind::Rem;
      else
        break;
      auto r = parseUnary();
      if (!r || !expectInt(*l, "'*', '/' or '%'") ||
          !expectInt(*r, "'*', '/' or '%'"))
        return nullptr;
      l = binary(kind, col, std::move(l), std::move(r));
    }
    return l;
  }
  std::unique_ptr<TagExpr> parseUnary() {
    skipSpace();
    unsigned col = pos + 1;
    if (consume("-")) {
      if (++depth > 200)
        return fail("predicate nests too deeply");
      auto e = parseUnary();
      --depth;
      if (!e || !expectInt(*e, "unary '-'"))
        return nullptr;
      auto n = make(Kind::Neg, col);
      n->children.push_back(std::move(e));
      return n;
    }
    return parsePrimary();
  }
  std::string parseIdent() {
    size_t start = pos;
    if (pos < text.size() && (llvm::isAlpha(text[pos]) || text[pos] == '_'))
      while (pos < text.size() &&
             (llvm::isAlnum(text[pos]) || text[pos] == '_'))
        ++pos;
    return text.slice(start, pos).str();
  }
  std::unique_ptr<TagExpr> parsePrimary() {
    skipSpace();
    unsigned col = pos + 1;
    if (pos >= text.size())
      return fail("expected an integer, a tag reference such as 'a.k', or "
                  "'(' but the predicate ended");
    char c = text[pos];
    if (c == '(') {
      ++pos;
      if (++depth > 200)
        return fail("predicate nests too deeply");
      auto e = parseOr();
      --depth;
      if (!e)
        return nullptr;
      if (!consume(")"))
        return fail("expected ')' to close the '(' at column " +
                    std::to_string(col));
      return e;
    }
    if (llvm::isDigit(c)) {
      size_t start = pos;
      while (pos < text.size() && llvm::isDigit(text[pos]))
        ++pos;
      auto e = make(Kind::Const, col);
      if (text.slice(start, pos).getAsInteger(10, e->value) ||
          e->value > (int64_t(1) << 40)) {
        pos = start;
        return fail("integer literal is too large");
      }
      return e;
    }
    std::string operand = parseIdent();
    if (operand.empty())
      return fail("unexpected '" + std::string(1, c) +
                  "'; expected an integer, a tag reference such as 'a.k', "
                  "or '('");
    std::string field;
    while (pos < text.size() && text[pos] == '.') {
      ++pos;
      std::string part = parseIdent();
      if (part.empty())
        return fail("expected a field name after '.'");
      field += field.empty() ? part : "." + part;
    }
    if (field.empty())
      return fail("'" + operand +
                  "' is not a tag reference; hint: write operand.field, "
                  "e.g. 'a.k'");
    auto e = make(Kind::Ref, col);
    e->operand = operand;
    e->field = field;
    return e;
  }
};
} // namespace

std::unique_ptr<TagExpr> mlir::argus::parseTagPredicate(llvm::StringRef text,
                                                        std::string &error) {
  error.clear();
  return Parser(text, error).parse();
}

static const char *spelling(Kind kind) {
  switch (kind) {
  case Kind::Add:
    return "+";
  case Kind::Sub:
    return "-";
  case Kind::Mul:
    return "*";
  case Kind::Div:
    return "/";
  case Kind::Rem:
    return "%";
  case Kind::Eq:
    return "==";
  case Kind::Ne:
    return "!=";
  case Kind::Lt:
    return "<";
  case Kind::Le:
    return "<=";
  case Kind::Gt:
    return ">";
  case Kind::Ge:
    return ">=";
  case Kind::And:
    return "&&";
  case Kind::Or:
    return "||";
  default:
    return "?";
  }
}

std::string TagExpr::str() const {
  switch (kind) {
  case Kind::Const:
    return std::to_string(value);
  case Kind::Ref:
    return operand + "." + field;
  case Kind::Neg:
    return "-(" + children[0]->str() + ")";
  case Kind::Not:
    return "!(" + children[0]->str() + ")";
  default: {
    auto wrap = [&](const TagExpr &c) {
      bool atom = c.kind == Kind::Const || c.kind == Kind::Ref;
      return atom ? c.str() : "(" + c.str() + ")";
    };
    return wrap(*children[0]) + " " + spelling(kind) + " " +
           wrap(*children[1]);
  }
  }
}

void TagExpr::collectRefs(
    llvm::SmallVectorImpl<const TagExpr *> &refs) const {
  if (kind == Kind::Ref)
    refs.push_back(this);
  for (const auto &c : children)
    c->collectRefs(refs);
}
