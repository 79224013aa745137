// User text in messages: what a person or a script typed (model names, paths, flag values, JSON
// keys) is echoed quoted, escaped and cut, so an error stays one readable line that cannot move
// the cursor, clear the screen or break a JSON consumer (reliability R15, R12).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace roofline::text {

/// Longest echo of user text, in output characters, before it is cut with "...".
inline constexpr std::size_t kEchoLimit = 80;

/// `s` between double quotes, escaped as C does: \" \\ \n \r \t, other control bytes and bytes
/// that are not UTF-8 as \xNN, C1 controls and bidirectional overrides as \uNNNN. Valid UTF-8
/// text is kept. Cut at about `limit` characters with "..." before the closing quote.
std::string quote(std::string_view s, std::size_t limit = kEchoLimit);

/// A list of names as MODEL,MODEL or --gpu A,B take it (plan, plot and compare alike): the items
/// at the commas; text without a comma is one item, perhaps empty. A list of two or more with an
/// empty item, or an item given twice as spelled, is a UsageError naming `where` (N22).
std::vector<std::string> split_names(const std::string& list, const std::string& where);

/// The same escaping without quotes, for a JSON pointer or a key inside a message.
std::string escape(std::string_view s, std::size_t limit = kEchoLimit);

/// A file path as the prefix of a message ("path: problem"): escaped as escape() does but not
/// quoted, and a path longer than 120 characters keeps its start and its end (the file name).
std::string display_path(std::string_view path);

/// A whole message made safe to print as one line: every control character (newlines
/// included) and every byte that is not UTF-8 escaped as quote() does, quotes and backslashes kept
/// as they are, and the message cut at 4 kB. The last line of defence before a message reaches
/// a terminal; text echoed from input should already have gone through quote().
std::string printable(std::string_view message);

/// True when `s` is valid UTF-8 (no overlong forms, no surrogates, at most U+10FFFF).
bool is_utf8(std::string_view s);

}  // namespace roofline::text
