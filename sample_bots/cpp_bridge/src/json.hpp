// A small JSON reader: enough for the bridge's lines, with no library to vendor.
//
// It parses one complete JSON text into a tree of `Value`s and says where it
// stopped when the text is not JSON. Numbers are kept as doubles and, when
// they are whole and fit, as exact 64-bit integers too, so that a
// `request_id` is echoed exactly. Strings are decoded (escapes, \u, surrogate
// pairs) to UTF-8. Nesting is capped, so a hostile line cannot overflow the stack.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace json {

/// A line that is not JSON: `what()` says what and at which byte.
class ParseError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class Value {
  public:
    enum class Type { Null, Bool, Number, String, Array, Object };

    Type type = Type::Null;
    bool boolean = false;
    double number = 0;
    bool exact = false;      ///< `integer` holds the number exactly (a whole number that fits)
    uint64_t integer = 0;
    std::string text;
    std::vector<Value> items;
    std::map<std::string, Value> fields;

    /// The field `name` of an object, or a null Value (for anything else, or a missing field).
    const Value& operator[](const std::string& name) const;
    /// Item `i` of an array, or a null Value.
    const Value& operator[](size_t i) const;

    bool is_null() const { return type == Type::Null; }
    /// The value as a count or face: a whole number >= 0, else `fallback`.
    uint32_t as_uint(uint32_t fallback = 0) const;
    bool as_bool(bool fallback = false) const { return type == Type::Bool ? boolean : fallback; }
    const std::string& as_string() const { return text; }
    /// An array of whole numbers (anything else in it read as 0).
    std::vector<uint32_t> as_uints() const;
};

/// Parses one JSON text (surrounding white space allowed, nothing else after it).
Value parse(const std::string& text);

}  // namespace json
