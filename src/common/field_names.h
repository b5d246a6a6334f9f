// Lists of members written once, by name. Where a JSON key, or the member
// copied from, has the member's own name, writing it twice
// (`visit("key", row.key)`, `out.key = in.key`) is a chance for the two to
// drift apart; these macros take each name once and spell both uses from it:
//
//   IMAGELINT_VISIT_FIELDS(visit, row, a, b)  ->  visit("a", row.a); visit("b", row.b);
//   IMAGELINT_COPY_FIELDS(to, from, a, b)     ->  to.a = from.a; to.b = from.b;
//
// The order of the list is kept. A member whose key is another word (a C++
// keyword such as `class`) is written out by hand beside the list.
#pragma once

// Each is one statement, used with a semicolon as any other.
#define IMAGELINT_VISIT_FIELDS(visit, row, ...)                          \
  do {                                                                   \
    IMAGELINT_FOR_EACH(IMAGELINT_VISIT_FIELD, visit, row, __VA_ARGS__) \
  } while (false)
#define IMAGELINT_COPY_FIELDS(to, from, ...)                           \
  do {                                                                 \
    IMAGELINT_FOR_EACH(IMAGELINT_COPY_FIELD, to, from, __VA_ARGS__) \
  } while (false)

#define IMAGELINT_VISIT_FIELD(visit, row, member) visit(#member, row.member);
#define IMAGELINT_COPY_FIELD(to, from, member) to.member = from.member;

// macro(first, second, name) for each name.
#define IMAGELINT_FOR_EACH(macro, first, second, ...) \
  __VA_OPT__(IMAGELINT_EXPAND(IMAGELINT_FOR_EACH_STEP(macro, first, second, __VA_ARGS__)))

// The machinery: a macro cannot call itself, so each step only names the
// next one (IMAGELINT_FOR_EACH_AGAIN, not yet followed by its parentheses) and
// the nested rescans of IMAGELINT_EXPAND call it. They reach far more names
// than any list here has (26 at the most); past them a step would be left
// unexpanded, a compile error, not a silently shorter list.
#define IMAGELINT_FOR_EACH_STEP(macro, first, second, name, ...) \
  macro(first, second, name) __VA_OPT__(IMAGELINT_FOR_EACH_AGAIN IMAGELINT_PARENS(macro, first, second, __VA_ARGS__))
#define IMAGELINT_FOR_EACH_AGAIN() IMAGELINT_FOR_EACH_STEP
#define IMAGELINT_PARENS ()
#define IMAGELINT_EXPAND(...) IMAGELINT_EXPAND16(IMAGELINT_EXPAND16(IMAGELINT_EXPAND16(IMAGELINT_EXPAND16(__VA_ARGS__))))
#define IMAGELINT_EXPAND16(...) IMAGELINT_EXPAND4(IMAGELINT_EXPAND4(IMAGELINT_EXPAND4(IMAGELINT_EXPAND4(__VA_ARGS__))))
#define IMAGELINT_EXPAND4(...) IMAGELINT_EXPAND1(IMAGELINT_EXPAND1(IMAGELINT_EXPAND1(IMAGELINT_EXPAND1(__VA_ARGS__))))
#define IMAGELINT_EXPAND1(...) __VA_ARGS__
