#include "json.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdlib>

namespace json {

namespace {

const Value kNull{};
constexpr int kMaxDepth = 64;

class Parser {
  public:
    explicit Parser(const std::string& text) : s_(text) {}

    Value document() {
        Value v = value(0);
        space();
        if (i_ != s_.size()) fail("text after the JSON value");
        return v;
    }

  private:
    const std::string& s_;
    size_t i_ = 0;

    [[noreturn]] void fail(const std::string& what) const {
        throw ParseError(what + " at byte " + std::to_string(i_));
    }

    void space() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
    }

    char peek() {
        space();
        if (i_ >= s_.size()) fail("unexpected end of line");
        return s_[i_];
    }

    void expect(char c) {
        if (peek() != c) fail(std::string("expected '") + c + "'");
        ++i_;
    }

    void word(const char* w) {
        for (const char* p = w; *p; ++p, ++i_) {
            if (i_ >= s_.size() || s_[i_] != *p) fail(std::string("expected ") + w);
        }
    }

    Value value(int depth) {
        if (depth > kMaxDepth) fail("nested too deep");
        Value v;
        switch (peek()) {
            case '{':
                v.type = Value::Type::Object;
                ++i_;
                if (peek() == '}') { ++i_; return v; }
                for (;;) {
                    if (peek() != '"') fail("expected a field name");
                    std::string name = string();
                    expect(':');
                    v.fields[name] = value(depth + 1);
                    if (peek() == ',') { ++i_; continue; }
                    expect('}');
                    return v;
                }
            case '[':
                v.type = Value::Type::Array;
                ++i_;
                if (peek() == ']') { ++i_; return v; }
                for (;;) {
                    v.items.push_back(value(depth + 1));
                    if (peek() == ',') { ++i_; continue; }
                    expect(']');
                    return v;
                }
            case '"':
                v.type = Value::Type::String;
                v.text = string();
                return v;
            case 't': word("true"); v.type = Value::Type::Bool; v.boolean = true; return v;
            case 'f': word("false"); v.type = Value::Type::Bool; return v;
            case 'n': word("null"); return v;
            default: return number();
        }
    }

    Value number() {
        size_t start = i_;
        if (s_[i_] != '-' && (s_[i_] < '0' || s_[i_] > '9')) fail("not a JSON value");
        if (s_[i_] == '-') ++i_;
        bool whole = true;
        auto digits = [&] {
            size_t from = i_;
            while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
            if (i_ == from) fail("expected a digit");
        };
        digits();
        if (i_ < s_.size() && s_[i_] == '.') { ++i_; digits(); whole = false; }
        if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
            ++i_;
            if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
            digits();
            whole = false;
        }
        std::string literal = s_.substr(start, i_ - start);
        Value v;
        v.type = Value::Type::Number;
        v.number = std::strtod(literal.c_str(), nullptr);
        if (whole && literal[0] != '-' && literal.size() <= 20) {
            errno = 0;
            unsigned long long n = std::strtoull(literal.c_str(), nullptr, 10);
            if (errno == 0) { v.exact = true; v.integer = n; }
        }
        return v;
    }

    unsigned hex4() {
        if (i_ + 4 > s_.size()) fail("a short \\u escape");
        unsigned code = 0;
        for (int k = 0; k < 4; ++k) {
            char c = s_[i_++];
            code <<= 4;
            if (c >= '0' && c <= '9') code |= c - '0';
            else if (c >= 'a' && c <= 'f') code |= c - 'a' + 10;
            else if (c >= 'A' && c <= 'F') code |= c - 'A' + 10;
            else fail("a bad \\u escape");
        }
        return code;
    }

    static void utf8(std::string& out, unsigned code) {
        if (code < 0x80) {
            out += static_cast<char>(code);
        } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (code >> 18));
            out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        }
    }

    std::string string() {
        expect('"');
        std::string out;
        for (;;) {
            if (i_ >= s_.size()) fail("a string with no end");
            char c = s_[i_++];
            if (c == '"') return out;
            if (static_cast<unsigned char>(c) < 0x20) fail("a control character in a string");
            if (c != '\\') { out += c; continue; }
            if (i_ >= s_.size()) fail("a string with no end");
            switch (char e = s_[i_++]) {
                case '"': case '\\': case '/': out += e; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    unsigned code = hex4();
                    if (code >= 0xD800 && code < 0xDC00 && i_ + 6 <= s_.size() && s_[i_] == '\\' && s_[i_ + 1] == 'u') {
                        i_ += 2;
                        unsigned low = hex4();
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                    }
                    utf8(out, code);
                    break;
                }
                default: fail("a bad escape");
            }
        }
    }
};

}  // namespace

const Value& Value::operator[](const std::string& name) const {
    auto it = fields.find(name);
    return it == fields.end() ? kNull : it->second;
}

const Value& Value::operator[](size_t i) const { return i < items.size() ? items[i] : kNull; }

uint32_t Value::as_uint(uint32_t fallback) const {
    if (type != Type::Number || !exact || integer > UINT32_MAX) return fallback;
    return static_cast<uint32_t>(integer);
}

std::vector<uint32_t> Value::as_uints() const {
    std::vector<uint32_t> out;
    for (const Value& item : items) out.push_back(item.as_uint());
    return out;
}

Value parse(const std::string& text) { return Parser(text).document(); }

}  // namespace json
