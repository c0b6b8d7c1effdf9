#!/usr/bin/env python3
"""Tests of scripts/function-lengths.py on small C++ texts: what counts as a function and how long it is."""
import importlib.util
import pathlib
import sys
import tempfile
import unittest

SCRIPT = pathlib.Path(__file__).resolve().parent.parent.parent / "scripts" / "function-lengths.py"
spec = importlib.util.spec_from_file_location("function_lengths", SCRIPT)
function_lengths = importlib.util.module_from_spec(spec)
spec.loader.exec_module(function_lengths)


def lengths(text):
    return [(name, line, length) for line, name, length in function_lengths.function_lengths(text)]


class FunctionLengths(unittest.TestCase):
    def test_one_line_and_plain_functions_inside_namespaces(self):
        text = ("// purpose\n#include <x>\nnamespace a {\nnamespace {\nint one() { return 1; }\n}  // namespace\n\n"
                "int two(int x) {\n  return x;\n}\n}  // namespace a\n")
        self.assertEqual(lengths(text), [("one", 5, 1), ("two", 8, 3)])

    def test_multi_line_signature_counts_from_its_first_line(self):
        text = ("// a comment before is not counted\nstd::vector<int> Planner::scan(const Options& options,\n"
                "                                 int count) const {\n  return {};\n}\n")
        self.assertEqual(lengths(text), [("Planner::scan", 2, 4)])

    def test_template_prefix_belongs_to_the_signature(self):
        text = "template <typename T, int N = 3>\nT twice(T x) {\n  return x + x;\n}\n"
        self.assertEqual(lengths(text), [("twice", 1, 4)])

    def test_constructor_initializer_lists_with_braces_and_parentheses(self):
        text = ("Foo::Foo(int a, std::vector<int> b)\n    : a_{a},\n      b_(std::move(b)),\n      c_{f(a), {1, 2}} {\n"
                "  check();\n}\nBar::Bar() : Base{} {}\n")
        self.assertEqual(lengths(text), [("Foo::Foo", 1, 6), ("Bar::Bar", 7, 1)])

    def test_lambdas_and_local_classes_belong_to_their_function(self):
        text = ("void run() {\n  auto f = [](int x) {\n    return x;\n  };\n  struct Local {\n    int g() { return 2; }\n"
                "  };\n}\n")
        self.assertEqual(lengths(text), [("run", 1, 8)])

    def test_class_members_are_functions_and_classes_are_not(self):
        text = ("class Handler : public Base {\n public:\n  void on(int x) override {\n    x_ = x;\n  }\n\n private:\n"
                "  int x_{0};\n};\nstruct Point {\n  double x;\n};\nenum class Kind : int { a, b };\n")
        self.assertEqual(lengths(text), [("on", 3, 3)])

    def test_tables_strings_and_comments_are_not_functions(self):
        text = ('const Row table[] = {\n    {"a{", 1},\n    {"}", 2},\n};\nconst char* raw = R"x(\n}\n{\n)x";\n'
                "const auto less = [](int a, int b) {\n  return a < b;\n};\n/* void f() {\n} */\nint n = 1'000;\n"
                "char brace = '{';\nint after() { return 0; }\n")
        self.assertEqual(lengths(text), [("after", 16, 1)])

    def test_operators_and_trailing_return_types(self):
        text = ("bool Foo::operator==(const Foo& other) const {\n  return true;\n}\nFoo& Foo::operator=(Foo&& other)"
                " noexcept {\n  return *this;\n}\nauto Foo::operator()(int x) const -> int {\n  return x;\n}\n"
                "std::function<void(int)> make() {\n  return {};\n}\nextern \"C\" {\nint c_entry() { return 0; }\n}\n")
        self.assertEqual(lengths(text), [("Foo::operator==", 1, 3), ("Foo::operator=", 4, 3),
                                         ("Foo::operator()", 7, 3), ("make", 10, 3), ("c_entry", 14, 1)])


class Check(unittest.TestCase):
    def test_offenders_are_named_with_file_line_name_and_length(self):
        with tempfile.TemporaryDirectory() as root:
            folder = pathlib.Path(root) / "lib"
            folder.mkdir()
            body = "".join(f"  x += {k};\n" for k in range(5))
            (folder / "long.cpp").write_text(f"// purpose\nint sum() {{\n  int x = 0;\n{body}  return x;\n}}\n")
            (folder / "short.cpp").write_text("// purpose\nint one() { return 1; }\n")
            (folder / "big.hpp").write_text("// purpose\n" + "\n" * 20)
            functions, files = function_lengths.check(pathlib.Path(root), ["lib"], 6, 20, [".cpp"], [".cpp", ".hpp"])
            self.assertEqual(functions, ["lib/long.cpp:2: sum: 9 lines (limit 6)"])
            self.assertEqual(files, ["lib/big.hpp: 21 lines (limit 20)"])
            self.assertEqual(function_lengths.main(["--root", root, "--max-function-lines", "9",
                                                    "--max-file-lines", "21", "lib"]), 0)
            self.assertEqual(function_lengths.main(["--root", root, "--max-function-lines", "8", "lib"]), 1)
            self.assertEqual(function_lengths.main(["--root", root, "missing"]), 2)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=1)
