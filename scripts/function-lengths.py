#!/usr/bin/env python3
"""Lists C++ functions longer than N lines and source files longer than M lines (the `layout` test).

Usage: scripts/function-lengths.py [--root DIR] [--max-function-lines N] [--max-file-lines M]
                                   [--extensions .cpp,...] [--summary] FOLDER...

Functions are looked for in the .cpp files under each FOLDER (relative to --root, default: the repository);
file lengths are checked on .cpp and .hpp files. A function's length counts from its signature's first line
(`template <...>` included, comments before it not) to its closing brace. Each offender is printed as
`file:line: name: L lines (limit N)` (functions) or `file: L lines (limit M)` (files); the exit status is 1
when there is one, 0 otherwise (2 for a usage error). --summary adds a last line with the counts.

The scanner strips comments, string and character literals and preprocessor lines, then matches braces:
namespace, `extern "C"` and class bodies are searched for definitions, a brace after a function-like header
is a body (lambdas and local classes inside it belong to it), anything else (aggregate initialisers,
enums) is skipped. Constructor initialiser lists with braces (`a_{x}`) stay part of the signature.
Stdlib only, so it runs in every preset without a build.
"""
import argparse
import pathlib
import re
import sys

DEFAULT_FUNCTION_EXTENSIONS = (".cpp",)
DEFAULT_FILE_EXTENSIONS = (".cpp", ".hpp")
NOT_A_NAME = {"decltype", "alignas", "__attribute__", "noexcept", "requires", "sizeof", "alignof",
              "if", "for", "while", "switch", "catch", "return", "throw", "static_assert"}
IDENTIFIER_CHAR = re.compile(r"[A-Za-z0-9_]")


def strip_code(text):
    """Returns text with comments, literals and preprocessor lines blanked (newlines kept, same length)."""
    out = list(text)
    i, n = 0, len(text)
    at_line_start = True

    def blank(start, end):
        for k in range(start, end):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if c == "\n":
            at_line_start = True
            i += 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if at_line_start and c == "#":
            end = i
            while end < n and not (text[end] == "\n" and text[end - 1] != "\\"):
                end += 1
            blank(i, end)
            i = end
            continue
        at_line_start = False
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            blank(i, end)
            i = end
        elif c == '"' and raw_string_prefix(text, i):
            close = text.find("(", i)
            delimiter = ")" + text[i + 1:close] + '"'
            end = text.find(delimiter, close)
            end = n if end < 0 else end + len(delimiter)
            blank(i + 1, end - 1)
            i = end
        elif c == '"' or (c == "'" and not digit_separator(text, i)):
            end = i + 1
            while end < n and text[end] != c and text[end] != "\n":
                end += 2 if text[end] == "\\" else 1
            blank(i + 1, min(end, n))
            i = end + 1
        else:
            i += 1
    return "".join(out)


def raw_string_prefix(text, i):
    """True when the quote at i opens a raw string literal (R"delim(...)delim", with u8R, uR, UR, LR too)."""
    if i == 0 or text[i - 1] != "R":
        return False
    k = i - 1
    while k > 0 and IDENTIFIER_CHAR.match(text[k - 1]):
        k -= 1
    return text[k:i - 1] in ("", "u8", "u", "U", "L")


def digit_separator(text, i):
    """True when the apostrophe at i separates digits (1'000'000) rather than opening a character literal."""
    k = i - 1
    while k >= 0 and IDENTIFIER_CHAR.match(text[k]):
        k -= 1
    return k + 1 < i and text[k + 1].isdigit()


