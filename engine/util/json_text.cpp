// SPDX-License-Identifier: Apache-2.0
#include "util/json_text.h"

#include "util/error.h"

#include <algorithm>
#include <memory>
#include <new>
#include <unordered_set>
#include <vector>

namespace ios::util {

namespace {

// Finds the first place where brackets outside strings nest deeper than kMaxJsonDepth.
// Linear and non-recursive, so a 200 000-deep document costs one pass and no stack.
void checkNesting(std::string_view text, const std::string& source) {
    int depth = 0;
    bool inString = false;
    bool escaped = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char ch = text[i];
        if (inString) {
            if (escaped)
                escaped = false;
            else if (ch == '\\')
                escaped = true;
            else if (ch == '"')
                inString = false;
            continue;
        }
        if (ch == '"') {
            inString = true;
        } else if (ch == '[' || ch == '{') {
            if (++depth > kMaxJsonDepth)
                throw UserError("JSON nests deeper than " + std::to_string(kMaxJsonDepth) +
                                    " levels (at byte " + std::to_string(i) + ")",
                                source);
        } else if ((ch == ']' || ch == '}') && depth > 0) {
            --depth; // unbalanced closers are left to the parser to report
        }
    }
}

// Bytes outside printable ASCII become \xNN so a message stays one printable line.
std::string printable(std::string_view text) {
    std::string out;
    for (const char c : text) {
        const auto ch = static_cast<unsigned char>(c);
        if (ch >= 0x20 && ch < 0x7f) {
            out += static_cast<char>(ch);
        } else {
            constexpr const char* kHex = "0123456789abcdef";
            out += {'\\', 'x', kHex[ch >> 4], kHex[ch & 15]};
        }
    }
    return out;
}

// nlohmann prefixes its messages with "[json.exception.parse_error.101] ", which users need not
// see, and quotes the offending bytes raw.
std::string userMessage(const std::string& what) {
    const size_t close = what.find("] ");
    const size_t start =
        what.rfind("[json.exception.", 0) == 0 && close != std::string::npos ? close + 2 : 0;
    return printable(std::string_view(what).substr(start));
}

// Empties `value` bottom-up: every container is cleared only once its children are empty
// scalars, so nlohmann's destructor (which allocates a stack for non-empty containers) never
// allocates. Recursion is bounded by kMaxJsonDepth (checked before parsing).
void releaseTree(Json& value) noexcept {
    if (value.is_array()) {
        auto& items = value.get_ref<Json::array_t&>();
        for (Json& item : items)
            releaseTree(item);
        items.clear();
    } else if (value.is_object()) {
        auto& members = value.get_ref<Json::object_t&>();
        for (auto& member : members)
            releaseTree(member.second);
        members.clear();
    }
}

// Builds the document from nlohmann's SAX events in time linear in the input. An object's
// members are staged in a vector of (string, Json) pairs, whose moves cannot throw, and moved
// into the ordered_map once, at its end, with its size known (the map's own insert searches it,
// quadratic in the keys; and growing a vector of pair<const string, Json> copies whole
// subtrees, whose destruction can allocate while unwinding). Duplicate keys are found with a
// hash set of member indices once an object has many. The estimated size of the DOM is
// counted and held under kJsonMemoryFactor x the text size.
class DomBuilder {
public:
    DomBuilder(size_t textBytes, const std::string& source)
        : budget_(kJsonMemoryFactor * textBytes + kJsonMemoryBase), source_(source) {}
    DomBuilder(const DomBuilder&) = delete;
    DomBuilder& operator=(const DomBuilder&) = delete;
    ~DomBuilder() { discard(); } // a partial document, after an error

    Json take() { return std::move(root_); }
    // Frees the partial document without allocating.
    void discard() noexcept {
        for (Frame& f : stack_)
            if (f.object)
                for (Member& m : f.object->members)
                    releaseTree(m.second);
        stack_.clear();
        releaseJson(root_);
    }
    const std::string& error() const { return error_; }

    bool null() { return add(Json(nullptr), 0); }
    bool boolean(bool v) { return add(Json(v), 0); }
    bool number_integer(Json::number_integer_t v) { return add(Json(v), 0); }
    bool number_unsigned(Json::number_unsigned_t v) { return add(Json(v), 0); }
    bool number_float(Json::number_float_t v, const Json::string_t&) { return add(Json(v), 0); }
    bool string(Json::string_t& v) {
        const size_t extra = kHeapString + (v.size() > 15 ? v.size() + 17 : 0);
        return add(Json(std::move(v)), extra);
    }
    bool binary(Json::binary_t&) { return fail("binary values are not JSON"); }
    bool start_object(size_t) {
        charge(2 * kValueSlot + kHeapContainer);
        auto staged = std::make_unique<Staged>();
        Json* value = place(Json::object());
        stack_.push_back(Frame{value, std::move(staged)});
        return true;
    }
    bool start_array(size_t) {
        charge(2 * kValueSlot + kHeapContainer);
        Json* value = place(Json::array());
        stack_.push_back(Frame{value, nullptr});
        return true;
    }
    bool end_object() {
        Frame& f = stack_.back();
        std::vector<Member>& staged = f.object->members;
        auto& members = f.value->get_ref<Json::object_t&>();
        members.reserve(staged.size()); // the only allocation: nothing is lost if it fails
        for (Member& m : staged)
            members.Members::emplace_back(std::move(m.first), std::move(m.second));
        staged.clear();
        stack_.pop_back();
        return true;
    }
    bool end_array() {
        stack_.pop_back();
        return true;
    }
    bool key(Json::string_t& k) {
        // Staged, then in the map (3 slots at the peak), plus a long key's heap block.
        charge(3 * kMemberSlot + (k.size() > 15 ? k.size() + 17 : 0));
        Staged& o = *stack_.back().object;
        for (size_t i = 0; !o.keys && i < o.members.size(); ++i)
            if (o.members[i].first == k)
                return duplicate(k);
        o.members.emplace_back(std::move(k), nullptr);
        const size_t index = o.members.size() - 1;
        if (!o.keys && o.members.size() > kLinearKeys) {
            o.keys = std::make_unique<KeySet>(0, KeyHash{&o.members}, KeyEqual{&o.members});
            for (size_t i = 0; i < o.members.size(); ++i)
                o.keys->insert(i);
        } else if (o.keys && !o.keys->insert(index).second) {
            return duplicate(o.members[index].first);
        }
        return true;
    }
    bool parse_error(size_t, const std::string&, const nlohmann::detail::exception& e) {
        return fail("not valid JSON: " + userMessage(e.what()));
    }

private:
    // The ordered_map's vector (its emplace_back appends without searching).
    using Members = Json::object_t::Container;
    using Member = std::pair<std::string, Json>;
    static constexpr size_t kLinearKeys = 16;
    static constexpr size_t kValueSlot = 16;  // sizeof(Json), doubled for vector growth
    static constexpr size_t kMemberSlot = 48; // a key string and its value
    static constexpr size_t kHeapString = 48; // the string object nlohmann allocates
    static constexpr size_t kHeapContainer = 40;

