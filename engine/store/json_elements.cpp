// SPDX-License-Identifier: Apache-2.0
#include "store/json_elements.h"

#include "util/error.h"

#include <fstream>
#include <vector>

namespace ios::store {

namespace {

class ElementSax {
public:
    ElementSax(std::string file, const JsonElementHandlers& handlers)
        : file_(std::move(file)), handlers_(handlers) {}

    bool null() { return put(util::Json(nullptr)); }
    bool boolean(bool v) { return put(util::Json(v)); }
    bool number_integer(util::Json::number_integer_t v) { return put(util::Json(v)); }
    bool number_unsigned(util::Json::number_unsigned_t v) { return put(util::Json(v)); }
    bool number_float(util::Json::number_float_t v, const std::string&) {
        return put(util::Json(v));
    }
    bool string(util::Json::string_t& v) { return put(util::Json(std::move(v))); }
    bool binary(util::Json::binary_t&) { return put(util::Json(nullptr)); }

    bool start_object(std::size_t) { return open(util::Json::object()); }
    bool end_object() { return close(); }
    bool key(util::Json::string_t& k) {
        Frame& top = stack_.back();
        if (top.value.contains(k))
            throw UserError("the key \"" + k + "\" appears twice in one object" + where(), file_);
        top.key = std::move(k);
        return true;
    }

    bool start_array(std::size_t) {
        if (stack_.size() == 1 && handlers_.streamed.count(stack_.front().key)) {
            streamedKey_ = stack_.front().key;
            index_ = 0;
            if (handlers_.arrayStart)
                handlers_.arrayStart(streamedKey_, stack_.front().value);
            stack_.push_back(Frame{util::Json::array(), {}, true});
            return true;
        }
        return open(util::Json::array());
    }
    bool end_array() { return close(); }

    bool parse_error(std::size_t position, const std::string& token,
                     const nlohmann::detail::exception& ex) {
        throw UserError("JSON syntax error at byte " + std::to_string(position) + " near '" +
                            token.substr(0, 40) + "' (" + util::jsonErrorText(ex) + ")",
                        file_);
    }

    util::Json takeRoot() {
        if (!rootSet_)
            throw UserError("the file holds no JSON document", file_);
        return std::move(root_);
    }

private:
    struct Frame {
        util::Json value;
        std::string key;       // objects: the key of the value being read
        bool streamed = false; // the streamed array: its elements go to the handler
    };

    std::string where() const {
        return streamedKey_.empty() || stack_.size() < 2 || !stack_[1].streamed
                   ? std::string()
                   : " (in " + streamedKey_ + "[" + std::to_string(index_) + "])";
    }

    bool open(util::Json value) {
        if (stack_.size() >= static_cast<size_t>(util::kMaxJsonDepth))
            throw UserError("JSON nested deeper than " + std::to_string(util::kMaxJsonDepth) +
                                " levels" + where(),
                            file_);
        if (stack_.empty() && !value.is_object())
            throw UserError("the document is not a JSON object", file_);
        stack_.push_back(Frame{std::move(value), {}, false});
        return true;
    }

    bool close() {
        Frame done = std::move(stack_.back());
        stack_.pop_back();
        if (done.streamed) {
            stack_.back().value[stack_.back().key] = index_;
            streamedKey_.clear();
            return true;
        }
        return put(std::move(done.value));
    }

    bool put(util::Json value) {
        if (stack_.empty()) {
            if (!value.is_object())
                throw UserError("the document is not a JSON object", file_);
            root_ = std::move(value);
            rootSet_ = true;
            return true;
        }
        Frame& top = stack_.back();
        if (top.streamed) {
            handlers_.element(streamedKey_, index_, value);
            ++index_;
        } else if (top.value.is_object()) {
            if (stack_.size() == 1 && handlers_.streamed.count(top.key))
                throw UserError("\"" + top.key + "\" must be an array", file_);
            top.value[top.key] = std::move(value);
        } else {
            top.value.push_back(std::move(value));
        }
        return true;
    }

    std::string file_;
    const JsonElementHandlers& handlers_;
    std::vector<Frame> stack_;
    util::Json root_;
    bool rootSet_ = false;
    std::string streamedKey_;
    size_t index_ = 0;
};

} // namespace

util::Json readJsonElements(const std::filesystem::path& file,
                            const JsonElementHandlers& handlers) {
    std::error_code ec;
    if (std::filesystem::is_directory(file, ec))
        throw UserError("is a directory, not a JSON file", file.string());
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw UserError("cannot be read (missing or no permission)", file.string());
    ElementSax sax(file.string(), handlers);
    util::Json::sax_parse(in, &sax, nlohmann::detail::input_format_t::json, true);
    if (in.bad())
        throw UserError("read error", file.string());
    return sax.takeRoot();
}

} // namespace ios::store