def matching_brace(code, open_at):
    """Index of the brace closing the one at open_at (len(code) when unbalanced)."""
    depth = 0
    for k in range(open_at, len(code)):
        if code[k] == "{":
            depth += 1
        elif code[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return len(code)


def strip_template_prefix(header):
    """header without leading `template <...>` clauses."""
    while True:
        match = re.match(r"\s*template\s*<", header)
        if not match:
            return header
        depth, k = 1, match.end()
        while k < len(header) and depth:
            depth += {"<": 1, ">": -1}.get(header[k], 0)
            k += 1
        header = header[k:]


def strip_access_labels(header):
    """header without leading `public:` / `private:` / `protected:` labels (class bodies)."""
    return re.sub(r"^\s*(?:(?:public|private|protected)\s*:(?!:)\s*)+", "", header)


def header_kind(header):
    """'namespace', 'class', 'function' or 'other' for the text before a top-level brace."""
    body = strip_template_prefix(strip_access_labels(header)).strip()
    if re.match(r"(?:inline\s+)?namespace\b", body) or re.match(r'extern\s*"\s*"$', body):
        return "namespace"
    if re.match(r"(?:typedef\s+)?(?:class|struct|union|enum)\b", body) and not re.search(r"\)\s*(?:const\s*)?$", body):
        return "class"
    if function_name(body) is None:
        return "other"
    return "function"


def function_name(header):
    """The name of the function a header declares (qualified, operators kept), or None when it is no function.

    It is the identifier before the first parenthesis outside template brackets that is not a keyword's
    (`decltype(...)`, `alignas(...)`); a `=` outside parentheses and brackets (an initialised variable, a
    namespace-scope lambda) means it is no function, unless it belongs to an operator's name."""
    paren = angle = 0
    k = 0
    while k < len(header):
        c = header[k]
        operator = re.match(r"operator\b\s*(\(\s*\)|[^\s(]+)?", header[k:]) if c == "o" and (
            k == 0 or not IDENTIFIER_CHAR.match(header[k - 1])) else None
        if operator and paren == 0 and angle == 0:
            return qualified_name_before(header, k) + re.sub(r"\s+", "", operator.group(0))
        if operator:
            k += len(operator.group(0))
            continue
        if c == "(":
            if paren == 0 and angle == 0:
                name = qualified_name_before(header, k)
                last = re.split(r"::", name)[-1].lstrip("~")
                if name and last not in NOT_A_NAME:
                    return name
            paren += 1
        elif c == ")":
            paren = max(0, paren - 1)
        elif c == "<" and paren == 0 and k > 0 and IDENTIFIER_CHAR.match(header[k - 1].strip() or " "):
            angle += 1
        elif c == ">" and paren == 0 and angle > 0:
            angle -= 1
        elif c == "=" and paren == 0 and angle == 0:
            return None
        k += 1
    return None


def qualified_name_before(header, end):
    """The (qualified, possibly templated) identifier ending just before index end, '' when none."""
    k = end
    while k > 0 and header[k - 1].isspace():
        k -= 1
    stop = k
    depth = 0
    while k > 0:
        c = header[k - 1]
        if c == ">":
            depth += 1
        elif c == "<" and depth:
            depth -= 1
        elif depth == 0 and not (IDENTIFIER_CHAR.match(c) or c in ":~"):
            break
        k -= 1
    return re.sub(r"\s+", "", header[k:stop]).lstrip(":")


def in_initializer_list(header):
    """True when header ends inside a constructor's initialiser list (`...) : a_(x), b_`)."""
    paren = 0
    closed_params = False
    k = 0
    while k < len(header):
        c = header[k]
        if c == "(":
            paren += 1
        elif c == ")":
            paren -= 1
            closed_params = closed_params or paren == 0
        elif c == ":" and paren == 0:
            if header.startswith("::", k):
                k += 2
                continue
            if closed_params:
                return True
        k += 1
    return False


def find_functions(code, start=0, end=None):
    """Yields (header start index, name, body close index) for each definition in code[start:end]."""
    end = len(code) if end is None else end
    header_start = start
    k = start
    while k < end:
        c = code[k]
        if c in ";}":
            header_start = k + 1
        elif c == "{":
            header = code[header_start:k]
            close = matching_brace(code, k)
            if re.search(r"[\w>]\s*$", header) and in_initializer_list(header):
                k = close + 1
                continue
            kind = header_kind(header)
            if kind in ("namespace", "class"):
                yield from find_functions(code, k + 1, close)
            elif kind == "function":
                signature = strip_access_labels(header)
                first = header_start + len(header) - len(signature.lstrip())
                name = function_name(strip_template_prefix(signature).strip())
                yield first, name, close
            k = close
            header_start = close + 1
        k += 1


def function_lengths(text):
    """[(first line, name, length in lines)] of the definitions in a C++ source text."""
    code = strip_code(text)
    line_starts = [0] + [m.end() for m in re.finditer("\n", code)]

    def line_of(index):
        low, high = 0, len(line_starts) - 1
        while low < high:
            middle = (low + high + 1) // 2
            if line_starts[middle] <= index:
                low = middle
            else:
                high = middle - 1
        return low + 1

    return [(line_of(first), name, line_of(close) - line_of(first) + 1)
            for first, name, close in find_functions(code)]


def source_files(root, folders, extensions):
    """The files under root/folder with one of the extensions, sorted, as paths relative to root."""
    for folder in folders:
        base = root / folder
        if not base.is_dir():
            raise FileNotFoundError(f"{base}: no such folder")
        for path in sorted(base.rglob("*")):
            if path.is_file() and path.suffix in extensions:
                yield path


def check(root, folders, max_function_lines, max_file_lines, function_extensions, file_extensions):
    """(long functions, long files): lines to print, one per offender."""
    long_functions, long_files = [], []
    for path in source_files(root, folders, set(function_extensions) | set(file_extensions)):
        text = path.read_text(encoding="utf-8", errors="replace")
        relative = path.relative_to(root).as_posix()
        if path.suffix in file_extensions:
            lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
            if lines > max_file_lines:
                long_files.append(f"{relative}: {lines} lines (limit {max_file_lines})")
        if path.suffix in function_extensions:
            for line, name, length in function_lengths(text):
                if length > max_function_lines:
                    long_functions.append(f"{relative}:{line}: {name}: {length} lines (limit {max_function_lines})")
    return long_functions, long_files


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", help="folders to check, relative to --root")
    parser.add_argument("--root", default=str(pathlib.Path(__file__).resolve().parent.parent))
    parser.add_argument("--max-function-lines", type=int, default=80)
    parser.add_argument("--max-file-lines", type=int, default=500)
    parser.add_argument("--function-extensions", default=",".join(DEFAULT_FUNCTION_EXTENSIONS))
    parser.add_argument("--file-extensions", default=",".join(DEFAULT_FILE_EXTENSIONS))
    parser.add_argument("--summary", action="store_true", help="print the counts on a last line")
    args = parser.parse_args(argv)
    try:
        long_functions, long_files = check(pathlib.Path(args.root), args.folders, args.max_function_lines,
                                           args.max_file_lines, args.function_extensions.split(","),
                                           args.file_extensions.split(","))
    except FileNotFoundError as error:
        print(f"function-lengths.py: {error}", file=sys.stderr)
        return 2
    for line in long_functions + long_files:
        print(line)
    if args.summary:
        print(f"{len(long_functions)} functions over {args.max_function_lines} lines, "
              f"{len(long_files)} files over {args.max_file_lines} lines in {' '.join(args.folders)}")
    return 1 if long_functions or long_files else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