    struct KeyHash {
        const std::vector<Member>* members;
        size_t operator()(size_t i) const {
            return std::hash<std::string_view>{}((*members)[i].first);
        }
    };
    struct KeyEqual {
        const std::vector<Member>* members;
        bool operator()(size_t a, size_t b) const {
            return (*members)[a].first == (*members)[b].first;
        }
    };
    using KeySet = std::unordered_set<size_t, KeyHash, KeyEqual>;

    // An open object's members (heap-held, so the key set's pointer survives stack growth).
    struct Staged {
        std::vector<Member> members;
        std::unique_ptr<KeySet> keys;
    };
    struct Frame {
        Json* value;                    // the container in the document
        std::unique_ptr<Staged> object; // objects only
    };

    void charge(size_t bytes) {
        used_ += bytes;
        if (used_ > budget_)
            throw UserError("the JSON document would need more than " +
                                std::to_string(kJsonMemoryFactor) +
                                " times its size in memory (many tiny values); give a smaller file",
                            source_);
    }

    // Places `value` where the grammar puts it; returns the stored value.
    Json* place(Json&& value) {
        if (stack_.empty()) {
            root_ = std::move(value);
            return &root_;
        }
        Frame& f = stack_.back();
        if (f.object) {
            Json& slot = f.object->members.back().second;
            slot = std::move(value);
            return &slot;
        }
        auto& items = f.value->get_ref<Json::array_t&>();
        items.push_back(std::move(value));
        return &items.back();
    }

    bool add(Json&& value, size_t extra) {
        charge(2 * kValueSlot + extra);
        place(std::move(value));
        return true;
    }

    bool duplicate(const std::string& key) {
        const std::string shown = key.size() > 80 ? key.substr(0, 80) + "..." : key;
        return fail("duplicate key '" + printable(shown) +
                    "' in a JSON object; each key may appear once, remove the other");
    }

    bool fail(std::string message) {
        error_ = std::move(message);
        return false;
    }

    size_t budget_;
    size_t used_ = 0;
    const std::string& source_;
    Json root_;
    std::vector<Frame> stack_;
    std::string error_;
};

} // namespace

void releaseJson(Json& value) noexcept {
    releaseTree(value);
    value = nullptr;
}

JsonDocument::~JsonDocument() {
    releaseJson(root_);
}

Json parseJsonText(std::string_view text, const std::string& source) {
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
        throw UserError("the file is empty", source);
    checkNesting(text, source);
    DomBuilder builder(text.size(), source);
    try {
        if (!Json::sax_parse(text.begin(), text.end(), &builder, Json::input_format_t::json,
                             /*strict=*/true, /*ignore_comments=*/false))
            throw UserError(builder.error(), source);
    } catch (const std::bad_alloc&) {
        builder.discard(); // give the memory back before composing the message
        throw UserError("not enough memory to parse the JSON file (" +
                            std::to_string(text.size() >> 20) +
                            " MiB); free memory or give a smaller file",
                        source);
    }
    return builder.take();
}

JsonDocument parseJsonDocument(std::string_view text, const std::string& source) {
    return JsonDocument(parseJsonText(text, source));
}

std::string jsonErrorText(const std::exception& e) {
    return userMessage(e.what());
}

void refuseUnknownFields(const Json& object, std::initializer_list<std::string_view> known,
                         const std::string& where, const std::string& source) {
    for (const auto& member : object.items()) {
        if (std::find(known.begin(), known.end(), member.key()) != known.end())
            continue;
        std::string list;
        for (const std::string_view k : known)
            list += (list.empty() ? "" : ", ") + std::string(k);
        const std::string& key = member.key();
        throw UserError("unknown field '" +
                            printable(key.size() > 80 ? key.substr(0, 80) + "..." : key) + "' in " +
                            where + " (known: " + list + "); remove it or fix its name",
                        source);
    }
}

std::string dumpPythonStyle(const Json& value) {
    try {
        return value.dump(1, ' ', /*ensure_ascii=*/true, Json::error_handler_t::strict);
    } catch (const Json::exception& e) {
        throw UserError("cannot write JSON: " + userMessage(e.what()));
    }
}

} // namespace ios::util
